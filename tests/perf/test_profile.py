"""`mcucomp profile` and its API: the simulated firmware's outputs equal the host build's bit for bit (a third
execution engine next to host and QEMU) on the shared MLPerf Tiny models, on M4, M0+ and M33; the per-layer
attribution adds up; the CLI's text, JSON, CSV and exit codes."""

import json

import pytest

import mcucomp
from cli_models import run_cli, save, two_conv_model
from mcucomp import cli
from mcucomp.perf import profile as profile_module
from mcucomp.perf.profile import profile_compiled
from mcucomp.target import build as target_build
from shared_models import shared_model


@pytest.mark.parametrize("model, board", [
    ("kws_dscnn_qdq", "nucleo-l4r5zi"),   # Cortex-M4
    ("ic_resnet8_qdq", "nucleo-l4r5zi"),  # Cortex-M4, residual network
    ("kws_dscnn_qop", "nucleo-g0b1re"),   # Cortex-M0+
    ("kws_dscnn_qdq", "nucleo-u575zi"),   # Cortex-M33
])
def test_simulated_outputs_equal_host_and_layers_add_up(tmp_path, model, board):
    mcucomp.compile_model(shared_model(f"mlperf_tiny/{model}.onnx"), tmp_path, name="m", board=board)
    result = profile_compiled(tmp_path, board, inputs=2, seed=3)
    report = json.loads((tmp_path / "report.json").read_text())
    assert result.outputs_match_host, result.mismatching
    assert result.inputs == 2 and not result.untimed_instructions
    calls = [layer for layer in report["layers"] if layer["call_index"] is not None]
    assert [(l.call_index, l.name, l.op) for l in result.layers] == [(c["call_index"], c["name"], c["op"])
                                                                       for c in calls]
    layer_cycles = sum(l.cycles for l in result.layers)
    # The layers are the whole of <name>_run but for its argument checks and the calls between markers.
    assert 0.99 * result.total_cycles < layer_cycles <= result.total_cycles
    assert all(l.cycles >= l.cycles_zero_wait > 0 and l.instructions > 0 for l in result.layers)
    assert result.total_cycles > result.total_cycles_zero_wait  # these boards' flash has wait states


def test_more_inputs_average_per_inference(tmp_path):
    """Figures are per inference, averaged over the inputs: three inputs give the per-inference instruction count of
    one (the float conv kernel's loops do not depend on the data), not three times it."""
    mcucomp.compile_model(two_conv_model(), tmp_path, name="m", board="nucleo-l4r5zi")
    one = profile_compiled(tmp_path, None, inputs=1)
    three = profile_compiled(tmp_path, None, inputs=3)
    assert three.inputs == 3 and one.inputs == 1
    assert abs(three.total_instructions - one.total_instructions) <= 0.01 * one.total_instructions


@pytest.fixture(scope="module")
def two_conv_path(tmp_path_factory):
    return save(two_conv_model(), tmp_path_factory.mktemp("m") / "two_conv.onnx")


def test_cli_text(two_conv_path):
    proc = run_cli("profile", two_conv_path, "--board", "nucleo-l4r5zi")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "simulated cycles, Arm TRM instruction timings" in out
    assert "outputs equal the host's bit for bit" in out
    for column in ("MACs", "instructions", "cycles/MAC", "share", "µs", "estimated", "error"):
        assert column in out
    assert "conv1" in out and "conv2" in out
    assert "total per inference:" in out and "ms with board memory" in out and "at zero wait states" in out
    assert "top kernels:" in out
    assert "simulated inference 1/1" in proc.stderr  # progress goes to stderr


def test_cli_json_and_csv(two_conv_path):
    proc = run_cli("profile", two_conv_path, "--board", "nucleo-g0b1re", "--inputs", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    for key in ("total_cycles", "total_cycles_zero_wait", "estimated_total_cycles", "clock_hz", "core", "layers"):
        assert key in data
    assert data["core"] == "cortex-m0plus" and data["clock_hz"] == 64_000_000 and data["inputs"] == 2
    for layer in data["layers"]:
        assert {"name", "op", "macs", "instructions", "cycles", "estimated_cycles", "cycles_zero_wait"} <= set(layer)
    proc = run_cli("profile", two_conv_path, "--csv")
    assert proc.returncode == 0, proc.stderr
    header, *rows = proc.stdout.strip().splitlines()
    assert header.startswith("index,layer,op,macs,instructions,cycles,") and len(rows) == 2


def test_cli_bad_inputs_is_exit_1(two_conv_path):
    proc = run_cli("profile", two_conv_path, "--inputs", "0")
    assert proc.returncode == 1 and "--inputs 0" in proc.stderr and "Traceback" not in proc.stderr


def test_missing_toolchain_is_exit_1_with_install_hint(two_conv_path, monkeypatch, capsys):
    real_which = target_build.shutil.which
    monkeypatch.setattr(target_build.shutil, "which", lambda t: None if t.startswith("arm-none") else real_which(t))
    assert cli.main(["profile", str(two_conv_path)]) == 1
    err = capsys.readouterr().err
    assert "arm-none-eabi-gcc" in err and "apt-get install" in err


def test_output_mismatch_is_exit_3(two_conv_path, monkeypatch, capsys):
    """A simulated output that differs from the host's is a verification failure (exit 3) naming the output."""
    real_compare = profile_module.count_mismatches
    monkeypatch.setattr(profile_module, "count_mismatches", lambda *a: {k: 1 for k in real_compare(*a)})
    assert cli.main(["profile", str(two_conv_path)]) == 3
    err = capsys.readouterr().err
    assert "differ from the host build's" in err and "'y'" in err


def test_helium_board_is_exit_1(two_conv_path):
    """Unicorn cannot execute Helium: a clear option error naming the board and an alternative, not a crash."""
    proc = run_cli("profile", two_conv_path, "--board", "corstone-300")
    assert proc.returncode == 1 and "Helium" in proc.stderr and "corstone-300" in proc.stderr


def test_m33_runs_on_past_a_stale_it_block_state():
    """A calibration model whose firmware puts newlib's strlen IT block right before a 2 KB boundary (at this code
    layout): Unicorn's Cortex-M33 carried the IT block's state into the next translation block and refused the
    conditional branch there as invalid; the simulator clears that state and runs on (Simulator._clear_stale_it)."""
    from mcucomp.perf.calibration import calibration_models
    from mcucomp.pipeline import profile_model

    model = next(model for name, model, _ in calibration_models() if name == "calib2_qdq")
    assert profile_model(model, "nucleo-u575zi", inputs=1, name="m").outputs_match_host
