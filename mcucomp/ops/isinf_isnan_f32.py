"""IsInf and IsNaN on float32 tensors, giving bool tensors."""

from __future__ import annotations

from ..ir import Graph, Node
from ._overlap import elementwise
from .base import KernelCall, KernelOp, OverlapMargin


def _float32_to_bool(node: Node, g: Graph) -> bool:
    """The input must be float32 (float64 and 16-bit floats are not supported)."""
    return g.tensors[node.inputs[0]].dtype == "float32" and g.tensors[node.outputs[0]].dtype == "bool"


class IsInfIsNaNF32(KernelOp):
    """y = isinf(x) (each sign selectable) or isnan(x), element-wise."""

    name = "isinf_isnan_f32"
    onnx_ops = ("IsInf", "IsNaN")
    constraints = (_float32_to_bool,)

    def lower(self, node: Node, g: Graph) -> None:
        """IsNaN, or IsInf with its detect_positive/detect_negative flags (default 1)."""
        nan = node.op == "IsNaN"
        node.attrs.update(nan=int(nan), pos=0 if nan else int(node.attrs.get("detect_positive", 1)),
                          neg=0 if nan else int(node.attrs.get("detect_negative", 1)))
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_isinf_isnan_f32(params{count, nan, pos, neg}, x, y)."""
        a = node.attrs
        return KernelCall(self.name, [("count", g.tensors[node.outputs[0]].size), ("nan", a["nan"]),
                                      ("pos", a["pos"]), ("neg", a["neg"])], [node.inputs[0], node.outputs[0]])

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads x[i], then writes y[i]."""
        return elementwise(node, g)


OP = IsInfIsNaNF32()
