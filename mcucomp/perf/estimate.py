"""Estimated Cortex-M cycles per layer without a toolchain: per-kernel, per-code-path cost models.

A layer's estimate is sum(coefficient[term] * count[term]) over the terms its kernel op's `cost_terms` gives for the
code path the C takes (mcucomp/ops/_cost.py). The coefficients are per core, fitted by bench/fit_cycle_model.py to
the simulator's cycles on a generated calibration set (mcucomp/perf/calibration.py) and stored in
mcucomp/perf/coefficients/<core>.json with a fingerprint of everything the cycles depend on; a test fails when the
fingerprint no longer matches (tests/perf/test_estimate_coefficients.py).

Two figures per layer: zero-wait (core cycles, every memory access at zero wait states) and board memory (fitted on
the simulator's figure for one board's flash wait states; given only for boards with that core and memory).

Each figure carries its estimate_quality: "calibrated" when the fit saw the kernel path with every term inside the
range it was fitted on (the coefficients json records each path's term ranges), "extrapolated: ..." naming the terms
outside, or "uncalibrated: ..." for a path the calibration set never ran. Wherever a figure that is not calibrated
is printed, OUTSIDE_MARK stands in front of it.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Iterable

from runtime_c import kernel_files

from ..boards import load_board
from ..estimate_quality import CALIBRATED, EXTRAPOLATED, UNCALIBRATED
from ..ir import Graph, Node
from ..ops import REGISTRY, KernelCall
from ..ops._cost import element_terms
from .memory import data_cache, flash_regions

COEFFICIENT_DIR = Path(__file__).resolve().parent / "coefficients"
#: The key of the coefficients used for a kernel path that the calibration set does not cover (default terms).
GENERIC = "generic"
#: How an estimated figure is labelled wherever it is printed.
ESTIMATE_LABEL = "estimated (per-kernel cost model fitted to simulated cycles, Arm TRM instruction timings)"


@dataclass(frozen=True)
class LayerEstimate:
    """One layer's estimate: kernel path, the terms counted, cycles at zero wait states and with board memory."""

    name: str
    op: str
    path: str
    terms: dict
    cycles_zero_wait: int
    cycles: int  # board memory when the coefficients cover this board's memory, else the zero-wait figure
    calibrated: bool  # False: the path is not in the calibration set, the generic element model was used
    quality: str  # estimate_quality: "calibrated", "extrapolated: ..." or "uncalibrated: ..."

    @property
    def fitted(self) -> bool:
        """True when the fit saw this path with every term inside the range it was fitted on."""
        return self.quality == CALIBRATED


@dataclass(frozen=True)
class CycleEstimate:
    """The estimate of a whole model on one board."""

    core: str
    clock_hz: int
    board_memory: bool  # True when `cycles` include the board's flash wait states
    layers: list[LayerEstimate]

    @property
    def total_cycles(self) -> int:
        """Cycles per inference (board memory when board_memory, else zero wait)."""
        return sum(layer.cycles for layer in self.layers)

    @property
    def total_cycles_zero_wait(self) -> int:
        """Core cycles per inference at zero wait states."""
        return sum(layer.cycles_zero_wait for layer in self.layers)

    @property
    def quality(self) -> str:
        """The model's estimate_quality: "calibrated" when every layer is, else how many layers (and what share of
        the estimated cycles) are uncalibrated or extrapolated."""
        parts = []
        total = max(self.total_cycles, 1)
        for kind in (UNCALIBRATED, EXTRAPOLATED):
            off = [layer for layer in self.layers if layer.quality.startswith(kind)]
            if off:
                share = 100 * sum(layer.cycles for layer in off) / total
                parts.append(f"{kind}: {len(off)} of {len(self.layers)} layers, {share:.0f}% of the estimated cycles")
        return "; ".join(parts) or CALIBRATED


def path_key(op: str, path: str) -> str:
    """The coefficients key of a kernel path: `conv2d_s8.depthwise`."""
    return f"{op}.{path}"


def layer_terms(node: Node, g: Graph) -> tuple[str, dict[str, int]]:
    """(coefficients key, term counts) of one lowered, non-alias node (keyed by the op whose C it runs)."""
    op = REGISTRY[node.op]
    path, terms = op.cost_terms(node, g)
    return path_key(op.cost_kernel or node.op, op.cost_families.get(path, path)), terms


