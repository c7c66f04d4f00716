"""README.md stays true for a new user: every sample output is what its command prints today (rerun here; refresh
with `python bench/update_readme.py`), the first command installs no torch, and the documented commands, options
and exit codes are the real ones."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

from mcucomp import cli
from mcucomp.errors import FitError, McucompError, OptionError, UnsupportedError, VerifyError

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
_spec = importlib.util.spec_from_file_location("update_readme", ROOT / "bench" / "update_readme.py")
update_readme = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(update_readme)


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    """Every README sample command run once: command → normalised output."""
    return {c: update_readme.run_sample(c) for c in dict.fromkeys(update_readme.sample_commands(README))}


def test_samples_cover_the_commands_a_new_user_runs():
    commands = update_readme.sample_commands(README)
    for needed in ("mcucomp compile examples/tiny_cnn.onnx -o out/tiny_cnn", "mcucomp analyze examples/tiny_cnn.onnx",
                   "mcucomp verify examples/tiny_cnn.onnx --inputs 100", "mcucomp boards"):
        assert needed in commands
    assert any(c.startswith("mcucomp build-target ") for c in commands)
    assert any(c.startswith("mcucomp verify ") and "--on-target" in c for c in commands)
    assert README.count("<!-- sample: ") == README.count("<!-- /sample -->") == len(commands)


def test_readme_samples_are_current(outputs):
    stale = update_readme.stale_samples(README, outputs)
    assert not stale, f"README samples out of date (run `python bench/update_readme.py`): {stale}"


def test_a_stale_sample_is_caught(outputs):
    """The check fails on a real difference: one changed number, one dropped line, an old option name."""
    command = "mcucomp analyze examples/tiny_cnn.onnx"
    block = re.search(r"<!-- sample: " + re.escape(command) + r" -->\n.*?<!-- /sample -->\n", README, re.S).group(0)
    for mutated in (re.sub(r"(arena: +)([\d,]+)", r"\g<1>1\2", block, count=1),
                    "\n".join(line for line in block.splitlines() if not line.startswith("  flash")) + "\n",
                    block.replace("<- peak", "<-- peak")):
        assert mutated != block
        assert update_readme.stale_samples(README.replace(block, mutated), outputs) == [command]
    refreshed = update_readme.refresh(README.replace(block, "<!-- sample: " + command + " -->\n<!-- /sample -->\n"),
                                      outputs)
    assert refreshed == README


def test_sample_output_is_normalised_only_for_the_scratch_directory(outputs):
    compiled = outputs["mcucomp compile examples/tiny_cnn.onnx -o out/tiny_cnn"]
    assert "compiled 'tiny_cnn' for nucleo-l4r5zi into out/tiny_cnn\n" in compiled
    assert "/tmp" not in "".join(outputs.values()) and "mcucomp-readme-" not in "".join(outputs.values())


def test_exit_code_4_sample_shows_the_fit_error(outputs):
    failing = [c for c in outputs if outputs[c].endswith(f"[exit code {FitError.exit_code}]\n")]
    assert failing and "does not fit board" in outputs[failing[0]]


def test_first_command_installs_no_torch():
    first = re.search(r"```sh\n(.*?)\n```", README, re.S).group(1)
    extras = re.search(r"pip install -e '\.\[([\w,]+)\]'", first).group(1).split(",")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    optional = project["optional-dependencies"]

    def requirements(extra: str) -> list[str]:
        """An extra's requirements with the extras it includes (mcucomp[...]) expanded."""
        out = []
        for req in optional[extra]:
            nested = re.fullmatch(r"mcucomp\[([\w,]+)\]", req)
            out += [r for e in nested.group(1).split(",") for r in requirements(e)] if nested else [req]
        return out

    def names(reqs: list[str]) -> set[str]:
        """Distribution names of requirement strings."""
        return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in reqs}

    installed = names(project["dependencies"]) | {n for e in extras for n in names(requirements(e))}
    assert "test" not in extras and "torch" not in installed and "onnxruntime" in installed
    assert [e for e in optional if "torch" in names(requirements(e))] == ["test"]
    assert "torch" not in first


def test_every_documented_exit_code_is_real():
    text = README[README.index("- Exit codes:"):]
    text = text[:text.index("\n\n")]
    codes = {int(c) for c in re.findall(r"(?:^|[;:] )(\d+) ", text)}
    assert codes == {0, McucompError.exit_code, OptionError.exit_code, UnsupportedError.exit_code,
                     VerifyError.exit_code, FitError.exit_code, cli.EXIT_INTERNAL}
    assert "--no-fit-check" in text


def test_documented_options_exist():
    parser = cli.build_parser()
    commands = parser._subparsers._group_actions[0].choices
    for command in ("compile", "show", "verify", "analyze", "boards", "build-target"):
        assert f"mcucomp {command}" in README
    scripts = r"python bench/\S+(?: --[a-z-]+)*"  # the options of bench scripts are theirs, not mcucomp's
    flags = set(re.findall(r"(--[a-z][a-z-]+)", re.sub(scripts, "", README)))
    known = {opt for sub in commands.values() for action in sub._actions for opt in action.option_strings}
    assert flags <= known, flags - known
