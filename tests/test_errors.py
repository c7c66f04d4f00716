"""Bad input through the command line: a one-paragraph message, the right exit code, no traceback, no stray files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cli_models import make_model, run_cli, save, two_conv_model
from onnx import TensorProto, helper


def _fails(proc, exit_code: int, *fragments: str) -> str:
    """Assert the CLI failed with exit_code and a one-line `error:` message containing every fragment."""
    assert proc.returncode == exit_code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr, (fragment, proc.stderr)
    return proc.stderr


def _no_leftovers(parent: Path, out: Path) -> None:
    """The failed run created neither the output directory nor a staging directory."""
    assert not out.exists()
    assert not list(parent.glob(".mcucomp-*"))


def test_random_bytes_are_not_a_model(tmp_path):
    path = tmp_path / "noise.onnx"
    path.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    out = tmp_path / "out"
    _fails(run_cli("compile", path, "-o", out), 1, "noise.onnx", "is not a readable ONNX model")
    _no_leftovers(tmp_path, out)


def test_truncated_protobuf(tmp_path):
    raw = two_conv_model().SerializeToString()
    path = tmp_path / "cut.onnx"
    path.write_bytes(raw[: len(raw) // 2])
    out = tmp_path / "out"
    _fails(run_cli("compile", path, "-o", out), 1, "cut.onnx", "is not a readable ONNX model", "complete .onnx")
    _no_leftovers(tmp_path, out)


def test_missing_model_file(tmp_path):
    out = tmp_path / "out"
    _fails(run_cli("compile", tmp_path / "nope.onnx", "-o", out), 1, "nope.onnx", "does not exist")
    _no_leftovers(tmp_path, out)


def test_every_unsupported_node_is_listed(tmp_path):
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores"], ["selected"], name="nms_node"),
             helper.make_node("MyOp", ["x"], ["z"], name="custom_node", domain="com.example")]
    model = make_model(
        nodes,
        [("boxes", TensorProto.FLOAT, [1, 5, 4]), ("scores", TensorProto.FLOAT, [1, 1, 5]),
         ("x", TensorProto.FLOAT, [1, 4])],
        [("selected", TensorProto.INT64, [1, 3]), ("z", TensorProto.FLOAT, [1, 4])],
        opsets=(("", 13), ("com.example", 1)))
    path = save(model, tmp_path / "unsupported.onnx")
    out = tmp_path / "out"
    _fails(run_cli("compile", path, "-o", out), 2, "2 node(s) cannot be compiled",
           "'nms_node' (ai.onnx::NonMaxSuppression)", "'custom_node' (com.example::MyOp)", "no kernel")
    _no_leftovers(tmp_path, out)


def test_unresolved_dim_then_fixed_by_shape(tmp_path):
    path = save(two_conv_model(in_dims=(1, 1, "height", "width")), tmp_path / "dynamic.onnx")
    out = tmp_path / "out"
    _fails(run_cli("compile", path, "-o", out), 1, "Input 'x'", "'height' at axis 2", "--shape x=")
    _no_leftovers(tmp_path, out)
    proc = run_cli("compile", path, "-o", out, "--shape", "x=1x1x8x8")
    assert proc.returncode == 0, proc.stderr
    assert (out / "dynamic.c").is_file()


@pytest.mark.parametrize("text", ["x=1x1x8", "x=1,1,8,8", "=1x1x8x8"])
def test_bad_shape_option(tmp_path, text):
    path = save(two_conv_model(), tmp_path / "m.onnx")
    out = tmp_path / "out"
    _fails(run_cli("compile", path, "-o", out, "--shape", text), 1, "--shape")
    _no_leftovers(tmp_path, out)


def test_input_name_with_colon_is_sanitized(tmp_path):
    path = save(two_conv_model(in_name="input:0"), tmp_path / "colon.onnx")
    out = tmp_path / "out"
    proc = run_cli("verify", path, "-o", out, "--inputs", "2")
    assert proc.returncode == 0, proc.stderr
    assert "const float *input_0" in (out / "colon.h").read_text()


@pytest.mark.parametrize("in_name, out_name, params", [
    ("y:0", "y_0", ("const float *y_0_", "float *y_0,")),
    ("int", "y", ("const float *int_", "float *y,")),
])
def test_input_names_that_cannot_be_c_identifiers_are_renamed(tmp_path, in_name, out_name, params):
    path = save(two_conv_model(in_name=in_name, out_name=out_name), tmp_path / "names.onnx")
    out = tmp_path / "out"
    proc = run_cli("compile", path, "-o", out)
    assert proc.returncode == 0, proc.stderr
    header = (out / "names.h").read_text()
    assert all(p in header for p in params)
    assert f"input '{in_name}' (parameter {params[0].split('*')[1]})" in header


def test_output_path_is_an_existing_file(tmp_path):
    path = save(two_conv_model(), tmp_path / "m.onnx")
    blocker = tmp_path / "taken"
    blocker.write_text("keep me")
    _fails(run_cli("compile", path, "-o", blocker), 1, "exists and is not a directory")
    assert blocker.read_text() == "keep me"
    assert not list(tmp_path.glob(".mcucomp-*"))


def test_output_path_under_a_file(tmp_path):
    path = save(two_conv_model(), tmp_path / "m.onnx")
    blocker = tmp_path / "taken"
    blocker.write_text("keep me")
    _fails(run_cli("compile", path, "-o", blocker / "sub" / "out"), 1, f"'{blocker}' is a file")
    assert blocker.read_text() == "keep me"
    assert not list(tmp_path.glob(".mcucomp-*"))


def test_output_directory_nobody_can_write(tmp_path):
    """/proc refuses new entries even to root, so this holds in CI (which runs as root)."""
    path = save(two_conv_model(), tmp_path / "m.onnx")
    _fails(run_cli("compile", path, "-o", "/proc/mcucomp_out"), 1, "Cannot write to output directory",
           "/proc/mcucomp_out", "Choose a writable directory")
    assert not Path("/proc/mcucomp_out").exists()


def test_failed_compile_leaves_previous_output_untouched(tmp_path):
    out = tmp_path / "out"
    good = save(two_conv_model(), tmp_path / "m.onnx")
    assert run_cli("compile", good, "-o", out, "--name", "m").returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    bad = save(two_conv_model(in_dims=(1, 1, "height", 8)), tmp_path / "bad.onnx")
    _fails(run_cli("compile", bad, "-o", out, "--name", "m"), 1, "--shape x=")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


@pytest.mark.parametrize("args, fragments", [
    (("compile", "MODEL"), ("-o/--out", "mcucomp compile --help")),
    (("compile", "MODEL", "-o", "OUT", "--requant", "onnx"), ("invalid choice: 'onnx'",)),
    (("compile", "MODEL", "-o", "OUT", "--name", "9lives"), ("Model name '9lives'",)),
    (("compile", "MODEL", "-o", "OUT", "--board", "esp32"), ("Unknown board 'esp32'",)),
    (("compile", "MODEL", "-o", "OUT", "--shape", "x=1x1x8x8", "--shape", "x=1x1x4x4"), ("names input 'x' twice",)),
    (("compile", "MODEL", "-o", "OUT", "--shape", "z=1x1x8x8"), ("'z', which is not a graph input",)),
    (("verify", "MODEL", "--inputs", "0"), ("--inputs 0",)),
    (("frobnicate",), ("invalid choice: 'frobnicate'",)),
])
def test_bad_options(tmp_path, args, fragments):
    path = save(two_conv_model(), tmp_path / "m.onnx")
    out = tmp_path / "out"
    real = [str(path) if a == "MODEL" else str(out) if a == "OUT" else a for a in args]
    _fails(run_cli(*real), 1, *fragments)
    _no_leftovers(tmp_path, out)