def estimate_quality(key: str, entry: dict | None, terms: dict[str, int]) -> str:
    """CALIBRATED, "extrapolated: term X = N outside fitted range [a, b]" (every such term), or "uncalibrated: ..."
    when the calibration set never ran the path (`entry` None). A zero count is never outside: a loop that does not
    run costs nothing whatever its coefficient."""
    if entry is None:
        return f"{UNCALIBRATED}: kernel path {key} is not in the calibration set (generic element model)"
    ranges = entry.get("ranges", {})  # a fit that recorded no ranges vouches for none
    outside = []
    for term, n in sorted(terms.items()):
        low, high = ranges.get(term, (0, 0))
        if n and not low <= n <= high:
            outside.append(f"term {term} = {n:,} outside fitted range [{low:,}, {high:,}]")
    return f"{EXTRAPOLATED}: " + "; ".join(outside) if outside else CALIBRATED


def shown_path(node: Node, g: Graph) -> str:
    """The kernel path a lowered node runs, as `show` and the report name it (not its coefficient family)."""
    return path_key(node.op, REGISTRY[node.op].cost_terms(node, g)[0])


@cache
def load_coefficients(core: str) -> dict | None:
    """The stored coefficients of a core (None when the core was never fitted)."""
    path = COEFFICIENT_DIR / f"{core}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def apply(coefficients: dict[str, float], terms: dict[str, int]) -> float:
    """sum(coefficient * count); a term without a coefficient costs nothing (the fit dropped it as zero)."""
    return sum(coefficients.get(t, 0.0) * n for t, n in terms.items())


def memory_signature(board: dict) -> dict:
    """What the simulator's board-memory figure depends on (mcucomp/perf/memory.py): the wait states of the flash
    regions and the data cache in front of them."""
    cache = data_cache(board)
    return {"flash_wait_states": sorted(r.wait_states for r in flash_regions(board)),
            "data_cache": None if cache is None else [cache.lines, cache.line_bytes]}


def estimate_model(graph: Graph, order: list[Node], board: dict | str) -> CycleEstimate | None:
    """Estimated cycles of every layer that runs code (views run none), or None when the core has no fit."""
    board = load_board(board) if isinstance(board, str) or board is None else board
    coeffs = load_coefficients(board["core"])
    if coeffs is None:
        return None
    signature = memory_signature(board)
    no_wait = not signature["flash_wait_states"]  # the board figure is the zero-wait one
    with_memory = no_wait or signature == coeffs["board_memory"]["memory_signature"]
    layers = []
    for node in order:
        if REGISTRY[node.op].aliases_input(node, graph):
            continue
        key, terms = layer_terms(node, graph)
        entry = coeffs["paths"].get(key)
        calibrated = entry is not None
        quality = estimate_quality(key, entry, terms)
        if not calibrated:
            entry, terms = coeffs["paths"][GENERIC], element_terms(node, graph)
        zero_wait = round(apply(entry["zero_wait"], terms))
        # wait states only add cycles: the two fits are independent, so clamp where they cross by a hair
        cycles = max(round(apply(entry["board_memory"], terms)), zero_wait) if with_memory and not no_wait else zero_wait
        layers.append(LayerEstimate(node.name, node.op, shown_path(node, graph), terms, zero_wait, cycles, calibrated,
                                    quality))
    return CycleEstimate(board["core"], board["clock_hz"], with_memory, layers)


def estimate_layers(graph: Graph, order: list[Node], board: dict | str) -> dict[str, LayerEstimate]:
    """The estimate of every layer that runs code, by name (empty when the core has no fit)."""
    est = estimate_model(graph, order, board)
    return {} if est is None else {layer.name: layer for layer in est.layers}


def runtime_files(lowered: Iterable[tuple[list[Node], dict[str, KernelCall]]]) -> list[str]:
    """The runtime_c files (relative paths) that lowered models link, each model handed as its schedule and kernel
    calls: the shared headers and every kernel their layers call, with the files those kernels depend on. Of the
    calibration models (mcucomp.pipeline.calibration_runtime_files), these are the kernel sources the fit depends
    on: a kernel outside the calibration set does not change the fitted coefficients, so adding one needs no
    refit."""
    stems: set[str] = set()
    for order, calls in lowered:
        stems.update(call.func for call in calls.values())
        for node in order:
            stems.update(REGISTRY[node.op].depends)
    files = ["mcu_rt.h", "mcu_math.h"]
    files += kernel_files(sorted(stems))
    return files


