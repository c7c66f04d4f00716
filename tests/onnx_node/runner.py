"""Run one ONNX backend node test through mcucomp: compile, build on the host, run, compare, classify.

Classification:
- `pass`: every data set's outputs match (floats within the test's rtol/atol, NaN equal to NaN; integers and bools
  exactly; shapes and dtypes exactly).
- `unsupported`: the compiler refused the model with its user-facing error (unsupported op, dtype, shape...);
  the reason is that error's message.
- `fail`: wrong numbers, or a crash anywhere (compiler exception that is not a user-facing error, C crash,
  timeout). The reason says which.

Operands that decide shapes (Reshape's shape, Slice's starts, ...) must be known at compile time on an MCU; when a
test feeds them as graph inputs, the runner binds them to the test's values with `constants=`, exactly as a user
would with `--const` (the compiler names these operands: `mcucomp.frontend.static_graph_inputs`).
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import tempfile
import time
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import onnx

import mcucomp
import mcucomp.host
from mcucomp.errors import McucompError
from mcucomp.frontend import static_graph_inputs
from mcucomp.host import HOST_CFLAGS, compile_objects

#: Seconds a compiled test may run before it counts as hung.
RUN_TIMEOUT = 60
#: The sanitizer build: every generated source plus a test driver, stopping at the first report.
SANITIZE_FLAGS = ["-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]


@dataclass
class Result:
    """The outcome of one node test."""

    name: str
    status: str          # pass | fail | unsupported
    reason: str = ""
    seconds: float = 0.0


@lru_cache(maxsize=1)
def all_cases() -> dict:
    """Every node test case of the installed onnx package, by name."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return {case.name: case for case in load_model_tests(kind="node")}


def _graph_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """Graph inputs that are not initializers, in order (the order of a data set's inputs)."""
    inits = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def _non_tensor_io(model: onnx.ModelProto) -> str:
    """The first graph input/output that is not a plain tensor (sequence, optional, map), or ''."""
    for value in list(model.graph.input) + list(model.graph.output):
        if value.type.WhichOneof("value") != "tensor_type":
            return value.name
    return ""


def _as_array(value) -> np.ndarray:
    """A data-set value as numpy (the loader leaves some, e.g. the Cast tests' float64 data, as TensorProto)."""
    return onnx.numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else np.asarray(value)


