"""Fuzz cases from a seed, and running one: mutated real model + CLI command → outcome and any problem found.

A case runs `mcucomp.cli.main` in a forked child (in-process code, but a hang, a crash or a memory blow-up cannot take
the test worker with it) or, for a sample, as a real `python -m mcucomp` subprocess. Its OUTDIR is pre-populated with
a user's sentinel file and a previous compile's files; some compile cases also find a file mcucomp did not write under
a name the compile writes (FOREIGN_FILES): without --force that compile must fail and change nothing. A failed command
must leave OUTDIR exactly as it was, a successful compile must leave exactly its own files plus the sentinel."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import onnx

from . import mutations

REPO = Path(__file__).resolve().parents[2]
SHARED_BASES = ("mlperf_tiny/kws_dscnn_qdq.onnx", "mlperf_tiny/kws_dscnn_qop.onnx",
                "mlperf_tiny/ic_resnet8_qdq.onnx", "mlperf_tiny/ic_resnet8_qop.onnx")
EXAMPLE_BASE = "examples/tiny_cnn.onnx"
#: Exit codes a fuzzed command may end with (3, verification mismatch, needs `verify`; 70 is a bug).
ALLOWED_EXIT_CODES = (0, 1, 2, 4)
SENTINEL = "user_notes.txt"
#: Files of the user's a compile case may find in OUTDIR under names it writes (the model file is model.onnx, so the
#: compile's stem is 'model'): its own C source, a report.json without mcucomp's manifest, the previous compile's
#: report.json edited by hand.
FOREIGN_FILES = ("user_source", "user_report", "edited_report")
#: Address-space limit of a case's child process: a mutation that makes mcucomp allocate more is a finding.
MEMORY_LIMIT_BYTES = 6 << 30


@dataclass
class Case:
    """One fuzz case: the mutated model's bytes, the command line (MODEL and OUTDIR placeholders) and how it was
    made."""

    seed: int
    base: str
    model: bytes
    argv: list[str]
    steps: list[str] = field(default_factory=list)
    host_build: bool = False
    foreign: str | None = None  # one of FOREIGN_FILES placed in OUTDIR, or None

    @property
    def writes_output(self) -> bool:
        """True for commands that publish into OUTDIR."""
        return self.argv[0] == "compile"


@dataclass
class Outcome:
    """What running a case gave: exit code, stderr, seconds, and the problem found (None when it behaved)."""

    seed: int
    exit_code: int | None
    stderr: str
    seconds: float
    problem: str | None
    steps: list[str]
    argv: list[str]

    def reproduce(self) -> str:
        """How to reproduce this case."""
        return f"seed {self.seed}: {' '.join(self.argv)}; mutations: {'; '.join(self.steps)}"


@lru_cache(maxsize=1)
def base_models() -> dict[str, bytes]:
    """The real models the fuzzer mutates, by name; a missing shared model fails the run with a message."""
    from shared_models import shared_model

    models = {rel: shared_model(rel).read_bytes() for rel in SHARED_BASES}
    models[EXAMPLE_BASE] = (REPO / EXAMPLE_BASE).read_bytes()
    return models


@lru_cache(maxsize=1)
def _board_ids() -> tuple[str, ...]:
    """Bundled board ids (for --board)."""
    from mcucomp.boards import board_ids

    return tuple(board_ids())


def _mutate_bytes(rng: random.Random, raw: bytes, other: bytes, steps: list[str]) -> bytes:
    """One or two byte-level mutations."""
    for _ in range(rng.randint(1, 2)):
        if not raw:
            break
        if rng.random() < 0.2:
            raw, text = mutations.splice(rng, raw, other)
        else:
            raw, text = rng.choice(mutations.BYTE_MUTATIONS)(rng, raw)
        steps.append(text)
    return raw


def _mutate_structure(rng: random.Random, raw: bytes, steps: list[str]) -> bytes:
    """Zero to three protobuf-level mutations (zero: the real model, for the option mutations to work on)."""
    model = onnx.ModelProto()
    model.ParseFromString(raw)
    mutators, weights = zip(*mutations.STRUCTURAL_MUTATIONS)
    for _ in range(rng.choice((0, 1, 1, 1, 2, 3))):
        mutate = rng.choices(mutators, weights)[0]
        steps.append(f"{mutate.__name__}: {mutate(rng, model)}")
    return model.SerializeToString()


def _command(rng: random.Random) -> list[str]:
    """A command line with MODEL / OUTDIR placeholders: mostly analyze, then compile, then show; sometimes options."""
    pick = rng.random()
    argv = (["analyze", "MODEL"] if pick < 0.5 else ["compile", "MODEL", "-o", "OUTDIR"] if pick < 0.85
            else ["show", "MODEL"])
    if rng.random() < 0.25:
        argv += rng.choice([["--io", "caller"], ["--requant", "fixed"], ["--board", rng.choice(_board_ids())]]
                           if argv[0] != "show" else [["--requant", "fixed"]])
    if argv[0] != "show" and rng.random() < 0.2:
        argv.append("--no-fit-check")
    return argv


def make_case(seed: int) -> Case:
    """The case for a seed: a base model, its mutations and a command, all drawn from random.Random(seed)."""
    rng = random.Random(seed)
    models = base_models()
    base = rng.choice(sorted(models))
    raw = models[base]
    steps: list[str] = []
    if rng.random() < 0.2:
        other = models[rng.choice(sorted(models))]
        raw = _mutate_bytes(rng, raw, other, steps)
    else:
        raw = _mutate_structure(rng, raw, steps)
    argv = _command(rng)
    if rng.random() < 0.25:
        original = onnx.ModelProto()
        original.ParseFromString(models[base])
        extra = mutations.shape_option(rng, original)
        argv += extra
        steps.append(f"option {' '.join(extra)}")
    foreign = None
    if argv[0] == "compile" and rng.random() < 0.3:
        foreign = rng.choice(FOREIGN_FILES)
        steps.append(f"OUTDIR holds the user's {foreign}")
        if rng.random() < 0.5:
            argv.append("--force")
    return Case(seed, base, raw, argv, steps, host_build=argv[0] == "compile" and seed % 10 == 0, foreign=foreign)


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every entry under directory: file bytes by relative path (b'<dir>' for directories)."""
    if not directory.exists():
        return {}
    return {str(p.relative_to(directory)): (p.read_bytes() if p.is_file() and not p.is_symlink() else b"<dir>")
            for p in sorted(directory.rglob("*"))}


