"""normalize_f32 against onnxruntime: LayerNormalization (every axis, with and without bias, runtime or constant
scale, Mean/InvStdDev outputs), InstanceNormalization (1-D and 2-D), MeanVarianceNormalization, LpNormalization.

Tolerance: the statistics of a group of n elements are float32 sums, which onnxruntime accumulates in a different
order (Eigen's vector lanes; LayerNormalization in one pass as E[x^2] - E[x]^2, where the kernel takes two passes
as the ONNX reference does), and divides where the kernel multiplies by the inverse. The statistics then differ in
their last bits and every normalized output carries that relative error: outputs are compared within NORM_ULPS
ulp(max|ref|), the smallest bound these cases meet (measured: 3)."""

from __future__ import annotations

import numpy as np
from onnx import helper

import mcucomp
import mcucomp.host
from helpers import infer_outputs, make_model, rand, run_both, ulp

DIMS = (2, 3, 5, 4)
NORM_ULPS = 4


def check_nodes(nodes, inputs, feeds, out_dir, initializers=None, opset=13):
    """Compile and run on both sides; every output within NORM_ULPS ulp(max|ref|)."""
    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, initializers, opset), initializers, opset)
    check_model(model, feeds, out_dir)


def check_model(model, feeds, out_dir):
    """check_nodes for a built model."""
    ours, refs = run_both(model, feeds, out_dir)
    for name, ref in refs.items():
        assert ours[name].shape == ref.shape and ours[name].dtype == ref.dtype, name
        err = np.abs(ours[name].astype(np.float64) - ref)
        bound = NORM_ULPS * ulp(np.abs(ref).max())
        assert err.max() <= bound, f"{name}: |got - ref| = {err.max():.3g} exceeds {bound:.3g}"


def test_layer_normalization_axes(tmp_path):
    rng = np.random.default_rng(60)
    feeds = {"x": rand(rng, *DIMS) * 3 + 1}
    inputs = {"x": (np.float32, DIMS)}
    inits, nodes = {}, []
    for axis in range(-4, 4):
        norm = DIMS[axis:]
        feeds[f"s{axis}"] = rand(rng, *norm)  # scale as a runtime tensor
        inputs[f"s{axis}"] = (np.float32, norm)
        inits[f"b{axis}"] = rand(rng, *norm)
        bias = [f"b{axis}"] if axis % 2 else []  # every other node without bias
        outs = [f"y{axis}", f"mean{axis}", f"inv{axis}"] if axis in (-1, 1) else [f"y{axis}"]
        nodes.append(helper.make_node("LayerNormalization", ["x", f"s{axis}", *bias], outs, axis=axis,
                                      epsilon=1e-3))
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, opset=17)


def test_layer_normalization_broadcast_scale(tmp_path):
    """A scale of shape [1, D] broadcasts over the normalized [C, D]."""
    rng = np.random.default_rng(61)
    x = rand(rng, 3, 4, 6)
    inits = {"s": rand(rng, 1, 6), "b": rand(rng, 6)}
    check_nodes([helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=1)],
                {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, opset=17)


def test_instance_and_mean_variance_normalization(tmp_path):
    rng = np.random.default_rng(62)
    feeds = {"x": rand(rng, *DIMS) * 2 - 1, "x3": rand(rng, 2, 3, 7), "s": rand(rng, 3), "b": rand(rng, 3)}
    nodes = [helper.make_node("InstanceNormalization", ["x", "s", "b"], ["in4"], epsilon=1e-2),
             helper.make_node("InstanceNormalization", ["x3", "s", "b"], ["in3"]),
             helper.make_node("MeanVarianceNormalization", ["x"], ["mvn"], axes=[0, 2, 3]),
             helper.make_node("MeanVarianceNormalization", ["x"], ["mvn13"], axes=[1, 3])]
    check_nodes(nodes, {k: (np.float32, v.shape) for k, v in feeds.items()}, feeds, tmp_path)


def test_lp_normalization(tmp_path):
    """Every axis, p = 1 and 2; an all-zero group gives zeros (as onnxruntime)."""
    x = rand(np.random.default_rng(63), 3, 4, 5)
    x[1, :, 2] = 0.0
    nodes = [helper.make_node("LpNormalization", ["x"], [f"l{p}_{a + 3}"], axis=a, p=p)
             for p in (1, 2) for a in range(-3, 3)]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path)


def test_lp_normalization_huge_values(tmp_path):
    """The group is divided by its largest magnitude before the norm, so x^2 cannot overflow (onnxruntime 1.31 gives
    0 here; its later versions scale the same way): checked against the float64 formula."""
    x = np.array([[1.0, -2.0], [3e30, 0.5], [-4e30, 1e-30]], np.float32)
    model = make_model([helper.make_node("LpNormalization", ["x"], ["y"], axis=0, p=2)],
                       {"x": (np.float32, x.shape)}, {"y": (np.float32, x.shape)})
    mcucomp.compile_model(model, tmp_path, name="m")
    got = mcucomp.host.load(tmp_path).run({"x": x})["y"]
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(got, x64 / np.sqrt(np.square(x64).sum(axis=0)), rtol=1e-6)


def test_rms_normalization(tmp_path):
    """RMSNormalization (opset 23) over every axis, runtime and broadcast scales."""
    rng = np.random.default_rng(66)
    feeds = {"x": rand(rng, *DIMS) * 2 + 0.5}
    inputs = {"x": (np.float32, DIMS)}
    nodes = []
    for axis in range(-4, 4):
        norm = DIMS[axis:] if axis % 2 else (1,) + DIMS[axis:][1:]  # every other scale broadcasts along its dim 0
        feeds[f"s{axis}"] = rand(rng, *norm)
        inputs[f"s{axis}"] = (np.float32, norm)
        nodes.append(helper.make_node("RMSNormalization", ["x", f"s{axis}"], [f"y{axis}"], axis=axis, epsilon=1e-3))
    check_nodes(nodes, inputs, feeds, tmp_path, opset=23)


def test_group_normalization(tmp_path):
    """GroupNormalization (opset 21, per-channel scale and bias as runtime tensors): 3 and 1 groups of 6 channels,
    2-D and 1-D spatial."""
    rng = np.random.default_rng(67)
    feeds = {"x": rand(rng, 2, 6, 3, 5) * 2 + 1, "x1": rand(rng, 3, 6, 7), "s": rand(rng, 6), "b": rand(rng, 6)}
    inputs = {"x": (np.float32, (2, 6, 3, 5)), "x1": (np.float32, (3, 6, 7)), "s": (np.float32, (6,)),
              "b": (np.float32, (6,))}
    nodes = [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y3"], num_groups=3, epsilon=1e-3),
             helper.make_node("GroupNormalization", ["x1", "s", "b"], ["y1"], num_groups=1)]
    outputs = {"y3": inputs["x"], "y1": inputs["x1"]}  # ONNX shape inference leaves this function op's outputs out
    check_model(make_model(nodes, inputs, outputs, opset=21), feeds, tmp_path)
