"""Corstone-300 firmware with an NPU region: cross-compiled with -Werror for the Cortex-M55, linked with the driver
stand-in, run under QEMU mps3-an547. The stand-in's checks run at run time on the target (it does not compute the
NPU's results: the host's LiteRT reference checks outputs, not compared here)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mcucomp.boards import load_board
from mcucomp.target.build import build_firmware, section_sizes
from mcucomp.target.memory_map import board_memory_map, qemu_memory_map
from mcucomp.target.run import run_firmware
from region_model import write_region_model

MACHINE = "mps3-an547"


def _run(model_dir: Path, defines: list[str] = (), sets: int = 2):
    """Build the QEMU firmware of model_dir (extra -D defines) and run it on `sets` zero input sets."""
    report = json.loads((model_dir / "report.json").read_text())
    board = load_board("corstone-300")
    fw = build_firmware(model_dir, model_dir / "fw", board, qemu_memory_map(MACHINE, []), 65536, list(defines))
    size = sum(int(np.prod(i["shape"])) for i in report["inputs"])
    return run_firmware(fw.elf, MACHINE, bytes(size * sets), model_dir / "fw" / "run", 120.0)


@pytest.fixture(scope="module")
def kws_u55(tmp_path_factory):
    """KWS (Vela, ethos-u55-128) as one NPU region, compiled for corstone-300."""
    out = tmp_path_factory.mktemp("kws_u55")
    write_region_model(out)
    return out


def test_corstone300_firmware_links_for_the_board_memory_map(kws_u55, tmp_path):
    """build-target's link: the board's own memory map, command stream and weights in flash-side sections."""
    board = load_board("corstone-300")
    report = json.loads((kws_u55 / "report.json").read_text())
    fw = build_firmware(kws_u55, tmp_path / "fw", board, board_memory_map(board), report["fit"]["ram_parts"]["stack"])
    sizes = section_sizes(fw.elf)
    assert sizes[".rodata"] >= 3664 + 31104  # command stream + weights
    assert any("-mcpu=cortex-m55" in part for part in fw.command) and "-Werror" in fw.command


def test_corstone300_firmware_runs_and_passes_the_standin_checks(kws_u55):
    run = _run(kws_u55)
    assert run.status == "ok", run.console
    assert len(run.outputs) == 2 * 12


@pytest.mark.parametrize("defines, message", [
    (["-DFW_NPU_MACS_LOG2=8"], "another MAC count"),
    (["-DFW_NPU_PRODUCT=1"], "another Ethos-U product"),
])
def test_firmware_standin_refuses_a_stream_for_another_npu(kws_u55, defines, message):
    """The same firmware on an NPU it was not compiled for: the run function returns the driver's refusal."""
    run = _run(kws_u55, defines, sets=1)
    assert run.status == "crash" and run.exit_code == 11, run.console
    assert message in run.console


@pytest.mark.parametrize("board_id", ["nucleo-l4r5zi", "nucleo-g0b1re"])
def test_npu_region_builds_warning_free_for_other_cores(tmp_path, board_id):
    """`--npu` on a board without an NPU adds one: the same region call cross-compiles with -Werror for the
    Cortex-M4 and the Cortex-M0+ and links for their memory maps."""
    write_region_model(tmp_path / "m", board=board_id, npu="ethos-u55-128")
    board = load_board(board_id)
    report = json.loads((tmp_path / "m" / "report.json").read_text())
    fw = build_firmware(tmp_path / "m", tmp_path / "fw", board, board_memory_map(board),
                        report["fit"]["ram_parts"]["stack"])
    assert fw.elf.is_file() and f"-mcpu={board['compiler']['mcpu']}" in fw.command


@pytest.fixture(scope="module")
def kws_npu_build(tmp_path_factory):
    """KWS DS-CNN (QDQ) compiled for corstone-300 with every supported layer on the NPU (Softmax stays on the CPU)."""
    from mcucomp.pipeline import compile_model
    from shared_models import shared_model

    out = tmp_path_factory.mktemp("kws_npu")
    report = compile_model(shared_model("mlperf_tiny/kws_dscnn_qdq.onnx"), out, board="corstone-300",
                           npu_placement="max").report
    assert report["npu"]["regions"] and any(layer["placement"] == "cpu" for layer in report["layers"])
    return out


def test_on_target_verify_of_an_npu_build_replays_the_regions_and_checks_the_cpu_layers(kws_npu_build):
    """verify --on-target: the stand-in checks every region call on the M55 and writes the host reference's region
    outputs; the CPU Softmax after the region then runs on the target and must equal the host's bits."""
    from mcucomp.target.verify import verify_on_target

    result = verify_on_target(kws_npu_build, "corstone-300", inputs=3)
    assert result.ok, result.detail
    assert result.npu_replay_bytes == 3 * 12 and result.mismatching == {"Identity": 0}


def test_on_target_verify_of_an_npu_build_sees_wrong_region_outputs(kws_npu_build, monkeypatch):
    """The same run with every replayed byte zeroed: the target's outputs differ from the host's."""
    from mcucomp.target import verify as target_verify

    real = target_verify.host_outputs

    def zeroed(host, feeds):
        expected, replay = real(host, feeds)
        return expected, bytes(len(replay))

    monkeypatch.setattr(target_verify, "host_outputs", zeroed)
    result = target_verify.verify_on_target(kws_npu_build, "corstone-300", inputs=3)
    assert result.status == "ok" and result.mismatching["Identity"] > 0
