"""Fit the cycle estimator's per-core coefficients to simulated cycles on the generated calibration set.

    python bench/fit_cycle_model.py                 # every core in CALIBRATION_BOARDS (about 6 min per core)
    python bench/fit_cycle_model.py --core cortex-m4 --cycles-dir /tmp/cycles   # keep/reuse simulated cycles

The times are those of a 2-CPU machine under load (127 calibration models per core). With --cycles-dir, a refit
whose timing tables, flags and simulator did not change simulates only the models that are new or that link a
changed runtime file (a change of cost terms alone: lowering and fitting, about 3 min per core).

Every calibration model (mcucomp/perf/calibration.py) is compiled for the core's calibration board and profiled on
the instruction-level simulator (mcucomp.perf.profile); each layer gives one row: its kernel path, the path's term
counts (KernelOp.cost_terms) and its simulated cycles, zero-wait and with the board's memory. Per kernel path the
coefficients are a non-negative least-squares fit weighted by 1/cycles, i.e. on relative error, so that small and
large layers count alike (a negative coefficient would be a loop body that gives cycles back; Lawson-Hanson NNLS,
numpy only). A `generic` entry fits the default element terms of the element-wise layers, for kernel paths the set
does not cover. Each path also records the range [min, max] of every term over its calibration layers: the estimator
calls a layer outside them extrapolated. The result goes to mcucomp/perf/coefficients/<core>.json with the
fingerprint the staleness test checks.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from emit_c.writer import runtime_source
from mcucomp.boards import load_board
from mcucomp.ops import REGISTRY
from mcucomp.ops._cost import element_terms
from mcucomp.perf.calibration import CALIBRATION_BOARDS, calibration_models
from mcucomp.perf.estimate import (COEFFICIENT_DIR, ESTIMATE_LABEL, GENERIC, fingerprint, fingerprint_sources,
                                   layer_terms, memory_signature, runtime_files)
from mcucomp.perf.profile import profile_compiled
from mcucomp.pipeline import calibration_runtime_files, compile_model, default_requant, kernel_calls, lower_model


def nnls(a: np.ndarray, b: np.ndarray, iterations: int = 200) -> np.ndarray:
    """min ||a x - b|| subject to x >= 0 (Lawson and Hanson's active-set method)."""
    n = a.shape[1]
    x = np.zeros(n)
    passive = np.zeros(n, bool)
    for _ in range(iterations):
        grad = a.T @ (b - a @ x)
        if passive.all() or grad[~passive].max(initial=-np.inf) <= 1e-10 * max(1.0, np.abs(grad).max()):
            break
        passive[np.argmax(np.where(passive, -np.inf, grad))] = True
        while True:
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(a[:, passive], b, rcond=None)[0]
            if (z[passive] > 0).all():
                x = z
                break
            shrink = passive & (z <= 0)
            alpha = np.min(x[shrink] / (x[shrink] - z[shrink]))
            x = x + alpha * (z - x)
            passive &= x > 1e-12
    return x


def fit_rows(rows: list[dict], terms_key: str = "terms") -> dict:
    """Coefficients per term for zero-wait and board-memory cycles, plus how well they fit these rows."""
    names = sorted({t for r in rows for t in r[terms_key]})
    a = np.array([[r[terms_key].get(t, 0) for t in names] for r in rows], float)
    result: dict = {"layers": len(rows),
                    "ranges": {t: [int(a[:, k].min()), int(a[:, k].max())] for k, t in enumerate(names)}}
    for target in ("cycles_zero_wait", "cycles"):
        y = np.array([r[target] for r in rows], float)
        w = 1.0 / np.maximum(y, 1.0)  # relative error
        scale = np.maximum(np.abs(a * w[:, None]).max(axis=0), 1e-30)  # columns of comparable size
        x = nnls(a * w[:, None] / scale, y * w) / scale
        err = (a @ x - y) / np.maximum(y, 1.0)
        key = "zero_wait" if target == "cycles_zero_wait" else "board_memory"
        result[key] = {t: float(c) for t, c in zip(names, x) if c > 0}
        result[f"{key}_max_error"] = float(np.abs(err).max())
    return result


def model_digest(model, options: dict, board: dict) -> str:
    """SHA-256 of a calibration model's bytes, its compile options, if any, and the runtime files its C links for
    the board, with their text: which simulated cycles a kept run may reuse (a kernel change resimulates only the
    models that link it)."""
    low = lower_model(model, alignment=board["alignment"], **{"requant": default_requant(board), **options})
    digest = hashlib.sha256(model.SerializeToString(deterministic=True))
    digest.update(json.dumps(options, sort_keys=True).encode() if options else b"")
    for rel in runtime_files([(low.order, kernel_calls(low.graph, low.order))]):
        digest.update(rel.encode() + b"\0" + runtime_source(rel).encode())
    return digest.hexdigest()


def simulate(core: str, board_id: str, log, kept: dict | None = None, keep=None) -> dict[str, dict]:
    """Simulated cycles of every calibration layer: {model: {"digest": model_digest, "layers": {layer: [zero-wait
    cycles, board-memory cycles]}}}; a model whose digest is in `kept` (an earlier result) is not simulated again;
    `keep(cycles so far)` after each simulated model."""
    board = load_board(board_id)
    cycles = {}
    models = calibration_models()
    for i, (name, model, options) in enumerate(models):
        digest = model_digest(model, options, board)
        if kept and kept.get(name, {}).get("digest") == digest:
            cycles[name] = kept[name]
            continue
        t0 = time.time()
        with tempfile.TemporaryDirectory() as tmp:
            compile_model(model, Path(tmp) / "m", name="calib", board=board_id, **options)
            result = profile_compiled(Path(tmp) / "m", board, inputs=1)
        cycles[name] = {"digest": digest,
                        "layers": {layer.name: [layer.cycles_zero_wait, layer.cycles] for layer in result.layers}}
        if keep:
            keep(cycles)
        log(f"{core}: {i + 1}/{len(models)} {name}: {len(result.layers)} layers, {result.total_cycles:,} cycles "
            f"({time.time() - t0:.1f} s)")
    return cycles


def layer_rows(board_id: str, cycles: dict[str, dict[str, list[int]]]) -> list[dict]:
    """One row per calibration layer that runs code: model, layer, path key, terms, element terms, cycles.

    The models are lowered as compile_model lowers them for the board (its alignment, and the model's compile
    options over the board's default requantization), so the terms describe the code that was simulated."""
    board = load_board(board_id)
    rows = []
    for name, model, options in calibration_models():
        low = lower_model(model, alignment=board["alignment"], **{"requant": default_requant(board), **options})
        nodes = {n.name: n for n in low.order}
        for layer, (zero_wait, board_cycles) in cycles[name]["layers"].items():
            key, terms = layer_terms(nodes[layer], low.graph)
            rows.append({"model": name, "layer": layer, "key": key, "terms": terms,
                         "element_terms": element_terms(nodes[layer], low.graph),
                         "cycles_zero_wait": zero_wait, "cycles": board_cycles})
    return rows


def fit_core(core: str, cycles: dict) -> dict:
    """Fit every kernel path to the calibration set's simulated cycles; the coefficients file's dict."""
    board_id = CALIBRATION_BOARDS[core]
    rows = layer_rows(board_id, cycles)
    paths = {}
    for key in sorted({r["key"] for r in rows}):
        paths[key] = fit_rows([r for r in rows if r["key"] == key])
    elementwise = [r for r in rows if r["key"].endswith(".default")]
    paths[GENERIC] = fit_rows(elementwise, "element_terms")
    files = calibration_runtime_files()
    return {
        "core": core,
        "label": ESTIMATE_LABEL,
        "fingerprint": fingerprint(core, files),
        "sources": fingerprint_sources(core, files),
        "board_memory": {"board": board_id, "memory_signature": memory_signature(load_board(board_id))},
        "calibration": {"models": len({r["model"] for r in rows}), "layers": len(rows)},
        "paths": paths,
    }


#: The simulator's own sources: kept cycles are reused only while they are unchanged.
SIMULATOR_FILES = ("sim.py", "timing.py", "hooks.c", "hooks.h", "profile.py")


def _simulated_sources(core: str) -> dict[str, str]:
    """What the simulated cycles depend on besides each model and the runtime files it links (model_digest checks
    those per model): the timing tables, the flash cache model, the compiler flags and the simulator itself."""
    perf = Path(__file__).resolve().parents[1] / "mcucomp" / "perf"
    sources = {k: v for k, v in fingerprint_sources(core, []).items()
               if k.startswith("mcucomp/perf/timing") or k in ("mcucomp/perf/flash_cache.toml", "compiler flags")}
    sources.update({name: hashlib.sha256((perf / name).read_bytes()).hexdigest() for name in SIMULATOR_FILES})
    return sources


def _cached_cycles(cycles_dir: Path | None, core: str) -> dict | None:
    """Simulated cycles kept by an earlier run whose timing tables, flags and simulator are those of today, else
    None (each kept model is reused only if its digest, kernels included, still matches)."""
    path = cycles_dir / f"{core}.json" if cycles_dir else None
    if path is None or not path.is_file():
        return None
    data = json.loads(path.read_text())
    return data["cycles"] if data["sources"] == _simulated_sources(core) else None


def main(argv: list[str] | None = None) -> int:
    """Fit the chosen cores (default: all) and write their coefficient files."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--core", action="append", choices=sorted(CALIBRATION_BOARDS),
                        help="fit only this core (repeatable)")
    parser.add_argument("--cycles-dir", type=Path,
                        help="keep the simulated cycles here (<core>.json) and reuse them while the fingerprint of "
                             "what they depend on is unchanged: refits after a change of cost terms only")
    args = parser.parse_args(argv)
    COEFFICIENT_DIR.mkdir(exist_ok=True)
    for core in args.core or sorted(CALIBRATION_BOARDS):
        t0 = time.time()
        sources = _simulated_sources(core)

        def keep(cycles: dict, core: str = core, sources: dict = sources) -> None:
            """Write the simulated cycles so far to the cycles directory."""
            args.cycles_dir.mkdir(parents=True, exist_ok=True)
            (args.cycles_dir / f"{core}.json").write_text(json.dumps({"sources": sources, "cycles": cycles}))

        cycles = simulate(core, CALIBRATION_BOARDS[core], lambda line: print(line, file=sys.stderr, flush=True),
                          _cached_cycles(args.cycles_dir, core), keep if args.cycles_dir else None)
        data = fit_core(core, cycles)
        path = COEFFICIENT_DIR / f"{core}.json"
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        worst = max(p["zero_wait_max_error"] for p in data["paths"].values())
        print(f"{core}: {len(data['paths'])} kernel paths from {data['calibration']['layers']} layers, worst layer "
              f"fit error {100 * worst:.1f}% -> {path} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
