"""attention_f32 against onnx.reference (onnxruntime's CPU Attention does not cover every attribute): 3-D GQA with a
float mask, causal, past/present and qk_matmul_output; 4-D with a short bool mask and softcap; nonpad_kv_seqlen with
a sliding window.

Tolerance: the kernel accumulates each dot product sequentially and its softmax uses mcu_expf, where the reference
uses numpy's BLAS and exp; outputs agree within ATTN_ULPS ulp(max|ref|) (measured: 2)."""

from __future__ import annotations

import numpy as np
from onnx import helper
from onnx.reference import ReferenceEvaluator

import mcucomp
import mcucomp.host
from helpers import infer_outputs, make_model, rand, ulp

ATTN_ULPS = 3


def check(node, inputs, feeds, out_dir, opset=23):
    """Compile, run, and compare every output with the ONNX reference."""
    model = make_model([node], inputs, infer_outputs([node], inputs, opset=opset), opset=opset)
    mcucomp.compile_model(model, out_dir, name="m")
    ours = mcucomp.host.load(out_dir).run(feeds)
    names = [o.name for o in model.graph.output]
    for name, ref in zip(names, ReferenceEvaluator(model).run(None, feeds)):
        assert ours[name].shape == ref.shape and ours[name].dtype == ref.dtype, name
        got = ours[name].astype(np.float64)
        with np.errstate(invalid="ignore"):
            err = np.where(got == ref, 0.0, np.abs(got - ref))  # masked scores are -inf on both sides
        bound = ATTN_ULPS * ulp(np.abs(ref[np.isfinite(ref)]).max())
        assert err.max() <= bound, f"{name}: |got - ref| = {err.max():.3g} exceeds {bound:.3g}"


def test_3d_gqa_causal_past_present(tmp_path):
    """6 query heads over 2 kv heads, 3-D layout, float mask shorter than the keys, is_causal, past/present, mode 2."""
    rng = np.random.default_rng(1)
    shapes = {"q": (2, 3, 6 * 4), "k": (2, 5, 2 * 4), "v": (2, 5, 2 * 3), "mask": (3, 6),
              "pk": (2, 2, 2, 4), "pv": (2, 2, 2, 3)}
    feeds = {n: rand(rng, *s) for n, s in shapes.items()}
    node = helper.make_node("Attention", ["q", "k", "v", "mask", "pk", "pv"], ["y", "prk", "prv", "qk"],
                            q_num_heads=6, kv_num_heads=2, is_causal=1, qk_matmul_output_mode=2)
    check(node, {n: (np.float32, s) for n, s in shapes.items()}, feeds, tmp_path)


def test_4d_bool_mask_softcap_softmax_out(tmp_path):
    """Broadcast rank-2 bool mask with a fully masked row, softcap, scale, qk output after softmax (mode 3)."""
    rng = np.random.default_rng(2)
    shapes = {"q": (1, 3, 4, 5), "k": (1, 3, 7, 5), "v": (1, 3, 7, 2)}
    feeds = {n: rand(rng, *s) for n, s in shapes.items()}
    feeds["mask"] = rng.random((4, 7)) > 0.4
    feeds["mask"][2] = False
    inputs = {n: (np.float32, s) for n, s in shapes.items()} | {"mask": (np.bool_, (4, 7))}
    node = helper.make_node("Attention", ["q", "k", "v", "mask"], ["y", "", "", "qk"], softcap=1.5, scale=0.3,
                            qk_matmul_output_mode=3)
    check(node, inputs, feeds, tmp_path)


def test_nonpad_window_double_softmax(tmp_path):
    """nonpad_kv_seqlen per batch, causal with a left window, float64 softmax (opset 25)."""
    rng = np.random.default_rng(3)
    shapes = {"q": (2, 2, 3, 4), "k": (2, 2, 6, 4), "v": (2, 2, 6, 4)}
    feeds = {n: rand(rng, *s) for n, s in shapes.items()}
    feeds["n"] = np.array([5, 3], np.int64)
    inputs = {n: (np.float32, s) for n, s in shapes.items()} | {"n": (np.int64, (2,))}
    node = helper.make_node("Attention", ["q", "k", "v", "", "", "", "n"], ["y"], is_causal=1, left_window_size=1,
                            softmax_precision=11)
    check(node, inputs, feeds, tmp_path, opset=25)
