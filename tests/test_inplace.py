"""In-place and overlapping kernels: every overlap kind is planned on a model that uses it, really overlaps in
report.json, and runs bit-exact: against the same model compiled without overlaps always, against onnxruntime where
the ops are exact (int8, Relu/Add/Mul/Clip/MaxPool chains; other float chains within mcucomp.verify's bound, since a
chain of convolutions compounds each kernel's 2-ulp error). The margins are checked against a simulation of the C
loops, and a wrong margin is shown to break the outputs."""

from __future__ import annotations

import random

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

import mcucomp
import mcucomp.host
from mcucomp.ir import Graph, Node, Tensor
from mcucomp.ops import REGISTRY
from mcucomp.ops._overlap import elementwise_margin, window_margin
from mcucomp.ops.base import KernelOp, OverlapMargin
from mcucomp.pipeline import plan_model
from mcucomp.verify import compare

from kernels.helpers import assert_close, infer_outputs, make_model
from target_boards import CORE_BOARDS

F32 = np.float32
INPUTS = 6


def weights(rng: np.random.Generator, *shape) -> np.ndarray:
    """Small float32 weights."""
    return (rng.standard_normal(shape) * 0.3).astype(F32)


def float_model(nodes, x_shape, inits: dict) -> onnx.ModelProto:
    """A checked float model with one input `x` and one output `y` (shape by ONNX inference)."""
    inputs = {"x": (F32, x_shape)}
    outputs = {"y": infer_outputs(nodes, inputs, inits)["y"]}
    return make_model(nodes, inputs, outputs, inits)


def exact_chain() -> onnx.ModelProto:
    """Relu, Add, Mul, Sub, Div (broadcast constants), LeakyRelu, Clip: every op one IEEE rounding, all in place."""
    rng = np.random.default_rng(1)
    n = helper.make_node
    nodes = [n("Relu", ["x"], ["a"]), n("Add", ["a", "c1"], ["b"]), n("Mul", ["b", "c2"], ["c"]),
             n("Sub", ["c", "c1"], ["d"]), n("Div", ["d", "c2"], ["e"]), n("LeakyRelu", ["e"], ["f"], alpha=0.1),
             n("Clip", ["f", "lo", "hi"], ["y"])]
    return float_model(nodes, (1, 4, 6, 6), {"c1": weights(rng, 4, 1, 1), "c2": weights(rng, 1, 1, 6) + 2,
                                              "lo": F32(-0.5), "hi": F32(0.7)})


def unary(op: str):
    """A builder of a one-node model: `op` over a graph input that dies there, so the output lands on it."""
    def build() -> onnx.ModelProto:
        """The model."""
        return float_model([helper.make_node(op, ["x"], ["y"])], (1, 3, 5, 7), {})
    return build


def depthwise_stack() -> onnx.ModelProto:
    """Depthwise convs: 3x3 same, 3x3 stride 2, 3x3 dilated (2, 1) with pads 2 (output larger than input)."""
    rng = np.random.default_rng(2)
    n = helper.make_node
    nodes = [n("Conv", ["x", "w1", "b1"], ["a"], group=6, pads=[1, 1, 1, 1]),
             n("Conv", ["a", "w2"], ["b"], group=6, pads=[1, 1, 1, 1], strides=[2, 2]),
             n("Conv", ["b", "w3", "b3"], ["y"], group=6, pads=[2, 2, 2, 2], dilations=[2, 1])]
    return float_model(nodes, (1, 6, 9, 7), {"w1": weights(rng, 6, 1, 3, 3), "b1": weights(rng, 6),
                                             "w2": weights(rng, 6, 1, 3, 3), "w3": weights(rng, 6, 1, 3, 3),
                                             "b3": weights(rng, 6)})


