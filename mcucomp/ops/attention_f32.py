"""Float32 ONNX Attention (opset 23-25): scaled dot-product attention with grouped-query heads, attn_mask (bool or
float, broadcast, shorter than the keys), is_causal, sliding windows, softcap, past_key/past_value with
present_key/present_value outputs, nonpad_kv_seqlen and every qk_matmul_output_mode.

One direct kernel computes each query row's scores, bias and softmax in a scratch row of the key length, then the
weighted sum of the values: no [q_len, kv_len] score matrix in RAM. softmax_precision = 11 (float64) computes the
softmax in double, as the reference does."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, broadcast_strides, shape

#: Attention input and output positions.
Q, K, V, MASK, PAST_K, PAST_V, NONPAD = range(7)
Y, PRESENT_K, PRESENT_V, QK_OUT = range(4)


def _opt(names: list[str], i: int) -> str | None:
    """The i-th optional input/output name, or None when absent."""
    return names[i] if len(names) > i and names[i] else None


def _heads(node: Node, g: Graph) -> tuple[int, int]:
    """(q_num_heads, kv_num_heads): the attributes for 3-D inputs, dim 1 for 4-D."""
    if len(shape(g, node.inputs[Q])) == 3:
        return int(node.attrs.get("q_num_heads", 0)), int(node.attrs.get("kv_num_heads", 0))
    return shape(g, node.inputs[Q])[1], shape(g, node.inputs[K])[1]


def _dims(node: Node, g: Graph) -> dict:
    """batch, heads, lengths and head sizes of a node whose constraints hold."""
    qs, ks, vs = (shape(g, node.inputs[i]) for i in (Q, K, V))
    hq, hkv = _heads(node, g)
    past = _opt(node.inputs, PAST_K)
    if len(qs) == 3:
        head, v_head, q_len, new_len = qs[2] // hq, vs[2] // hkv, qs[1], ks[1]
    else:
        head, v_head, q_len, new_len = qs[3], vs[3], qs[2], ks[2]
    return dict(batch=qs[0], q_heads=hq, kv_heads=hkv, q_len=q_len, new_len=new_len,
                past_len=shape(g, past)[2] if past else 0, head_size=head, v_head_size=v_head)


def _view(dims: tuple[int, ...], heads: int, seq: int, dim: int) -> list[tuple[str, int]]:
    """mcu_attn_view of a [B, S, heads * dim] (3-D) or [B, heads, S, dim] (4-D) tensor."""
    if len(dims) == 3:
        return [("b", seq * heads * dim), ("h", dim), ("s", heads * dim)]
    return [("b", heads * seq * dim), ("h", seq * dim), ("s", dim)]


def _float32_io(node: Node, g: Graph) -> bool:
    """Q, K, V, past_key, past_value and every output must be float32, attn_mask float32 or bool, and
    nonpad_kv_seqlen int64."""
    names = [_opt(node.inputs, i) for i in (Q, K, V, PAST_K, PAST_V)] + [o for o in node.outputs if o]
    mask, nonpad = _opt(node.inputs, MASK), _opt(node.inputs, NONPAD)
    return (all(g.tensors[n].dtype == "float32" for n in names if n)
            and (mask is None or g.tensors[mask].dtype in ("float32", "bool"))
            and (nonpad is None or g.tensors[nonpad].dtype == "int64"))


def _head_layout(node: Node, g: Graph) -> bool:
    """Q, K and V must all be 3-D [batch, seq, heads * head_size] (with q_num_heads and kv_num_heads dividing the
    hidden sizes) or all 4-D [batch, heads, seq, head_size]; the query heads must be a multiple of the key/value
    heads, and K and V must agree in batch, heads and sequence length."""
    qs, ks, vs = (shape(g, node.inputs[i]) for i in (Q, K, V))
    if not len(qs) == len(ks) == len(vs) or len(qs) not in (3, 4):
        return False
    hq, hkv = _heads(node, g)
    if hq <= 0 or hkv <= 0 or hq % hkv:
        return False
    if len(qs) == 3:
        return (qs[2] % hq == 0 and ks[2] % hkv == 0 and vs[2] % hkv == 0 and ks[2] // hkv == qs[2] // hq
                and qs[0] == ks[0] == vs[0] and ks[1] == vs[1])
    return qs[0] == ks[0] == vs[0] and ks[1] == vs[1] and ks[2] == vs[2] and ks[3] == qs[3]


def _past_layout(node: Node, g: Graph) -> bool:
    """past_key and past_value must come together, as 4-D [batch, kv_heads, past_len, head_size] matching K and V,
    and not together with nonpad_kv_seqlen."""
    pk, pv = _opt(node.inputs, PAST_K), _opt(node.inputs, PAST_V)
    if (pk is None and pv is None) or not _head_layout(node, g):
        return True  # _head_layout reports a bad layout
    if pk is None or pv is None or _opt(node.inputs, NONPAD):
        return False
    d = _dims(node, g)
    return (shape(g, pk) == (d["batch"], d["kv_heads"], shape(g, pk)[2], d["head_size"])
            and shape(g, pv) == (d["batch"], d["kv_heads"], shape(g, pk)[2], d["v_head_size"]))


def _mask_layout(node: Node, g: Graph) -> bool:
    """attn_mask must have rank <= 4, broadcast to [batch, q_heads, q_len, n] and have at most as many key columns
    n as there are keys (past plus new); nonpad_kv_seqlen must have one value per batch."""
    mask, nonpad = _opt(node.inputs, MASK), _opt(node.inputs, NONPAD)
    if not _head_layout(node, g):
        return True  # _head_layout reports a bad layout
    d = _dims(node, g)
    if nonpad is not None and shape(g, nonpad) != (d["batch"],):
        return False
    if mask is None:
        return True
    ms = shape(g, mask)
    if not 1 <= len(ms) <= 4:
        return False
    full = (1,) * (4 - len(ms)) + tuple(ms)
    target = (d["batch"], d["q_heads"], d["q_len"])
    return ms[-1] <= d["past_len"] + d["new_len"] and all(m in (1, t) for m, t in zip(full[:3], target))


def _softmax_precision(node: Node, g: Graph) -> bool:
    """softmax_precision must be float32 (1) or float64 (11)."""
    return int(node.attrs.get("softmax_precision", 1)) in (1, 11)


class AttentionF32(KernelOp):
    """Multi-head (and grouped-query) scaled dot-product attention on float32 tensors."""

    name = "attention_f32"
    onnx_ops = ("Attention",)
    constraints = (_float32_io, _head_layout, _past_layout, _mask_layout, _softmax_precision)

    def lower(self, node: Node, g: Graph) -> None:
        """Drop skipped optional outputs (later stages expect real tensor names), remembering each one's position."""
        node.attrs["output_slots"] = [i for i, o in enumerate(node.outputs) if o]
        node.outputs = [o for o in node.outputs if o]
        node.op = self.name

    @staticmethod
    def _output(node: Node, slot: int) -> str | None:
        """The output at ONNX position `slot`, or None when the model skips it."""
        slots = node.attrs["output_slots"]
        return node.outputs[slots.index(slot)] if slot in slots else None

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_attention_f32(params, q, k, v, mask, past_key, past_value, nonpad, y, present_key, present_value,
        qk_out, scratch)."""
        d = _dims(node, g)
        a = node.attrs
        mask = _opt(node.inputs, MASK)
        kv_len = d["past_len"] + d["new_len"]
        scale = a.get("scale")
        scale = 1.0 / np.sqrt(d["head_size"]) if scale is None else float(scale)
        mask_strides = [0, 0, 0, 0]
        if mask is not None:
            ms = shape(g, mask)
            mask_strides = broadcast_strides(ms, (d["batch"], d["q_heads"], d["q_len"], ms[-1]))
            mask_strides = [0] * (4 - len(mask_strides)) + mask_strides
        qs, ks, vs = (shape(g, node.inputs[i]) for i in (Q, K, V))
        params = [*d.items(),
                  ("q", _view(qs, d["q_heads"], d["q_len"], d["head_size"])),
                  ("k", _view(ks, d["kv_heads"], d["new_len"], d["head_size"])),
                  ("v", _view(vs, d["kv_heads"], d["new_len"], d["v_head_size"])),
                  ("y", _view(qs, d["q_heads"], d["q_len"], d["v_head_size"])),
                  ("qk_scale", float(np.float32(np.sqrt(scale)))), ("softcap", float(a.get("softcap", 0.0))),
                  ("mask_bool", int(mask is not None and g.tensors[mask].dtype == "bool")),
                  ("mask_len", shape(g, mask)[-1] if mask else 0), ("mask_strides", mask_strides),
                  ("is_causal", int(a.get("is_causal", 0))), ("left_window", int(a.get("left_window_size", -1))),
                  ("right_window", int(a.get("right_window_size", -1))),
                  ("qk_mode", int(a.get("qk_matmul_output_mode", 0))),
                  ("softmax_double", int(int(a.get("softmax_precision", 1)) == 11))]
        args = [node.inputs[Q], node.inputs[K], node.inputs[V], mask, _opt(node.inputs, PAST_K),
                _opt(node.inputs, PAST_V), _opt(node.inputs, NONPAD),
                *(self._output(node, slot) for slot in (Y, PRESENT_K, PRESENT_V, QK_OUT))]
        return KernelCall(self.name, params, args, scratch_bytes=2 * kv_len * 4)

    def macs(self, node: Node, g: Graph) -> int:
        """Q K^T and P V."""
        return self.cost_terms(node, g)[1]["macs"]

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per query row (batch, query head, step) a softmax's set-up and the output row; per score (every key,
        past and new: masked ones too) its mask rules, and per score that is_causal leaves (`attended`: no key after
        the query's position) the full exponential and division; per score the dot products' steps over the key and
        value head sizes (`macs`)."""
        d = _dims(node, g)
        rows = d["batch"] * d["q_heads"] * d["q_len"]
        kv_len = d["past_len"] + d["new_len"]
        scores = rows * kv_len
        masked = d["batch"] * d["q_heads"] * sum(max(0, kv_len - d["past_len"] - i - 1) for i in range(d["q_len"])) \
            if int(node.attrs.get("is_causal", 0)) else 0
        return "default", {"calls": 1, "rows": rows, "scores": scores, "attended": scores - masked,
                           "macs": scores * (d["head_size"] + d["v_head_size"])}


OP = AttentionF32()
