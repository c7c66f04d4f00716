"""Integer (and bool) element-wise binary ops with numpy broadcasting: arithmetic, Mod, Max/Min, shifts, bit logic."""

from __future__ import annotations

from ..ir import Graph, Node
from ._elementwise import INT_DTYPES, bcast_pair, broadcast_fits, dtype
from ._overlap import elementwise
from .base import DTYPE_CODES, KernelCall, KernelOp, OverlapMargin

# MCU_BINARY_INT_* in runtime_c/kernels/binary_int.h
OP_CODES = {"Add": 0, "Sub": 1, "Mul": 2, "Div": 3, "Mod": 4, "Max": 6, "Min": 7, "And": 8, "BitwiseAnd": 8,
            "Or": 9, "BitwiseOr": 9, "Xor": 10, "BitwiseXor": 10, "BitShift": 11}
FMOD, SHIFT_RIGHT = 5, 12
LOGIC_OPS = ("And", "Or", "Xor")


def _integer_operands(node: Node, g: Graph) -> bool:
    """Both inputs and the output must share one integer type (int8 to uint64); And, Or and Xor take bool."""
    allowed = ("bool",) if node.op in LOGIC_OPS else INT_DTYPES
    names = list(node.inputs) + list(node.outputs)
    return len({dtype(g, n) for n in names}) == 1 and dtype(g, names[0]) in allowed


class BinaryInt(KernelOp):
    """Integer arithmetic wraps like numpy (computed in 64-bit unsigned, then truncated); Div and Mod by zero give 0.

    Div truncates toward zero (ONNX, C); Mod follows the divisor's sign (fmod=0, Python) or the dividend's (fmod=1).
    A shift by a negative amount or by the type width or more gives 0 (-1 for a right shift of a negative value).
    """

    name = "binary_int"
    onnx_ops = tuple(OP_CODES)
    constraints = (_integer_operands, broadcast_fits)

    def lower(self, node: Node, g: Graph) -> None:
        """Store the op code: Mod's fmod attribute and BitShift's direction select their variants."""
        code = OP_CODES[node.op]
        if node.op == "Mod" and node.attrs.get("fmod", 0):
            code = FMOD
        if node.op == "BitShift" and node.attrs.get("direction") in ("RIGHT", b"RIGHT"):
            code = SHIFT_RIGHT
        node.attrs["op_code"] = code
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_binary_int(params{op, dtype, count, bc}, a, b, y)."""
        a, b = node.inputs
        y = node.outputs[0]
        return KernelCall(self.name, [("op", node.attrs["op_code"]), ("dtype", DTYPE_CODES[dtype(g, y)]),
                                      ("count", g.tensors[y].size), ("bc", bcast_pair(node, g, a, b))], [a, b, y])

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads a[i] (an unbroadcast a walks the output's indices) and b, then writes y[i]."""
        return elementwise(node, g)


OP = BinaryInt()
