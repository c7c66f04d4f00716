"""Float32 Add, Sub, Mul and Div with numpy broadcasting."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import (MAX_RANK, KernelCall, KernelOp, all_float32, bcast_struct, broadcast_strides, collapse_dims,
                   shape)

OP_CODES = {"Add": 0, "Sub": 1, "Mul": 2, "Div": 3}  # MCU_BINARY_* in runtime_c/kernels/binary_f32.h


def _walk(node: Node, g: Graph) -> tuple[list[int], list[list[int]]]:
    """Collapsed output dims with each input's broadcast strides."""
    out = list(shape(g, node.outputs[0]))
    return collapse_dims(out, broadcast_strides(shape(g, node.inputs[0]), out),
                         broadcast_strides(shape(g, node.inputs[1]), out))


def _broadcast_rank_fits(node: Node, g: Graph) -> bool:
    """The broadcast pattern must merge into at most 6 dims."""
    return len(_walk(node, g)[0]) <= MAX_RANK


class BinaryF32(KernelOp):
    """Element-wise arithmetic on float32 tensors; same-shape operands run as one flat loop."""

    name = "binary_f32"
    onnx_ops = tuple(OP_CODES)
    constraints = (all_float32, _broadcast_rank_fits)

    def lower(self, node: Node, g: Graph) -> None:
        """Keep the ONNX op as the op code."""
        node.attrs["op_code"] = OP_CODES[node.op]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_binary_f32(params{op, count, bc}, a, b, y); bc.rank 0 selects the flat loop."""
        out = shape(g, node.outputs[0])
        same = shape(g, node.inputs[0]) == out and shape(g, node.inputs[1]) == out
        dims, (a_st, b_st) = ([], ([], [])) if same else _walk(node, g)
        return KernelCall(self.name, [("op", node.attrs["op_code"]), ("count", g.tensors[node.outputs[0]].size),
                                      ("bc", bcast_struct(dims, a_st, b_st))],
                          [node.inputs[0], node.inputs[1], node.outputs[0]])


OP = BinaryF32()
