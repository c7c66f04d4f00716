"""The Ethos-U configuration a build targets: NpuConfig, read from the board's [npu] table or `--npu CONFIG`.

A Vela command stream runs only on the NPU product and MAC count it was compiled for (the driver compares the
config word in the stream with the hardware's), so the config is part of every NPU build: report.json, the
generated header (<NAME>_NPU_CONFIG) and the stream itself.
"""

from __future__ import annotations

import configparser
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..errors import McucompError, OptionError

#: Every accelerator configuration Vela 5.2 compiles for (its --accelerator-config choices): product and MACs/cycle.
NPU_CONFIGS = (
    "ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256",
    "ethos-u65-256", "ethos-u65-512",
    "ethos-u85-128", "ethos-u85-256", "ethos-u85-512", "ethos-u85-1024", "ethos-u85-2048",
)
_CONFIG_NAME = re.compile(r"ethos-(u55|u65|u85)-(\d+)")

#: Vela system config and memory mode used when the board's [npu] table names none, per product. All at a 500 MHz
#: NPU clock, and Shared_Sram: Vela's scratch and the I/O live in SRAM shared with the CPU (mcucomp's arena),
#: read-only weights and command stream in the slower memory (flash or DRAM).
PRODUCT_DEFAULTS = {
    "U55": ("Ethos_U55_High_End_Embedded", "Shared_Sram"),
    "U65": ("Ethos_U65_Mid_End", "Shared_Sram"),
    "U85": ("Ethos_U85_SYS_DRAM_Low", "Shared_Sram"),
}

_NPU_FIELDS = {"accelerator": str, "source": str}
_OPTIONAL_NPU_FIELDS = {"system_config": str, "memory_mode": str, "regions": list}


@dataclass(frozen=True)
class NpuConfig:
    """One Ethos-U target: accelerator ("ethos-u55-128"), product ("U55"), MACs per cycle, the Vela system config
    and memory mode names (sections of Vela's Arm/vela.ini) and the NPU clock that system config states."""

    accelerator: str
    product: str
    macs: int
    system_config: str
    memory_mode: str
    clock_hz: int

    @property
    def label(self) -> str:
        """The config as one line for reports and generated C comments."""
        return f"{self.accelerator} ({self.system_config}, {self.memory_mode}, {self.clock_hz // 1_000_000} MHz)"

    def vela_args(self) -> list[str]:
        """The Vela command-line options selecting this config."""
        return ["--accelerator-config", self.accelerator, "--system-config", self.system_config,
                "--memory-mode", self.memory_mode]


@lru_cache(maxsize=1)
def vela_ini() -> configparser.ConfigParser:
    """Vela's own Arm/vela.ini (system configs and memory modes), as shipped in the installed ethos-u-vela."""
    parser = configparser.ConfigParser()
    try:
        text = resources.files("ethosu").joinpath("config_files/Arm/vela.ini").read_text()
    except ModuleNotFoundError:
        raise McucompError("NPU builds need Arm's Vela compiler, which is not installed: "
                           "python -m pip install ethos-u-vela==5.2.0 (a dependency of mcucomp).") from None
    parser.read_string(text)
    return parser


def _sections(kind: str) -> list[str]:
    """Names of vela.ini sections '<kind>.<name>' (kind: System_Config or Memory_Mode)."""
    return [s.split(".", 1)[1] for s in vela_ini().sections() if s.startswith(kind + ".")]


def _invalid_config(name: str, where: str) -> OptionError:
    """The error for an unknown accelerator config name."""
    return OptionError(
        f"{where}: NPU config '{name}' is not one Vela can compile for. Use one of: {', '.join(NPU_CONFIGS)} "
        "(ethos-u<product>-<MACs per cycle>; a command stream runs only on that exact product and MAC count)."
    )


def make_config(accelerator: str, system_config: str | None = None, memory_mode: str | None = None,
                where: str = "--npu") -> NpuConfig:
    """The NpuConfig of an accelerator name, with the product's default system config / memory mode unless
    given; OptionError (naming `where`) for an unknown accelerator, system config or memory mode."""
    if accelerator not in NPU_CONFIGS:
        raise _invalid_config(accelerator, where)
    product, macs = _CONFIG_NAME.fullmatch(accelerator).groups()
    product = product.upper()
    default_system, default_mode = PRODUCT_DEFAULTS[product]
    system_config = system_config or default_system
    memory_mode = memory_mode or default_mode
    systems = [s for s in _sections("System_Config") if s.startswith(f"Ethos_{product}_")]
    if system_config not in systems:
        raise OptionError(f"{where}: system_config '{system_config}' is not a {product} system config in Vela's "
                          f"Arm/vela.ini; use one of: {', '.join(systems)}.")
    modes = _sections("Memory_Mode")
    if memory_mode not in modes:
        raise OptionError(f"{where}: memory_mode '{memory_mode}' is not in Vela's Arm/vela.ini; use one of: "
                          f"{', '.join(modes)}.")
    clock = int(float(vela_ini()[f"System_Config.{system_config}"]["core_clock"]))
    return NpuConfig(accelerator, product, int(macs), system_config, memory_mode, clock)


def validate_npu_table(table, where: str, region_names: list[str] = ()) -> NpuConfig:
    """Check a board file's [npu] table (accelerator, source; optional system_config, memory_mode, and regions: the
    board memory regions the NPU's bus masters reach, among region_names) and return its NpuConfig; OptionError
    naming the field otherwise."""
    where = f"{where}: [npu]"
    if not isinstance(table, dict):
        raise OptionError(f"{where} must be a table with fields accelerator and source.")
    for key, kind in _NPU_FIELDS.items():
        if not isinstance(table.get(key), kind):
            raise OptionError(f"{where}: field '{key}' (a string) is required, e.g. accelerator = \"ethos-u55-128\".")
    for key, value in table.items():
        if key not in _NPU_FIELDS and key not in _OPTIONAL_NPU_FIELDS:
            known = ", ".join(sorted({**_NPU_FIELDS, **_OPTIONAL_NPU_FIELDS}))
            raise OptionError(f"{where}: unknown field '{key}'. Known fields: {known}.")
        if key == "regions":
            if not value or any(name not in region_names for name in value):
                raise OptionError(f"{where}: field 'regions' must list memory regions of the board (the ones the "
                                  f"NPU can read and write), got {value!r}; the board's regions: "
                                  f"{', '.join(region_names)}.")
        elif not isinstance(value, str):
            raise OptionError(f"{where}: field '{key}' must be a string, got {value!r}.")
    return make_config(table["accelerator"], table.get("system_config"), table.get("memory_mode"), where)


def npu_config(board: dict, override: str | None = None) -> NpuConfig | None:
    """The board's NPU config, or `--npu override` in its place (None: the board's; on a board without [npu] it
    adds one). An override of the board's product keeps the board's system config and memory mode; another
    product gets that product's defaults. None when neither gives an NPU."""
    table = board.get("npu")
    regions = [r["name"] for r in board["memory"]]
    base = validate_npu_table(table, f"Board '{board['id']}'", regions) if table is not None else None
    if override is None:
        return base
    if override not in NPU_CONFIGS:
        raise _invalid_config(override, "--npu")
    if base is not None and _CONFIG_NAME.fullmatch(override).group(1).upper() == base.product:
        return make_config(override, base.system_config, base.memory_mode)
    return make_config(override)