def fingerprint_sources(core: str, calibration_files: list[str]) -> dict[str, str]:
    """SHA-256 of every input the fitted cycles depend on, by name: kernel sources (`calibration_files`, the
    runtime_files of the calibration models), the simulator's timing tables, the target compiler flags of the
    core's calibration board, the calibration set and the cost terms."""
    from ..target.build import LINK_FLAGS, TARGET_CFLAGS
    from ..boards import compiler_flags
    from .calibration import CALIBRATION_BOARDS

    root = Path(__file__).resolve().parents[2]
    files = [root / "runtime_c" / rel for rel in calibration_files]
    files += sorted(p for p in (root / "mcucomp" / "perf" / "timing").rglob("*") if p.is_file())
    files += [root / "mcucomp" / "perf" / "flash_cache.toml", root / "mcucomp" / "perf" / "calibration.py",
              root / "mcucomp" / "ops" / "_cost.py"]
    digests = {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    for name, op in sorted(REGISTRY.items()):  # each op's terms (not the rest of its file)
        source = inspect.getsource(type(op).cost_terms) if "cost_terms" in type(op).__dict__ else "default"
        digests[f"{name}.cost_terms"] = hashlib.sha256(source.encode()).hexdigest()
    flags = [*compiler_flags(load_board(CALIBRATION_BOARDS[core])), *TARGET_CFLAGS, *LINK_FLAGS]
    digests["compiler flags"] = hashlib.sha256(" ".join(flags).encode()).hexdigest()
    return digests


def fingerprint(core: str, calibration_files: list[str]) -> str:
    """One SHA-256 over fingerprint_sources(core, calibration_files)."""
    return hashlib.sha256(json.dumps(fingerprint_sources(core, calibration_files), sort_keys=True).encode()).hexdigest()


#: The accuracy the estimator is held to against the simulator: per model, and per layer that takes at
#: least BIG_LAYER_SHARE of the model's simulated cycles.
MODEL_TOLERANCE = 0.10
LAYER_TOLERANCE = 0.20
BIG_LAYER_SHARE = 0.05


@dataclass(frozen=True)
class LayerCheck:
    """One layer's estimate next to its simulated cycles."""

    name: str
    op: str
    simulated: int
    estimated: int
    share: float  # of the model's simulated cycles

    @property
    def error(self) -> float:
        """(estimated - simulated) / simulated."""
        return (self.estimated - self.simulated) / max(self.simulated, 1)


def check_layers(layers: list[tuple[str, str, int, int]]) -> tuple[float, list[LayerCheck]]:
    """The model's relative error and per-layer checks from (name, op, simulated, estimated) per layer."""
    total = sum(sim for _, _, sim, _ in layers)
    checks = [LayerCheck(name, op, sim, est, sim / max(total, 1)) for name, op, sim, est in layers]
    return (sum(c.estimated for c in checks) - total) / max(total, 1), checks


def check_profile(result, zero_wait: bool = False) -> tuple[float, list[LayerCheck]]:
    """check_layers of the estimate in a mcucomp.perf.profile.ProfileResult (board memory figures, or zero wait when
    `zero_wait`; the estimate must cover the board's memory for the former)."""
    if not zero_wait and result.estimated_memory != "board":
        raise ValueError(f"the estimate for {result.board} has no board-memory figure ({result.estimated_memory})")
    return check_layers([(layer.name, layer.op, layer.cycles_zero_wait if zero_wait else layer.cycles,
                          layer.estimated_cycles_zero_wait if zero_wait else layer.estimated_cycles)
                         for layer in result.layers])


def accuracy_failures(model_error: float, checks: list[LayerCheck]) -> list[str]:
    """Where an estimate breaks the tolerances (empty: within them)."""
    failures = []
    if abs(model_error) > MODEL_TOLERANCE:
        failures.append(f"model total off by {100 * model_error:+.1f}% (limit {100 * MODEL_TOLERANCE:.0f}%)")
    for c in checks:
        if c.share >= BIG_LAYER_SHARE and abs(c.error) > LAYER_TOLERANCE:
            failures.append(f"layer {c.name} ({c.op}, {100 * c.share:.0f}% of the cycles): estimated "
                            f"{c.estimated:,} vs simulated {c.simulated:,} ({100 * c.error:+.1f}%)")
    return failures
