"""Bad models and options that could end in exit 70, a hang, or silent acceptance: each gets one clear paragraph
with exit 1 naming the node, tensor or option (regression tests, several from fuzz findings)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import onnx
import pytest
from cli_models import REPO, make_model, run_cli, save, two_conv_model
from onnx import TensorProto, helper, numpy_helper
from shared_models import shared_model

import mcucomp.host
from mcucomp.cli import main
from mcucomp.intref import run_lowered
from mcucomp.pipeline import lower_model
from mcucomp.frontend.validate import MAX_OPSET
from mcucomp.verify import MAX_INPUTS, check_run_options

TINY_CNN = REPO / "examples" / "tiny_cnn.onnx"


def _fails(capsys, argv, code: int, *fragments: str) -> str:
    """main(argv) returns code with one 'error: ' line on stderr that holds every fragment."""
    assert main([str(a) for a in argv]) == code
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    return err


def _edit(model: onnx.ModelProto, path: Path, edit) -> Path:
    """Save a copy of model after edit(copy)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    edit(copy)
    return save(copy, path)


# ----------------------------------------------------------------------------------------------- model structure
def test_initializer_that_is_also_a_graph_output(tmp_path, capsys):
    path = _edit(two_conv_model(), tmp_path / "m.onnx", lambda m: m.graph.output.append(
        helper.make_tensor_value_info("w1", TensorProto.FLOAT, [4, 1, 3, 3])))
    _fails(capsys, ["compile", path, "-o", tmp_path / "out"], 1, "Graph output 'w1' is an initializer")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("extra, fragment", [(4, "holds 32 bytes instead of 16"), (-2, "holds 8 bytes instead of 16"),
                                             (1, "holds 20 bytes instead of 16")])
def test_initializer_raw_data_disagrees_with_dims(tmp_path, capsys, extra, fragment):
    def edit(m):
        t = next(t for t in m.graph.initializer if t.name == "b1")
        t.raw_data = np.zeros(4 + extra, np.float32).tobytes()
    path = _edit(two_conv_model(), tmp_path / "m.onnx", edit)
    _fails(capsys, ["analyze", path], 1, "Initializer 'b1' declares dims [4]", fragment)


def test_initializer_typed_data_disagrees_with_dims(tmp_path, capsys):
    def edit(m):
        t = next(t for t in m.graph.initializer if t.name == "b1")
        t.ClearField("raw_data")
        t.float_data.extend([1.0] * 7)
    path = _edit(two_conv_model(), tmp_path / "m.onnx", edit)
    _fails(capsys, ["analyze", path], 1, "Initializer 'b1'", "its data holds 7 elements")


@pytest.mark.parametrize("version", [99, MAX_OPSET + 1, 0])
def test_opset_outside_the_supported_range(tmp_path, capsys, version):
    path = _edit(two_conv_model(), tmp_path / "m.onnx", lambda m: setattr(m.opset_import[0], "version", version))
    _fails(capsys, ["analyze", path], 1, f"opset {version}", f"accepts opsets 1 to {MAX_OPSET}")


@pytest.mark.parametrize("dim", [-1, -2**31])
def test_negative_declared_dim(tmp_path, capsys, dim):
    path = save(two_conv_model(in_dims=(1, 1, dim, 8)), tmp_path / "m.onnx")
    _fails(capsys, ["compile", path, "-o", tmp_path / "out", "--io", "caller"], 1,
           f"Tensor 'x' is declared with shape [1, 1, {dim}, 8]", "dims must be >= 0")


def test_name_that_is_not_utf8(tmp_path, capsys):
    """Fuzz seed 1142429319299146518: a bit flip made an op name invalid UTF-8; it reached the report as bytes."""
    raw = two_conv_model().SerializeToString()
    assert raw.count(b"conv2") == 1
    path = tmp_path / "m.onnx"
    path.write_bytes(raw.replace(b"conv2", b"conv\xff"))
    _fails(capsys, ["analyze", path], 1, "The model is corrupt: node #1", "not valid UTF-8", "b'conv\\xff'")


