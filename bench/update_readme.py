"""Regenerate README.md's sample outputs by running each marked command: `python bench/update_readme.py`.

A sample in README.md is

    <!-- sample: mcucomp analyze examples/tiny_cnn.onnx -->
    ```
    $ mcucomp analyze examples/tiny_cnn.onnx
    (the command's output)
    ```
    <!-- /sample -->

Each command runs as `python -m mcucomp ARGS` (this checkout's package) in a scratch directory holding a link to
examples/, so the files it writes stay out of the tree. The scratch directory's path, the only part of the output
that differs from run to run, is removed from the output (`into /tmp/x/out/m` becomes `into out/m`). A command
that fails shows its stderr and `[exit code N]`. `--check` rewrites nothing and exits 1 when a sample is stale
(tests/test_readme.py does the same).
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
SAMPLE = re.compile(r"<!-- sample: (?P<command>[^\n]+?) -->\n(?P<block>.*?)<!-- /sample -->\n", re.S)


def sample_commands(text: str) -> list[str]:
    """The commands of the samples in a README text, in order."""
    return [m.group("command") for m in SAMPLE.finditer(text)]


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


def render(command: str, output: str) -> str:
    """The marked block for a command and its output."""
    return f"<!-- sample: {command} -->\n```\n$ {command}\n{output.rstrip()}\n```\n<!-- /sample -->\n"


def refresh(text: str, outputs: dict[str, str]) -> str:
    """text with every sample block rendered from outputs (command → output)."""
    return SAMPLE.sub(lambda m: render(m.group("command"), outputs[m.group("command")]), text)


def stale_samples(text: str, outputs: dict[str, str]) -> list[str]:
    """The commands whose block in text differs from the one outputs renders."""
    return [m.group("command") for m in SAMPLE.finditer(text)
            if m.group(0) != render(m.group("command"), outputs[m.group("command")])]


def main(argv: list[str] | None = None) -> int:
    """Rewrite README.md's samples (or, with --check, list the stale ones and exit 1)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="rewrite nothing; exit 1 when a sample is stale")
    args = parser.parse_args(argv)
    text = README.read_text()
    outputs = {command: run_sample(command) for command in dict.fromkeys(sample_commands(text))}
    stale = stale_samples(text, outputs)
    if args.check:
        for command in stale:
            print(f"stale sample: {command}")
        return 1 if stale else 0
    README.write_text(refresh(text, outputs))
    print(f"{len(outputs)} samples run, {len(stale)} updated" + "".join(f"\n  {c}" for c in stale))
    return 0


if __name__ == "__main__":
    sys.exit(main())
