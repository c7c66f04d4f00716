"""--arena-region / --weights-region: the fastest region with room by default, the asked one otherwise; the fit check
uses it, and the firmware of build-target and verify --on-target really links the arena and the weights there."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from mcucomp import cli
from mcucomp.boards import load_board
from mcucomp.boards import region as region_of
from mcucomp.errors import OptionError
from mcucomp.fit import choose_regions
from mcucomp.target.memory_map import Region, qemu_memory_map

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "tiny_cnn.onnx")
H743 = load_board("nucleo-h743zi")
F746 = load_board("disco-f746ng")
KB = 1024


def parts(arena: int, weights: int = 1000) -> tuple[dict, dict]:
    """RAM and flash parts with the given arena and weights bytes."""
    return {"arena": arena, "io_buffers": 0, "stack": 400}, {"weights": weights, "code": 9000}


def nm(elf: Path, symbol: str) -> int:
    """The address of symbol in elf."""
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    return next(int(line.split()[0], 16) for line in out.splitlines() if line.split()[-1] == symbol)


def run(capsys, *argv) -> tuple[int, str, str]:
    """cli.main on argv; (exit code, stdout, stderr)."""
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_fastest_ram_region_with_room_holds_the_arena():
    chosen = choose_regions(H743, *parts(45 * KB))
    assert chosen["arena_region"] == "dtcm" and "tcm, 0 wait states" in chosen["arena_region_why"]
    # itcm (tcm too, but at address 0) is never chosen; a 200 KB arena does not fit the 128 KB DTCM.
    assert choose_regions(H743, *parts(200 * KB))["arena_region"] == "axi_sram"
    # Nothing has room: the board's default, so the fit check reports the overflow there.
    big = choose_regions(H743, *parts(4096 * KB))
    assert big["arena_region"] == "axi_sram" and "no region has room" in big["arena_region_why"]
    assert choose_regions(load_board("nucleo-l4r5zi"), *parts(1))["arena_region_why"] == "the board's only RAM region"


def test_weights_prefer_on_chip_flash_over_external():
    assert choose_regions(F746, *parts(1))["weights_region"] == "flash"
    assert choose_regions(F746, *parts(1, weights=2048 * KB))["weights_region"] == "qspi"
    asked = choose_regions(F746, *parts(1), weights_region="qspi")
    assert asked["weights_region"] == "qspi" and asked["weights_region_why"] == "chosen with --weights-region"


@pytest.mark.parametrize("arena, weights, message", [
    ("foo", None, "--arena-region 'foo': board 'nucleo-h743zi' has no such memory region. Its regions: flash (flash, "
                  "2048 KB), itcm (tcm, 64 KB), dtcm (tcm, 128 KB), axi_sram"),
    ("flash", None, "--arena-region 'flash': the arena cannot live in that region"),
    ("itcm", None, "starts at address 0, where the arena's pointer would be NULL. Use one of: dtcm"),
    (None, "dtcm", "--weights-region 'dtcm': the weights cannot live in that region of board 'nucleo-h743zi'. "
                   "Use one of: flash (flash, 2048 KB)."),
])
def test_bad_region_is_an_option_error(arena, weights, message):
    with pytest.raises(OptionError) as info:
        choose_regions(H743, *parts(1), arena_region=arena, weights_region=weights)
    assert message in info.value.message


def test_cli_reports_the_choice_and_checks_that_region(tmp_path, capsys):
    code, out, _ = run(capsys, "compile", EXAMPLE, "--board", "nucleo-h743zi", "-o", tmp_path / "a")
    assert code == 0 and "regions: arena in dtcm (fastest region with room: tcm, 0 wait states" in out
    fit = json.loads((tmp_path / "a" / "report.json").read_text())["fit"]
    assert (fit["arena_region"], fit["weights_region"]) == ("dtcm", "flash")
    assert [u["region"] for u in fit["regions"]] == ["dtcm", "axi_sram", "flash"]
    # The 45 KB arena overflows the 32 KB SRAM3 when asked for: exit 4 naming that region, nothing written.
    code, out, err = run(capsys, "analyze", EXAMPLE, "--board", "nucleo-h743zi", "--arena-region", "sram3")
    assert code == 4 and "RAM region 'sram3' holds 32,768 B but the model needs 45,520 B (arena 45,520 B)" in err
    assert "arena region:      sram3 (chosen with --arena-region)" in out
    code, _, err = run(capsys, "compile", EXAMPLE, "--board", "nucleo-h743zi", "--arena-region", "nope",
                       "-o", tmp_path / "b")
    assert code == 1 and "Its regions: flash" in err and not (tmp_path / "b").exists()


def test_qemu_map_carves_board_regions_it_contains():
    mm = qemu_memory_map("mps2-an500", [r for r in H743["memory"] if r["name"] in ("dtcm", "axi_sram")])
    assert [(r.name, r.base, r.size) for r in mm.regions] == [
        ("ssram1", 0, 4 << 20), ("dtcm", 0x2000_0000, 128 * KB), ("ssram23", 0x2002_0000, (4 << 20) - 128 * KB)]
    mm = qemu_memory_map("mps2-an500", [{"name": "mid", "kind": "sram", "base": 0x2010_0000, "size": KB}])
    assert [r.name for r in mm.regions] == ["ssram1", "ssram23_lo", "mid", "ssram23"]
    assert mm.regions[1] == Region("ssram23_lo", 0x2000_0000, 1 << 20, True)


@pytest.mark.parametrize("region, base", [("dtcm", 0x2000_0000), ("sram4", 0x3800_0000), ("axi_sram", 0x2400_0000)])
def test_build_target_links_the_arena_in_the_region(tmp_path, capsys, region, base):
    code, out, err = run(capsys, "build-target", EXAMPLE, "--board", "nucleo-h743zi", "--arena-region", region,
                         "-o", tmp_path)
    assert code == 0, err
    address = nm(tmp_path / "firmware" / "fw.elf", "fw_arena")
    assert base <= address < base + region_of(H743, region)["size"]
    assert f"arena: {region} @ 0x{address:08X}" in out


def test_build_target_places_weights_in_external_flash(tmp_path, capsys):
    code, out, err = run(capsys, "build-target", EXAMPLE, "--board", "disco-f746ng", "--weights-region", "qspi",
                         "--arena-region", "sdram", "-o", tmp_path)
    assert code == 0, err
    elf = tmp_path / "firmware" / "fw.elf"
    assert 0x9000_0000 <= nm(elf, "tiny_cnn_c0_conv1_wpack") < 0x9100_0000
    assert 0xC000_0000 <= nm(elf, "fw_arena") < 0xC080_0000
    assert ".qspi 26,432 B" in out and ".sdram 45,520 B" in out


def test_verify_on_target_runs_with_the_arena_in_dtcm(tmp_path, capsys):
    """QEMU's mps2-an500 has RAM at the H743's DTCM address: the firmware links the arena there and runs."""
    x = np.random.default_rng(2).standard_normal((2, 1, 3, 32, 32)).astype(np.float32)
    np.savez(tmp_path / "d.npz", image=x)
    code, out, err = run(capsys, "verify", EXAMPLE, "--board", "nucleo-h743zi", "--arena-region", "dtcm",
                         "--on-target", "--data", tmp_path / "d.npz", "-o", tmp_path / "out")
    assert code == 0, err
    assert f"2 inputs (from {tmp_path / 'd.npz'}), QEMU ok, arena at dtcm @ 0x20000000" in out
    assert nm(tmp_path / "out" / "firmware-qemu" / "fw.elf", "fw_arena") == 0x2000_0000