def test_duplicate_node_names_are_made_unique(tmp_path, capsys):
    def edit(m):
        m.graph.node[1].name = m.graph.node[0].name
    path = _edit(two_conv_model(), tmp_path / "m.onnx", edit)
    assert main(["analyze", str(path), "--json"]) == 0
    assert '"conv1_1"' in capsys.readouterr().out


# ----------------------------------------------------------------------------------------------- attributes
def _conv_attr(name, value):
    """An edit that sets attribute `name` of conv2 (4 input channels) to value."""
    def edit(m):
        node = m.graph.node[1]
        kept = [a for a in node.attribute if a.name != name]
        del node.attribute[:]
        node.attribute.extend(kept + [helper.make_attribute(name, value)])
    return edit


@pytest.mark.parametrize("name, value, fragment", [
    ("group", 0, "group=0 must be >= 1"),
    ("group", -2, "group=-2 must be >= 1"),
    ("group", 3, "group=3 does not divide the 4 channels of input 'h'"),
    ("group", 2, "do not match group=2"),
    ("strides", [0, 1], "strides"),
    ("dilations", [1, -1], "dilations"),
    ("pads", [1, 1, -1, 1], "pads"),
    ("pads", [1, 1], "pads"),
    ("kernel_shape", [3, 0], "kernel_shape"),
])
def test_conv_attribute_out_of_range(tmp_path, capsys, name, value, fragment):
    path = _edit(two_conv_model(), tmp_path / "m.onnx", _conv_attr(name, value))
    # onnx shape inference already refuses some of these; either way the message names the node, op and attribute
    _fails(capsys, ["analyze", path], 1, "conv2", "Conv", fragment)


def _single_node_model(op, inputs, out_rank, **attrs):
    """A one-node float model: x [1, 4, 6, 6] (plus initializers in `inputs` as (name, array)) → op → y."""
    inits = [numpy_helper.from_array(a, n) for n, a in inputs]
    node = helper.make_node(op, ["x"] + [n for n, _ in inputs], ["y"], name="n0", **attrs)
    out_dims = [f"d{k}" for k in range(out_rank)]
    return make_model([node], [("x", TensorProto.FLOAT, [1, 4, 6, 6])], [("y", TensorProto.FLOAT, out_dims)], inits)


@pytest.mark.parametrize("op, inputs, rank, attrs, fragment", [
    ("Softmax", [], 4, {"axis": 4}, "4"),
    ("Softmax", [], 4, {"axis": -5}, "-5"),
    ("Flatten", [], 2, {"axis": 5}, "5"),
    ("Gather", [("i", np.array([0], np.int64))], 4, {"axis": 7}, "axis"),
    ("MaxPool", [], 4, {"kernel_shape": [0, 2]}, "kernel_shape"),
    ("AveragePool", [], 4, {"kernel_shape": [2, 2], "strides": [1, 0]}, "strides"),
    ("ConvTranspose", [("w", np.ones((4, 2, 3, 3), np.float32))], 4, {"group": 0}, "group"),
    ("ConvTranspose", [("w", np.ones((4, 2, 3, 3), np.float32))], 4, {"group": 3}, "group=3"),
])
def test_attribute_ranges_of_other_ops(tmp_path, capsys, op, inputs, rank, attrs, fragment):
    """onnx shape inference refuses some of these first (naming node and op); mcucomp's pass the others."""
    path = save(_single_node_model(op, inputs, rank, **attrs), tmp_path / "m.onnx")
    _fails(capsys, ["analyze", path], 1, "n0", op, fragment)


def _qlinear_softmax(axis: int) -> onnx.ModelProto:
    """com.microsoft QLinearSoftmax (no onnx shape inference, so only mcucomp checks its axis) on uint8 [1, 10]."""
    inits = [numpy_helper.from_array(np.array(0.1, np.float32), "xs"),
             numpy_helper.from_array(np.array(0, np.uint8), "xz"),
             numpy_helper.from_array(np.array(1 / 256, np.float32), "ys"),
             numpy_helper.from_array(np.array(0, np.uint8), "yz")]
    node = helper.make_node("QLinearSoftmax", ["x", "xs", "xz", "ys", "yz"], ["y"], name="qsm", domain="com.microsoft",
                            axis=axis, opset=13)
    return make_model([node], [("x", TensorProto.UINT8, [1, 10])], [("y", TensorProto.UINT8, [1, 10])], inits,
                      opsets=(("", 13), ("com.microsoft", 1)))


