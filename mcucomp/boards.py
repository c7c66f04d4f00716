"""Board descriptions (boards/<id>.toml): memory, core and alignment used by planning and fit checks."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from .errors import OptionError

DEFAULT_BOARD = "nucleo-l4r5zi"


def board_ids() -> list[str]:
    """The ids of the bundled boards."""
    return sorted(p.name[:-5] for p in resources.files("boards").iterdir() if p.name.endswith(".toml"))


def load_board(board: str | None) -> dict:
    """Read a board by id or TOML path; returns the parsed dict with 'id' and 'alignment' filled in."""
    board = board or DEFAULT_BOARD
    path = Path(board)
    if board.endswith(".toml") and path.is_file():
        text = path.read_text()
    elif board in board_ids():
        text = resources.files("boards").joinpath(f"{board}.toml").read_text()
    else:
        raise OptionError(
            f"Unknown board '{board}'. Use one of: {', '.join(board_ids())}, or a path to a board .toml file."
        )
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise OptionError(f"Board file '{board}' is not valid TOML: {exc}.") from None
    data.setdefault("id", path.stem if board.endswith(".toml") else board)
    data.setdefault("alignment", 16)
    return data
