"""On-target: firmware cross-compiled with arm-none-eabi-gcc runs under QEMU on five Cortex-M cores and its outputs
equal the host build's bit for bit; build-target sizes match the prediction; the fit check rejects what cannot fit.
A missing toolchain or QEMU fails these tests (they run in CI)."""

from __future__ import annotations

import shutil
from importlib import resources

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import mcucomp
from mcucomp.boards import load_board
from mcucomp.errors import FitError
from mcucomp.target.build import build_firmware, section_sizes
from mcucomp.target.memory_map import qemu_memory_map
from mcucomp.target.run import run_firmware
from mcucomp.target.verify import build_target, verify_on_target
from shared_models import shared_model
from perf.cycle_models import CYCLE_MODELS
from target_boards import CORE_BOARDS, check_stack_bound

SHARED = ["kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop"]
INPUTS = 5


def test_toolchain_is_installed():
    for tool in ("arm-none-eabi-gcc", "arm-none-eabi-size", "qemu-system-arm"):
        assert shutil.which(tool), f"{tool} missing: apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm"


def float_model() -> onnx.ModelProto:
    """Small float32 CNN: Conv + Relu + MaxPool + Flatten + Gemm + Softmax."""
    rng = np.random.default_rng(1)
    inits = [numpy_helper.from_array(rng.standard_normal(s).astype(np.float32) * 0.3, n)
             for n, s in (("w", (6, 2, 3, 3)), ("b", (6,)), ("fw", (10, 6 * 4 * 4)), ("fb", (10,)))]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "fw", "fb"], ["g"], transB=1),
             helper.make_node("Softmax", ["g"], ["y"], axis=1)]
    graph = helper.make_graph(nodes, "small_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def _model(name: str):
    """The float model or a shared model path."""
    return float_model() if name == "small_cnn" else shared_model(f"mlperf_tiny/{name}.onnx")


@pytest.mark.parametrize("board", CORE_BOARDS)
@pytest.mark.parametrize("model", ["small_cnn"] + SHARED)
def test_on_target_bit_exact(tmp_path, model, board):
    """The CPU kernels on every core (corstone-300's NPU is off here: NPU builds are tests/npu/test_firmware.py's)."""
    mcucomp.compile_model(_model(model), tmp_path, name="m", board=board, npu_placement="off")
    result = verify_on_target(tmp_path, board, inputs=INPUTS, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching == {o: 0 for o in result.mismatching} and result.mismatching
    check_stack_bound(result)


@pytest.mark.parametrize("board", CORE_BOARDS)
def test_vww96_on_target_and_its_stack_bound(tmp_path, board):
    """The VWW-style MobileNetV1-0.25 at MLPerf Tiny's 96x96 (tests/perf/cycle_models.py): bit exact on every core,
    its stack within the fit check's bound."""
    mcucomp.compile_model(CYCLE_MODELS["vww96_mbnet_int8"](), tmp_path, name="m", board=board, npu_placement="off")
    result = verify_on_target(tmp_path, board, inputs=2, seed=0, timeout_s=300)
    assert result.ok, result.detail
    check_stack_bound(result)


@pytest.mark.parametrize("model", SHARED)
def test_predicted_sizes_within_five_percent(tmp_path, model):
    mcucomp.compile_model(_model(model), tmp_path, name="m", board="nucleo-h743zi")
    result = build_target(tmp_path, None)
    assert abs(result["flash_error_percent"]) <= 5.0, result
    assert abs(result["ram_error_percent"]) <= 5.0, result
    arena = mcucomp.compile_model(_model(model), tmp_path / "again", name="m", board="nucleo-h743zi").report
    assert arena["fit"]["arena_region"] == "dtcm" and result["arena"] == "dtcm @ 0x20000000"
    assert result["sections"][".dtcm"] >= arena["arena_bytes"]


def test_wrong_machine_is_reported_as_crash_or_timeout(tmp_path):
    mcucomp.compile_model(float_model(), tmp_path, name="m")
    board = load_board("nucleo-l4r5zi")
    fw = build_firmware(tmp_path, tmp_path / "fw", board, qemu_memory_map("mps2-an505"), 4096)
    run = run_firmware(fw.elf, "mps2-an386", b"\0" * 512, tmp_path / "run", timeout_s=5)
    assert run.status in ("crash", "timeout")
    assert section_sizes(fw.elf)[".text"] > 0


def test_fit_check_names_region_overflow_and_contributors(tmp_path):
    text = resources.files("boards").joinpath("nucleo-g0b1re.toml").read_text()
    small = tmp_path / "tiny.toml"
    small.write_text(text.replace("size = 147_456", "size = 16_384"))
    with pytest.raises(FitError) as info:
        mcucomp.compile_model(shared_model("mlperf_tiny/ic_resnet8_qdq.onnx"), tmp_path / "out", board=str(small))
    message = info.value.message
    assert "RAM region 'sram' holds 16,384 B" in message and "over by" in message
    assert message.count(" B;") >= 2 and "Largest contributors" in message and "--no-fit-check" in message
    needed = int(message.split("the model needs ")[1].split(" B")[0].replace(",", ""))
    assert f"over by {needed - 16384:,} B" in message
    report = mcucomp.compile_model(shared_model("mlperf_tiny/ic_resnet8_qdq.onnx"), tmp_path / "out",
                                   board=str(small), fit_check=False).report
    assert report["fit"]["ram_bytes"] == needed