def test_axis_of_an_op_onnx_cannot_infer(tmp_path, capsys):
    assert main(["analyze", str(save(_qlinear_softmax(-1), tmp_path / "ok.onnx"))]) == 0
    capsys.readouterr()
    _fails(capsys, ["analyze", save(_qlinear_softmax(2), tmp_path / "m.onnx")], 1,
           "Node 'qsm' (QLinearSoftmax): attribute axis=2 is out of range for the rank-2 tensor 'x': use -2 to 1")


def test_concat_axis_out_of_range(tmp_path, capsys):
    node = helper.make_node("Concat", ["a", "b"], ["y"], name="cat", axis=3)
    model = make_model([node], [("a", TensorProto.FLOAT, [1, 4]), ("b", TensorProto.FLOAT, [1, 4])],
                       [("y", TensorProto.FLOAT, ["a", "b"])])
    _fails(capsys, ["analyze", save(model, tmp_path / "m.onnx")], 1, "cat", "Concat", "axis")


# ----------------------------------------------------------------------------------------------- quantization
def _set_initializer(model: onnx.ModelProto, name: str, value) -> onnx.ModelProto:
    """A copy of model with initializer `name` filled with value (same shape, dtype of the value)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    t = next(t for t in copy.graph.initializer if t.name == name)
    old = numpy_helper.to_array(t)
    t.CopyFrom(numpy_helper.from_array(np.full(old.shape, value[0], value[1]), name))
    return copy


@pytest.mark.parametrize("scale", [0.0, -0.5, float("nan"), float("inf"), 1e-45, 1e-39])
@pytest.mark.parametrize("which", ["kws_dscnn_qdq", "kws_dscnn_qop"])
def test_bad_scale_on_real_models(tmp_path, capsys, scale, which):
    base = onnx.load(shared_model(f"mlperf_tiny/{which}.onnx"))
    op = "DequantizeLinear" if which.endswith("qdq") else "QLinearConv"
    node = next(n for n in base.graph.node if n.op_type == op)
    model = _set_initializer(base, node.input[1], (scale, np.float32))
    path = save(model, tmp_path / "m.onnx")
    _fails(capsys, ["analyze", path], 1, f"Node '{node.name}' ({op})",
           f"scale '{node.input[1]}' holds {float(np.float32(scale))}",
           "positive and finite, a normal float32 between 1.17549435e-38 and 3.40282347e+38",
           "Re-quantize the model, or fix the tensor")


def _extreme_scale_model(a_scale: float, b_scale: float, y_scale: float) -> onnx.ModelProto:
    """QDQ Add, Mul, Sigmoid, GlobalAveragePool and AveragePool of two int8 images with these scales."""
    inits = [numpy_helper.from_array(np.float32(v), n) for n, v in (("sa", a_scale), ("sb", b_scale), ("sy", y_scale))]
    inits += [numpy_helper.from_array(np.int8(z), n) for n, z in (("za", 3), ("zb", -5), ("zy", 1))]
    nodes = [helper.make_node("DequantizeLinear", ["a", "sa", "za"], ["da"]),
             helper.make_node("DequantizeLinear", ["b", "sb", "zb"], ["db"])]
    outputs = []
    for name, node in (("add", helper.make_node("Add", ["da", "db"], ["f_add"])),
                       ("mul", helper.make_node("Mul", ["da", "db"], ["f_mul"])),
                       ("sig", helper.make_node("Sigmoid", ["da"], ["f_sig"])),
                       ("gap", helper.make_node("GlobalAveragePool", ["da"], ["f_gap"])),
                       ("avg", helper.make_node("AveragePool", ["da"], ["f_avg"], kernel_shape=[2, 2],
                                                pads=[1, 1, 1, 1]))):
        nodes += [node, helper.make_node("QuantizeLinear", [f"f_{name}", "sy", "zy"], [name])]
        dims = {"gap": [1, 4, 1, 1], "avg": [1, 4, 4, 4]}.get(name, [1, 4, 3, 3])
        outputs.append((name, TensorProto.INT8, dims))
    return make_model(nodes, [("a", TensorProto.INT8, [1, 4, 3, 3]), ("b", TensorProto.INT8, [1, 4, 3, 3])],
                      outputs, inits)


@pytest.mark.parametrize("scales", [(2.0**-126, 2.0**-126, 3.4e38), (3.4e38, 3.4e38, 2.0**-126),
                                    (3.4e38, 2.0**-126, 1.0), (1e-20, 1e-20, 1e-30)])
@pytest.mark.parametrize("requant", ["float", "fixed"])
def test_scales_at_the_ends_of_the_normal_range_compile(tmp_path, capsys, scales, requant):
    """Every positive normal float32 scale compiles without a word on stderr (no float32 overflow escapes the
    derived parameters), and the C equals the integer reference at both ends of the range."""
    path = save(_extreme_scale_model(*scales), tmp_path / "m.onnx")
    assert main(["compile", str(path), "-o", str(tmp_path / "out"), "--requant", requant, "--name", "m"]) == 0
    assert "Warning" not in capsys.readouterr().err
    host = mcucomp.host.load(tmp_path / "out", layer_hook=False)
    lowered = lower_model(str(path), requant=requant)
    rng = np.random.default_rng(3)
    for _ in range(3):
        feeds = {n: rng.integers(-128, 128, (1, 4, 3, 3)).astype(np.int8) for n in ("a", "b")}
        got, want = host.run(feeds), run_lowered(lowered, feeds)
        assert all(np.array_equal(got[n], v) for n, v in want.items()), scales


def test_weight_zero_point_of_the_wrong_size(tmp_path, capsys):
    """Fuzz seed 7622321055786534758: QLinearConv's w_zero_point rewired to a weight tensor: exit 1, not 70."""
    base = onnx.load(shared_model("mlperf_tiny/ic_resnet8_qop.onnx"))
    node = next(n for n in base.graph.node if n.name == "L05_conv/QLinearConv")
    node.input[5] = "L09_conv_w"
    _fails(capsys, ["analyze", save(base, tmp_path / "m.onnx")], 1, "'L05_conv/QLinearConv' (QLinearConv)",
           "'L09_conv_w' has 36864 values; it needs 1 or 32")


