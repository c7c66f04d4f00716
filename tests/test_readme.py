"""README.md, docs/ and BENCHMARKS.md stay true for a new user: every sample output and every generated table is what
its command prints today (rerun here; refresh with `python bench/update_readme.py`), recorded tables name real bench
scripts and options, the first command installs no torch, and the documented commands, options and exit codes are
the real ones."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

import mcucomp
from mcucomp import cli
from mcucomp.errors import FitError, McucompError, OptionError, UnsupportedError, VerifyError

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
#: The reference pages that document mcucomp's own commands and options (docs/CLI.md holds the exit codes).
REFERENCE = ("CLI.md", "INT8.md", "MEMORY.md", "CYCLES.md", "BOARDS.md", "NPU.md")
_spec = importlib.util.spec_from_file_location("update_readme", ROOT / "bench" / "update_readme.py")
update_readme = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(update_readme)


def texts() -> dict[str, str]:
    """Every document update_readme keeps current, by path relative to the checkout."""
    return {str(path.relative_to(ROOT)): path.read_text() for path in update_readme.documents()}


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    """Every sample and generated-section command of every document run once: command → output."""
    out: dict[str, str] = {}
    for text in texts().values():
        out.update({c: update_readme.run_sample(c) for c in update_readme.sample_commands(text) if c not in out})
        out.update({c: update_readme.run_generated(c) for c in update_readme.generated_commands(text) if c not in out})
    return out


def test_samples_cover_the_commands_a_new_user_runs():
    readme = update_readme.sample_commands(README)
    for needed in ("mcucomp compile examples/tiny_cnn.onnx -o out/tiny_cnn", "mcucomp analyze examples/tiny_cnn.onnx",
                   "mcucomp verify examples/tiny_cnn.onnx --inputs 100"):
        assert needed in readme
    commands = [c for text in texts().values() for c in update_readme.sample_commands(text)]
    assert "mcucomp boards" in commands
    assert any(c.startswith("mcucomp build-target ") for c in commands)
    assert any(c.startswith("mcucomp verify ") and "--on-target" in c for c in commands)


def test_samples_and_generated_sections_are_current(outputs):
    stale = {path: found for path, text in texts().items() if (found := update_readme.stale_samples(text, outputs))}
    assert not stale, f"samples or generated sections out of date (run `python bench/update_readme.py`): {stale}"


def test_markers_pair_and_recorded_sections_name_real_commands():
    problems = {path: found for path, text in texts().items() if (found := update_readme.recorded_problems(text))}
    assert not problems, problems
    benchmarks = texts()["BENCHMARKS.md"]
    assert update_readme.generated_commands(benchmarks) and update_readme.RECORDED.search(benchmarks)


def test_a_broken_recorded_section_is_caught():
    """An unknown script, an option the script lacks, a block without a table and an unclosed marker are reported."""
    table = "| a |\n|---|\n| 1 |\n"
    for command, block in (("python bench/no_such_bench.py", table), ("python bench/bench_cycles.py --no-such", table),
                           ("python bench/bench_cycles.py --json F", "no table\n")):
        text = f"<!-- recorded: {command} -->\n{block}<!-- /recorded -->\n"
        assert len(update_readme.recorded_problems(text)) == 1, command
    assert update_readme.recorded_problems(f"<!-- recorded: python bench/bench_cycles.py -->\n{table}") != []
    assert update_readme.recorded_problems(f"<!-- recorded: python bench/bench_cycles.py --json F -->\n{table}"
                                           "<!-- /recorded -->\n") == []


def test_a_stale_generated_section_is_caught(outputs):
    benchmarks = texts()["BENCHMARKS.md"]
    match = update_readme.GENERATED.search(benchmarks)
    block, command = match.group(0), match.group("command")
    mutated = block.replace("|---", "|:--", 1)
    assert mutated != block
    assert update_readme.stale_samples(benchmarks.replace(block, mutated), outputs) == [command]
    emptied = f"<!-- generated: {command} -->\n<!-- /generated -->\n"
    assert update_readme.refresh(benchmarks.replace(block, emptied), outputs) == benchmarks


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


def test_c_api_excerpt_is_the_generated_header(tmp_path):
    """The README's ten lines of C API: each #define and the prototype are in the header `compile` writes."""
    block = re.search(r"## Generated C API\n```c\n(.*?)\n```", README, re.S).group(1)
    assert len(block.splitlines()) <= 10
    header = (mcucomp.compile_model(ROOT / "examples" / "tiny_cnn.onnx", tmp_path / "m", name="tiny_cnn").out_dir
              / "tiny_cnn.h").read_text()
    excerpt = block.split("\n\n")[0].splitlines()[1:]  # the header's lines, below their comment
    declared = [line.split("/*")[0].strip() for line in excerpt]
    assert len(declared) == 4 and all(re.sub(r"\s+", " ", d) in re.sub(r"[ \t]+", " ", header) for d in declared)
    uses = set(re.findall(r"TINY_CNN_\w+", block)) - {"TINY_CNN_ERR_"}  # TINY_CNN_ERR_* names the family
    assert uses <= set(re.findall(r"#define (TINY_CNN_\w+)", header)), uses


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
    cli_doc = (ROOT / "docs" / "CLI.md").read_text()
    text = cli_doc[cli_doc.index("- Exit codes:"):]
    text = text[:text.index("\n\n")]
    codes = {int(c) for c in re.findall(r"(?:^|[;:] )(\d+) ", text)}
    assert codes == {0, McucompError.exit_code, OptionError.exit_code, UnsupportedError.exit_code,
                     VerifyError.exit_code, FitError.exit_code, cli.EXIT_INTERNAL}
    assert "--no-fit-check" in text


def test_documented_options_exist():
    parser = cli.build_parser()
    commands = parser._subparsers._group_actions[0].choices
    for command in ("compile", "show", "verify", "analyze", "boards", "build-target", "profile"):
        assert f"mcucomp {command}" in README
    scripts = r"python bench/\S+(?: --[a-z-]+)*"  # the options of bench scripts are theirs, not mcucomp's
    known = {opt for sub in commands.values() for action in sub._actions for opt in action.option_strings}
    for name in ("README.md", *(f"docs/{doc}" for doc in REFERENCE)):
        flags = set(re.findall(r"(--[a-z][a-z-]+)", re.sub(scripts, "", (ROOT / name).read_text())))
        assert flags <= known, (name, flags - known)
