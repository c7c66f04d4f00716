"""Float32 LRN (local response normalization across channels) on N x C x D1 ... tensors."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, all_float32, numel, shape


def _rank_at_least_3(node: Node, g: Graph) -> bool:
    """The input must be N x C x D1 x ... (rank >= 3)."""
    return len(shape(g, node.inputs[0])) >= 3


class LrnF32(KernelOp):
    """Each element divided by a power of the sum of squares over neighbouring channels."""

    name = "lrn_f32"
    onnx_ops = ("LRN",)
    constraints = (all_float32, _rank_at_least_3)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_lrn_f32(params, x, y)."""
        dims = shape(g, node.inputs[0])
        size = int(node.attrs["size"])
        a = node.attrs
        params = [("n", dims[0]), ("c", dims[1]), ("inner", numel(dims[2:])), ("before", (size - 1) // 2),
                  ("after", size // 2), ("alpha_over_size", float(a.get("alpha", 1e-4)) / size),
                  ("beta", float(a.get("beta", 0.75))), ("bias", float(a.get("bias", 1.0)))]
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]])


OP = LrnF32()
