"""Regenerate the sample outputs of README.md and docs/*.md and the generated tables of BENCHMARKS.md by running
each marked command: `python bench/update_readme.py`.

A sample (README.md, docs/*.md) is

    <!-- sample: mcucomp analyze examples/tiny_cnn.onnx -->
    ```
    $ mcucomp analyze examples/tiny_cnn.onnx
    (the command's output)
    ```
    <!-- /sample -->

Each command runs as `python -m mcucomp ARGS` (this checkout's package) in a scratch directory holding a link to
examples/, so the files it writes stay out of the tree. The scratch directory's path, the only part of the output
that differs from run to run, is removed from the output (`into /tmp/x/out/m` becomes `into out/m`). A command
that fails shows its stderr and `[exit code N]`.

A generated section (any of those files, BENCHMARKS.md) is

    <!-- generated: python bench/onnx_node_suite.py --markdown -->
    (the script's stdout, a markdown table rendered from committed results)
    <!-- /generated -->

and runs `python bench/SCRIPT ARGS` from the checkout. It is for commands that take seconds; figures that take
minutes to measure (the cycle simulator, estimator fits, fuzzing) sit between `<!-- recorded: COMMAND -->` and
`<!-- /recorded -->`: nothing reruns them, and `recorded_problems` only checks that the command names a bench
script and options it has, and that the block holds a table.

`--check` rewrites nothing and exits 1 when a sample or generated section is stale (tests/test_readme.py does the
same).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BENCHMARKS = ROOT / "BENCHMARKS.md"
SAMPLE = re.compile(r"<!-- sample: (?P<command>[^\n]+?) -->\n(?P<block>.*?)<!-- /sample -->\n", re.S)
GENERATED = re.compile(r"<!-- generated: (?P<command>[^\n]+?) -->\n(?P<block>.*?)<!-- /generated -->\n", re.S)
RECORDED = re.compile(r"<!-- recorded: (?P<command>[^\n]+?) -->\n(?P<block>.*?)<!-- /recorded -->\n", re.S)


def documents() -> list[Path]:
    """The files whose samples and generated sections are kept current: README.md, docs/*.md, BENCHMARKS.md."""
    return [README, *sorted((ROOT / "docs").glob("*.md")), BENCHMARKS]


def sample_commands(text: str) -> list[str]:
    """The commands of the samples in a text, in order."""
    return [m.group("command") for m in SAMPLE.finditer(text)]


def generated_commands(text: str) -> list[str]:
    """The commands of the generated sections in a text, in order."""
    return [m.group("command") for m in GENERATED.finditer(text)]


def run_sample(command: str) -> str:
    """The normalised output of one sample command (stdout; stderr and the exit code too when it fails)."""
    argv = shlex.split(command)
    if argv[0] != "mcucomp":
        raise ValueError(f"sample command must start with 'mcucomp': {command!r}")
    with tempfile.TemporaryDirectory(prefix="mcucomp-readme-") as tmp:
        (Path(tmp) / "examples").symlink_to(ROOT / "examples")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([sys.executable, "-m", "mcucomp", *argv[1:]], cwd=tmp, env=env, capture_output=True,
                              text=True)
        output = proc.stdout
        if proc.returncode != 0:
            output += proc.stderr + f"[exit code {proc.returncode}]\n"
        real = os.path.realpath(tmp)
        for prefix in {real, tmp}:
            output = output.replace(prefix + os.sep, "")
    return output


def bench_script(command: str) -> tuple[Path, list[str]]:
    """The bench script a `python bench/SCRIPT ARGS` command runs, and its arguments."""
    argv = shlex.split(command)
    if len(argv) < 2 or argv[0] != "python" or not re.fullmatch(r"bench/\w+\.py", argv[1]):
        raise ValueError(f"generated or recorded command must be 'python bench/SCRIPT.py ...': {command!r}")
    return ROOT / argv[1], argv[2:]


def run_generated(command: str) -> str:
    """The stdout of one generated section's command, run from the checkout; a failure raises with its stderr."""
    script, args = bench_script(command)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(script), *args], cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{command} exited {proc.returncode}: {proc.stderr.strip()}")
    return proc.stdout


def render(command: str, output: str) -> str:
    """The marked block for a sample command and its output."""
    return f"<!-- sample: {command} -->\n```\n$ {command}\n{output.rstrip()}\n```\n<!-- /sample -->\n"


def render_generated(command: str, output: str) -> str:
    """The marked block for a generated section's command and its output."""
    return f"<!-- generated: {command} -->\n{output.strip()}\n<!-- /generated -->\n"


def refresh(text: str, outputs: dict[str, str]) -> str:
    """text with every sample block and generated section rendered from outputs (command → output)."""
    text = SAMPLE.sub(lambda m: render(m.group("command"), outputs[m.group("command")]), text)
    return GENERATED.sub(lambda m: render_generated(m.group("command"), outputs[m.group("command")]), text)


def stale_samples(text: str, outputs: dict[str, str]) -> list[str]:
    """The commands whose sample block or generated section in text differs from the one outputs renders."""
    return ([m.group("command") for m in SAMPLE.finditer(text)
             if m.group(0) != render(m.group("command"), outputs[m.group("command")])]
            + [m.group("command") for m in GENERATED.finditer(text)
               if m.group(0) != render_generated(m.group("command"), outputs[m.group("command")])])


def recorded_problems(text: str) -> list[str]:
    """What is wrong with the markers of a text: unpaired markers, and recorded sections whose command is not a bench
    script, names an option the script does not define, or that hold no table."""
    problems = [f"{kind}: {text.count(f'<!-- {kind}: ')} openers, {text.count(f'<!-- /{kind} -->')} closers"
                for kind in ("sample", "generated", "recorded")
                if text.count(f"<!-- {kind}: ") != text.count(f"<!-- /{kind} -->")]
    for m in RECORDED.finditer(text):
        command = m.group("command")
        try:
            script, args = bench_script(command)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        if not script.is_file():
            problems.append(f"{command}: no {script.relative_to(ROOT)}")
            continue
        source = script.read_text()
        problems += [f"{command}: {script.name} defines no {opt}" for opt in args
                     if opt.startswith("--") and f'"{opt.split("=")[0]}"' not in source]
        if not re.search(r"^\|.*\|$", m.group("block"), re.M):
            problems.append(f"{command}: the recorded section holds no table")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Rewrite the samples and generated sections (or, with --check, list the stale ones and exit 1)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="rewrite nothing; exit 1 when a sample is stale")
    args = parser.parse_args(argv)
    texts = {path: path.read_text() for path in documents()}
    outputs: dict[str, str] = {}
    for text in texts.values():
        outputs.update({c: run_sample(c) for c in dict.fromkeys(sample_commands(text)) if c not in outputs})
        outputs.update({c: run_generated(c) for c in dict.fromkeys(generated_commands(text)) if c not in outputs})
    stale = {path: stale_samples(text, outputs) for path, text in texts.items()}
    problems = {path: recorded_problems(text) for path, text in texts.items()}
    for path, found in problems.items():
        for problem in found:
            print(f"{path.relative_to(ROOT)}: {problem}")
    if args.check:
        for path, commands in stale.items():
            for command in commands:
                print(f"{path.relative_to(ROOT)}: stale: {command}")
        return 1 if any(stale.values()) or any(problems.values()) else 0
    for path, text in texts.items():
        if stale[path]:
            path.write_text(refresh(text, outputs))
    updated = [f"\n  {path.relative_to(ROOT)}: {c}" for path, commands in stale.items() for c in commands]
    print(f"{len(outputs)} samples and generated sections run, {len(updated)} updated" + "".join(updated))
    return 1 if any(problems.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
