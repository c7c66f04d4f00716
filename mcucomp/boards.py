"""Board descriptions (boards/<id>.toml): core, memory regions, compiler flags and QEMU machine, validated."""

from __future__ import annotations

import re
import tomllib
import unicodedata
from importlib import resources
from pathlib import Path

from .errors import OptionError
from .npu.config import validate_npu_table

DEFAULT_BOARD = "nucleo-l4r5zi"

#: The QEMU machine that executes each core's instruction set (ARMv6-M code runs on the M3 of mps2-an385).
QEMU_MACHINE_FOR_CORE = {
    "cortex-m0plus": "mps2-an385",
    "cortex-m4": "mps2-an386",
    "cortex-m7": "mps2-an500",
    "cortex-m33": "mps2-an505",
    "cortex-m55": "mps3-an547",
}
FPU_KINDS = ("none", "sp", "dp")
MEMORY_KINDS = ("sram", "tcm", "flash", "external")
EXTERNAL_TYPES = ("ram", "flash")
FLOAT_ABIS = ("soft", "softfp", "hard")

_TOP_FIELDS = {
    "id": str, "name": str, "core": str, "clock_hz": int, "fpu": str, "dsp": bool, "mve": bool, "alignment": int,
    "qemu_machine": str, "ram_region": str, "flash_region": str, "compiler": dict, "sources": dict, "memory": list,
}
_OPTIONAL_TOP_FIELDS = {"burst_clock_hz": int, "npu": dict}
#: A board id names files and appears in generated C comments and reports: a conservative spelling.
BOARD_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
#: Region names become linker-script and C macro names (FW_REGION_<NAME>).
REGION_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")
_REGION_FIELDS = {"name": str, "kind": str, "base": int, "size": int, "source": str}
_OPTIONAL_REGION_FIELDS = {"wait_states": int, "external_type": str}


def board_ids() -> list[str]:
    """The ids of the bundled boards."""
    return sorted(p.name[:-5] for p in resources.files("boards").iterdir() if p.name.endswith(".toml"))


def _type_name(kind: type) -> str:
    """How a TOML type is called in an error message."""
    return {str: "a string", int: "an integer", bool: "true or false", dict: "a table", list: "an array"}[kind]


def _check_fields(where: str, data: dict, required: dict, optional: dict) -> None:
    """Every required field present with its type, optional ones typed, no unknown fields."""
    for key, kind in required.items():
        if key not in data:
            raise OptionError(f"{where}: missing field '{key}' ({_type_name(kind)}). See boards/nucleo-l4r5zi.toml.")
    for key, value in data.items():
        kind = required.get(key) or optional.get(key)
        if kind is None:
            known = ", ".join(sorted({**required, **optional}))
            raise OptionError(f"{where}: unknown field '{key}'. Known fields: {known}.")
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise OptionError(f"{where}: field '{key}' must be {_type_name(kind)}, got {value!r}.")


def _check_choice(where: str, field: str, value, choices) -> None:
    """value must be one of choices."""
    if value not in choices:
        raise OptionError(f"{where}: field '{field}' is '{value}'; use one of: {', '.join(choices)}.")


def _check_text(where: str, field: str, value: str, pattern: re.Pattern | None, spelling: str) -> None:
    """A text field either matches pattern, or (pattern None) is 1-100 printable characters (no control, format or
    line-separator characters such as NUL, newline or bidi overrides)."""
    if pattern is not None:
        ok = pattern.fullmatch(value) is not None
    else:
        ok = 0 < len(value) <= 100 and all(unicodedata.category(ch)[0] not in "CZ" or ch == " " for ch in value)
    if not ok:
        raise OptionError(f"{where}: field '{field}' is {value!r}; it must be {spelling}.")


def _check_region(where: str, index: int, region: dict) -> None:
    """One [[memory]] entry."""
    if not isinstance(region, dict):
        raise OptionError(f"{where}: memory[{index}] must be a table ([[memory]]).")
    here = f"{where}: memory[{index}]"
    _check_fields(here, region, _REGION_FIELDS, _OPTIONAL_REGION_FIELDS)
    _check_text(here, "name", region["name"], REGION_NAME,
                "a letter then up to 31 letters, digits or '_' (it names linker sections and C macros)")
    here += f" ('{region['name']}')"
    _check_choice(here, "kind", region["kind"], MEMORY_KINDS)
    if region["size"] <= 0 or region["base"] < 0 or region["base"] + region["size"] > 1 << 32:
        raise OptionError(f"{here}: fields 'base'/'size' must describe a non-empty range inside the 4 GB space.")
    if region.get("wait_states", 0) < 0:
        raise OptionError(f"{here}: field 'wait_states' must be >= 0.")
    if region["kind"] == "external":
        if "external_type" not in region:
            raise OptionError(f"{here}: field 'external_type' (ram or flash) is required for kind = 'external'.")
        _check_choice(here, "external_type", region["external_type"], EXTERNAL_TYPES)
    elif "external_type" in region:
        raise OptionError(f"{here}: field 'external_type' is only allowed with kind = 'external'.")


