"""The TFLite region writer: LiteRT (reference kernels) on the written region equals mcucomp's fixed mode bit for
bit, layer by layer and region by region; the written scales give TFLite exactly mcucomp's multipliers."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from mcucomp.fixedpoint import quantize_multiplier
from mcucomp.intref import run_graph
from mcucomp.npu.constraints import npu_refusal
from mcucomp.npu.partition import region_io
from mcucomp.npu.reference import run_region
from mcucomp.ir import Node
from mcucomp.ir.graph import Tensor
from mcucomp.npu.tflite_writer import EMITTERS, needs_transpose, region_model, round_trip_multipliers, \
    tflite_multiplier, write_region
from mcucomp.pipeline import lower_model
from npu_models import int8_model
from shared_models import shared_model

SHARED = ["kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop"]


def _lowered(path):
    """The all-CPU fixed-mode lowering (the reference every NPU region must equal)."""
    return lower_model(str(path), requant="fixed", io_dtype="int8")


def _check_layers(lowered, trials: int, seed: int = 0) -> int:
    """Write every NPU-writable layer alone, run it with LiteRT on the reference's inputs; return layers checked."""
    g, order = lowered.graph, lowered.order
    rng = np.random.default_rng(seed)
    layers = [n for n in order if n.op in EMITTERS and npu_refusal(n, g, None) is None]
    for _ in range(trials):
        x = rng.integers(-128, 128, g.tensors[g.inputs[0]].shape).astype(np.int8)
        values = run_graph(g, order, "fixed", {g.inputs[0]: x}, keep_all=True)
        for node in layers:
            ins, outs = region_io(g, [node])
            tflite = write_region(g, [node], ins, [node.outputs[0]])
            (y,) = run_region(tflite, [values[name] for name in ins])
            ref = values[node.outputs[0]]
            assert np.array_equal(y.reshape(ref.shape), ref), f"{node.name} ({node.op}) differs from mcucomp"
    return len(layers)


@pytest.mark.parametrize("model", SHARED)
def test_every_layer_of_the_shared_models_equals_fixed_mode(model):
    assert _check_layers(_lowered(shared_model(f"mlperf_tiny/{model}.onnx")), trials=3) >= 10


def test_nearly_dead_channels_equal_fixed_mode(tmp_path):
    """KWS with every conv's channel 0 nearly dead (weight and bias scales 10^9 times smaller: weight scales near
    1e-11, bias scales near 1e-13, a zero multiplier) and channel 1's 10^4 times smaller (a right shift near 31):
    the written scales still give LiteRT mcucomp's multipliers, layer by layer."""
    model = onnx.load(shared_model("mlperf_tiny/kws_dscnn_qdq.onnx"))
    for t in model.graph.initializer:
        if t.name.endswith(("_w_scale", "_b_scale")) and t.dims and t.dims[0] > 1:
            scale = numpy_helper.to_array(t).copy()
            scale[:2] *= np.float32([1e-9, 1e-4])
            t.CopyFrom(numpy_helper.from_array(scale, t.name))
    onnx.save(model, tmp_path / "kws_dead.onnx")
    lowered = _lowered(tmp_path / "kws_dead.onnx")
    assert min(float(np.min(n.attrs["rq"].scale)) for n in lowered.order if "rq" in n.attrs) < 1e-11
    assert _check_layers(lowered, trials=2) >= 10


def test_autoencoder_layers_equal_fixed_mode(tmp_path_factory):
    assert _check_layers(_lowered(int8_model("autoencoder", tmp_path_factory)), trials=5) == 10


def test_unet_layers_with_pools_resizes_and_concats_equal_fixed_mode(tmp_path_factory):
    lowered = _lowered(int8_model("unet", tmp_path_factory))
    ops = {n.op for n in lowered.order if npu_refusal(n, lowered.graph, None) is None}
    assert {"maxpool_f32", "resize", "concat", "conv2d_s8"} <= ops
    assert _check_layers(lowered, trials=2) >= 13


def _check_region(lowered, nodes, ins, outs, values_of, trials: int = 4) -> None:
    """Write `nodes` as one region, run it with LiteRT on the fixed-mode values of `ins`; each output must equal
    the fixed mode's value of it (values_of(values) adds tensors the test made)."""
    g, order = lowered.graph, lowered.order
    tflite = write_region(g, nodes, ins, outs)
    rng = np.random.default_rng(1)
    for _ in range(trials):
        x = rng.integers(-128, 128, g.tensors[g.inputs[0]].shape).astype(np.int8)
        values = values_of(run_graph(g, order, "fixed", {g.inputs[0]: x}, keep_all=True))
        for name, y in zip(outs, run_region(tflite, [values[t] for t in ins])):
            assert y.shape == g.tensors[name].shape and np.array_equal(y, values[name]), name