def test_quantize_linear_scale_zero(tmp_path, capsys):
    inits = [numpy_helper.from_array(np.array(0.0, np.float32), "s"),
             numpy_helper.from_array(np.array(3, np.int8), "z")]
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q")
    model = make_model([node], [("x", TensorProto.FLOAT, [1, 4])], [("y", TensorProto.INT8, [1, 4])], inits)
    _fails(capsys, ["analyze", save(model, tmp_path / "m.onnx")], 1, "'q' (QuantizeLinear)", "scale 's' holds 0.0")


def _qlinear_add(zp: np.ndarray) -> onnx.ModelProto:
    """com.microsoft QLinearAdd on uint8 tensors whose output zero point is zp."""
    inits = [numpy_helper.from_array(np.array(0.05, np.float32), "s"),
             numpy_helper.from_array(np.array(128, np.uint8), "z"),
             numpy_helper.from_array(zp, "zy")]
    node = helper.make_node("QLinearAdd", ["a", "s", "z", "b", "s", "z", "s", "zy"], ["y"], name="qadd",
                            domain="com.microsoft")
    return make_model([node], [("a", TensorProto.UINT8, [1, 4]), ("b", TensorProto.UINT8, [1, 4])],
                      [("y", TensorProto.UINT8, [1, 4])], inits, opsets=(("", 13), ("com.microsoft", 1)))


