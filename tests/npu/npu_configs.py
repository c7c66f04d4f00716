"""NPU configurations for tests, built without the board files (the four configurations the benchmarks use)."""

from __future__ import annotations

from types import SimpleNamespace

_SYSTEMS = {
    "U55": ("Ethos_U55_High_End_Embedded", "Shared_Sram"),
    "U65": ("Ethos_U65_High_End", "Dedicated_Sram_384KB"),
    "U85": ("Ethos_U85_SYS_DRAM_High", "Dedicated_Sram_384KB"),
}


def config_for(accelerator: str = "ethos-u55-128"):
    """An NpuConfig-like object for ``accelerator`` (e.g. "ethos-u55-128") with Vela's Arm system config."""
    product = accelerator.split("-")[1].upper()
    system_config, memory_mode = _SYSTEMS[product]
    return SimpleNamespace(
        accelerator=accelerator, product=product, macs=int(accelerator.rsplit("-", 1)[1]),
        system_config=system_config, memory_mode=memory_mode, clock_hz=500_000_000,
    )
