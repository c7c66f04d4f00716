"""int8 fully connected (weights [out, in]) lowered from QDQ Gemm/MatMul groups and QOperator matmuls."""

from __future__ import annotations

from ..ir import Graph, Node
from ._cost import params_dict, requant_terms
from .base import ArrayRef, KernelCall, KernelOp, shape


class FcS8(KernelOp):
    """attrs: x_zp, w_zp (array or None), rq (mcucomp.quant.Requant); inputs x [rows, in], int8 w [out, in],
    int32 bias or none."""

    name = "fc_s8"

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_fc_s8(params, x, w, bias|NULL, y)."""
        a = node.attrs
        out_f, in_f = shape(g, node.inputs[1])
        rows = g.tensors[node.inputs[0]].size // in_f
        rq_fields, arrays = a["rq"].params(node.name)
        w_zp = a.get("w_zp")
        if w_zp is not None:
            arrays[f"{node.name}_wzp"] = w_zp
        bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        params = [("rows", rows), ("in_features", in_f), ("out_features", out_f), ("x_zp", a["x_zp"]),
                  ("w_zp", ArrayRef(f"{node.name}_wzp") if w_zp is not None else "NULL"), ("rq", rq_fields)]
        return KernelCall(self.name, params, [node.inputs[0], node.inputs[1], bias, node.outputs[0]], arrays)

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per output an in_features dot product and a requantization."""
        p = params_dict(self.call(node, g))
        rows, n_in, n_out = p["rows"], p["in_features"], p["out_features"]
        return "integer", {"calls": 1, **requant_terms(p["rq"], rows * n_out), "macs": rows * n_in * n_out}

    def macs(self, node: Node, g: Graph) -> int:
        """Rows times weight elements."""
        out_f, in_f = shape(g, node.inputs[1])
        return g.tensors[node.inputs[0]].size // in_f * out_f * in_f


OP = FcS8()