def pointwise_stack() -> onnx.ModelProto:
    """1x1 convs: same width, expansion, projection (with bias and a fused Relu)."""
    rng = np.random.default_rng(3)
    n = helper.make_node
    nodes = [n("Conv", ["x", "w1"], ["a"]), n("Conv", ["a", "w2", "b2"], ["b"]), n("Relu", ["b"], ["br"]),
             n("Conv", ["br", "w3", "b3"], ["y"])]
    return float_model(nodes, (1, 8, 5, 6), {"w1": weights(rng, 8, 8, 1, 1), "w2": weights(rng, 12, 8, 1, 1),
                                             "b2": weights(rng, 12), "w3": weights(rng, 4, 12, 1, 1),
                                             "b3": weights(rng, 4)})


def pooling_after_conv() -> onnx.ModelProto:
    """Conv widening 1 to 8 channels, MaxPool 2x2/2 (ceil), AveragePool 3x3 pad 1, MaxPool 3x3 dilated pad 2,
    GlobalAveragePool; the peak is at the first pool, where the conv output dies."""
    rng = np.random.default_rng(4)
    n = helper.make_node
    nodes = [n("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             n("MaxPool", ["c"], ["m"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
             n("AveragePool", ["m"], ["a"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             n("MaxPool", ["a"], ["m2"], kernel_shape=[3, 3], pads=[2, 2, 2, 2], dilations=[2, 2]),
             n("GlobalAveragePool", ["m2"], ["y"])]
    return float_model(nodes, (1, 1, 11, 9), {"w": weights(rng, 8, 1, 3, 3)})


class _Calibration(CalibrationDataReader):
    """A few random inputs for quantize_static."""

    def __init__(self, shape):
        rng = np.random.default_rng(5)
        self.feeds = iter([{"x": rng.standard_normal(shape).astype(F32)} for _ in range(16)])

    def get_next(self):
        return next(self.feeds, None)


def qdq_inverted_residual(tmp_path) -> onnx.ModelProto:
    """quantize_static (QDQ, int8) of expand 1x1, depthwise 3x3, project 1x1, residual Add, GlobalAveragePool;
    quantize_linear at the input."""
    rng = np.random.default_rng(6)
    n = helper.make_node
    nodes = [n("Conv", ["x", "pw1", "pb1"], ["e"]), n("Relu", ["e"], ["er"]),
             n("Conv", ["er", "dw", "db"], ["d"], group=16, pads=[1, 1, 1, 1]), n("Relu", ["d"], ["dr"]),
             n("Conv", ["dr", "pw2", "pb2"], ["p"]), n("Add", ["p", "x"], ["s"]), n("GlobalAveragePool", ["s"], ["y"])]
    shape = (1, 8, 10, 10)
    model = float_model(nodes, shape, {"pw1": weights(rng, 16, 8, 1, 1), "pb1": weights(rng, 16),
                                       "dw": weights(rng, 16, 1, 3, 3), "db": weights(rng, 16),
                                       "pw2": weights(rng, 8, 16, 1, 1), "pb2": weights(rng, 8)})
    onnx.save(model, tmp_path / "float.onnx")
    quantize_static(tmp_path / "float.onnx", tmp_path / "qdq.onnx", _Calibration(shape), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    return onnx.load(tmp_path / "qdq.onnx")


def dequantize() -> onnx.ModelProto:
    """DequantizeLinear of an int8 graph input: the float output starts below the input it widens."""
    n = helper.make_node
    return make_model([n("DequantizeLinear", ["x", "s", "z"], ["y"])], {"x": (np.int8, (1, 4, 8, 8))},
                      {"y": (F32, (1, 4, 8, 8))}, {"s": F32(0.05), "z": np.int8(-3)})


def realized_overlaps(model: onnx.ModelProto, report: dict) -> dict[str, int]:
    """Per kernel op, how many of its output-over-input permissions overlap in bytes in report.json; each placement
    is also checked against the permission's floor .. margin."""
    planned = plan_model(model, name="m")
    producer = {node.outputs[0]: node.op for node in planned.order}
    tensors = {t["name"]: t for t in report["tensors"]}
    realized: dict[str, int] = {}
    for ov in planned.layout.overlaps:
        src, dst = tensors[ov.src], tensors[ov.dst]
        assert (src["offset"], dst["offset"]) == (planned.layout.offsets[ov.src], planned.layout.offsets[ov.dst])
        shift = dst["offset"] - src["offset"]
        if src["offset"] < dst["offset"] + dst["bytes"] and dst["offset"] < src["offset"] + src["bytes"]:
            assert shift <= ov.margin and (ov.floor is None or shift >= ov.floor), (ov, shift)
            assert src["last_step"] == dst["first_step"]
            realized[producer[ov.dst]] = realized.get(producer[ov.dst], 0) + 1
    return realized


def random_feeds(sess: ort.InferenceSession, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """N(0, 1) float inputs, uniform 8-bit integer inputs."""
    feeds = {}
    for spec in sess.get_inputs():
        if spec.type == "tensor(float)":
            feeds[spec.name] = rng.standard_normal(spec.shape).astype(F32)
        else:
            feeds[spec.name] = rng.integers(-128, 128, size=spec.shape, dtype=np.int8)
    return feeds


def compile_both(model: onnx.ModelProto, tmp_path, monkeypatch):
    """Compile with overlaps and without (no permissions given to the planner); both reports and host models."""
    with_overlaps = mcucomp.compile_model(model, tmp_path / "overlap", name="m")
    with monkeypatch.context() as patch:
        patch.setattr("mcucomp.memory.overlap_permissions", lambda *args: ())
        plain = mcucomp.compile_model(model, tmp_path / "plain", name="m")
    assert plain.report["arena_bytes"] >= plain.report["live_lower_bound_bytes"]
    return (with_overlaps.report, mcucomp.host.load(with_overlaps.out_dir, layer_hook=False),
            mcucomp.host.load(plain.out_dir, layer_hook=False))


CASES = {
    # name: (model builder, ops whose overlap must be realized, onnxruntime comparison exact)
    "exact_chain": (exact_chain, {"binary_f32": 4, "clamp_f32": 3}, True),
    "tanh": (unary("Tanh"), {"tanh_f32": 1}, False),
    "sigmoid": (unary("Sigmoid"), {"sigmoid_f32": 1}, False),
    "depthwise_stack": (depthwise_stack, {"conv2d_f32": 2}, False),
    "pointwise_stack": (pointwise_stack, {"conv2d_f32": 3}, False),
    "pooling_after_conv": (pooling_after_conv, {"maxpool_f32": 2, "avgpool_f32": 2}, False),
    "qdq_inverted_residual": (qdq_inverted_residual, {"quantize_linear": 1, "conv2d_s8": 2, "add_s8": 1,
                                                      "avgpool_s8": 1}, True),
    "dequantize": (dequantize, {"dequantize_linear": 1}, True),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_overlaps_are_planned_and_bit_exact(case, tmp_path, monkeypatch):
    build, expected, exact = CASES[case]
    model = build(tmp_path) if case.startswith("qdq") else build()
    report, host, plain = compile_both(model, tmp_path, monkeypatch)
    realized = realized_overlaps(model, report)
    assert {op: realized.get(op, 0) for op in expected} == expected, realized
    assert report["arena_bytes"] < report["live_lower_bound_bytes"]
    assert report["arena_bytes"] == plan_model(model, name="m").layout.overlap_bound
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    for _ in range(INPUTS):
        feeds = random_feeds(sess, rng)
        ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
        got, got_plain = host.run(feeds), plain.run(feeds)
        for name, value in ref.items():
            assert_close(got[name], got_plain[name], f"{name} (vs no overlaps)", exact=True)
            if exact:
                assert_close(got[name], value, name, exact=True)
            else:
                assert compare(got[name], value).mismatched == 0, name


#: Kernels whose overlap this file proves, by kind: in place (same element size), narrowing, widening, window
#: (pooling, depthwise conv), exactly in place (pointwise conv through a scratch).
PROVEN = {"binary_f32", "clamp_f32", "sigmoid_f32", "tanh_f32", "add_s8", "quantize_linear", "dequantize_linear",
          "maxpool_f32", "avgpool_f32", "avgpool_s8", "conv2d_f32", "conv2d_s8"}


def test_every_overlap_kind_is_covered():
    """The cases above realize an overlap for every kernel listed in PROVEN, and each declares one."""
    assert {op for _, expected, _ in CASES.values() for op in expected} == PROVEN
    assert all(type(REGISTRY[op]).overlap_margin is not KernelOp.overlap_margin for op in PROVEN)


def test_a_wrong_margin_breaks_the_outputs(tmp_path, monkeypatch):
    # A 3x3 pad-1 depthwise conv still reads row oy-1 after writing output row oy: its margin is -(W+1) elements.
    # Claiming it is in place (margin 0) puts the output on the input, and the outputs go wrong.
    model = depthwise_stack()
    monkeypatch.setattr(type(REGISTRY["conv2d_f32"]), "overlap_margin", lambda self, node, g: OverlapMargin(0))
    result = mcucomp.compile_model(model, tmp_path, name="m")
    tensors = {t["name"]: t for t in result.report["tensors"]}
    assert tensors["a"]["offset"] == tensors["x"]["offset"]
    host = mcucomp.host.load(result.out_dir, layer_hook=False)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = random_feeds(sess, np.random.default_rng(8))
    with pytest.raises(AssertionError, match="exceeds"):
        assert_close(host.run(feeds)["y"], sess.run(None, feeds)[0], "y")


def test_a_pointwise_conv_shifted_off_its_input_breaks_the_outputs(tmp_path, monkeypatch):
    # Pixel by pixel, y[k][p] may land on x[k][p] only: one element higher it overwrites pixel p+1, not read yet.
    model = pointwise_stack()
    monkeypatch.setattr(type(REGISTRY["conv2d_f32"]), "overlap_margin",
                        lambda self, node, g: OverlapMargin(16, floor=16))
    result = mcucomp.compile_model(model, tmp_path, name="m")
    tensors = {t["name"]: t for t in result.report["tensors"]}
    assert tensors["a"]["offset"] - tensors["x"]["offset"] == 16
    host = mcucomp.host.load(result.out_dir, layer_hook=False)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = random_feeds(sess, np.random.default_rng(9))
    with pytest.raises(AssertionError, match="exceeds"):
        assert_close(host.run(feeds)["y"], sess.run(None, feeds)[0], "y")


def loop_margin(n, c, h_in, w_in, h_out, w_out, k_h, k_w, s_h, s_w, d_h, d_w, p_t, p_l) -> int | None:
    """The largest safe margin (elements) of the plane-by-plane window loop, by running it: after each write, the
    lowest index read later minus the write index minus 1, minimized; None when nothing is read after a write."""
    plane_in, plane_out = h_in * w_in, h_out * w_out
    events = []
    for plane in range(n * c):
        for oy in range(h_out):
            for ox in range(w_out):
                reads = [plane * plane_in + iy * w_in + ix
                         for iy in (oy * s_h - p_t + ky * d_h for ky in range(k_h)) if 0 <= iy < h_in
                         for ix in (ox * s_w - p_l + kx * d_w for kx in range(k_w)) if 0 <= ix < w_in]
                events.append((plane * plane_out + oy * w_out + ox, reads))
    best, later = None, None
    for write, reads in reversed(events):
        if later is not None:
            best = later - write - 1 if best is None else min(best, later - write - 1)
        if reads:
            later = min(reads) if later is None else min(later, min(reads))
    return best


def test_window_margin_is_safe_and_tight_against_the_loop():
    rng = random.Random(0)
    checked = 0
    while checked < 250:
        n, c = rng.choice([1, 1, 2]), rng.randint(1, 4)
        h_in, w_in, k_h, k_w = rng.randint(1, 7), rng.randint(1, 7), rng.randint(1, 4), rng.randint(1, 4)
        s_h, s_w, d_h, d_w = rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 2), rng.randint(1, 2)
        pads = [rng.randint(0, k_h - 1), rng.randint(0, k_w - 1), rng.randint(0, k_h - 1), rng.randint(0, k_w - 1)]
        h_out = (h_in + pads[0] + pads[2] - d_h * (k_h - 1) - 1) // s_h + 1
        w_out = (w_in + pads[1] + pads[3] - d_w * (k_w - 1) - 1) // s_w + 1
        if h_out < 1 or w_out < 1:
            continue
        g = Graph({"x": Tensor("x", (n, c, h_in, w_in), "int8"), "y": Tensor("y", (n, c, h_out, w_out), "int8")},
                  [], ["x"], ["y"])
        node = Node("pool", "avgpool_s8", ["x"], ["y"],
                    {"kernel": [k_h, k_w], "strides": [s_h, s_w], "dilations": [d_h, d_w], "pads": pads})
        exact = loop_margin(n, c, h_in, w_in, h_out, w_out, k_h, k_w, s_h, s_w, d_h, d_w, pads[0], pads[1])
        if exact is None:
            continue
        checked += 1
        margin = window_margin(node, g, 4)
        assert margin <= 4 * exact
        if n * c >= 2 and h_in * w_in >= h_out * w_out:
            assert margin == 4 * exact


@pytest.mark.parametrize("count, in_bytes, out_bytes, expected", [
    (10, 4, 4, 0), (10, 1, 1, 0), (10, 4, 1, 3), (10, 1, 4, -27), (1, 1, 4, 1),
])
def test_elementwise_margin_matches_the_loop(count, in_bytes, out_bytes, expected):
    margin = elementwise_margin(count, in_bytes, out_bytes)
    assert margin == expected
    # byte by byte: writing y[k] ends at byte (k+1)*out-1, which must land below the first byte read later
    for k in range(count - 1):
        assert (k + 1) * out_bytes - 1 + margin < (k + 1) * in_bytes


def qdq_pools(tmp_path) -> onnx.ModelProto:
    """quantize_static (QDQ, int8) of a 1x1 conv widening 4 to 16 channels, MaxPool 3x3 pad 1, AveragePool 2x2/2
    (ceil), MaxPool 3x3 dilated pad 2: the peak is at the first pool, where the conv output dies."""
    rng = np.random.default_rng(10)
    n = helper.make_node
    nodes = [n("Conv", ["x", "w", "b"], ["c"]), n("Relu", ["c"], ["cr"]),
             n("MaxPool", ["cr"], ["m"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             n("AveragePool", ["m"], ["a"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
             n("MaxPool", ["a"], ["y"], kernel_shape=[3, 3], pads=[2, 2, 2, 2], dilations=[2, 2])]
    shape = (1, 4, 11, 9)
    model = float_model(nodes, shape, {"w": weights(rng, 16, 4, 1, 1), "b": weights(rng, 16)})
    onnx.save(model, tmp_path / "float_pools.onnx")
    quantize_static(tmp_path / "float_pools.onnx", tmp_path / "qdq_pools.onnx", _Calibration(shape),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    return onnx.load(tmp_path / "qdq_pools.onnx")


def test_channels_last_pool_overlaps_are_planned_and_bit_exact(tmp_path, monkeypatch):
    """The channels-last pool loops (window_margin_nhwc) overlap their inputs in the plan and stay bit-exact with the
    integer reference and with the same model compiled without overlaps."""
    from mcucomp.intref import run_lowered
    from mcucomp.passes import layout
    from mcucomp.pipeline import lower_model

    monkeypatch.setattr(layout, "LAYOUT_FOLLOWERS", ())
    model = qdq_pools(tmp_path)
    report, host, plain = compile_both(model, tmp_path, monkeypatch)
    assert {layer["op"]: layer["layout"] for layer in report["layers"] if "pool" in layer["op"]} == \
        {"maxpool_f32": "nhwc", "avgpool_s8": "nhwc"}
    realized = realized_overlaps(model, report)
    assert realized.get("maxpool_f32", 0) >= 1 and realized.get("avgpool_s8", 0) == 1, realized
    lowered = lower_model(model)
    rng = np.random.default_rng(11)
    for _ in range(INPUTS):
        feeds = {"x": rng.standard_normal((1, 4, 11, 9)).astype(F32)}
        got = host.run(feeds)
        assert_close(got["y"], plain.run(feeds)["y"], "y (vs no overlaps)", exact=True)
        assert_close(got["y"], run_lowered(lowered, feeds)["y"], "y (vs the integer reference)", exact=True)


def loop_margin_nhwc(n, c, h_in, w_in, h_out, w_out, k_h, k_w, s_h, s_w, d_h, d_w, p_t, p_l) -> int | None:
    """loop_margin for the channels-last loop: image by image, output pixels row-major, channels in turn, each
    output written after reading its window's taps of its channel."""
    events = []
    for image in range(n):
        for oy in range(h_out):
            for ox in range(w_out):
                for ch in range(c):
                    reads = [((image * h_in + iy) * w_in + ix) * c + ch
                             for iy in (oy * s_h - p_t + ky * d_h for ky in range(k_h)) if 0 <= iy < h_in
                             for ix in (ox * s_w - p_l + kx * d_w for kx in range(k_w)) if 0 <= ix < w_in]
                    events.append((((image * h_out + oy) * w_out + ox) * c + ch, reads))
    best, later = None, None
    for write, reads in reversed(events):
        if later is not None:
            best = later - write - 1 if best is None else min(best, later - write - 1)
        if reads:
            later = min(reads) if later is None else min(later, min(reads))
    return best


def test_window_margin_nhwc_is_safe_against_the_loop():
    """window_margin_nhwc never exceeds the margin the simulated channels-last loop allows, and equals it for most
    shapes (it is conservative only where a window reads nothing)."""
    from mcucomp.ops._overlap import window_margin_nhwc

    rng = random.Random(1)
    checked = tight = 0
    while checked < 250:
        n, c = rng.choice([1, 1, 2]), rng.randint(1, 4)
        h_in, w_in, k_h, k_w = rng.randint(1, 7), rng.randint(1, 7), rng.randint(1, 4), rng.randint(1, 4)
        s_h, s_w, d_h, d_w = rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 2), rng.randint(1, 2)
        pads = [rng.randint(0, k_h - 1), rng.randint(0, k_w - 1), rng.randint(0, k_h - 1), rng.randint(0, k_w - 1)]
        h_out = (h_in + pads[0] + pads[2] - d_h * (k_h - 1) - 1) // s_h + 1
        w_out = (w_in + pads[1] + pads[3] - d_w * (k_w - 1) - 1) // s_w + 1
        if h_out < 1 or w_out < 1:
            continue
        g = Graph({"x": Tensor("x", (n, h_in, w_in, c), "int8", layout="nhwc"),
                   "y": Tensor("y", (n, h_out, w_out, c), "int8", layout="nhwc")}, [], ["x"], ["y"])
        node = Node("pool", "avgpool_s8", ["x"], ["y"], {"kernel": [k_h, k_w], "strides": [s_h, s_w],
                                                         "dilations": [d_h, d_w], "pads": pads, "layout": "nhwc"})
        exact = loop_margin_nhwc(n, c, h_in, w_in, h_out, w_out, k_h, k_w, s_h, s_w, d_h, d_w, pads[0], pads[1])
        if exact is None:
            continue
        checked += 1
        margin = window_margin_nhwc(node, g, 4)
        assert margin <= 4 * exact, (n, c, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w, pads, margin, exact)
        tight += margin == 4 * exact
    assert tight >= 200, tight


def transpose_2d_events(rows: int, cols: int, s0: int, s1: int, offset: int, quads: bool) -> list:
    """The byte reads of x and writes of y of transpose.c mcu_transpose_2d_u8, in order: ("r", index) /
    ("w", index). quads: the word loop (three words in, three out per four rows) runs first, as it does when the
    planes are contiguous and the pointers word-aligned."""
    def row(r):
        return [("r", offset + r * s0 + c * s1) for c in range(cols)], [("w", r * cols + c) for c in range(cols)]

    events, r = [], 0
    if cols != 3:
        for r in range(rows):
            for (read, write) in zip(*row(r)):
                events += [read, write]
        return events
    for size in ((4,) if quads else ()) + (2,):
        while r + size <= rows:
            units = [row(i) for i in range(r, r + size)]
            events += [e for reads, _ in units for e in reads] + [e for _, writes in units for e in writes]
            r += size
    if r < rows:
        events += row(r)[0] + row(r)[1]
    return events


def largest_safe_shift(events: list, x_bytes: int) -> int:
    """The largest d (offset(y) - offset(x), up to x's size) with which no write lands on a byte read later, and
    below which every shift is safe too."""
    later, best = None, x_bytes
    for kind, i in reversed(events):
        if kind == "w" and later is not None:
            best = min(best, later - i - 1)
        if kind == "r":
            later = i if later is None else min(later, i)
    return best


def test_layout_conversion_margin_matches_the_loop():
    """_overlap.byte_transpose_2d equals the largest safe shift of the simulated C loop (its word loop or, unaligned
    at run time, its pair loop, whichever allows less), NCHW -> NHWC and back, 1 to 5 channels; and every shift at
    or below it is safe in both loops."""
    from mcucomp.ops._overlap import byte_transpose_2d

    for c in range(1, 6):
        for pixels in (1, 2, 3, 4, 5, 7, 8, 12, 17, 36):
            for rows, cols, s0, s1 in ((pixels, c, 1, pixels), (c, pixels, 1, c)):
                if cols == 1 or s1 == 1:
                    continue  # one channel or one pixel: the layouts store the same bytes (no transpose)
                params = {"elem_bytes": 1, "rank": 2, "dims": [rows, cols], "strides": [s0, s1], "offset": 0}
                margin = byte_transpose_2d(params, rows * cols).margin
                orders = [transpose_2d_events(rows, cols, s0, s1, 0, quads)
                          for quads in ((False, True) if cols == 3 and s1 % 4 == 0 else (False,))]
                assert margin == min(largest_safe_shift(e, rows * cols) for e in orders), (rows, cols, margin)
                for events in orders:
                    assert largest_safe_shift(events, rows * cols) >= margin


def qdq_rgb_stem(tmp_path) -> onnx.ModelProto:
    """quantize_static (QDQ, int8) of VWW's stem on a 3x16x16 image: conv 3x3 stride 2 to 8 channels, Relu, a 1x1
    conv widening to 16, GlobalAveragePool. With int8 I/O the peak is the input's conversion to channels-last."""
    rng = np.random.default_rng(12)
    n = helper.make_node
    nodes = [n("Conv", ["x", "w1", "b1"], ["c"], strides=[2, 2], pads=[0, 0, 1, 1]), n("Relu", ["c"], ["cr"]),
             n("Conv", ["cr", "w2", "b2"], ["p"]), n("Relu", ["p"], ["pr"]), n("GlobalAveragePool", ["pr"], ["y"])]
    shape = (1, 3, 16, 16)
    model = float_model(nodes, shape, {"w1": weights(rng, 8, 3, 3, 3), "b1": weights(rng, 8),
                                       "w2": weights(rng, 16, 8, 1, 1), "b2": weights(rng, 16)})
    onnx.save(model, tmp_path / "float_stem.onnx")
    quantize_static(tmp_path / "float_stem.onnx", tmp_path / "qdq_stem.onnx", _Calibration(shape),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    return onnx.load(tmp_path / "qdq_stem.onnx")


def expansion_shift(report: dict) -> int:
    """offset(y) - offset(x) of qdq_rgb_stem's 1x1 expansion, checked to overlap its input."""
    tensors = {t["name"]: t for t in report["tensors"]}
    x, y = tensors["cr_QuantizeLinear_Output"], tensors["pr_QuantizeLinear_Output"]
    assert x["offset"] < y["offset"] + y["bytes"] and y["offset"] < x["offset"] + x["bytes"], (x, y)
    return y["offset"] - x["offset"]


def test_input_layout_conversion_overlaps_the_image(tmp_path, monkeypatch):
    """With int8 I/O the image's channels-last copy starts below its planes and overlaps them (the arena holds 5/3
    of the image at that step, not two copies), bit-exact with the integer reference and with the same model
    compiled without overlaps."""
    from mcucomp.intref import run_lowered
    from mcucomp.pipeline import lower_model

    model = qdq_rgb_stem(tmp_path)
    result = mcucomp.compile_model(model, tmp_path / "overlap", name="m", io_dtype="int8")
    with monkeypatch.context() as patch:
        patch.setattr("mcucomp.memory.overlap_permissions", lambda *args: ())
        plain = mcucomp.compile_model(model, tmp_path / "plain", name="m", io_dtype="int8")
    report = result.report
    assert report["layers"][0]["op"] == "transpose"
    tensors = {t["name"]: t for t in report["tensors"]}
    shift = tensors["x_nhwc"]["offset"] - tensors["x"]["offset"]
    image = 3 * 16 * 16
    assert -image < shift <= -2 * image // 3 + 4, shift  # the margin: -2P + 4 for P-pixel planes (the pair loop)
    # the stem conv's output starts one 16-byte unit (its margin: -12 B) below the copy, which starts 2P below x
    assert report["arena_bytes"] == image + 2 * image // 3 + 16 < plain.report["arena_bytes"] == 2 * image
    assert expansion_shift(report) == 16  # the 1x1 expansion (8 -> 16 channels) at its floor over its input
    host, host_plain = (mcucomp.host.load(r.out_dir, layer_hook=False) for r in (result, plain))
    lowered = lower_model(model, io_dtype="int8")
    rng = np.random.default_rng(13)
    for _ in range(INPUTS):
        feeds = {"x": rng.integers(-128, 128, size=(1, 3, 16, 16), dtype=np.int8)}
        got = host.run(feeds)
        assert_close(got["y"], host_plain.run(feeds)["y"], "y (vs no overlaps)", exact=True)
        assert_close(got["y"], run_lowered(lowered, feeds)["y"], "y (vs the integer reference)", exact=True)


@pytest.mark.parametrize("board", CORE_BOARDS)
def test_input_layout_conversion_overlap_on_target_equals_host(tmp_path, board):
    """The overlapping conversion (the word loop on every core; ARMv6-M's without unaligned loads) and the stem
    after it, its 1x1 expansion over its input included (the DSP cores' pointwise sweep, ARMv6-M's GEMM), equal the
    host build bit for bit in QEMU."""
    from mcucomp.target.verify import verify_on_target

    result = mcucomp.compile_model(qdq_rgb_stem(tmp_path), tmp_path / "out", name="m", board=board, io_dtype="int8",
                                   npu_placement="off")  # the M55's CPU (corstone-300 would run the stem on its NPU)
    assert result.report["arena_bytes"] < result.report["live_lower_bound_bytes"]
    assert expansion_shift(result.report) > 0
    outcome = verify_on_target(result.out_dir, board, inputs=3, seed=0, timeout_s=120)
    assert outcome.status == "ok", outcome.detail
    assert outcome.mismatching and not any(outcome.mismatching.values()), outcome.mismatching