def _compare(name: str, got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> str:
    """'' when equal under the node-test rules, else a one-line description of the first difference."""
    want = _as_array(want)
    if got.shape != want.shape:
        return f"output '{name}' has shape {list(got.shape)}, expected {list(want.shape)}"
    if got.dtype != want.dtype:
        return f"output '{name}' is {got.dtype}, expected {want.dtype}"
    if want.dtype.kind == "f":
        g64, w64 = got.astype(np.float64), want.astype(np.float64)
        both_nan = np.isnan(g64) & np.isnan(w64)
        same_inf = np.isinf(w64) & (g64 == w64)
        ok = both_nan | same_inf | (np.abs(g64 - w64) <= atol + rtol * np.abs(w64))
    else:
        ok = got == want
    if ok.all():
        return ""
    i = int(np.flatnonzero(~ok.reshape(-1))[0])
    return f"output '{name}' differs at flat index {i}: {got.reshape(-1)[i]!r} vs expected {want.reshape(-1)[i]!r}"


def _run_forked(out_dir: str, feeds_list: list[dict]) -> tuple[str, object]:
    """Load and run the compiled model in a forked child, so a crash in the C cannot take the runner down."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            model = mcucomp.host.load(out_dir, layer_hook=False)
            payload = ("ok", [model.run(feeds) for feeds in feeds_list])
        except McucompError as exc:
            payload = ("error", exc.message)
        except BaseException as exc:  # the child reports every failure to the parent, then exits
            payload = ("error", f"{type(exc).__name__}: {exc}")
        with os.fdopen(write_fd, "wb") as pipe:
            pickle.dump(payload, pipe)
        os._exit(0)
    os.close(write_fd)
    chunks = []
    deadline = time.monotonic() + RUN_TIMEOUT
    with os.fdopen(read_fd, "rb") as pipe:
        os.set_blocking(pipe.fileno(), False)
        while True:
            try:
                chunk = pipe.read()
            except BlockingIOError:
                chunk = None
            if chunk:
                chunks.append(chunk)
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                rest = pipe.read()
                if rest:
                    chunks.append(rest)
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return "crash", f"timeout after {RUN_TIMEOUT} s"
            time.sleep(0.002)
    if os.WIFSIGNALED(status):
        return "crash", f"generated C crashed with signal {signal.Signals(os.WTERMSIG(status)).name}"
    if not chunks:
        return "crash", "host run ended without a result"
    return pickle.loads(b"".join(chunks))


def _declared_shape(value: onnx.ValueInfoProto) -> list[int | None] | None:
    """The declared dims of a graph input (None for a symbolic dim), or None when the rank is not declared."""
    ttype = value.type.tensor_type
    if not ttype.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in ttype.shape.dim]


def _split_constants(model: onnx.ModelProto, data_sets) -> tuple[dict, dict, list[dict]] | str:
    """Compile-time values for shape-deciding inputs, --shape dims for dynamic inputs, and each data set's feeds.

    Both must be the same across data sets (the compiled C has one static shape). A value whose declared shape has
    the same element count (a scalar stored as [1]) is reshaped to the declaration.
    """
    inputs = _graph_inputs(model)
    static = set(static_graph_inputs(model))
    constants: dict = {}
    shapes: dict = {}
    feeds_list = []
    for values, _ in data_sets:
        feeds = {}
        for info, value in zip(inputs, values):
            value = _as_array(value)
            declared = _declared_shape(info)
            if declared is not None and None not in declared and value.size == int(np.prod(declared)):
                value = value.reshape(declared)
            elif declared is None or None in declared:
                if shapes.setdefault(info.name, list(value.shape)) != list(value.shape):
                    return f"data sets give input '{info.name}' different shapes"
            if info.name in static:
                if info.name in constants and not np.array_equal(constants[info.name], value):
                    return f"data sets give different values to the shape operand '{info.name}'"
                constants[info.name] = value
            else:
                feeds[info.name] = value
        feeds_list.append(feeds)
    return constants, {k: v for k, v in shapes.items() if k not in constants}, feeds_list


def _driver_source(report: dict) -> str:
    """A test driver for the sanitizer build: inputs from files, an arena of exactly arena_bytes, outputs to files.

    The arena is heap-allocated at its exact size so AddressSanitizer flags any access past it.
    """
    name = report["name"]
    lines = ["#include <stdio.h>", "#include <stdlib.h>", f'#include "{name}.h"']
    if report["inputs"]:
        lines += ["static void *read_file(const char *path, size_t n) {",
                  "    void *p = malloc(n ? n : 1); FILE *f = fopen(path, \"rb\");",
                  "    if (!p || !f || fread(p, 1, n, f) != n) { exit(90); }",
                  "    fclose(f); return p; }"]
    lines += ["int main(void) {", "    void *arena = NULL;", "    FILE *f; int rc;"]
    args = []
    for k, spec in enumerate(report["inputs"]):
        n = int(np.prod(spec["shape"], dtype=np.int64)) * np.dtype(spec["dtype"]).itemsize
        lines.append(f"    {spec['ctype']} *in{k} = read_file(\"in{k}.bin\", {n}u);")
        args.append(f"in{k}")
    for k, spec in enumerate(report["outputs"]):
        n = int(np.prod(spec["shape"], dtype=np.int64)) * np.dtype(spec["dtype"]).itemsize
        lines.append(f"    {spec['ctype']} *out{k} = malloc({n}u ? {n}u : 1u);")
        args.append(f"out{k}")
    lines.append(f"    if (posix_memalign(&arena, 16, {max(report['arena_bytes'], 1)}u) != 0) {{ return 91; }}")
    lines.append(f"    rc = {name}_run({', '.join(args + ['arena'])});")
    lines.append("    if (rc != 0) { return 92; }")
    for k, spec in enumerate(report["outputs"]):
        n = int(np.prod(spec["shape"], dtype=np.int64)) * np.dtype(spec["dtype"]).itemsize
        lines.append(f"    f = fopen(\"out{k}.bin\", \"wb\"); fwrite(out{k}, 1, {n}u, f); fclose(f);")
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


def _run_sanitized(out_dir: str, feeds_list: list[dict]) -> tuple[str, object]:
    """Build the generated C with ASan and UBSan around a file-based driver; run every data set."""
    import json
    from pathlib import Path

    out = Path(out_dir)
    report = json.loads((out / "report.json").read_text())
    (out / "driver.c").write_text(_driver_source(report))
    sources = [out / f for f in report["files"] if f.endswith(".c")] + [out / "driver.c"]
    flags = [f for f in HOST_CFLAGS if f != "-fPIC"] + SANITIZE_FLAGS + ["-D_POSIX_C_SOURCE=200112L"]
    exe = out / "driver"
    try:
        objects = compile_objects(sources, flags)
    except McucompError as exc:
        return "error", f"sanitizer build failed: {exc.message[:300]}"
    link = subprocess.run([os.environ.get("CC", "cc"), *SANITIZE_FLAGS, *map(str, objects), "-o", str(exe), "-lm"],
                          capture_output=True, text=True)
    if link.returncode != 0:
        return "error", f"sanitizer link failed: {link.stderr.strip()[:300]}"
    results = []
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="print_stacktrace=1")
    for feeds in feeds_list:
        for k, spec in enumerate(report["inputs"]):
            np.ascontiguousarray(feeds[spec["name"]], dtype=spec["dtype"]).tofile(out / f"in{k}.bin")
        try:
            proc = subprocess.run([str(exe)], cwd=out, capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env)
        except subprocess.TimeoutExpired:
            return "crash", f"timeout after {RUN_TIMEOUT} s"
        if proc.returncode != 0 or "runtime error" in proc.stderr:
            first = next((ln for ln in proc.stderr.splitlines() if "ERROR" in ln or "runtime error" in ln), "")
            return "crash", f"sanitizer: exit {proc.returncode}: {first.strip()[:300]}"
        results.append({spec["name"]: np.fromfile(out / f"out{k}.bin", dtype=spec["dtype"]).reshape(spec["shape"])
                        for k, spec in enumerate(report["outputs"])})
    return "ok", results


def run_case(case, work_dir: str | None = None, sanitize: bool = False) -> Result:
    """Compile, run and compare one node test case (with `sanitize`, built with ASan and UBSan)."""
    start = time.monotonic()

    def result(status: str, reason: str = "") -> Result:
        return Result(case.name, status, " ".join(reason.split())[:400], round(time.monotonic() - start, 3))

    model = case.model
    odd = _non_tensor_io(model)
    if odd:
        return result("unsupported", f"graph input/output '{odd}' is not a tensor (sequence, optional or map types "
                                     "have no static memory layout)")
    split = _split_constants(model, case.data_sets)
    if isinstance(split, str):
        return result("unsupported", split)
    constants, shapes, feeds_list = split
    with tempfile.TemporaryDirectory(prefix="node-", dir=work_dir) as tmp:
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                mcucomp.compile_model(model, tmp, name="m", shapes=shapes, constants=constants, fit_check=False)
        except McucompError as exc:
            return result("unsupported", exc.message)
        except Exception as exc:  # a compiler crash is a failure of this test, recorded with its cause
            return result("fail", f"compiler crashed: {type(exc).__name__}: {exc}")
        kind, value = (_run_sanitized if sanitize else _run_forked)(tmp, feeds_list)
    if kind == "crash":
        return result("fail", value)
    if kind == "error":
        return result("fail", f"host build/run failed: {value}")
    out_names = [o.name for o in model.graph.output]
    for outputs, (_, expected) in zip(value, case.data_sets):
        for name, want in zip(out_names, expected):
            problem = _compare(name, outputs[name], want, case.rtol, case.atol)
            if problem:
                return result("fail", problem)
    return result("pass")
