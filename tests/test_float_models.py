"""float32 models end to end: MLPerf Tiny architectures and PyTorch exports against onnxruntime, within
mcucomp.verify's float bound, compared with mcucomp.verify.compare (the very contract `mcucomp verify` applies)."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper

import mcucomp
import mcucomp.host
from mcucomp.cli import main as cli_main
from mcucomp.pipeline import lower_model
from mcucomp.verify import FLOAT_ULP_BOUND, compare

from float_models import FLOAT_MODELS

INPUTS = 20


def assert_matches_onnxruntime(model: onnx.ModelProto, out_dir, inputs: int = INPUTS, seed: int = 0) -> float:
    """Compile `model`, run it on the host and in onnxruntime on N(0, 1) inputs; every output within the bound.

    Returns the worst error seen, in ulps of max|reference|, so callers can report it."""
    mcucomp.compile_model(model, out_dir, name="m")
    host = mcucomp.host.load(out_dir, layer_hook=False)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(seed)
    worst = 0.0
    for i in range(inputs):
        feeds = {x.name: rng.standard_normal(x.shape).astype(np.float32) for x in sess.get_inputs()}
        ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
        got = host.run(feeds)
        for name, value in ref.items():
            diff = compare(got[name], value)
            assert diff.mismatched == 0, (
                f"input {i}, output {name}: {diff.mismatched} of {diff.elements} elements exceed "
                f"{FLOAT_ULP_BOUND} ulp(max|ref|) (max |diff| {diff.max_abs_diff:.3g} = {diff.max_ulp:.1f} ulp)")
            worst = max(worst, diff.max_ulp)
    return worst


def lowered_ops(model) -> set[str]:
    """The ops of the graph after every pass."""
    return {n.op for n in lower_model(model).graph.nodes}


@pytest.mark.parametrize("name", sorted(FLOAT_MODELS))
def test_mlperf_architecture_matches_onnxruntime(name, tmp_path):
    """KWS DS-CNN and IC ResNet-8 in float32 (with and without BatchNormalization) agree with onnxruntime."""
    model = FLOAT_MODELS[name]()
    if name.endswith("_bn"):
        assert any(n.op_type == "BatchNormalization" for n in model.graph.node)
        assert "BatchNormalization" not in lowered_ops(model)
    assert_matches_onnxruntime(model, tmp_path)


def test_cli_verify_float_kws(tmp_path, capsys):
    """`mcucomp verify MODEL --inputs 20` on the float KWS model exits 0 and prints OK."""
    path = tmp_path / "kws_f32.onnx"
    onnx.save(FLOAT_MODELS["kws_f32"](), path)
    assert cli_main(["verify", str(path), "--inputs", "20"]) == 0
    assert "OK" in capsys.readouterr().out


def test_spatial_reduce_mean_is_a_global_pool(tmp_path):
    """ReduceMean over H and W (keepdims 0, opset-18 axes input) compiles as GlobalAveragePool + Flatten."""
    rng = np.random.default_rng(5)
    inits = [numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w"),
             numpy_helper.from_array(np.array([-1, -2], np.int64), "axes"),
             numpy_helper.from_array(rng.standard_normal((4, 8)).astype(np.float32), "fc_w")]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("ReduceMean", ["c", "axes"], ["m"], keepdims=0),
             helper.make_node("Gemm", ["m", "fc_w"], ["y"], transB=1)]
    graph = helper.make_graph(nodes, "mean", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 7])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    assert lowered_ops(model) == {"conv2d_f32", "avgpool_f32", "reshape", "gemm_f32"}
    assert_matches_onnxruntime(model, tmp_path)


class SmallCnn(torch.nn.Module):
    """Conv-BN-ReLU, MaxPool, depthwise Conv-BN-ReLU, AdaptiveAvgPool, Flatten, Linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(16)
        self.pool = torch.nn.MaxPool2d(2)
        self.dw = torch.nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(16)
        self.gap = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        """The forward pass."""
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = torch.relu(self.bn2(self.dw(x)))
        return self.fc(torch.flatten(self.gap(x), 1))


def small_cnn() -> torch.nn.Module:
    """SmallCnn in eval mode with seeded weights and non-trivial BatchNorm statistics (so folding matters)."""
    torch.manual_seed(0)
    net = SmallCnn()
    with torch.no_grad():
        for bn in (net.bn1, net.bn2):
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.normal_(0.0, 0.2)
            bn.running_mean.normal_(0.0, 0.2)
            bn.running_var.uniform_(0.5, 1.5)
    return net.eval()


# The default (torch.export-based) exporter with its graph optimizer off, so BatchNormalization stays in the model
# next to the Shape→Expand→CastLike bias chains and the ReduceMean it writes for AdaptiveAvgPool2d; and the
# TorchScript exporter without constant folding, which keeps BatchNormalization and adds Identity nodes.
EXPORTERS = {"dynamo": {"optimize": False}, "torchscript": {"dynamo": False, "do_constant_folding": False}}


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")  # the exporters' own notices
@pytest.mark.parametrize("exporter", sorted(EXPORTERS))
def test_pytorch_export_with_batchnorm(exporter, tmp_path):
    """A PyTorch CNN exported with BatchNormalization left in: BN is folded and outputs agree with onnxruntime."""
    path = tmp_path / "small_cnn.onnx"
    with torch.no_grad():
        torch.onnx.export(small_cnn(), (torch.randn(1, 3, 32, 32),), str(path), input_names=["x"],
                          output_names=["logits"], **EXPORTERS[exporter])
    model = onnx.load(path)
    model.ir_version = min(model.ir_version, 10)
    assert sum(n.op_type == "BatchNormalization" for n in model.graph.node) == 2
    assert "BatchNormalization" not in lowered_ops(model)
    assert_matches_onnxruntime(model, tmp_path / "out")
