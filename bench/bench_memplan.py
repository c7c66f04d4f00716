"""Peak RAM on the MLPerf Tiny models: arena vs. the live-set bounds (without and with overlaps) vs. TFLM, the model
file order's peak vs. the chosen order's, scheduling and planning time; and a 500-node synthetic graph.

Run: python bench/bench_memplan.py
     python bench/bench_memplan.py --markdown   # the byte columns alone (BENCHMARKS.md's generated table)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from mcucomp.ir import Graph, Node, Tensor
from mcucomp.memory import plan_memory
from mcucomp.pipeline import kernel_calls, lower_model, scratch_sizes
from mcucomp.schedule import choose_schedule

MODELS = Path(__file__).resolve().parents[1] / ".." / "shared" / "models" / "mlperf_tiny"
#: TFLM's planned activation arena ("head"), from shared/docs/ANCHORS.md (tflite-micro Python wheel, measured).
TFLM_ARENA = {"kws": 16_000, "ic": 49_152}
ALIGNMENT = 16


def bench_model(path: Path, timed: bool = True) -> str:
    """One table row for a model compiled with the defaults (graph I/O in the arena, 16-byte alignment); timed adds
    the scheduling and planning times."""
    g, _, _, _ = lower_model(path, alignment=ALIGNMENT)
    scratch = scratch_sizes(kernel_calls(g, g.nodes))
    start = time.perf_counter()
    chosen = choose_schedule(g, scratch, True, ALIGNMENT)
    scheduled = time.perf_counter()
    layout = plan_memory(g, chosen.order, scratch, True, ALIGNMENT)
    planned = time.perf_counter()
    tflm = TFLM_ARENA.get(path.stem.split("_")[0])
    versus = "-" if tflm is None else f"{layout.arena_size - tflm:+,} ({100 * (layout.arena_size / tflm - 1):+.0f}%)"
    return (f"| {path.name} | {len(g.nodes)} | {layout.arena_size:,} | {layout.lower_bound:,} "
            f"| {layout.overlap_bound:,} | {tflm or 0:,} | {versus} | {layout.file_order_peak:,} "
            f"| {layout.order_peak:,} |"
            + (f" {(scheduled - start) * 1000:.0f} ms | {(planned - scheduled) * 1000:.0f} ms |" if timed else ""))


def stacked_cells(cells: int) -> Graph:
    """MCUNet-like cells: two inverted-residual branches of different widths, summed, plus a skip; 10 nodes each."""
    tensors: dict[str, Tensor] = {}
    nodes: list[Node] = []

    def add(name: str, op: str, inputs: list[str], nbytes: int) -> str:
        """Append a node writing an int8 tensor of nbytes named after it."""
        tensors[name] = Tensor(name, (nbytes,), "int8")
        nodes.append(Node(name, op, inputs, [name]))
        return name

    tensors["x"] = Tensor("x", (2048,), "int8")
    prev = "x"
    for c in range(cells):
        width = 1024 * (2 + c % 3)
        # listed breadth first, as exporters often do: both expands, both depthwise, both projections
        ratios = (6, 3)
        expands = [add(f"c{c}_e{b}", "fc_s8", [prev], width * r // 2) for b, r in enumerate(ratios)]
        depthwise = [add(f"c{c}_d{b}", "fc_s8", [e], width * r // 2) for b, (e, r) in enumerate(zip(expands, ratios))]
        branches = [add(f"c{c}_p{b}", "fc_s8", [d], 2048) for b, d in enumerate(depthwise)]
        s = add(f"c{c}_sum", "add_s8", branches, 2048)
        v = add(f"c{c}_view", "reshape", [s], 2048)
        t = add(f"c{c}_pre", "fc_s8", [v], 1024 * (1 + c % 2))
        prev = add(f"c{c}_out", "add_s8", [prev, add(f"c{c}_post", "fc_s8", [t], 2048)], 2048)
    return Graph(tensors, nodes, ["x"], [prev])


def bench_large_graph(cells: int) -> str:
    """Schedule and plan a synthetic graph of 10 * cells nodes (fc_s8 stands for every conv: no overlaps but the
    element-wise adds'); return a summary line."""
    g = stacked_cells(cells)
    start = time.perf_counter()
    chosen = choose_schedule(g, {}, True, ALIGNMENT)
    schedule_s = time.perf_counter() - start
    layout = plan_memory(g, chosen.order, {}, True, ALIGNMENT)
    total_s = time.perf_counter() - start
    return (f"{len(g.nodes)} nodes: file-order peak {chosen.model_order_peak:,} B, chosen {chosen.peak:,} B "
            f"(exact: {chosen.exact}), arena {layout.arena_size:,} B, bound {layout.lower_bound:,} B, with overlaps "
            f"{layout.overlap_bound:,} B; schedule {schedule_s:.2f} s, schedule + plan {total_s:.2f} s")


def main() -> int:
    """Print the table and the large-graph timing."""
    if not MODELS.is_dir():
        print(f"missing {MODELS}: the shared models directory must sit beside the repository", file=sys.stderr)
        return 1
    timed = sys.argv[1:] != ["--markdown"]
    if timed:
        print(f"alignment {ALIGNMENT} B, graph inputs and outputs in the arena (as TFLM)\n")
    print("| model | nodes | arena B | live-set bound B (no overlap) | bound with overlaps B | TFLM arena B "
          "| arena - TFLM | file-order peak B | chosen-order peak B |" + (" schedule | plan |" if timed else ""))
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if timed else ""))
    for path in sorted(MODELS.glob("*.onnx")):
        print(bench_model(path, timed))
    if not timed:
        return 0
    print()
    print(bench_large_graph(50))
    return 0


if __name__ == "__main__":
    sys.exit(main())