@lru_cache(maxsize=1)
def _previous_compile() -> dict[str, bytes]:
    """The files of a previous compile (tiny_cnn as 'm'), which pre-populate every OUTDIR."""
    from mcucomp.pipeline import compile_model

    import tempfile

    with tempfile.TemporaryDirectory(prefix="mcucomp-fuzz-prev-") as tmp:
        compile_model(REPO / EXAMPLE_BASE, Path(tmp) / "out", name="m")
        return snapshot(Path(tmp) / "out")


def _prepare(case: Case, workdir: Path) -> tuple[Path, Path, list[str]]:
    """Write the model, pre-populate OUTDIR; return their paths and the real argv."""
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    model = workdir / "model.onnx"
    model.write_bytes(case.model)
    out = workdir / "out"
    out.mkdir()
    for name, data in _previous_compile().items():
        (out / name).write_bytes(data)
    (out / SENTINEL).write_text("a file the user keeps here\n")
    if case.foreign == "user_source":
        (out / "model.c").write_text("/* the user's own model.c */\n")
    elif case.foreign == "user_report":
        (out / "report.json").write_text('{"accuracy": 0.91}\n')
    elif case.foreign == "edited_report":
        with open(out / "report.json", "a") as report:
            report.write("\n")
    argv = [str(model) if a == "MODEL" else str(out) if a == "OUTDIR" else a for a in case.argv]
    return model, out, argv


