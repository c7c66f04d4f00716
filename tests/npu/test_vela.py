"""vela.compile_region against Vela's own command-line compile of the same TFLite file."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from mcucomp.npu.vela import SCRATCH_REGION, compile_region
from npu_configs import config_for
from shared_models import shared_model


def _vela_cli(tflite, cfg, out_dir):
    """Run Vela's own entry point (raw output) and return (its .npz, its summary CSV row)."""
    from ethosu.vela.vela import main

    argv = [str(tflite), "--accelerator-config", cfg.accelerator, "--system-config", cfg.system_config,
            "--memory-mode", cfg.memory_mode, "--output-format", "raw", "--output-dir", str(out_dir)]
    assert main(argv) in (0, None)
    stem = tflite.stem
    npz = np.load(out_dir / f"{stem}_vela.npz", allow_pickle=True)
    with open(out_dir / f"{stem}_summary_{cfg.system_config}.csv", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    return npz, row


@pytest.mark.parametrize("model", ["kws_ref_model.tflite", "ic_resnet_int8.tflite"])
@pytest.mark.parametrize("accelerator", ["ethos-u55-128", "ethos-u65-256"])
def test_compile_region_matches_vela_cli(tmp_path, capfd, model, accelerator):
    tflite = shared_model(f"mlperf_tiny/{model}")
    cfg = config_for(accelerator)
    region = compile_region(tflite.read_bytes(), cfg)
    assert capfd.readouterr().out == "", "Vela's console output must be captured"
    npz, row = _vela_cli(tflite, cfg, tmp_path)
    assert region.command_stream[:4] == b"COP1"
    assert region.command_stream == npz["cmd_data"].tobytes()
    assert region.weights == npz["weight_data"].tobytes()
    assert region.scratch_bytes == int(npz["scratch_size"])
    assert region.scratch_fast_bytes == int(npz["scratch_fast_size"])
    assert [io.offset for io in region.inputs] == [int(o) for o in npz["input_offset"]]
    assert [io.region for io in region.outputs] == [int(r) for r in npz["output_region"]]
    assert region.inputs[0].region == SCRATCH_REGION and region.inputs[0].dtype == "int8"
    assert region.npu_cycles == int(row["cycles_total"])
    assert region.summary["npu_cycles"] == int(row["cycles_npu"])
    assert region.summary["macs"] == int(row["nn_macs"])

