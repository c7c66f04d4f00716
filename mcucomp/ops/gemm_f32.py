"""Float32 matrix products: Gemm (alpha, beta, transposes, broadcast C) and MatMul (2-D and batched N-D).

Paths, one runtime file each: over a constant B with A row-major, op(B) packed at compile time in the order the loop
reads it (mcu_matvec_f32's row blocks), `matvec` for one row of A (fully connected) and `blocked` for more (2 x 8
output blocks); `general`, strided, for runtime B, transA and batched B.
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from ._cost import params_dict
from ._gemm_f32.blocked import blocked_terms
from ._gemm_f32.packing import matvec_terms, pack_rows
from .base import ArrayRef, KernelCall, KernelOp, all_float32, bcast_struct, broadcast_strides, collapse_dims, shape


def _gemm_inputs_2d(node: Node, g: Graph) -> bool:
    """Gemm inputs A and B must be 2-D, and C (when present) must broadcast to [M, N] from at most 2 dims."""
    if node.op != "Gemm":
        return True
    c_ok = len(node.inputs) < 3 or not node.inputs[2] or len(shape(g, node.inputs[2])) <= 2
    return len(shape(g, node.inputs[0])) == 2 and len(shape(g, node.inputs[1])) == 2 and c_ok


def _batch_rank_fits(node: Node, g: Graph) -> bool:
    """MatMul batch dims must merge into at most 6 broadcast levels."""
    if node.op != "MatMul":
        return True
    return len(_matmul_batch(node, g)[0]) <= 6


def _matmul_batch(node: Node, g: Graph) -> tuple[list[int], list[list[int]]]:
    """Collapsed output batch dims with A's and B's matrix-step strides (in elements)."""
    a, b = shape(g, node.inputs[0]), shape(g, node.inputs[1])
    a2 = (1,) + tuple(a) if len(a) == 1 else tuple(a)
    b2 = tuple(b) + (1,) if len(b) == 1 else tuple(b)
    nb = max(len(a2), len(b2)) - 2
    a_batch, b_batch = a2[:-2], b2[:-2]
    out_batch = [max(x, y) for x, y in zip((1,) * (nb - len(a_batch)) + a_batch, (1,) * (nb - len(b_batch)) + b_batch)]
    a_st = [s * a2[-2] * a2[-1] for s in broadcast_strides(a_batch, out_batch)]
    b_st = [s * b2[-2] * b2[-1] for s in broadcast_strides(b_batch, out_batch)]
    return collapse_dims(out_batch, a_st, b_st)


def gemm_path(node: Node, g: Graph) -> str:
    """`matvec` or `blocked` (one row of A, or more) over a constant B with A row-major (Gemm without transA, MatMul
    with a 1-D or 2-D B); else `general`."""
    b = g.const(node.inputs[1])
    if b is None:
        return "general"
    if node.attrs["onnx_op"] == "Gemm":
        if node.attrs.get("transA", 0):
            return "general"
    elif b.ndim > 2:
        return "general"
    return "matvec" if _rows_k(node, g)[0] == 1 else "blocked"


def _rows_k(node: Node, g: Graph) -> tuple[int, int]:
    """Rows of A (a MatMul's batch dims folded in) and the reduction length K, for the packed paths."""
    a = shape(g, node.inputs[0])
    k = a[-1]
    return g.tensors[node.inputs[0]].size // k, k


def packed_b(node: Node, g: Graph) -> np.ndarray:
    """op(B) transposed, [N, K], packed by pack_rows: one weight row per output column."""
    b = g.const(node.inputs[1]).astype(np.float32)
    if b.ndim == 1:
        return pack_rows(b.reshape(1, -1))
    trans_b = node.attrs["onnx_op"] == "Gemm" and node.attrs.get("transB", 0)
    return pack_rows(b if trans_b else b.T)


class GemmF32(KernelOp):
    """Gemm and MatMul on float32 tensors: the packed paths over a constant B, else one strided kernel."""

    name = "gemm_f32"
    uses_float_mac = True
    cost_paths = ("gemm", "matmul", "matvec", "blocked")
    onnx_ops = ("Gemm", "MatMul")
    constraints = (all_float32, _gemm_inputs_2d, _batch_rank_fits)

    def lower(self, node: Node, g: Graph) -> None:
        """Record which ONNX op this was (Gemm keeps its attributes)."""
        node.attrs["onnx_op"] = node.op
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_gemm_f32(params, a, b, c|NULL, y), or a packed path's mcu_gemm_f32_<path>(params, a, c|NULL, y)."""
        path = gemm_path(node, g)
        if path != "general":
            return self._packed_call(node, g, path)
        if node.attrs["onnx_op"] == "Gemm":
            return self._gemm_call(node, g)
        a, b = shape(g, node.inputs[0]), shape(g, node.inputs[1])
        m = 1 if len(a) == 1 else a[-2]
        k = a[-1]
        n = 1 if len(b) == 1 else b[-1]
        dims, (a_st, b_st) = _matmul_batch(node, g)
        return KernelCall(self.name, _params(bcast_struct(dims, a_st, b_st), m, n, k, (k, 1, n, 1), (0, 0), 1.0, 0.0),
                          [node.inputs[0], node.inputs[1], None, node.outputs[0]])

    def _gemm_call(self, node: Node, g: Graph) -> KernelCall:
        """Gemm: transposes become strides, C broadcasts to [M, N] through 0 strides."""
        trans_a, trans_b = node.attrs.get("transA", 0), node.attrs.get("transB", 0)
        a, b = shape(g, node.inputs[0]), shape(g, node.inputs[1])
        m, k = (a[1], a[0]) if trans_a else (a[0], a[1])
        n = b[0] if trans_b else b[1]
        strides = ((1, m) if trans_a else (k, 1)) + ((1, k) if trans_b else (n, 1))
        c_name = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        c_strides = tuple(broadcast_strides(shape(g, c_name), [m, n])) if c_name else (0, 0)
        params = _params(bcast_struct([], [], []), m, n, k, strides, c_strides,
                         float(node.attrs.get("alpha", 1.0)), float(node.attrs.get("beta", 1.0)))
        return KernelCall(self.name, params, [node.inputs[0], node.inputs[1], c_name, node.outputs[0]])

    def _packed_call(self, node: Node, g: Graph, path: str) -> KernelCall:
        """The packed paths: op(B) packed as a constant array of the call; a Gemm's C broadcast through 0 strides."""
        rows, k = _rows_k(node, g)
        out = shape(g, node.outputs[0])
        n = out[-1] if len(shape(g, node.inputs[1])) > 1 else 1
        c_name, c_strides, alpha, beta = None, (0, 0), 1.0, 0.0
        if node.attrs["onnx_op"] == "Gemm":
            c_name = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
            c_strides = tuple(broadcast_strides(shape(g, c_name), [rows, n])) if c_name else (0, 0)
            alpha, beta = float(node.attrs.get("alpha", 1.0)), float(node.attrs.get("beta", 1.0))
        # named after B and its orientation, so that the layers sharing a B (an unrolled recurrence) share one array
        trans_b = node.attrs["onnx_op"] == "Gemm" and node.attrs.get("transB", 0)
        key = f"{node.inputs[1]}_bpack_{'t' if trans_b else 'n'}"
        params = [("rows", rows), ("n", n), ("k", k), ("c_rs", c_strides[0]), ("c_cs", c_strides[1]),
                  ("alpha", alpha), ("beta", beta), ("w", ArrayRef(key))]
        return KernelCall(f"{self.name}_{path}", params, [node.inputs[0], c_name, node.outputs[0]],
                          {key: packed_b(node, g)})

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """general: per output a K-long MAC chain (strided loads), then alpha and beta * C when present (path `gemm`,
        else `matmul`); matvec: per row of A mcu_matvec_f32 (matvec_terms); blocked: blocked_terms; both then per row
        the alpha and beta * C passes over its outputs when present."""
        call = self.call(node, g)
        p = params_dict(call)
        outputs = g.tensors[node.outputs[0]].size
        path = gemm_path(node, g)
        if path != "general":
            rows, n, k = p["rows"], p["n"], p["k"]
            finish = {"rows": rows, "scaled": outputs if p["alpha"] != 1.0 else 0,
                      "c_added": outputs if call.args[1] is not None else 0}
            loops = matvec_terms(rows, n, k) if path == "matvec" else blocked_terms(rows, n, k)
            return path, {"calls": 1, **finish, **loops}
        with_c = call.args[2] is not None or p["alpha"] != 1.0
        return "gemm" if with_c else "matmul", {"calls": 1, "outputs": outputs, "macs": outputs * p["k"]}

    def macs(self, node: Node, g: Graph) -> int:
        """Output elements times the reduction length K."""
        a = shape(g, node.inputs[0])
        k = a[0] if node.attrs.get("onnx_op") == "Gemm" and node.attrs.get("transA", 0) else a[-1]
        return g.tensors[node.outputs[0]].size * k


def _params(batch, m, n, k, strides, c_strides, alpha, beta) -> list[tuple[str, object]]:
    """The mcu_gemm_f32_params initializer."""
    a_rs, a_ks, b_ks, b_cs = strides
    return [("batch", batch), ("m", m), ("n", n), ("k", k), ("a_rs", a_rs), ("a_ks", a_ks), ("b_ks", b_ks),
            ("b_cs", b_cs), ("c_rs", c_strides[0]), ("c_cs", c_strides[1]), ("alpha", alpha), ("beta", beta)]


OP = GemmF32()