def _child(argv: list[str], result: Path, out: Path, host_build: bool) -> None:
    """Forked child: run main() with stdout/stderr captured, optionally build the output on the host; write JSON."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    os.environ.pop("MCUCOMP_DEBUG", None)
    from mcucomp.cli import main

    err, std = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(std):
        code = main(argv)
    host_error = None
    if host_build and code == 0:
        try:
            import mcucomp.host

            mcucomp.host.load(out)
        except BaseException as exc:  # any failure to build what compile wrote is a finding
            host_error = f"{type(exc).__name__}: {exc}"[:2000]
    result.write_text(json.dumps({"code": code, "stderr": err.getvalue(), "host_error": host_error}))


def _run_forked(argv: list[str], workdir: Path, out: Path, host_build: bool, timeout: float) -> dict:
    """Run _child in a fork; {'code', 'stderr', 'host_error'} or {'problem': ...} on a hang or a crash."""
    result = workdir / "result.json"
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # child: never return into the caller's stack
        status = 0
        try:
            _child(argv, result, out, host_build)
        except BaseException:
            status = 99
        finally:
            os._exit(status)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return {"problem": f"hang (no exit within {timeout:.0f} s)"}
        time.sleep(0.005)
    if os.WIFSIGNALED(status):
        return {"problem": f"crash (signal {os.WTERMSIG(status)})"}
    if os.WEXITSTATUS(status) != 0 or not result.exists():
        return {"problem": f"child failed outside main() (status {os.WEXITSTATUS(status)})"}
    return json.loads(result.read_text())


def _run_subprocess(argv: list[str], timeout: float) -> dict:
    """Run `python -m mcucomp` for real; {'code', 'stderr'} or {'problem': ...} on a hang."""
    env = dict(os.environ)
    env.pop("MCUCOMP_DEBUG", None)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    try:
        proc = subprocess.run([sys.executable, "-m", "mcucomp", *argv], capture_output=True, text=True,
                              timeout=timeout, env=env, cwd=REPO)
    except subprocess.TimeoutExpired:
        return {"problem": f"hang (no exit within {timeout:.0f} s)"}
    return {"code": proc.returncode, "stderr": proc.stderr, "host_error": None}


def _problem(case: Case, ran: dict, before: dict, out: Path, workdir: Path) -> str | None:
    """What is wrong with a finished run, or None."""
    if "problem" in ran:
        return ran["problem"]
    code, err = ran["code"], ran["stderr"]
    if code not in ALLOWED_EXIT_CODES:
        return f"exit {code}: {err.strip()[:500]}"
    if "Traceback" in err:
        return "traceback on stderr"
    if code != 0 and not (err.startswith("error: ") and err.endswith("\n") and err.count("\n") == 1):
        return f"error is not one 'error: ' paragraph: {err[:500]!r}"
    if code == 0 and err.strip():
        return f"stderr output on success: {err[:300]!r}"
    if ran.get("host_error"):
        return f"host build of the compiled output failed: {ran['host_error'][:500]}"
    leftovers = sorted(p.name for p in workdir.iterdir() if p.name.startswith(".mcucomp-"))
    leftovers += sorted(p.name for p in out.iterdir() if p.name.startswith(".mcucomp-"))
    if leftovers:
        return f"staging left behind: {leftovers}"
    after = snapshot(out)
    if code == 0 and case.writes_output and case.foreign and "--force" not in case.argv:
        return f"compile replaced the user's {case.foreign} without --force"
    if code != 0 or not case.writes_output:
        return None if after == before else "OUTDIR changed by a command that failed or writes nothing"
    report = json.loads(after["report.json"])
    kept = {SENTINEL}  # with the user's report.json in place of mcucomp's, nothing owns the previous compile's files
    if case.foreign == "user_report":
        kept |= set(_previous_compile()) - set(report["files"])
    if set(after) != set(report["files"]) | kept or any(after[name] != before[name] for name in kept):
        return f"OUTDIR after compile is not exactly its files plus the user's: {sorted(set(after))[:40]}"
    return None


def run_case(case: Case, workdir: Path, timeout: float = 60.0, real_process: bool = False) -> Outcome:
    """Run a case (forked main(), or a real subprocess) in workdir and check everything the fuzz suite promises."""
    _, out, argv = _prepare(case, workdir)
    before = snapshot(out)
    start = time.monotonic()
    ran = _run_subprocess(argv, timeout) if real_process else _run_forked(argv, workdir, out, case.host_build,
                                                                          timeout)
    seconds = time.monotonic() - start
    problem = _problem(case, ran, before, out, workdir)
    return Outcome(case.seed, ran.get("code"), ran.get("stderr", ""), seconds, problem, case.steps, case.argv)
