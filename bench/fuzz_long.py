"""Long fuzzing run: the generators of tests/fuzz/ with random seeds for a given time, one case at a time.

    python bench/fuzz_long.py --seconds 900            # default 3600
    python bench/fuzz_long.py --seeds 0-299            # exactly the CI cases, e.g. to check a fix

Prints counts per outcome (exit code), per command and per base model, then every problem (exit 70, traceback,
hang, crash, a message that is not one paragraph, a half-written or mixed OUTDIR) with the seed that reproduces it:
`make_case(seed)` in tests/fuzz/cases.py rebuilds the case exactly. Exits 1 when any problem was found.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from fuzz.cases import make_case, run_case  # noqa: E402

import mcucomp.cli  # noqa: E402,F401  (imported once, so forked cases start warm)
import mcucomp.pipeline  # noqa: E402,F401


def _one_line(text: str) -> str:
    """text on one line (compiler output spans many)."""
    return " | ".join(line.strip() for line in text.splitlines())


def _seeds(args: argparse.Namespace):
    """The seeds to run: a fixed range, or random 63-bit seeds until the time is up."""
    if args.seeds:
        low, _, high = args.seeds.partition("-")
        yield from range(int(low), int(high or low) + 1)
        return
    rng = random.Random(args.master_seed)
    while True:
        yield rng.getrandbits(63)


def main() -> int:
    """Run cases, then print the summary; exit 1 when a problem was found."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3600.0, help="how long to run (default 3600)")
    parser.add_argument("--seeds", help="run exactly these seeds, e.g. 0-299, instead of random ones")
    parser.add_argument("--master-seed", type=int, default=None, help="seed of the random seeds (default: random)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds one case may take (default 60)")
    args = parser.parse_args()
    start = time.monotonic()
    outcomes = collections.Counter()
    by_command = collections.Counter()
    by_base = collections.Counter()
    problems = []
    slowest = (0.0, None)
    count = 0
    with tempfile.TemporaryDirectory(prefix="mcucomp-fuzz-") as tmp:
        for seed in _seeds(args):
            if not args.seeds and time.monotonic() - start > args.seconds:
                break
            case = make_case(seed)
            outcome = run_case(case, Path(tmp) / "case", args.timeout)
            count += 1
            key = "problem" if outcome.problem else f"exit {outcome.exit_code}"
            outcomes[key] += 1
            by_command[f"{case.argv[0]} -> {key}"] += 1
            by_base[case.base] += 1
            slowest = max(slowest, (outcome.seconds, seed), key=lambda s: s[0])
            if outcome.problem:
                problems.append(outcome)
                print(f"PROBLEM {_one_line(outcome.problem)[:300]} -- {_one_line(outcome.reproduce())[:600]}",
                      flush=True)
            if count % 100 == 0:
                print(f"{count} cases, {time.monotonic() - start:.0f} s, {len(problems)} problems", flush=True)
    elapsed = time.monotonic() - start
    print(f"\nfuzz_long: {count} cases in {elapsed:.0f} s ({count / max(elapsed, 1e-9):.2f} cases/s), "
          f"slowest case {slowest[0]:.1f} s (seed {slowest[1]})")
    print("outcomes:  " + ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items())))
    print("commands:  " + ", ".join(f"{k}: {v}" for k, v in sorted(by_command.items())))
    print("bases:     " + ", ".join(f"{Path(k).stem}: {v}" for k, v in sorted(by_base.items())))
    kinds = collections.Counter(p.problem.split(":")[0][:60] for p in problems)
    print(f"problems:  {len(problems)}" + ("" if not problems else " (" + ", ".join(
        f"{k}: {v}" for k, v in kinds.most_common()) + ")"))
    for p in problems:
        print(f"  {_one_line(p.problem)[:200]} -- {_one_line(p.reproduce())[:400]}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