def validate_board(data: dict, where: str) -> dict:
    """Check a parsed board file against the schema; raise OptionError naming the field; return data."""
    _check_fields(where, data, _TOP_FIELDS, _OPTIONAL_TOP_FIELDS)
    _check_text(where, "id", data["id"], BOARD_ID,
                "1-64 characters from lowercase letters, digits, '.', '_' and '-', starting with a letter or digit")
    _check_text(where, "name", data["name"], None,
                "1-100 printable characters (no control characters, line breaks or bidi controls)")
    _check_choice(where, "core", data["core"], sorted(QEMU_MACHINE_FOR_CORE))
    _check_choice(where, "fpu", data["fpu"], FPU_KINDS)
    if data["clock_hz"] <= 0:
        raise OptionError(f"{where}: field 'clock_hz' must be positive.")
    if data["alignment"] < 4 or data["alignment"] & (data["alignment"] - 1):
        raise OptionError(f"{where}: field 'alignment' must be a power of two >= 4, got {data['alignment']}.")
    expected = QEMU_MACHINE_FOR_CORE[data["core"]]
    if data["qemu_machine"] != expected:
        raise OptionError(f"{where}: field 'qemu_machine' is '{data['qemu_machine']}', but {data['core']} code "
                          f"runs on '{expected}'.")
    compiler = data["compiler"]
    _check_fields(f"{where}: [compiler]", compiler, {"mcpu": str, "mfloat_abi": str}, {"mfpu": str})
    _check_choice(f"{where}: [compiler]", "mfloat_abi", compiler["mfloat_abi"], FLOAT_ABIS)
    if (data["fpu"] == "none") != (compiler["mfloat_abi"] == "soft"):
        raise OptionError(f"{where}: [compiler] field 'mfloat_abi' = '{compiler['mfloat_abi']}' contradicts "
                          f"fpu = '{data['fpu']}' (no FPU needs 'soft'; an FPU needs 'hard' or 'softfp').")
    _check_fields(f"{where}: [sources]", data["sources"], {"core": str, "clock": str}, {"board": str})
    if not data["memory"]:
        raise OptionError(f"{where}: field 'memory' must list at least one [[memory]] region.")
    for index, region in enumerate(data["memory"]):
        _check_region(where, index, region)
    names = [r["name"] for r in data["memory"]]
    upper = [n.upper() for n in names]  # FW_REGION_<NAME> macros are upper case
    duplicates = sorted({n for n in names if upper.count(n.upper()) > 1})
    if duplicates:
        raise OptionError(f"{where}: memory region name(s) {', '.join(duplicates)} appear more than once "
                          "(letter case aside).")
    spans = sorted((r["base"], r["base"] + r["size"], r["name"]) for r in data["memory"])
    for (_, end, a), (start, _, b) in zip(spans, spans[1:]):
        if start < end:
            raise OptionError(f"{where}: memory regions '{a}' and '{b}' overlap; fix their 'base'/'size'.")
    for field in ("ram_region", "flash_region"):
        if data[field] not in names:
            raise OptionError(f"{where}: field '{field}' = '{data[field]}' is not a memory region; use one of: "
                              f"{', '.join(names)}.")
    if "npu" in data:
        validate_npu_table(data["npu"], where, names)
    return data


def load_board(board: str | None) -> dict:
    """Read a board by id or TOML path and validate it; the dict has 'id', 'alignment', 'memory', ... ."""
    board = DEFAULT_BOARD if board is None else board
    path = Path(board)
    if board.endswith(".toml") and path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise OptionError(f"Board file '{board}' cannot be read as UTF-8 TOML ({exc}).") from None
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
    return validate_board(data, f"Board file '{board}'")


def region(board: dict, name: str) -> dict:
    """The memory region called name."""
    return next(r for r in board["memory"] if r["name"] == name)


def compiler_flags(board: dict) -> list[str]:
    """arm-none-eabi-gcc flags selecting the board's core and floating-point ABI."""
    c = board["compiler"]
    flags = [f"-mcpu={c['mcpu']}", "-mthumb", f"-mfloat-abi={c['mfloat_abi']}"]
    return flags + ([f"-mfpu={c['mfpu']}"] if "mfpu" in c else [])


def describe_boards() -> list[dict]:
    """One summary row per bundled board, for `mcucomp boards`."""
    rows = []
    for board_id in board_ids():
        b = load_board(board_id)
        ram = sum(r["size"] for r in b["memory"] if r["kind"] in ("sram", "tcm"))
        flash = region(b, b["flash_region"])["size"]
        rows.append({"id": board_id, "core": b["core"], "mhz": b["clock_hz"] // 1_000_000, "fpu": b["fpu"],
                     "ram_kb": ram // 1024, "flash_kb": flash // 1024, "qemu": b["qemu_machine"],
                     "npu": b["npu"]["accelerator"] if "npu" in b else "-",
                     "default": board_id == DEFAULT_BOARD, "name": b["name"]})
    return rows


def format_board_table(rows: list[dict]) -> str:
    """The `mcucomp boards` table."""
    header = (f"{'id':<22} {'core':<14} {'MHz':>4} {'FPU':<4} {'RAM KB':>7} {'code KB':>8}  {'QEMU':<11} "
              f"{'NPU':<14} name")
    lines = [header]
    for r in rows:
        star = " (default)" if r["default"] else ""
        lines.append(f"{r['id']:<22} {r['core']:<14} {r['mhz']:>4} {r['fpu']:<4} {r['ram_kb']:>7} "
                     f"{r['flash_kb']:>8}  {r['qemu']:<11} {r['npu']:<14} {r['name']}{star}")
    return "\n".join(lines)
