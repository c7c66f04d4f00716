"""Publishing into OUTDIR (mcucomp/outdir.py): all or nothing, locked against concurrent compiles, owning only the
files mcucomp wrote."""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest
from cli_models import REPO, save, two_conv_model

from mcucomp import outdir
from mcucomp.cli import main
from mcucomp.errors import OutputError
from mcucomp.pipeline import compile_model

TINY_CNN = REPO / "examples" / "tiny_cnn.onnx"


def _snapshot(directory: Path) -> dict[str, bytes]:
    """Every entry of a directory tree by relative path: file bytes, or b'<dir>' for directories."""
    return {str(p.relative_to(directory)): (p.read_bytes() if p.is_file() else b"<dir>")
            for p in sorted(directory.rglob("*"))}


def _reference(model, tmp_path: Path, tag: str) -> dict[str, bytes]:
    """The files one compile of model (name 'm') writes into an empty directory."""
    out = tmp_path / f"ref_{tag}"
    compile_model(model, out, name="m")
    return _snapshot(out)


@pytest.fixture
def models(tmp_path):
    """Two models compiled under the same name 'm' with different kernel sets."""
    return save(two_conv_model(), tmp_path / "two_conv.onnx"), TINY_CNN


def _compile_after_barrier(model, out, barrier) -> None:
    """Child process: wait for the sibling, then compile into the shared OUTDIR."""
    barrier.wait()
    compile_model(model, out, name="m")


def test_concurrent_compiles_never_mix(tmp_path, models):
    refs = [_reference(m, tmp_path, str(k)) for k, m in enumerate(models)]
    assert set(refs[0]) != set(refs[1])  # different kernel files, so mixing would show
    ctx = multiprocessing.get_context("fork")
    for round_ in range(8):
        out = tmp_path / f"shared_{round_}"
        barrier = ctx.Barrier(2)
        procs = [ctx.Process(target=_compile_after_barrier, args=(m, out, barrier)) for m in models]
        for p in procs:
            p.start()
        for p in procs:
            p.join(120)
            assert p.exitcode == 0
        final = _snapshot(out)
        assert final in refs, f"round {round_}: OUTDIR mixes both models: {sorted(final)}"


def _prepopulate(out: Path, model) -> dict[str, bytes]:
    """OUTDIR holding a previous compile of model and a user file; return its snapshot."""
    compile_model(model, out, name="m")
    (out / "notes.txt").write_text("user file")
    return _snapshot(out)


def test_failure_at_every_move_leaves_outdir_unchanged(tmp_path, models, monkeypatch):
    out = tmp_path / "out"
    before = _prepopulate(out, models[1])
    real_replace = os.replace
    calls = []

    def counting(src, dst):
        calls.append(src)
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", counting)
    probe = tmp_path / "probe"
    _prepopulate(probe, models[1])
    calls.clear()
    compile_model(models[0], probe, name="m")
    total = len(calls)
    assert total > 20  # files moved aside plus files moved in
    for k in range(1, total + 1):
        def failing(src, dst, seen=[0], k=k):
            seen[0] += 1
            if seen[0] == k:
                raise OSError(28, "No space left on device")
            return real_replace(src, dst)

        monkeypatch.setattr(os, "replace", failing)
        with pytest.raises(OutputError, match="previous content was restored"):
            compile_model(models[0], out, name="m")
        monkeypatch.setattr(os, "replace", real_replace)
        assert _snapshot(out) == before, f"failure at move {k} of {total} changed OUTDIR"


def test_interrupt_mid_publish_restores(tmp_path, models, monkeypatch):
    out = tmp_path / "out"
    before = _prepopulate(out, models[1])
    real_replace = os.replace
    seen = []

    def interrupted(src, dst):
        seen.append(src)
        if len(seen) == 25:
            raise KeyboardInterrupt
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        compile_model(models[0], out, name="m")
    monkeypatch.setattr(os, "replace", real_replace)
    assert _snapshot(out) == before


def test_previous_model_files_removed_user_files_kept(tmp_path, models):
    out = tmp_path / "out"
    _prepopulate(out, models[1])  # tiny_cnn: avgpool, gemm, maxpool, softmax kernels
    (out / "m_gemm_f32.h").write_text("/* edited by the user */\n")  # changed since mcucomp wrote it: kept
    compile_model(models[0], out, name="m")
    ref = _reference(models[0], tmp_path, "alone")
    final = _snapshot(out)
    assert {k: v for k, v in final.items() if k in ref} == ref
    assert set(final) - set(ref) == {"notes.txt", "m_gemm_f32.h"}
    assert final["notes.txt"] == b"user file"


def test_hostile_manifest_never_reaches_outside(tmp_path, models):
    out = tmp_path / "out"
    compile_model(models[0], out, name="m")
    victim = tmp_path / "victim.txt"
    victim.write_text("x")
    report = json.loads((out / "report.json").read_text())
    report[outdir.MANIFEST_KEY] = {"../victim.txt": outdir.file_hashes(tmp_path)["victim.txt"], "/etc/passwd": "0"}
    (out / "report.json").write_text(json.dumps(report))
    compile_model(models[1], out, name="m", force=True)  # the hand-made manifest no longer owns the files
    assert victim.read_text() == "x"


