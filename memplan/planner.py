"""Offset assignment in one arena: buffers that are live at the same step never overlap."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Buffer:
    """A block of `size` bytes live from step `first` to step `last`, inclusive."""

    name: str
    size: int
    first: int
    last: int

    def overlaps_in_time(self, other: "Buffer") -> bool:
        """True when both are live at some common step."""
        return self.first <= other.last and other.first <= self.last


@dataclass
class Plan:
    """Offsets by buffer name and the arena size they need."""

    offsets: dict[str, int]
    arena_size: int


def _align(value: int, alignment: int) -> int:
    """Round up to a multiple of alignment."""
    return -(-value // alignment) * alignment


def live_lower_bound(buffers: list[Buffer], alignment: int = 1) -> int:
    """The largest sum of (aligned) sizes live at any one step: no placement can use less."""
    if not buffers:
        return 0
    steps = sorted({b.first for b in buffers})
    return max(sum(_align(b.size, alignment) for b in buffers if b.first <= s <= b.last) for s in steps)


def _place(order: list[Buffer], alignment: int) -> Plan:
    """Place buffers in the given order, each at the lowest aligned gap free of time-overlapping placed ones."""
    placed: list[tuple[Buffer, int]] = []
    offsets: dict[str, int] = {}
    end = 0
    for buf in order:
        busy = sorted((off, off + _align(b.size, alignment)) for b, off in placed if b.overlaps_in_time(buf))
        candidate = 0
        for lo, hi in busy:
            if candidate + buf.size <= lo:
                break
            candidate = max(candidate, _align(hi, alignment))
        offsets[buf.name] = candidate
        placed.append((buf, candidate))
        end = max(end, candidate + _align(buf.size, alignment))
    return Plan(offsets, end)


def plan_arena(buffers: list[Buffer], alignment: int = 16) -> Plan:
    """First-fit placement, largest buffers first; ties broken by start step then name for determinism."""
    order = sorted(buffers, key=lambda b: (-b.size, b.first, b.name))
    return _place(order, alignment)
