"""int8 fully connected (weights [out, in]) lowered from QDQ Gemm/MatMul groups and QOperator matmuls."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..ir import Graph, Node
from ._cost import params_dict, requant_terms
from .base import ArrayRef, KernelCall, KernelOp, shape

BLOCK = 4  # MCU_FC_S8_BLOCK in runtime_c/kernels/fc_s8.h
CHUNK = 32  # FC_S8_CHUNK in runtime_c/kernels/fc_s8.c: outputs requantized per mcu_requant_row call
#: `--requant fixed` rounds once here: LiteRT 2.3's FULLY_CONNECTED does (bench/litert_requant_check.py; the
#: rounding follows LiteRT per op), its convolutions twice.
ROUNDING = "single"


def fc_requant(rq):
    """The node's Requant with this kernel's fixed-point rounding (the C and mcucomp.intref.fc_s8 both use it)."""
    return dataclasses.replace(rq, rounding=ROUNDING)


def pack_weights(w: np.ndarray) -> np.ndarray:
    """The weights [out, in] in the order mcu_fc_s8 reads them: per block of 4 outputs, for every 4 features the 4
    outputs' 4 weights, then the block's 4 feature tails; the last out % 4 outputs row by row. Same byte count."""
    n_out, n_in = w.shape
    full, k4 = n_out - n_out % BLOCK, n_in - n_in % 4
    parts = []
    for o in range(0, full, BLOCK):
        block = w[o:o + BLOCK]
        parts.append(block[:, :k4].reshape(BLOCK, -1, 4).transpose(1, 0, 2).reshape(-1))
        parts.append(block[:, k4:].reshape(-1))
    parts.append(w[full:].reshape(-1))
    return np.concatenate(parts).astype(np.int8)


def folded_bias(w: np.ndarray, bias: np.ndarray | None, x_zp: int, w_zp: np.ndarray | None) -> np.ndarray:
    """bias[o] - x_zp · sum_k w[o][k] + in · x_zp · w_zp[o], modulo 2^32 like the C's int32 accumulator: the
    zero-point terms of sum_k (x - x_zp)(w - w_zp) that do not depend on x."""
    n_out, n_in = w.shape
    b = np.zeros(n_out, np.int64) if bias is None else bias.astype(np.int64).reshape(-1)
    b = b - x_zp * w.astype(np.int64).sum(axis=1)
    if w_zp is not None:
        b = b + n_in * x_zp * np.asarray(w_zp, np.int64).reshape(-1)
    return (((b + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)).astype(np.int32)


class FcS8(KernelOp):
    """attrs: x_zp, w_zp (array or None), rq (mcucomp.quant.Requant); inputs x [rows, in], int8 w [out, in],
    int32 bias or none."""

    name = "fc_s8"
    cost_paths = ("integer",)

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Layout-free on 2-D inputs (rows × features); a batched input keeps ONNX order, its last dim the features."""
        return len(shape(g, node.inputs[0])) <= 2 and len(shape(g, node.outputs[0])) <= 2

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_fc_s8(params, x, y): packed weights and the folded bias are constant arrays of the call."""
        a = node.attrs
        w = g.const(node.inputs[1])
        out_f, in_f = w.shape
        rows = g.tensors[node.inputs[0]].size // in_f
        rq = fc_requant(a["rq"])
        rq_fields, arrays = rq.params(node.name)
        w_zp = a.get("w_zp")
        has_wzp = w_zp is not None and np.any(np.asarray(w_zp) != 0)
        bias = g.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
        arrays[f"{node.name}_wpacked"] = pack_weights(w)
        arrays[f"{node.name}_bias"] = folded_bias(w, bias, a["x_zp"], w_zp)
        if has_wzp:
            arrays[f"{node.name}_wzp"] = np.asarray(w_zp, np.int32).reshape(-1)
        params = [("rows", rows), ("in_features", in_f), ("out_features", out_f),
                  ("w", ArrayRef(f"{node.name}_wpacked")), ("bias", ArrayRef(f"{node.name}_bias")),
                  ("w_zp", ArrayRef(f"{node.name}_wzp") if has_wzp else "NULL"), ("rq", rq_fields),
                  ("rq_plain", int(rq.plain()))]
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]], arrays)

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per row and chunk of 32 outputs a bias copy and a requantization call; per block of 4 outputs a 4-feature
        loop (k4 steps) and the feature tail; the last out % 4 outputs one dot product each; per output a
        requantization (inline where the rq is plain: `rq_plain_outputs`); per row an input sum with weight zero
        points."""
        p = params_dict(self.call(node, g))
        rows, n_in, n_out = p["rows"], p["in_features"], p["out_features"]
        blocks, rest = divmod(n_out, BLOCK)
        terms = {"calls": 1, "rows": rows, "chunks": rows * -(-n_out // CHUNK),
                 **({"rq_plain_outputs": rows * n_out} if p["rq_plain"] else requant_terms(p["rq"], rows * n_out)),
                 "block_steps": rows * blocks * (n_in // 4), "blocks": rows * blocks,
                 "tail_macs": rows * blocks * BLOCK * (n_in % 4), "single_macs": rows * rest * n_in}
        if p["w_zp"] != "NULL":
            terms["sum_elements"] = rows * n_in
        return "integer", terms

    def macs(self, node: Node, g: Graph) -> int:
        """Rows times weight elements."""
        out_f, in_f = shape(g, node.inputs[1])
        return g.tensors[node.inputs[0]].size // in_f * out_f * in_f


OP = FcS8()