def test_zero_point_out_of_range_for_its_type(tmp_path, capsys):
    assert main(["analyze", str(save(_qlinear_add(np.array(128, np.uint8)), tmp_path / "ok.onnx"))]) == 0
    capsys.readouterr()
    path = save(_qlinear_add(np.array(300, np.int32)), tmp_path / "m.onnx")
    _fails(capsys, ["analyze", path], 1, "'qadd' (QLinearAdd)", "zero point 'zy' is int32 (holds 300)",
           "uint8", "[0, 255]")


def test_per_axis_scale_of_the_wrong_length(tmp_path, capsys):
    inits = [numpy_helper.from_array(np.full(3, 0.1, np.float32), "s"),
             numpy_helper.from_array(np.zeros(3, np.int8), "z")]
    node = helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq", axis=1)
    model = make_model([node], [("x", TensorProto.INT8, [1, 4])], [("y", TensorProto.FLOAT, [1, 4])], inits)
    _fails(capsys, ["analyze", save(model, tmp_path / "m.onnx")], 1, "'dq' (DequantizeLinear)", "3 entries",
           "has 4 along axis 1")


# ----------------------------------------------------------------------------------------------- 32-bit limits
def _growing_model() -> onnx.ModelProto:
    """x [1, 1, H, W] → Conv (4 channels) → Conv (2 channels): every activation's size follows --shape."""
    rng = np.random.default_rng(0)
    w = [numpy_helper.from_array(rng.standard_normal((4, 1, 3, 3)).astype(np.float32), "w1"),
         numpy_helper.from_array(rng.standard_normal((2, 4, 3, 3)).astype(np.float32), "w2")]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["h"], name="c1", pads=[1, 1, 1, 1]),
             helper.make_node("Conv", ["h", "w2"], ["y"], name="c2", pads=[1, 1, 1, 1])]
    return make_model(nodes, [("x", TensorProto.FLOAT, [1, 1, "H", "W"])],
                      [("y", TensorProto.FLOAT, ["N", "C", "H2", "W2"])], w)


def test_arena_of_4_gib_is_refused_even_without_fit_check(tmp_path, capsys):
    path = save(_growing_model(), tmp_path / "m.onnx")
    # h = 4 x 15000^2 floats = 3.6 GB and y = 1.8 GB live together: each tensor fits, the arena does not
    _fails(capsys, ["compile", path, "-o", tmp_path / "out", "--shape", "x=1x1x15000x15000", "--no-fit-check"], 1,
           "The arena needs", "32-bit", "--no-fit-check")
    assert not (tmp_path / "out").exists()


def test_tensor_of_4_gib_is_refused_even_without_fit_check(tmp_path, capsys):
    path = save(_growing_model(), tmp_path / "m.onnx")
    _fails(capsys, ["analyze", path, "--shape", "x=1x1x40000x40000", "--no-fit-check"], 1,
           "Tensor 'x' of shape [1, 1, 40000, 40000]", "6,400,000,000 B", "32-bit")


# ----------------------------------------------------------------------------------------------- options and files
@pytest.mark.parametrize("args, fragments", [
    (["--seed", "-1"], ["--seed -1", "0 to 4294967295"]),
    (["--seed", str(2**32)], ["--seed 4294967296"]),
    (["--inputs", "0"], ["--inputs 0", "between 1 and 1,000,000"]),
    (["--inputs", str(MAX_INPUTS + 1)], ["--inputs 1000001"]),
])
def test_verify_seed_and_inputs_bounds(tmp_path, capsys, args, fragments):
    _fails(capsys, ["verify", TINY_CNN, *args], 1, *fragments)


def test_seed_and_inputs_bounds_are_inclusive():
    check_run_options(MAX_INPUTS, 2**32 - 1)
    check_run_options(1, 0)


def test_huge_inputs_count_does_not_hang(tmp_path):
    proc = run_cli("verify", TINY_CNN, "--inputs", "99999999999999999999")
    assert proc.returncode == 1 and proc.stderr.startswith("error: --inputs 99999999999999999999"), proc.stderr


