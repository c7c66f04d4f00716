"""Refuse ONNX attributes outside their valid range before any pass reads them: groups, window geometry, axes.

Shape inference catches some of these; this pass states the rule for every op that has one, naming the node, the
attribute and the valid range (exit 1: a broken model, not an unsupported one)."""

from __future__ import annotations

from ..errors import ModelError
from ..ir import Graph, Node

#: Ops with a sliding window over input 0 (N, C, spatial...): attribute lists have one entry per spatial dim.
WINDOW_OPS = {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "DeformConv", "MaxPool", "AveragePool",
              "LpPool", "QLinearAveragePool"}
#: Window ops with a `group` attribute and the input that holds their weights.
GROUPED_OPS = {"Conv": 1, "ConvTranspose": 1, "ConvInteger": 1, "QLinearConv": 3, "DeformConv": 1}
#: Ops with an `axis` attribute: (which tensor's rank bounds it, True when axis == rank is allowed too).
AXIS_OPS = {
    "Concat": ("out", False), "QLinearConcat": ("out", False), "Softmax": ("in", False),
    "LogSoftmax": ("in", False), "Hardmax": ("in", False), "QLinearSoftmax": ("in", False),
    "Gather": ("in", False), "GatherElements": ("in", False), "ScatterElements": ("in", False),
    "Scatter": ("in", False), "ArgMax": ("in", False), "ArgMin": ("in", False), "TopK": ("in", False),
    "Split": ("in", False), "Compress": ("in", False), "Flatten": ("in", True), "OneHot": ("out", False),
    "LpNormalization": ("in", False), "LayerNormalization": ("in", False),
}
#: Domains whose ops these rules describe (ops of other domains are someone else's: check_supported lists them).
DOMAINS = ("", "ai.onnx", "com.microsoft")
_POSITIVE_LISTS = ("strides", "dilations", "kernel_shape")


def _fail(node: Node, text: str) -> ModelError:
    """The error for a node with a bad attribute."""
    return ModelError(f"Node '{node.name}' ({node.op}): {text}. Fix the attribute in the exporter or in the model.")


def _rank(g: Graph, name: str) -> int | None:
    """Rank of a tensor, or None when it is not in the graph."""
    t = g.tensors.get(name) if name else None
    return None if t is None else len(t.shape)


def _check_window(node: Node, g: Graph) -> None:
    """strides, dilations, kernel_shape > 0; pads, output_padding >= 0; list lengths match the spatial rank."""
    rank = _rank(g, node.inputs[0])
    spatial = None if rank is None else rank - 2
    for key in _POSITIVE_LISTS + ("pads", "output_padding", "output_shape"):
        values = node.attrs.get(key)
        if values is None:
            continue
        values = list(values)
        floor = 1 if key in _POSITIVE_LISTS or key == "output_shape" else 0
        if any(v < floor for v in values):
            raise _fail(node, f"attribute {key}={values} must hold values >= {floor}")
        length = 2 * spatial if key == "pads" and spatial is not None else spatial
        if length is not None and len(values) != length:
            raise _fail(node, f"attribute {key}={values} has {len(values)} entries, but input '{node.inputs[0]}' "
                              f"has {spatial} spatial dim(s), so it needs {length}")


def _check_group(node: Node, g: Graph) -> None:
    """group >= 1 and it divides the input channels and the weights' output channels."""
    group = node.attrs.get("group", 1)
    if group < 1:
        raise _fail(node, f"attribute group={group} must be >= 1")
    x = g.tensors.get(node.inputs[0])
    w_index = GROUPED_OPS[node.op]
    w = g.tensors.get(node.inputs[w_index]) if len(node.inputs) > w_index else None
    if x is None or w is None or len(x.shape) < 2 or len(w.shape) < 2:
        return
    channels = x.shape[1]
    if channels % group:
        raise _fail(node, f"attribute group={group} does not divide the {channels} channels of input "
                          f"'{node.inputs[0]}'")
    # Conv weights are [M, C/group, k...]; ConvTranspose weights are [C, M/group, k...].
    if node.op == "ConvTranspose":
        if w.shape[0] != channels:
            raise _fail(node, f"weights '{w.name}' have {w.shape[0]} input channels, but input '{x.name}' has "
                              f"{channels}")
    elif w.shape[1] * group != channels or w.shape[0] % group:
        raise _fail(node, f"weights '{w.name}' of shape {list(w.shape)} do not match group={group} and the "
                          f"{channels} channels of input '{x.name}' (expected [M, {channels // group}, ...] with M "
                          f"a multiple of {group})")


def _check_axis(node: Node, g: Graph) -> None:
    """axis in [-rank, rank) (or [-rank, rank] where the op allows the end)."""
    if "axis" not in node.attrs:
        return
    which, inclusive = AXIS_OPS[node.op]
    names = node.outputs if which == "out" else node.inputs
    rank = _rank(g, names[0]) if names else None
    if rank is None:
        return
    axis = node.attrs["axis"]
    high = rank if inclusive else rank - 1
    if not -rank <= axis <= high:
        raise _fail(node, f"attribute axis={axis} is out of range for the rank-{rank} tensor '{names[0]}': use "
                          f"{-rank} to {high}")


def run(g: Graph, options: dict) -> Graph:
    """Raise ModelError at the first node with an attribute out of range."""
    for node in g.nodes:
        if node.domain not in DOMAINS:
            continue
        if node.op in WINDOW_OPS:
            _check_window(node, g)
        if node.op in GROUPED_OPS:
            _check_group(node, g)
        if node.op in AXIS_OPS:
            _check_axis(node, g)
    return g