@pytest.mark.parametrize("kind", ["directory", "symlink", "fifo"])
def test_non_regular_destination_is_refused_before_any_move(tmp_path, models, capsys, kind):
    out = tmp_path / "out"
    out.mkdir()
    blocker = out / "m_conv2d_f32.h"
    if kind == "directory":
        blocker.mkdir()
        (blocker / "inside").write_text("keep")
    elif kind == "symlink":
        (tmp_path / "target.c").write_text("keep")
        blocker.symlink_to(tmp_path / "target.c")
    else:
        os.mkfifo(blocker)
    (out / "notes.txt").write_text("user file")
    before = _snapshot(out) if kind != "fifo" else sorted(os.listdir(out))
    assert main(["compile", str(models[0]), "-o", str(out), "--name", "m"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "m_conv2d_f32.h" in err, err
    assert "Nothing was written" in err
    assert (_snapshot(out) if kind != "fifo" else sorted(os.listdir(out))) == before


def test_second_compile_waits_for_the_lock(tmp_path, models):
    out = tmp_path / "out"
    out.mkdir()
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    timer = threading.Timer(0.5, os.close, (fd,))
    timer.start()
    start = time.monotonic()
    compile_model(models[0], out, name="m")
    assert time.monotonic() - start >= 0.4
    timer.join()
    assert (out / "m.c").is_file()


def test_lock_held_too_long_is_a_clear_error(tmp_path, models, monkeypatch, capsys):
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(outdir, "LOCK_WAIT_SECONDS", 0.2)
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        assert main(["compile", str(models[0]), "-o", str(out), "--name", "m"]) == 1
    finally:
        os.close(fd)
    err = capsys.readouterr().err
    assert "Another mcucomp process" in err and err.count("\n") == 1, err
    assert sorted(os.listdir(out)) == []


def test_path_component_too_long(tmp_path, models, capsys):
    out = tmp_path / ("x" * 300) / "out"
    assert main(["compile", str(models[0]), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "longer than the file system allows" in err and err.count("\n") == 1, err
    assert sorted(os.listdir(tmp_path)) == ["two_conv.onnx"]


def test_build_target_firmware_path_taken_by_a_file(tmp_path, models, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "firmware").write_text("not a directory")
    assert main(["build-target", str(models[0]), "-o", str(out), "--name", "m"]) == 1
    err = capsys.readouterr().err
    assert "Cannot write the firmware sources" in err and err.count("\n") == 1, err
    assert (out / "firmware").read_text() == "not a directory"


def _user_outdir(out: Path, report: str | None) -> dict[str, bytes]:
    """OUTDIR holding the user's own m.c and (unless report is None) report.json; return its snapshot."""
    out.mkdir()
    (out / "m.c").write_text("/* the user's own m.c */\n")
    if report is not None:
        (out / "report.json").write_text(report)
    (out / "notes.txt").write_text("user file")
    return _snapshot(out)


@pytest.mark.parametrize("command", ["compile", "build-target", "verify", "profile"])
def test_user_files_of_the_same_names_are_refused(tmp_path, models, capsys, command):
    out = tmp_path / "out"
    before = _user_outdir(out, '{"accuracy": 0.91}\n')
    assert main([command, str(models[1]), "-o", str(out), "--name", "m"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "'m.c', 'report.json'" in err and "did not write" in err and "--force" in err, err
    assert "Nothing was written" in err
    assert _snapshot(out) == before


def test_force_overwrites_user_files(tmp_path, models, capsys):
    out = tmp_path / "out"
    _user_outdir(out, '{"accuracy": 0.91}\n')
    assert main(["compile", str(models[1]), "-o", str(out), "--name", "m", "--force"]) == 0
    ref = _reference(models[1], tmp_path, "alone")
    final = _snapshot(out)
    assert {k: v for k, v in final.items() if k in ref} == ref
    assert set(final) - set(ref) == {"notes.txt"}


def test_user_source_refused_without_any_report(tmp_path, models, capsys):
    out = tmp_path / "out"
    before = _user_outdir(out, None)
    assert main(["compile", str(models[1]), "-o", str(out), "--name", "m"]) == 1
    err = capsys.readouterr().err
    assert "'m.c'" in err and "report.json" not in err.split("did not write")[1].split(":")[1], err
    assert _snapshot(out) == before


@pytest.mark.parametrize("edit", ["source", "report"])
def test_files_edited_since_mcucomp_wrote_them_are_refused(tmp_path, models, capsys, edit):
    out = tmp_path / "out"
    compile_model(models[1], out, name="m")
    edited = out / ("m.c" if edit == "source" else "report.json")
    edited.write_bytes(edited.read_bytes() + b"\n")
    before = _snapshot(out)
    assert main(["compile", str(models[0]), "-o", str(out), "--name", "m"]) == 1
    assert f"'{edited.name}'" in capsys.readouterr().err
    assert _snapshot(out) == before
    compile_model(models[0], out, name="m", force=True)
    assert (out / edited.name).read_bytes() == _reference(models[0], tmp_path, "alone")[edited.name]


def test_recompile_over_own_files_needs_no_force(tmp_path, models):
    out = tmp_path / "out"
    compile_model(models[1], out, name="m")
    report = json.loads((out / "report.json").read_text())
    assert set(report[outdir.MANIFEST_KEY]) == set(report["files"])
    compile_model(models[0], out, name="m")
    assert _snapshot(out) == _reference(models[0], tmp_path, "alone")


def test_manifest_without_its_own_digest_is_taken_at_its_word(tmp_path, models):
    out = tmp_path / "out"
    compile_model(models[1], out, name="m")
    report = json.loads((out / "report.json").read_text())
    del report[outdir.MANIFEST_KEY][outdir.MANIFEST_FILE]  # a manifest without the report's own entry
    (out / "report.json").write_text(json.dumps(report, indent=1))
    compile_model(models[0], out, name="m")
    assert _snapshot(out) == _reference(models[0], tmp_path, "alone")
