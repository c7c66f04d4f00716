"""report.json: I/O, layers, tensors with offsets and lifetimes, per-step live bytes, arena, lower bounds, flash.

Steps are indices into the execution order (`order`), the same in `layers`, `tensors` (first_step/last_step) and
`live_bytes_per_step`. Live bytes count every arena buffer live at a step at its aligned size, the size the planner
places; their maximum is `live_lower_bound_bytes`. Overlap permissions (`overlaps`: an output may be written over
an input that dies at that step) can put the arena below it, down to `overlap_lower_bound_bytes` (equal to the
live set without permissions); `gap_bytes` is the arena above that bound.
"""

from __future__ import annotations

from memplan import align_up

from ..intref._checks import INT8_KERNELS, is_int8_model
from ..ir import Graph, Node
from ..memory import MemoryLayout
from ..ops import REGISTRY
from ..ops.base import ArrayRef
from ..estimate_quality import CALIBRATED
from ..perf.estimate import ESTIMATE_LABEL, CycleEstimate, shown_path
from ..schedule import model_order
from ..version import __version__


def _io(g: Graph, names: list[str], program_specs) -> list[dict]:
    """Name, C name, shape, dtype, scale and zero point of graph inputs or outputs."""
    out = []
    for name, spec in zip(names, program_specs):
        t = g.tensors[name]
        q = t.quant.to_json() if t.quant is not None else {}
        out.append({"name": name, "c_name": spec.c_name, "shape": list(t.shape), "layout": t.layout or "onnx",
                    "dtype": t.dtype, "ctype": spec.ctype, "scale": q.get("scale"), "zero_point": q.get("zero_point"),
                    "arena_offset": spec.offset})
    return out


def _array_keys(value) -> set[str]:
    """The keys of the ArrayRefs in a call's params value (nested lists of pairs)."""
    if isinstance(value, ArrayRef):
        return {value.key}
    if isinstance(value, (list, tuple)):
        return set().union(*map(_array_keys, value)) if value else set()
    return set()


def _layer_weight_bytes(node: Node, g: Graph, call) -> int:
    """Bytes of constant data one layer reads: the constant inputs its call passes (as arguments or arrays in its
    params; a path that reads weights packed at compile time passes only the packed copy) plus its kernel tables."""
    if call is None:
        return 0
    read = {a for a in call.args if isinstance(a, str)} | _array_keys(call.params)
    consts = sum(g.tensors[i].nbytes for i in node.inputs if i and i in read and g.tensors[i].is_const)
    return consts + sum(a.nbytes for a in call.arrays.values())


def _tensor_kind(g: Graph, name: str) -> str:
    """'input', 'output' or 'activation' for an arena tensor."""
    return "input" if name in g.inputs else "output" if name in g.outputs else "activation"


def _tensors(g: Graph, layout: MemoryLayout, alignment: int) -> list[dict]:
    """Arena tensors (aliases with their root's bytes and lifetime) and scratch buffers (untyped bytes: dtype and
    shape None)."""
    tensors = []
    by_name = {b.name: b for b in layout.buffers}
    for tname, root in sorted(layout.roots.items(), key=lambda kv: kv[0]):
        b = by_name.get(root)
        if b is None:
            continue
        t = g.tensors[tname]
        tensors.append({"name": tname, "kind": _tensor_kind(g, tname), "dtype": t.dtype, "shape": list(t.shape),
                        "layout": t.layout or "onnx", "bytes": t.nbytes,
                        "aligned_bytes": align_up(b.size, alignment), "offset": layout.offsets[root],
                        "first_step": b.first, "last_step": b.last, "alias_of": None if root == tname else root})
    for node_name, sname in layout.scratch.items():
        b = by_name[sname]
        tensors.append({"name": sname, "kind": "scratch", "dtype": None, "shape": None, "bytes": b.size, "aligned_bytes": align_up(b.size, alignment),
                        "offset": layout.offsets[sname], "first_step": b.first, "last_step": b.last,
                        "alias_of": None, "scratch_of": node_name})
    return tensors


def _schedule(g: Graph, order: list[Node], layout: MemoryLayout) -> dict:
    """Which order runs and its peak live bytes next to the model file's order's peak."""
    same = [n.name for n in order] == [n.name for n in model_order(g)]
    return {"order_used": "file" if same else "memory-aware", "peak_bytes": layout.order_peak,
            "file_order_peak_bytes": layout.file_order_peak}


def _cycle_fields(cycles: CycleEstimate | None, board: dict) -> dict:
    """The estimate's summary: label, core, clock, which memory the figures include, totals, uncalibrated and
    extrapolated layers, the model's estimate quality."""
    if cycles is None:
        return {"estimated_total_cycles": None, "estimated_total_cycles_zero_wait": None,
                "cycle_estimate": {"label": ESTIMATE_LABEL, "core": board["core"], "clock_hz": board["clock_hz"],
                                   "memory": None, "note": f"no cycle model fitted for {board['core']}"}}
    memory = "board" if cycles.board_memory else "zero-wait"
    note = ("includes the board's flash wait states" if cycles.board_memory else
            "zero-wait core cycles: the board-memory model was fitted for another board's memory")
    return {"estimated_total_cycles": cycles.total_cycles,
            "estimated_total_cycles_zero_wait": cycles.total_cycles_zero_wait,
            "cycle_estimate": {"label": ESTIMATE_LABEL, "core": cycles.core, "clock_hz": cycles.clock_hz,
                               "memory": memory, "note": note,
                               "estimated_ms": 1e3 * cycles.total_cycles / cycles.clock_hz,
                               "uncalibrated_layers": [e.name for e in cycles.layers if not e.calibrated],
                               "extrapolated_layers": [e.name for e in cycles.layers if e.calibrated and not e.fitted],
                               "estimate_quality": cycles.quality}}


