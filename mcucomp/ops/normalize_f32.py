"""Float32 normalizations over groups of elements: LayerNormalization (axis, epsilon, optional bias, Mean and
InvStdDev outputs), InstanceNormalization, GroupNormalization, MeanVarianceNormalization, LpNormalization (p = 1, 2)
and RMSNormalization."""

from __future__ import annotations

from ..ir import Graph, Node
from ._walk import norm_axis, walk_struct, walks_fit
from .base import KernelCall, KernelOp, all_float32, broadcast_strides, contiguous_strides, shape

#: MCU_NORM_* codes.
STANDARD, MVN, L1, L2, RMS = 0, 1, 2, 3, 4


def _opt(names: list[str], i: int) -> str | None:
    """The i-th optional input/output name, or None when absent."""
    return names[i] if len(names) > i and names[i] else None


def _param_strides(g: Graph, name: str | None, dims, per_channel: bool = False) -> list[int]:
    """Per-dim element strides of a scale/bias tensor read at each element of x (0 where broadcast or absent).

    LayerNormalization's parameters broadcast against x's trailing dims; InstanceNormalization's [C] scale and bias
    are indexed by the channel (dim 1)."""
    if name is None:
        return [0] * len(dims)
    if per_channel:
        return [1 if d == 1 else 0 for d in range(len(dims))]
    return broadcast_strides(shape(g, name), dims)


def _groups(node: Node, g: Graph) -> int | None:
    """GroupNormalization's num_groups when it splits the channels (input dim 1) evenly, else None."""
    dims, groups = shape(g, node.inputs[0]), int(node.attrs.get("num_groups", 0))
    return groups if len(dims) >= 2 and groups > 0 and dims[1] % groups == 0 else None


def _view(node: Node, g: Graph) -> list[int]:
    """The dims the kernel walks: x's, with GroupNormalization's channels split into [num_groups, C / num_groups]."""
    dims = list(shape(g, node.inputs[0]))
    groups = _groups(node, g) if node.attrs.get("onnx_op", node.op) == "GroupNormalization" else None
    return dims if groups is None else dims[:1] + [groups, dims[1] // groups] + dims[2:]


def _group_strides(g: Graph, name: str, dims: list[int]) -> list[int]:
    """Strides of a GroupNormalization scale or bias over the [N, G, C / G, ...] view: per channel ([C], opset 21)
    or per group ([G], opset 18)."""
    if shape(g, name) == (dims[1] * dims[2],):
        return [0, dims[2], 1] + [0] * (len(dims) - 3)
    return [0, 1] + [0] * (len(dims) - 2)


def _plan(node: Node, g: Graph):
    """(mode, epsilon, normalized axes, scale strides, bias strides) of a node (ONNX or lowered)."""
    op = node.attrs.get("onnx_op", node.op)
    dims = _view(node, g)
    rank = len(dims)
    eps = float(node.attrs.get("epsilon", 1e-5))
    scale, bias = _opt(node.inputs, 1), _opt(node.inputs, 2)
    if op == "LayerNormalization":
        axis = norm_axis(node, g, -1)
        return STANDARD, eps, list(range(axis, rank)), _param_strides(g, scale, dims), _param_strides(g, bias, dims)
    if op == "RMSNormalization":
        axis = norm_axis(node, g, -1)
        return RMS, eps, list(range(axis, rank)), _param_strides(g, scale, dims), [0] * rank
    if op == "GroupNormalization":
        return STANDARD, eps, list(range(2, rank)), _group_strides(g, scale, dims), _group_strides(g, bias, dims)
    if op == "InstanceNormalization":
        scale_st, bias_st = _param_strides(g, scale, dims, True), _param_strides(g, bias, dims, True)
        return STANDARD, eps, list(range(2, rank)), scale_st, bias_st
    if op == "MeanVarianceNormalization":
        axes = sorted({a % rank for a in node.attrs.get("axes", [0, 2, 3])})
        return MVN, 1e-9, axes, [0] * rank, [0] * rank
    axis = norm_axis(node, g, -1)
    return (L1 if node.attrs.get("p", 2) == 1 else L2), 0.0, [axis], [0] * rank, [0] * rank


def _walks(node: Node, g: Graph):
    """The (dims, x strides, scale strides, bias strides) walks over the groups and over one group."""
    _, _, red, s_st, b_st = _plan(node, g)
    dims = _view(node, g)
    x_st = contiguous_strides(dims)

    def part(axes):
        """The walk over the given axes."""
        return ([dims[a] for a in axes], [x_st[a] for a in axes], [s_st[a] for a in axes], [b_st[a] for a in axes])

    return part([a for a in range(len(dims)) if a not in red]), part(red)


def _p_is_1_or_2(node: Node, g: Graph) -> bool:
    """LpNormalization supports p = 1 and p = 2 only."""
    return node.op != "LpNormalization" or node.attrs.get("p", 2) in (1, 2)


def _stash_float32(node: Node, g: Graph) -> bool:
    """LayerNormalization, RMSNormalization and GroupNormalization must compute in float32 (stash_type = 1)."""
    return node.attrs.get("stash_type", 1) == 1


def _group_params(node: Node, g: Graph) -> bool:
    """GroupNormalization needs an input of rank >= 2 whose channels (dim 1) num_groups divides, and scale and bias
    with one value per channel (or, opset 18, per group)."""
    if node.op != "GroupNormalization":
        return True
    groups = _groups(node, g)
    channels = shape(g, node.inputs[0])[1] if groups else 0
    return groups is not None and all(shape(g, n) in ((channels,), (groups,)) for n in node.inputs[1:3])


def _rank_fits(node: Node, g: Graph) -> bool:
    """The group dims and the normalized dims must each merge into at most 6 dims."""
    return walks_fit(*_walks(node, g))


def _channel_params(node: Node, g: Graph) -> bool:
    """InstanceNormalization's scale and bias must have one value per channel (input dim 1), and the input rank >= 2."""
    if node.op != "InstanceNormalization":
        return True
    dims = shape(g, node.inputs[0])
    return len(dims) >= 2 and all(shape(g, n) == (dims[1],) for n in node.inputs[1:3] if n)


class NormalizeF32(KernelOp):
    """Per-group statistics, then every element of the group normalized (and scaled and shifted)."""

    name = "normalize_f32"
    depends = ("strided",)
    onnx_ops = ("LayerNormalization", "InstanceNormalization", "MeanVarianceNormalization", "LpNormalization",
                "RMSNormalization", "GroupNormalization")
    constraints = (all_float32, _p_is_1_or_2, _stash_float32, _channel_params, _group_params, _rank_fits)

    def lower(self, node: Node, g: Graph) -> None:
        """Record which ONNX op this was."""
        node.attrs["onnx_op"] = node.op
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_normalize_f32(params, x, scale|NULL, bias|NULL, y, mean|NULL, inv_std_dev|NULL)."""
        mode, eps, _, _, _ = _plan(node, g)
        outer, inner = _walks(node, g)
        params = [("mode", mode), ("epsilon", eps), ("outer", walk_struct(outer[0], *outer[1:])),
                  ("inner", walk_struct(inner[0], *inner[1:]))]
        stats = node.attrs["onnx_op"] == "LayerNormalization"
        args = [node.inputs[0], _opt(node.inputs, 1) if mode in (STANDARD, RMS) else None,
                _opt(node.inputs, 2) if mode == STANDARD else None, node.outputs[0],
                _opt(node.outputs, 1) if stats else None, _opt(node.outputs, 2) if stats else None]
        return KernelCall(self.name, params, args)


OP = NormalizeF32()
