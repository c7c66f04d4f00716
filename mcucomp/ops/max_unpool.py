"""MaxUnpool (1-D to 3-D, any data dtype): scatter by MaxPool's flat indices into zeros.

As in the ONNX reference, the indices address the unpooled tensor of the shape kernel_shape, strides and pads give;
with output_shape (input 2, a constant) that tensor sits at the origin of the larger output.
"""

from __future__ import annotations

from ..ir import DTYPE_BYTES, Graph, Node
from .base import MAX_RANK, KernelCall, KernelOp, contiguous_strides, shape


def _int64_indices(node: Node, g: Graph) -> bool:
    """MaxUnpool's indices (input 1) must be int64 and its data of rank 3 to 5."""
    return g.tensors[node.inputs[1]].dtype == "int64" and 3 <= len(shape(g, node.inputs[0])) <= 5


def unpooled_dims(node: Node, g: Graph) -> list[int]:
    """The shape the indices address: N, C and (in - 1) * stride - pad_begin - pad_end + kernel per spatial dim."""
    dims = shape(g, node.inputs[0])
    kernel = list(node.attrs["kernel_shape"])
    rank = len(kernel)
    strides = list(node.attrs.get("strides") or [1] * rank)
    pads = list(node.attrs.get("pads") or [0] * 2 * rank)
    return list(dims[:2]) + [(d - 1) * s - pads[k] - pads[rank + k] + kern
                             for k, (d, s, kern) in enumerate(zip(dims[2:], strides, kernel))]


class MaxUnpool(KernelOp):
    """MaxUnpool with runtime indices."""

    name = "max_unpool"
    onnx_ops = ("MaxUnpool",)
    constraints = (_int64_indices,)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_max_unpool(params, x, indices, y)."""
        out = g.tensors[node.outputs[0]]
        dims = unpooled_dims(node, g)
        pad = [0] * (MAX_RANK - len(dims))
        params = [("count", g.tensors[node.inputs[0]].size), ("out_count", out.size),
                  ("elem_size", DTYPE_BYTES[out.dtype]), ("rank", len(dims)), ("dims", dims + pad),
                  ("out_strides", contiguous_strides(out.shape) + pad)]
        return KernelCall(self.name, params, [node.inputs[0], node.inputs[1], node.outputs[0]])


OP = MaxUnpool()
