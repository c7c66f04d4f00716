"""Buffers, aliases and overlap permissions, validated and resolved to the storage roots the planner places."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Buffer:
    """A block of `size` bytes live from step `first` to step `last`, inclusive.

    With `alias_of` set, the buffer is a view of another buffer's storage starting at the same address (a reshape,
    say): it gets no bytes of its own; its storage root is kept live over both lifetimes and made at least as large.
    Aliases may chain; the plan gives every alias its root's offset.
    """

    name: str
    size: int
    first: int
    last: int
    alias_of: str | None = None

    def overlaps_in_time(self, other: "Buffer") -> bool:
        """True when both are live at some common step."""
        return self.first <= other.last and other.first <= self.last


@dataclass(frozen=True)
class Overlap:
    """Permission for buffer `dst` to be placed over buffer `src` at the one step where `src` dies and `dst` is born.

    It describes a kernel that reads `src` and writes `dst` in ascending address order and guarantees: by the time
    it writes byte j of `dst`, it will never again read bytes 0 .. j + margin of `src` (byte indices relative to
    each buffer's start). Writing `dst` over `src` is then safe whenever

        offset(dst) - offset(src) <= margin,

    because byte j of `dst` lands on byte j + offset(dst) - offset(src) <= j + margin of `src`, which is dead.
    `dst` may therefore start anywhere from `margin` bytes above `src` down to below it (bytes of `dst` outside
    `src` are checked against every other buffer as usual). `margin` may be negative when `dst` outruns `src`.

    Examples: an element-wise op of one element size, out[i] written after in[i] is read: margin = 0 (in place).
    A depthwise conv done channel by channel through a one-channel scratch, input channel I bytes and output
    channel O <= I bytes: margin = I - O. An int8 -> int32 widening op: margin = -3 * (n - 1) for n elements.

    With `floor` set, the kernel also needs offset(dst) - offset(src) >= floor when the two overlap: the safe
    relative offsets are floor .. margin. Example: a 1x1 convolution in NCHW done pixel by pixel through a scratch
    of one pixel's input channels writes out[k][p] over in[k][p], which it has copied, only when the two start at
    the same address (floor = margin = 0); shifted either way, it would overwrite pixels it has not read yet.

    `src` must be last read at the step `dst` is first written (after aliases are resolved), otherwise a later
    reader of `src` would see `dst`'s bytes; plan_arena rejects such a permission. Permissions are pairwise: when
    several outputs of one step overlap the same input, the kernel's guarantee must hold for all of them jointly.
    """

    src: str
    dst: str
    margin: int = 0
    floor: int | None = None


def align_up(value: int, alignment: int) -> int:
    """Round up to a multiple of alignment."""
    return -(-value // alignment) * alignment


@dataclass
class Problem:
    """Storage roots (aliases merged) with aligned sizes, lifetimes, time conflicts and overlap margins."""

    names: list[str]
    sizes: list[int]
    first: list[int]
    last: list[int]
    root_of: dict[str, int]
    neighbors: list[list[int]]
    margins: dict[tuple[int, int], int]
    alignment: int
    floors: dict[tuple[int, int], int] = field(default_factory=dict)  # only permissions with a floor

    def __len__(self) -> int:
        """Number of storage roots."""
        return len(self.names)

    def interferes(self, a: int, b: int) -> bool:
        """True when roots a and b are live at a common step."""
        return self.first[a] <= self.last[b] and self.first[b] <= self.last[a]

    def __post_init__(self) -> None:
        """Precompute the aligned shift range of every permission and who is linked to whom (for the hot path)."""
        a = self.alignment
        self.windows: dict[tuple[int, int], tuple[int | None, int]] = {}
        for pair, margin in self.margins.items():
            high = margin // a * a
            floor = self.floors.get(pair)
            low = None if floor is None else -(-floor // a) * a
            if low is None or low <= high:
                self.windows[pair] = (low, high)
        self.partners: dict[int, set[int]] = {}
        for src, dst in self.windows:
            self.partners.setdefault(src, set()).add(dst)
            self.partners.setdefault(dst, set()).add(src)

    def shifts(self, src: int, dst: int) -> tuple[int | None, int] | None:
        """The aligned range (lowest or None, highest) of offset(dst) - offset(src) the permission allows; None: none.

        Offsets are multiples of the alignment, so the margin rounds down and the floor up; an empty range is None.
        """
        return self.windows.get((src, dst))

    def best_shift(self, src: int, dst: int) -> int | None:
        """The allowed offset(dst) - offset(src) nearest 0, where the two overlap most; None without a permission.

        The union of the two spans grows with the shift's distance from 0 on either side.
        """
        allowed = self.windows.get((src, dst))
        if allowed is None:
            return None
        low, high = allowed
        return min(high, 0 if low is None else max(low, 0))


def _root_name(name: str, by_name: dict[str, Buffer]) -> str:
    """Follow alias_of links to the buffer that owns the bytes; reject unknown targets and cycles."""
    seen = [name]
    while by_name[name].alias_of is not None:
        target = by_name[name].alias_of
        if target not in by_name:
            raise ValueError(f"Buffer '{name}' is an alias of '{target}', which is not among the buffers.")
        if target in seen:
            raise ValueError(f"Buffers {' -> '.join(seen + [target])} alias each other in a cycle.")
        seen.append(target)
        name = target
    return name


def _check_buffers(buffers: list[Buffer], alignment: int) -> dict[str, Buffer]:
    """Buffers by name after checking names, sizes, lifetimes and the alignment."""
    if not isinstance(alignment, int) or alignment < 1:
        raise ValueError(f"Alignment must be a positive number of bytes, got {alignment!r}.")
    by_name: dict[str, Buffer] = {}
    for b in buffers:
        if b.name in by_name:
            raise ValueError(f"Two buffers are named '{b.name}'; buffer names must be unique.")
        if b.size < 0 or b.first > b.last:
            raise ValueError(
                f"Buffer '{b.name}' has size {b.size} and lifetime {b.first}..{b.last}; "
                "the size must be >= 0 and first <= last."
            )
        by_name[b.name] = b
    return by_name


def _conflicts(first: list[int], last: list[int], sizes: list[int]) -> list[list[int]]:
    """For each root, the other non-empty roots live at a common step (sweep over start steps)."""
    neighbors: list[list[int]] = [[] for _ in first]
    active: list[int] = []
    for r in sorted(range(len(first)), key=lambda k: (first[k], k)):
        if sizes[r] == 0:
            continue
        active = [a for a in active if last[a] >= first[r]]
        for a in active:
            neighbors[a].append(r)
            neighbors[r].append(a)
        active.append(r)
    return neighbors


def resolve(buffers: list[Buffer], overlaps, alignment: int) -> Problem:
    """Check the input and merge aliases into storage roots; sizes are rounded up to the alignment."""
    by_name = _check_buffers(buffers, alignment)
    roots = [b.name for b in buffers if b.alias_of is None]
    index = {name: k for k, name in enumerate(roots)}
    root_of = {b.name: index[_root_name(b.name, by_name)] for b in buffers}
    sizes = [0] * len(roots)
    first = [by_name[r].first for r in roots]
    last = [by_name[r].last for r in roots]
    for b in buffers:
        r = root_of[b.name]
        sizes[r] = max(sizes[r], align_up(b.size, alignment))
        first[r] = min(first[r], b.first)
        last[r] = max(last[r], b.last)
    windows: dict[tuple[int, int], tuple[int | None, int]] = {}
    for ov in overlaps:
        for name in (ov.src, ov.dst):
            if name not in root_of:
                raise ValueError(f"Overlap {ov.src} -> {ov.dst} names '{name}', which is not among the buffers.")
        src, dst = root_of[ov.src], root_of[ov.dst]
        if src == dst or last[src] != first[dst]:
            raise ValueError(
                f"Overlap {ov.src} -> {ov.dst} is unsafe: the storage of '{ov.src}' must die (steps "
                f"{first[src]}..{last[src]}) at the step the storage of '{ov.dst}' is born (steps "
                f"{first[dst]}..{last[dst]}), and the two must not share storage already."
            )
        windows[src, dst] = _wider(windows.get((src, dst), (ov.floor, ov.margin)), (ov.floor, ov.margin), ov)
    margins = {pair: margin for pair, (_, margin) in windows.items()}
    floors = {pair: floor for pair, (floor, _) in windows.items() if floor is not None}
    return Problem(roots, sizes, first, last, root_of, _conflicts(first, last, sizes), margins, alignment, floors)


def _wider(a: tuple[int | None, int], b: tuple[int | None, int], ov: Overlap) -> tuple[int | None, int]:
    """Of two permissions for the same storage roots, the one whose (floor, margin) range contains the other's."""
    def contains(outer: tuple[int | None, int], inner: tuple[int | None, int]) -> bool:
        """True when outer's range includes inner's."""
        low_ok = outer[0] is None or (inner[0] is not None and outer[0] <= inner[0])
        return low_ok and outer[1] >= inner[1]

    if contains(a, b):
        return a
    if contains(b, a):
        return b
    raise ValueError(
        f"Overlap {ov.src} -> {ov.dst} and another permission for the same storage allow offset ranges "
        f"{a[0]}..{a[1]} and {b[0]}..{b[1]}, neither inside the other; give one permission per pair."
    )
