"""NPU targets: NpuConfig from the board's [npu] table or --npu, board-file validation, and the CLI's errors."""

from __future__ import annotations

import json
import tomllib
from importlib import resources

import pytest

from cli_models import run_cli, save, two_conv_model
from mcucomp.boards import load_board, validate_board
from mcucomp.errors import OptionError
from mcucomp.npu.config import NPU_CONFIGS, make_config, npu_config


def _corstone() -> dict:
    """corstone-300's parsed TOML (unvalidated), to spoil."""
    data = tomllib.loads(resources.files("boards").joinpath("corstone-300.toml").read_text())
    data["id"] = "corstone-300"
    return data


def test_corstone300_defaults_to_ethos_u55_128_at_500mhz():
    cfg = npu_config(load_board("corstone-300"))
    assert (cfg.accelerator, cfg.product, cfg.macs) == ("ethos-u55-128", "U55", 128)
    assert (cfg.system_config, cfg.memory_mode, cfg.clock_hz) == ("Ethos_U55_High_End_Embedded", "Shared_Sram",
                                                                 500_000_000)
    assert cfg.vela_args() == ["--accelerator-config", "ethos-u55-128", "--system-config",
                               "Ethos_U55_High_End_Embedded", "--memory-mode", "Shared_Sram"]


@pytest.mark.parametrize("override, product, macs, system_config", [
    ("ethos-u55-256", "U55", 256, "Ethos_U55_High_End_Embedded"),
    ("ethos-u55-64", "U55", 64, "Ethos_U55_High_End_Embedded"),
    ("ethos-u55-32", "U55", 32, "Ethos_U55_High_End_Embedded"),
    ("ethos-u65-256", "U65", 256, "Ethos_U65_Mid_End"),
    ("ethos-u85-256", "U85", 256, "Ethos_U85_SYS_DRAM_Low"),
])
def test_npu_option_overrides_the_board(override, product, macs, system_config):
    """Same product: the board's system config and memory mode stay; another product: that product's defaults
    (every default runs the NPU at 500 MHz)."""
    cfg = npu_config(load_board("corstone-300"), override)
    assert (cfg.accelerator, cfg.product, cfg.macs, cfg.system_config) == (override, product, macs, system_config)
    assert cfg.clock_hz == 500_000_000


def test_npu_option_adds_an_npu_to_a_board_without_one():
    assert npu_config(load_board("nucleo-l4r5zi")) is None
    assert npu_config(load_board("nucleo-l4r5zi"), "ethos-u55-128").accelerator == "ethos-u55-128"


def test_every_listed_config_is_one_vela_accepts():
    from ethosu.vela.architecture_features import Accelerator

    assert set(NPU_CONFIGS) == {a.value for a in Accelerator}
    for name in NPU_CONFIGS:
        assert make_config(name).macs == int(name.rsplit("-", 1)[1])


@pytest.mark.parametrize("spoil, message", [
    (lambda npu: npu.update(accelerator="ethos-u55-100"), "NPU config 'ethos-u55-100' is not one Vela can"),
    (lambda npu: npu.pop("accelerator"), "field 'accelerator' (a string) is required"),
    (lambda npu: npu.pop("source"), "field 'source' (a string) is required"),
    (lambda npu: npu.update(system_config="Ethos_U65_High_End"), "not a U55 system config"),
    (lambda npu: npu.update(memory_mode="Fast"), "memory_mode 'Fast' is not in Vela's"),
    (lambda npu: npu.update(macs=128), "unknown field 'macs'"),
    (lambda npu: npu.update(memory_mode=3), "must be a string"),
    (lambda npu: npu.update(regions=["sram", "flash"]), "field 'regions' must list memory regions of the board"),
    (lambda npu: npu.update(regions=[]), "field 'regions' must list memory regions of the board"),
])
def test_board_npu_table_errors_name_the_field(spoil, message):
    data = _corstone()
    spoil(data["npu"])
    with pytest.raises(OptionError, match="corstone-300.*\\[npu\\]") as err:
        validate_board(data, "Board file 'corstone-300'")
    assert message in err.value.message


def test_board_npu_must_be_a_table():
    data = _corstone()
    data["npu"] = "ethos-u55-128"
    with pytest.raises(OptionError, match="field 'npu' must be a table"):
        validate_board(data, "Board file 'corstone-300'")


def test_cli_invalid_npu_is_exit_1_with_the_valid_configs(tmp_path):
    model = save(two_conv_model(), tmp_path / "m.onnx")
    proc = run_cli("compile", str(model), "-o", str(tmp_path / "out"), "--board", "corstone-300",
                   "--npu", "ethos-u55-100")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "--npu: NPU config 'ethos-u55-100'" in proc.stderr and ", ".join(NPU_CONFIGS) in proc.stderr
    assert not (tmp_path / "out").exists()


def test_cli_npu_goes_into_report_json(tmp_path):
    model = save(two_conv_model(), tmp_path / "m.onnx")
    proc = run_cli("compile", str(model), "-o", str(tmp_path / "out"), "--npu", "ethos-u65-256")
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["npu"]["accelerator"] == "ethos-u65-256" and report["npu"]["macs_per_cycle"] == 256
    assert report["npu"]["regions"] == []
    assert "npu" not in report["options"]


def test_npu_targets_doc_lists_every_config_with_its_defaults():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "NPU_TARGETS.md").read_text()
    for name in NPU_CONFIGS:
        cfg = make_config(name)
        row = f"| `{name}` | {cfg.product} | {cfg.macs} | `{cfg.system_config}` | `{cfg.memory_mode}` | " \
              f"{cfg.clock_hz // 1_000_000} |"
        assert row in doc, row


def test_npu_builds_keep_arena_and_weights_where_the_npu_reaches(tmp_path):
    """corstone-300's NPU reaches sram and ddr, not the TCMs: the fit, which otherwise picks the DTCM for a small
    arena, puts an NPU build's arena (Vela's scratch) in the SRAM, and refuses --arena-region dtcm."""
    from mcucomp.boards import load_board
    from region_model import region_lowered, vela_region, write_region_model
    from mcucomp.pipeline import plan_lowered

    report = write_region_model(tmp_path / "m")
    assert report["fit"]["arena_region"] == "sram" and report["fit"]["weights_region"] == "ddr"
    assert "the NPU reaches only sram, ddr" in report["fit"]["arena_region_why"]
    cfg, region = vela_region("kws_ref_model.tflite", "ethos-u55-128", "Ethos_U55_High_End_Embedded", "Shared_Sram")
    with pytest.raises(OptionError, match="--arena-region 'dtcm': the Ethos-U of board 'corstone-300' cannot reach"):
        plan_lowered(region_lowered(cfg, region), "npu_model", load_board("corstone-300"), "kws", "test",
                     arena_region="dtcm")
    plain = run_cli("analyze", str(save(two_conv_model(), tmp_path / "m.onnx")), "--board", "corstone-300", "--json")
    assert json.loads(plain.stdout)["fit"]["arena_region"] == "dtcm"  # no NPU region: the fastest RAM
