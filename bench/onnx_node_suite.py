"""Run the ONNX backend node tests through mcucomp and report pass / fail / unsupported.

    python bench/onnx_node_suite.py                   # all 1,884 cases, a summary and the wall time
    python bench/onnx_node_suite.py -k 'test_conv'    # cases whose name matches a regex
    python bench/onnx_node_suite.py --update          # also rewrite tests/onnx_node/status.tsv, expected_pass.txt
                                                      # and docs/SUPPORTED_OPS.md from this run
    python bench/onnx_node_suite.py --markdown        # run nothing: the committed outcomes as a table (BENCHMARKS.md)

Each case: compile, build the generated C on the host, run the test's inputs, compare (tests/onnx_node/runner.py).
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from onnx_node import status_file  # noqa: E402
from onnx_node.runner import all_cases, run_case  # noqa: E402


def _run_named(name: str):
    """Pool worker: run one case by name."""
    return run_case(all_cases()[name])


def outcome_table() -> str:
    """The committed outcome of every node test (tests/onnx_node/status.tsv) as a markdown table of counts."""
    counts = collections.Counter(status for status, _ in status_file.read().values())
    rows = [("pass", counts["pass"]), ("fail (wrong numbers or a crash)", counts["fail"]),
            ("unsupported, with the compiler's error", counts["unsupported"]), ("all node tests", sum(counts.values()))]
    return "\n".join(["| outcome | node tests |", "|---|---:|", *(f"| {label} | {n:,} |" for label, n in rows)])


def main(argv=None) -> int:
    """Run the selected cases in parallel and print the summary."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-k", default="", help="regex on test names")
    parser.add_argument("-j", type=int, default=os.cpu_count(), help="worker processes")
    parser.add_argument("--update", action="store_true", help="rewrite status.tsv, expected_pass.txt and the docs")
    parser.add_argument("--show", default="fail", help="list cases with these statuses (comma separated)")
    parser.add_argument("--markdown", action="store_true", help="print the committed outcomes as a table, run nothing")
    args = parser.parse_args(argv)
    if args.markdown:
        print(outcome_table())
        return 0
    names = [n for n in all_cases() if re.search(args.k, n)]
    start = time.monotonic()
    with multiprocessing.get_context("fork").Pool(args.j) as pool:
        results = sorted(pool.imap_unordered(_run_named, names, chunksize=4), key=lambda r: r.name)
    wall = time.monotonic() - start
    counts = collections.Counter(r.status for r in results)
    shown = set(args.show.split(","))
    for r in results:
        if r.status in shown:
            print(f"{r.status:12} {r.name}: {r.reason}")
    print(f"{len(results)} cases in {wall:.0f} s with {args.j} workers: "
          + ", ".join(f"{counts[s]} {s}" for s in ("pass", "fail", "unsupported")))
    if args.update:
        if args.k:
            parser.error("--update needs the whole suite (no -k)")
        status_file.write(results)
        from onnx_node.supported_ops import write_doc

        write_doc()
        print(f"wrote {status_file.STATUS.relative_to(REPO)}, {status_file.EXPECTED.relative_to(REPO)} "
              "and docs/SUPPORTED_OPS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
