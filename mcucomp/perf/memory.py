"""The simulator's memory model: which regions pay flash wait states on data reads, behind which data cache."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources


@dataclass
class FlashRegion:
    """A region whose data reads can stall: [base, base + size) with `wait_states` per uncached read."""

    name: str
    base: int
    size: int
    wait_states: int


@dataclass
class DataCache:
    """A set-associative LRU cache for flash data reads (see flash_cache.toml); ways = lines: fully associative."""

    lines: int
    line_bytes: int
    ways: int
    source: str


def flash_regions(board: dict) -> list[FlashRegion]:
    """The board's flash (and external flash) regions with wait states > 0."""
    return [FlashRegion(r["name"], r["base"], r["size"], r["wait_states"]) for r in board["memory"]
            if r.get("wait_states", 0) > 0 and (r["kind"] == "flash" or r.get("external_type") == "flash")]


def data_cache(board: dict) -> DataCache | None:
    """The board's data cache in front of flash, or None when every flash data read pays the wait states."""
    table = tomllib.loads(resources.files("mcucomp.perf").joinpath("flash_cache.toml").read_text())
    entry = table.get(board["id"])
    return DataCache(entry["lines"], entry["line_bytes"], entry["ways"], entry["source"]) if entry else None


def describe(board: dict) -> str:
    """One sentence on what the board-memory figure assumes."""
    regions = flash_regions(board)
    if not regions:
        return "board memory: no wait states, same as zero-wait"
    ws = ", ".join(f"{r.name} {r.wait_states} WS" for r in regions)
    cache = data_cache(board)
    reads = (f"data reads through a {cache.lines} x {cache.line_bytes} B {cache.ways}-way cache" if cache
             else "every data read pays them")
    return f"board memory: {ws}; instruction fetches cached (0 WS), {reads}"
