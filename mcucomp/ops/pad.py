"""Pad (constant with a value, reflect, edge, wrap; negative pads crop), any dtype, rank <= 6."""

from __future__ import annotations

from ..ir import DTYPE_BYTES, Graph, Node
from ._data import scalar_bytes
from ._layout import all_images, is_nhwc, to_nhwc_perm
from .base import MAX_RANK, KernelCall, KernelOp, shape

MODES = {"constant": 0, "reflect": 1, "edge": 2, "wrap": 3}  # MCU_PAD_* in runtime_c/kernels/pad.h


def _mode(node: Node) -> str:
    """The mode attribute as text."""
    mode = node.attrs.get("mode", "constant")
    return mode.decode() if isinstance(mode, bytes) else mode


def _pads(node: Node, g: Graph) -> tuple[list[int], list[int]]:
    """Per-dim (begin, end) pads from the constant pads input (and optional axes input)."""
    rank = len(shape(g, node.inputs[0]))
    pads = [int(v) for v in g.const(node.inputs[1]).reshape(-1)]
    axes_name = node.inputs[3] if len(node.inputs) > 3 else ""
    axes = [int(a) % rank for a in g.const(axes_name).reshape(-1)] if axes_name else list(range(rank))
    begin, end = [0] * rank, [0] * rank
    for i, axis in enumerate(axes):
        begin[axis], end[axis] = pads[i], pads[i + len(axes)]
    return begin, end


def _inputs_constant(node: Node, g: Graph) -> bool:
    """Pad's pads, constant_value and axes inputs must be constant initializers."""
    return len(node.inputs) > 1 and all(g.const(n) is not None for n in node.inputs[1:] if n)


def _mode_supported(node: Node, g: Graph) -> bool:
    """Pad mode must be constant, reflect, edge or wrap."""
    return _mode(node) in MODES


def _rank_fits(node: Node, g: Graph) -> bool:
    """Pad supports tensors of rank 1 to 6."""
    return 1 <= len(shape(g, node.inputs[0])) <= MAX_RANK


def _reflect_pads_fit(node: Node, g: Graph) -> bool:
    """Reflect pads must be smaller than the padded dim (after cropping by negative pads)."""
    if _mode(node) != "reflect" or not _inputs_constant(node, g):
        return True
    dims = shape(g, node.inputs[0])
    begin, end = _pads(node, g)
    return all(max(b, e) < d + min(b, 0) + min(e, 0) for b, e, d in zip(begin, end, dims))


class Pad(KernelOp):
    """Pad of a tensor of any dtype."""

    name = "pad"
    onnx_ops = ("Pad",)
    cost_paths = tuple(MODES)
    constraints = (_inputs_constant, _mode_supported, _rank_fits, _reflect_pads_fit)

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout for images: the per-axis pads are applied in the stored axis order."""
        return all_images(node, g)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_pad(params{mode, rank, count, elem_bytes, in_dims, out_dims, pad_begin, lo, hi, value}, x, y)."""
        x, y = g.tensors[node.inputs[0]], g.tensors[node.outputs[0]]
        begin, end = _pads(node, g)
        if is_nhwc(node):  # the pads follow the axes into their stored order
            perm = to_nhwc_perm(len(begin))
            begin, end = [begin[a] for a in perm], [end[a] for a in perm]
        value_name = node.inputs[2] if len(node.inputs) > 2 else ""
        value = g.const(value_name).reshape(-1)[0] if value_name else 0
        fill = [0] * (MAX_RANK - len(x.shape))
        params = [("mode", MODES[_mode(node)]), ("rank", len(x.shape)), ("count", y.size),
                  ("elem_bytes", DTYPE_BYTES[x.dtype]), ("in_dims", list(x.shape) + fill),
                  ("out_dims", list(y.shape) + fill), ("pad_begin", begin + fill),
                  ("lo", [max(-b, 0) for b in begin] + fill),
                  ("hi", [d + min(e, 0) for d, e in zip(x.shape, end)] + fill),
                  ("value", scalar_bytes(value, x.dtype))]
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]])

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per output element a source lookup over the dims (stopping at the first padded one), one element memcpy
        and a counter step; 'constant' and the index-mapping modes differ in the lookup."""
        x, y = g.tensors[node.inputs[0]], g.tensors[node.outputs[0]]
        # the outputs whose lookup runs over every dim
        inside = min(x.size, y.size) if _mode(node) == "constant" else y.size
        return _mode(node), {"calls": 1, "outputs": y.size, "dim_lookups": inside * len(x.shape) + y.size - inside,
                             "bytes": y.nbytes}


OP = Pad()
