"""int8 fully connected (weights [out, in]) lowered from QGemm-like QDQ groups and QOperator matmuls, or computed
like onnxruntime's float path for the QDQ MatMul/Gemm groups it does not fuse."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from ..ortcompat import float_gemm_plan
from ._cost import params_dict, requant_terms
from .base import ArrayRef, KernelCall, KernelOp, shape


class FcS8(KernelOp):
    """attrs: x_zp, w_zp (array or None), rq (mcucomp.quant.Requant; only zp, qmin, qmax in float mode), and for
    mode 'float': x_scale, y_scale, transb; inputs x [rows, in], w [out, in] (float32 in float mode), bias (int32,
    or float32 in float mode)."""

    name = "fc_s8"
    depends = ("mlas_dot",)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_fc_s8(params, x, w|NULL, bias|NULL, y, scratch|NULL); float mode passes w and bias in the params."""
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
        if a.get("mode") != "float":
            return KernelCall(self.name, params + [("mode", 0)],
                              [node.inputs[0], node.inputs[1], bias, node.outputs[0], None], arrays)
        rsegs, csegs = float_gemm_plan(rows, out_f, in_f)
        arrays.update({f"{node.name}_rseg_end": np.array([e for e, _ in rsegs], np.int32),
                       f"{node.name}_rseg_rows": np.array([c for _, c in rsegs], np.int32),
                       f"{node.name}_cseg_end": np.array([e for e, _ in csegs], np.int32),
                       f"{node.name}_cseg_kblock": np.array([b for _, b in csegs], np.int32)})
        params += [("mode", 1), ("x_scale", a["x_scale"]), ("y_scale", a["y_scale"]),
                   ("wf", ArrayRef(node.inputs[1])), ("bf", ArrayRef(bias) if bias else "NULL"),
                   ("transb", int(a.get("transb", 0))), ("n_rseg", len(rsegs)),
                   ("rseg_end", ArrayRef(f"{node.name}_rseg_end")), ("rseg_rows", ArrayRef(f"{node.name}_rseg_rows")),
                   ("n_cseg", len(csegs)), ("cseg_end", ArrayRef(f"{node.name}_cseg_end")),
                   ("cseg_kblock", ArrayRef(f"{node.name}_cseg_kblock"))]
        # the C signature ends in `void *scratch` (one dequantized row): codegen appends it
        return KernelCall(self.name, params, [node.inputs[0], None, None, node.outputs[0]], arrays,
                          scratch_bytes=4 * in_f)

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Integer: per output an in_features dot and a requantization; float: per row a dequantized copy, per
        output a dot product in the MLAS order of its row's thread (M=1 kernels for one-row threads) and a division."""
        call = self.call(node, g)
        p = params_dict(call)
        rows, n_in, n_out = p["rows"], p["in_features"], p["out_features"]
        if p["mode"] == 0:
            return "integer", {"calls": 1, **requant_terms(p["rq"], rows * n_out), "macs": rows * n_in * n_out}
        ends, counts = call.arrays[f"{node.name}_rseg_end"], call.arrays[f"{node.name}_rseg_rows"]
        m1_rows = sum(int(c == 1) * (int(e) - int(s)) for s, e, c in zip([0, *ends[:-1]], ends, counts))
        dot_m1 = "dot_m1_transb" if p["transb"] else "dot_m1"
        terms = {"calls": 1, "outputs": rows * n_out, "dequantized": rows * n_in, dot_m1: m1_rows * n_out * n_in,
                 "dot_fma": (rows - m1_rows) * n_out * n_in}
        return "float", {k: v for k, v in terms.items() if v}

    def macs(self, node: Node, g: Graph) -> int:
        """Rows times weight elements."""
        out_f, in_f = shape(g, node.inputs[1])
        return g.tensors[node.inputs[0]].size // in_f * out_f * in_f


OP = FcS8()