@pytest.mark.parametrize("text", ["x=\uff11x1x8x8", "x=1x\u0661x8x8", "x=0x1x8x8", f"x=1x1x8x{2**31}"])
def test_shape_option_must_be_ascii_and_in_range(tmp_path, capsys, text):
    path = save(two_conv_model(), tmp_path / "m.onnx")
    _fails(capsys, ["analyze", path, "--shape", text], 1, "--shape")


def test_empty_board_id(capsys):
    _fails(capsys, ["analyze", TINY_CNN, "--board", ""], 1, "Unknown board ''")


def test_empty_model_name(capsys):
    _fails(capsys, ["analyze", TINY_CNN, "--name", ""], 1, "Model name ''")


def test_board_file_that_is_not_utf8(tmp_path, capsys):
    board = tmp_path / "b.toml"
    board.write_bytes(b"\xff\xfe bad")
    _fails(capsys, ["analyze", TINY_CNN, "--board", board], 1, "b.toml", "UTF-8")


def test_model_path_that_is_a_directory(tmp_path, capsys):
    _fails(capsys, ["analyze", tmp_path], 1, "is a directory", "regular file")


def test_model_path_that_is_a_fifo_does_not_block(tmp_path):
    fifo = tmp_path / "model.onnx"
    os.mkfifo(fifo)
    proc = run_cli("analyze", fifo)  # run_cli has a timeout: opening the FIFO would block forever
    assert proc.returncode == 1 and "not a regular file" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


def test_model_path_component_too_long(tmp_path, capsys):
    _fails(capsys, ["analyze", tmp_path / ("m" * 300) / "model.onnx"], 1, "cannot be read", "too long")


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_const_file_that_is_not_a_regular_file(tmp_path, capsys, kind):
    target = tmp_path / "value.npy"
    if kind == "directory":
        target.mkdir()
    else:
        os.mkfifo(target)
    _fails(capsys, ["analyze", TINY_CNN, "--const", f"image={target}"], 1, "--const image", "regular file")
    assert stat.S_ISFIFO(os.stat(target).st_mode) or target.is_dir()


def test_control_characters_in_names_stay_on_one_line(tmp_path, capsys):
    path = _edit(two_conv_model(), tmp_path / "m.onnx", _conv_attr("group", 0))
    model = onnx.load(path)
    model.graph.node[1].name = "evil\nname\0*/"
    save(model, path)
    _fails(capsys, ["analyze", path], 1, "'evil\\nname\\x00*/' (Conv)")


# ----------------------------------------------------------------------------------------------- constant folding
def test_constant_node_that_onnx_cannot_evaluate(tmp_path, capsys):
    """Conv's group is not checked by onnx shape inference, so folding the all-constant Conv must not crash."""
    inits = [numpy_helper.from_array(np.ones((1, 4, 5, 5), np.float32), "c"),
             numpy_helper.from_array(np.ones((2, 4, 3, 3), np.float32), "w")]
    nodes = [helper.make_node("Conv", ["c", "w"], ["k"], name="constconv", group=3),
             helper.make_node("Add", ["x", "k"], ["y"], name="add")]
    model = make_model(nodes, [("x", TensorProto.FLOAT, [1, 2, 3, 3])], [("y", TensorProto.FLOAT, [1, 2, 3, 3])], inits)
    _fails(capsys, ["analyze", save(model, tmp_path / "m.onnx")], 1, "Node 'constconv' (Conv) has only constant inputs",
           "group=3")


def test_constant_too_large_to_fold(tmp_path, capsys):
    inits = [numpy_helper.from_array(np.array([2**20, 2**20, 2**10], np.int64), "s")]
    nodes = [helper.make_node("ConstantOfShape", ["s"], ["k"], name="big"),
             helper.make_node("Add", ["x", "k"], ["y"], name="add")]
    model = make_model(nodes, [("x", TensorProto.FLOAT, [1])], [("y", TensorProto.FLOAT, ["a", "b", "c"])], inits)
    _fails(capsys, ["analyze", save(model, tmp_path / "m.onnx")], 1, "Node 'big' (ConstantOfShape)", "too large")
