"""Float32 Add, Sub, Mul, Div, Max, Min and Mod with numpy broadcasting."""

from __future__ import annotations

from ..ir import Graph, Node
from ._cost import params_dict
from ._elementwise import broadcast_fits, dtype, walk
from ._overlap import elementwise
from .base import KernelCall, KernelOp, OverlapMargin, bcast_struct, shape

# MCU_BINARY_* in runtime_c/kernels/binary_f32.h; Mod is MOD (fmod=0, sign of the divisor) or FMOD (fmod=1)
OP_CODES = {"Add": 0, "Sub": 1, "Mul": 2, "Div": 3, "Max": 4, "Min": 5, "Mod": 6}
FMOD = 7


def _all_float32(node: Node, g: Graph) -> bool:
    """Both inputs and the output must be float32 (int8 arrives through QDQ or QOperator lowering)."""
    return {dtype(g, n) for n in node.inputs + node.outputs} == {"float32"}


class BinaryF32(KernelOp):
    """Element-wise arithmetic on float32 tensors: same-shape operands as one flat row, else row by row."""

    name = "binary_f32"
    cost_paths = tuple(f"{code}{kind}" for code in [*(op.lower() for op in OP_CODES), "fmod"]
                       for kind in ("", "_broadcast"))
    onnx_ops = tuple(OP_CODES)
    constraints = (_all_float32, broadcast_fits)

    def lower(self, node: Node, g: Graph) -> None:
        """Keep the ONNX op (and Mod's fmod attribute) as the op code."""
        fmod = node.op == "Mod" and node.attrs.get("fmod", 0)
        node.attrs["op_code"] = FMOD if fmod else OP_CODES[node.op]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_<name>(params{op, count, bc}, a, b, y); bc.rank 0 selects the flat loop."""
        a, b = node.inputs
        y = node.outputs[0]
        out = shape(g, y)
        same = shape(g, a) == out and shape(g, b) == out
        dims, (a_st, b_st) = ([], ([], [])) if same else walk(node, g, [a, b])
        return KernelCall(self.name, [("op", node.attrs["op_code"]), ("count", g.tensors[y].size),
                                      ("bc", bcast_struct(dims, a_st, b_st))], [a, b, y])

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """One element loop per op code: flat when both shapes equal the output's, else one row per step of the
        broadcast walk over all but its innermost dim (the row's length)."""
        p = params_dict(self.call(node, g))
        code = {v: k for k, v in OP_CODES.items()}.get(p["op"], "Fmod").lower()
        bc = p["bc"]
        if not bc["rank"]:
            return code, {"calls": 1, "elements": p["count"]}
        rows = p["count"] // bc["dims"][bc["rank"] - 1]
        return code + "_broadcast", {"calls": 1, "elements": p["count"], "rows": rows}

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: both loops read a[i] (an unbroadcast a walks the output's indices) and b, then write y[i]."""
        return elementwise(node, g)


OP = BinaryF32()
