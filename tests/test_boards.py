"""Board files: every bundled board validates, schema errors name the field, `mcucomp boards` lists them."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest

from mcucomp.boards import QEMU_MACHINE_FOR_CORE, board_ids, load_board
from mcucomp.cli import main
from mcucomp.errors import OptionError

EXPECTED_BOARDS = {"nucleo-l4r5zi", "disco-f746ng", "nucleo-h743zi", "nrf52840-dk", "arduino-nano-33-ble", "rpi-pico",
                   "nucleo-g0b1re", "nucleo-u575zi", "corstone-300", "sparkfun-edge"}


def _board_text(board_id: str) -> str:
    """The bundled TOML text of a board."""
    return resources.files("boards").joinpath(f"{board_id}.toml").read_text()


def test_bundled_boards_are_exactly_the_ten_and_validate():
    assert set(board_ids()) == EXPECTED_BOARDS
    for board_id in board_ids():
        b = load_board(board_id)
        assert b["id"] == board_id
        assert b["qemu_machine"] == QEMU_MACHINE_FOR_CORE[b["core"]]
        assert all(r["source"] for r in b["memory"])


def test_default_board_figures():
    b = load_board(None)
    assert b["id"] == "nucleo-l4r5zi" and b["core"] == "cortex-m4" and b["clock_hz"] == 120_000_000
    assert sum(r["size"] for r in b["memory"] if r["kind"] == "sram") == 640 * 1024
    assert sum(r["size"] for r in b["memory"] if r["kind"] == "flash") == 2 * 1024 * 1024


def test_h743_has_dtcm_and_axi_sram():
    names = {r["name"]: r for r in load_board("nucleo-h743zi")["memory"]}
    assert names["dtcm"]["kind"] == "tcm" and names["axi_sram"]["size"] == 512 * 1024


@pytest.mark.parametrize("edit, field", [
    (lambda t: t.replace('fpu = "sp"', 'fpu = "half"'), "fpu"),
    (lambda t: t.replace('qemu_machine = "mps2-an386"', 'qemu_machine = "mps2-an500"'), "qemu_machine"),
    (lambda t: t.replace('kind = "sram"', 'kind = "dram"'), "kind"),
    (lambda t: t.replace("clock_hz = 120_000_000\n", ""), "clock_hz"),
    (lambda t: t.replace('ram_region = "sram"', 'ram_region = "sram9"'), "ram_region"),
    (lambda t: t.replace("size = 655_360", 'size = "big"'), "size"),
])
def test_schema_errors_name_the_field(tmp_path, edit, field):
    path = tmp_path / "broken.toml"
    path.write_text(edit(_board_text("nucleo-l4r5zi")))
    tomllib.loads(path.read_text())
    with pytest.raises(OptionError, match=f"'{field}'"):
        load_board(str(path))


def test_boards_command_lists_every_board(capsys):
    assert main(["boards"]) == 0
    out = capsys.readouterr().out
    for board_id in EXPECTED_BOARDS:
        assert board_id in out
    assert "(default)" in out
