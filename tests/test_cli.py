"""The command line: compile summary, show listing, exit codes for user errors and for bugs."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest
from cli_models import REPO, run_cli, save, two_conv_model

from mcucomp import cli
from mcucomp.errors import UnsupportedError
from mcucomp.ir import Quant
from mcucomp.show import format_quant


def test_compile_prints_summary_and_writes_files(tmp_path):
    path = save(two_conv_model(), tmp_path / "two_conv.onnx")
    out = tmp_path / "out"
    proc = run_cli("compile", path, "-o", out, "--name", "tc", "--io", "caller")
    assert proc.returncode == 0, proc.stderr
    report = json.loads((out / "report.json").read_text())
    assert sorted(p.name for p in out.iterdir()) == sorted(report["files"])
    assert report["options"]["io"] == "caller"
    assert f"arena: {report['arena_bytes']:,} B (live-set lower bound {report['live_lower_bound_bytes']:,} B" \
        in proc.stdout
    assert f"flash: {report['flash_bytes']:,} B" in proc.stdout
    assert "tc.c tc.h" in proc.stdout


def test_show_lists_the_lowered_graph_that_compile_uses(tmp_path):
    path = save(two_conv_model(), tmp_path / "two_conv.onnx")
    proc = run_cli("show", path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "inputs:  x:float32[1,1,8,8]"
    assert lines[2] == ("   0  conv1  conv2d_f32.im2col  x:float32[1,1,8,8], w1:float32[4,1,3,3] const, "
                        "b1:float32[4] const -> h:float32[1,4,8,8]  macs=2,304")
    assert lines[-1] == "2 nodes, 6,912 MACs"
    out = tmp_path / "out"
    assert run_cli("compile", path, "-o", out).returncode == 0
    layers = json.loads((out / "report.json").read_text())["layers"]
    shown = [[line.split()[1], line.split()[2].split(".")[0]] for line in lines[2:-1]]
    assert shown == [[layer["name"], layer["op"]] for layer in layers]


def test_quant_parameters_are_summarized():
    per_tensor = Quant(np.array(0.5, np.float32), np.array(-3, np.int8))
    assert format_quant(per_tensor) == " q(s=0.5, zp=-3)"
    per_axis = Quant(np.array([0.25, 0.125, 0.5], np.float32), np.zeros(3, np.int8), axis=0)
    assert format_quant(per_axis) == " q(axis=0, 3 scales 0.125..0.5, zp=0)"
    mixed_zp = Quant(np.array([1.0, 2.0], np.float32), np.array([-1, 4], np.int8), axis=1)
    assert format_quant(mixed_zp) == " q(axis=1, 2 scales 1..2, zp=-1..4)"


def test_unexpected_exception_is_an_internal_error(tmp_path, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("boom in the lowering")

    monkeypatch.setattr("mcucomp.pipeline.lower_model", broken)
    monkeypatch.delenv("MCUCOMP_DEBUG", raising=False)
    path = save(two_conv_model(), tmp_path / "m.onnx")
    assert cli.main(["show", str(path)]) == cli.EXIT_INTERNAL == 70
    err = capsys.readouterr().err
    assert err.startswith("internal error:") and "RuntimeError: boom in the lowering" in err
    assert "please report" in err and "Traceback" not in err
    monkeypatch.setenv("MCUCOMP_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom"):
        cli.main(["show", str(path)])


def test_user_error_exit_code_comes_from_the_error_class(tmp_path, monkeypatch, capsys):
    def unsupported(*args, **kwargs):
        raise UnsupportedError("1 node(s) cannot be compiled: node 'n' (ai.onnx::Foo).")

    monkeypatch.setattr("mcucomp.pipeline.lower_model", unsupported)
    assert cli.main(["show", str(save(two_conv_model(), tmp_path / "m.onnx"))]) == 2
    assert capsys.readouterr().err == "error: 1 node(s) cannot be compiled: node 'n' (ai.onnx::Foo).\n"


def test_console_script_is_installed():
    script = shutil.which("mcucomp")
    assert script is not None, "the `mcucomp` console script is missing: run `python -m pip install -e .`"
    proc = subprocess.run([script, "--version"], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("mcucomp "), proc.stderr