def test_a_region_of_many_channels_last_layers_has_no_transpose_and_equals_fixed_mode():
    lowered = _lowered(shared_model("mlperf_tiny/ic_resnet8_qdq.onnx"))
    g, order = lowered.graph, lowered.order
    nodes = [n for n in order if n.name.startswith(("L04", "L05", "L06"))]
    ins, outs = ["L03_add"], ["L05_conv", "L06_conv"]
    assert all(g.tensors[t].layout == "nhwc" and not needs_transpose(g.tensors[t]) for t in ins + outs)
    model = region_model(g, nodes, ins, outs)
    assert 39 not in {op.code for op in model.ops}  # no TRANSPOSE: TFLite's NHWC is mcucomp's stored layout
    _check_region(lowered, nodes, ins, outs, lambda values: values)


def test_layout_conversions_and_channels_first_boundaries_in_a_region_equal_fixed_mode():
    """The graph input (channels-first) enters through the layout pass's transpose; a channels-first output leaves
    through a transpose the test adds: both become TRANSPOSE ops at the region's boundary."""
    lowered = _lowered(shared_model("mlperf_tiny/ic_resnet8_qdq.onnx"))
    g, order = lowered.graph, lowered.order
    y = g.tensors["L01_conv"]
    g.tensors["L01_conv_nchw"] = Tensor("L01_conv_nchw", y.onnx_shape, y.dtype, y.quant)
    to_nchw = Node("L01_conv_to_nchw", "transpose", ["L01_conv"], ["L01_conv_nchw"], {"perm": [0, 3, 1, 2]})
    nodes = [n for n in order if n.name.startswith(("input_1", "L00", "L01"))] + [to_nchw]
    assert nodes[0].op == "transpose" and all(npu_refusal(n, g, None) is None for n in nodes)
    ins, outs = [g.inputs[0]], ["L00_conv", "L01_conv_nchw"]
    assert [needs_transpose(g.tensors[t]) for t in ins + outs] == [True, False, True]
    assert [op.code for op in region_model(g, nodes, ins, outs).ops].count(39) == 2

    def with_nchw(values):
        """The fixed-mode values plus the channels-first copy of L01_conv."""
        return {**values, "L01_conv_nchw": np.transpose(values["L01_conv"], (0, 3, 1, 2))}
    _check_region(lowered, nodes, ins, outs, with_nchw)


def test_a_flatten_of_a_channels_last_image_into_permuted_fc_weights_equals_fixed_mode(tmp_path_factory):
    lowered = _lowered(int8_model("flatten", tmp_path_factory))
    g, order = lowered.graph, lowered.order
    (flatten,) = [n for n in order if n.op == "reshape" and len(g.tensors[n.outputs[0]].shape) == 2]
    x = g.tensors[flatten.inputs[0]]
    assert x.layout == "nhwc" and needs_transpose(Tensor(x.name, x.onnx_shape, x.dtype, x.quant))  # HW, C > 1
    (fc,) = [n for n in order if n.op == "fc_s8"]
    assert fc.inputs[0] == flatten.outputs[0] and fc.inputs[1].endswith("_nhwc")  # the permuted weights
    assert _check_layers(lowered, trials=3) == 4  # the input's layout transpose, conv, flatten, fc
    nodes = list(order)
    assert [n.op for n in nodes] == ["transpose", "conv2d_s8", "reshape", "fc_s8"]
    assert all(npu_refusal(n, g, None) is None for n in nodes)
    ins, outs = region_io(g, nodes)
    _check_region(lowered, nodes, ins, outs, lambda values: values)


def test_tflite_multiplier_equals_mcucomp_on_float32_multipliers():
    rng = np.random.default_rng(0)
    reals = np.concatenate([rng.uniform(1e-6, 1.0, 5000), 2.0 ** rng.uniform(-40, 10, 5000)]).astype(np.float32)
    for r in reals:
        assert tflite_multiplier(float(r)) == quantize_multiplier(float(r)), r


def test_round_trip_check_catches_a_scale_one_ulp_off():
    real = np.array([0.0123456], np.float32)
    w = np.array([real[0] * 4], np.float32)
    round_trip_multipliers("ok", real, 0.25, w, 1.0)
    with pytest.raises(AssertionError, match="layer bad channel 0"):
        round_trip_multipliers("bad", real, 0.25, np.nextafter(w, np.float32(1)), 1.0)