def _layer_cycles(cycles: CycleEstimate | None, clock_hz: int) -> dict[str, dict]:
    """Per layer name: estimated cycles (board memory or zero wait, as the summary says), zero-wait cycles, µs, the
    kernel path and the estimate's quality (estimate.estimate_quality)."""
    if cycles is None:
        return {}
    return {e.name: {"estimated_cycles": e.cycles, "estimated_cycles_zero_wait": e.cycles_zero_wait,
                     "estimated_us": 1e6 * e.cycles / clock_hz, "kernel_path": e.path, "estimate_quality": e.quality}
            for e in cycles.layers}


def build_report(g: Graph, order: list[Node], layout: MemoryLayout, program, calls: dict, name: str,
                 board: dict, options: dict, sha256: str, cycles: CycleEstimate | None = None) -> dict:
    """The report dict, written to OUTDIR/report.json; `cycles` is the estimator's figure (None: no fit)."""
    alignment = board["alignment"]
    live = layout.live_bytes
    layers = []
    call_index = 0
    per_layer = _layer_cycles(cycles, board["clock_hz"])
    no_code = {"estimated_cycles": 0 if cycles else None, "estimated_cycles_zero_wait": 0 if cycles else None,
               "estimated_us": 0.0 if cycles else None, "kernel_path": None,
               "estimate_quality": CALIBRATED if cycles else None}
    for step, node in enumerate(order):
        op = REGISTRY[node.op]
        alias = op.aliases_input(node, g)
        layers.append({
            "step": step, "name": node.name, "op": node.op,
            "outputs": list(node.outputs),
            "output_shape": list(g.tensors[node.outputs[0]].shape),
            "output_dtype": g.tensors[node.outputs[0]].dtype,
            "layout": node.attrs.get("layout") or "onnx",
            "macs": int(op.macs(node, g)),
            "weight_bytes": _layer_weight_bytes(node, g, calls.get(node.name)),
            "live_bytes": live[step],
            "alias": alias,
            "call_index": None if alias else call_index,
            # the runtime kernel file (kernels/<kernel>.c) the call links: conv2d_s8's is its path's
            "kernel": calls[node.name].func if node.name in calls else None,
            **per_layer.get(node.name, {**no_code, "kernel_path": None if alias else shown_path(node, g)}),
        })
        call_index += 0 if alias else 1
    weight_bytes = sum(a.data.nbytes for a in program.arrays)
    return {
        "mcucomp_version": __version__,
        "name": name,
        "model_sha256": sha256,
        "board": board["id"],
        "options": options,
        "io_in_arena": options["io"] == "arena",
        "io_placement": options["io"],
        "alignment": alignment,
        "arena_bytes": layout.arena_size,
        "live_lower_bound_bytes": layout.lower_bound,
        "overlap_lower_bound_bytes": layout.overlap_bound,
        "gap_bytes": layout.arena_size - layout.overlap_bound,
        "peak_step": live.index(max(live)) if live else None,
        "placement": layout.placement,
        "overlaps": [{"src": o.src, "dst": o.dst, "margin": o.margin, "floor": o.floor} for o in layout.overlaps],
        "schedule": _schedule(g, order, layout),
        "weights_bytes": weight_bytes,
        "flash_bytes": weight_bytes,
        "run_frame_bytes": program.run_frame_bytes(),
        "macs": sum(layer["macs"] for layer in layers),
        **_cycle_fields(cycles, board),
        "inputs": _io(g, g.inputs, program.inputs),
        "outputs": _io(g, g.outputs, program.outputs),
        "order": [n.name for n in order],
        "live_bytes_per_step": live,
        "layers": layers,
        "tensors": _tensors(g, layout, alignment),
    }


def float_layers(g: Graph, order: list[Node]) -> list[dict]:
    """In an int8 model (one with int8 compute kernels), the layers that compute in float32, and why."""
    if not is_int8_model(order):
        return []
    quiet = set(INT8_KERNELS) | {"reshape", "copy", "recode8", "resize", "slice", "pad", "split", "gather",
                                 "ethosu_region"}
    rows = []
    for node in order:
        if node.op in quiet and "_float_why" not in node.attrs:  # the QDQ lowering marks a group it left in float
            if node.op == "avgpool_s8" and node.attrs.get("mode") == "float":
                rows.append({"layer": node.name, "op": node.op, "why": "windowed QLinearAveragePool divides in "
                             "float32 as onnxruntime does (--requant fixed sums and requantizes in integers)"})
            elif node.op == "softmax_s8" and node.attrs.get("mode") == "float":
                rows.append({"layer": node.name, "op": node.op, "why": "input and output types differ"})
            continue
        if node.op in ("quantize_linear", "dequantize_linear"):
            why = "float graph I/O (use --io-dtype int8 to feed and read the quantized tensors)" \
                if set(node.inputs[:1] + node.outputs) & (set(g.inputs) | set(g.outputs)) else \
                "a float op sits between DequantizeLinear and QuantizeLinear here"
        else:
            why = node.attrs.get("_float_why", "no int8 lowering for this op in a QDQ group")
        rows.append({"layer": node.name, "op": node.op, "why": why})
    return rows
