"""report.json: I/O, layers, tensors with offsets and lifetimes, arena, lower bound and flash."""

from __future__ import annotations

from . import __version__
from .ir import Graph, Node
from .memory import MemoryLayout
from .ops import REGISTRY


def _io(g: Graph, names: list[str], program_specs) -> list[dict]:
    """Name, C name, shape, dtype, scale and zero point of graph inputs or outputs."""
    out = []
    for name, spec in zip(names, program_specs):
        t = g.tensors[name]
        q = t.quant.to_json() if t.quant is not None else {}
        out.append({"name": name, "c_name": spec.c_name, "shape": list(t.shape), "dtype": t.dtype,
                    "ctype": spec.ctype, "scale": q.get("scale"), "zero_point": q.get("zero_point"),
                    "arena_offset": spec.offset})
    return out


def _layer_weight_bytes(node: Node, g: Graph, call) -> int:
    """Bytes of constant data one layer reads: constant inputs plus kernel tables."""
    consts = sum(g.tensors[i].nbytes for i in node.inputs if i and g.tensors[i].is_const)
    extra = sum(a.nbytes for a in call.arrays.values()) if call is not None else 0
    return consts + extra


def live_bytes_per_step(layout: MemoryLayout, steps: int) -> list[int]:
    """Sum of planned buffer bytes live at each step."""
    return [sum(b.size for b in layout.buffers if b.first <= s <= b.last) for s in range(steps)]


def build_report(g: Graph, order: list[Node], layout: MemoryLayout, program, calls: dict, name: str,
                 board: dict, options: dict, sha256: str) -> dict:
    """The report dict, written to OUTDIR/report.json."""
    layers = []
    live = live_bytes_per_step(layout, len(order))
    for step, node in enumerate(order):
        op = REGISTRY[node.op]
        layers.append({
            "step": step, "name": node.name, "op": node.op,
            "output_shape": list(g.tensors[node.outputs[0]].shape),
            "output_dtype": g.tensors[node.outputs[0]].dtype,
            "macs": int(op.macs(node, g)),
            "weight_bytes": _layer_weight_bytes(node, g, calls.get(node.name)),
            "live_bytes": live[step] if step < len(live) else 0,
            "alias": op.aliases_input(node, g),
        })
    tensors = []
    by_name = {b.name: b for b in layout.buffers}
    for tname, root in sorted(layout.roots.items(), key=lambda kv: kv[0]):
        b = by_name.get(root)
        if b is None:
            continue
        tensors.append({"name": tname, "bytes": g.tensors[tname].nbytes, "offset": layout.offsets[root],
                        "first_step": b.first, "last_step": b.last, "alias_of": None if root == tname else root})
    for node_name, sname in layout.scratch.items():
        b = by_name[sname]
        tensors.append({"name": sname, "bytes": b.size, "offset": layout.offsets[sname], "first_step": b.first,
                        "last_step": b.last, "alias_of": None, "scratch_of": node_name})
    weight_bytes = sum(a.data.nbytes for a in program.arrays)
    return {
        "mcucomp_version": __version__,
        "name": name,
        "model_sha256": sha256,
        "board": board["id"],
        "options": options,
        "io_in_arena": options["io"] == "arena",
        "arena_bytes": layout.arena_size,
        "live_lower_bound_bytes": layout.lower_bound,
        "weights_bytes": weight_bytes,
        "flash_bytes": weight_bytes,
        "macs": sum(layer["macs"] for layer in layers),
        "inputs": _io(g, g.inputs, program.inputs),
        "outputs": _io(g, g.outputs, program.outputs),
        "order": [n.name for n in order],
        "live_bytes_per_step": live,
        "layers": layers,
        "tensors": tensors,
    }
