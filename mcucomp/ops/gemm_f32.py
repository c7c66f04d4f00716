"""Float32 matrix products: Gemm (alpha, beta, transposes, broadcast C) and MatMul (2-D and batched N-D)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._cost import params_dict
from .base import KernelCall, KernelOp, all_float32, bcast_struct, broadcast_strides, collapse_dims, shape


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


class GemmF32(KernelOp):
    """Gemm and MatMul on float32 tensors, one strided kernel."""

    name = "gemm_f32"
    cost_paths = ("gemm", "matmul")
    onnx_ops = ("Gemm", "MatMul")
    constraints = (all_float32, _gemm_inputs_2d, _batch_rank_fits)

    def lower(self, node: Node, g: Graph) -> None:
        """Record which ONNX op this was (Gemm keeps its attributes)."""
        node.attrs["onnx_op"] = node.op
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_gemm_f32(params, a, b, c|NULL, y)."""
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

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per output a K-long FMA chain (strided loads), then alpha and beta * C when present."""
        call = self.call(node, g)
        p = params_dict(call)
        outputs = g.tensors[node.outputs[0]].size
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
