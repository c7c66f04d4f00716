"""OUTDIR/memory.svg: the arena over time, one rectangle per buffer, drawn from the report dict alone.

x is the schedule step (one column per layer), y the arena offset with 0 at the bottom. A buffer covers the columns
of its first to last step and the addresses [offset, offset + bytes); an alias (reshape view) is named in its
storage's tooltip, and buffers an overlap permission lets share bytes are drawn over each other. The peak step is a
shaded, outlined column; dashed lines mark the arena size, the lower bound and, when overlap permissions put the
bound below it, the largest live set.
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from .tables import display_text

#: File name of the picture in OUTDIR.
MEMORY_SVG = "memory.svg"
#: Fill colours per tensor kind (report.json `tensors[].kind`), a Tableau 10 tone and a darker one; the hues stay
#: distinguishable with colour-blindness.
KIND_COLOURS = {"activation": ("#4e79a7", "#3b5f88"), "input": ("#59a14f", "#44803c"),
                "output": ("#b07aa1", "#8e5c80"), "scratch": ("#f28e2b", "#c86f17")}
KIND_LABELS = {"activation": "activation", "input": "graph input", "output": "graph output",
               "scratch": "kernel scratch"}
PEAK_FILL, PEAK_STROKE, PEAK_TEXT = "#ffd84d", "#e0a800", "#a07800"
FONT = 11
#: Average glyph width of the sans-serif font as a fraction of its size, to decide whether a label fits.
GLYPH = 0.6
PLOT_HEIGHT = 420
LEFT, RIGHT, TOP = 78, 20, 66
#: Blank pixels kept on each side of a buffer label, so neighbouring names never read as one.
LABEL_PAD = 6
#: Smallest drawn height of a buffer, so a 12-byte output in a 48 KiB arena is still visible.
MIN_BAR = 3.0


def format_bytes(n: int) -> str:
    """Bytes for an axis tick: whole KiB as '4 KiB', small values exactly ('1,280 B'), larger ones as '10.5 KiB'."""
    if n % 1024 == 0 and n:
        return f"{n // 1024} KiB"
    return f"{n:,} B" if n < 10240 else f"{n / 1024:.1f} KiB"


def _tick_step(top: int) -> int:
    """A power-of-two byte step giving at most 8 ticks up to `top`."""
    step = 16
    while top / step > 8:
        step *= 2
    return step


def _text(x: float, y: float, s: str, size: int = FONT, anchor: str = "start", extra: str = "") -> str:
    """An SVG text element."""
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{extra}>{escape(s)}</text>'


def _fit_label(name: str, width: float, height: float) -> str | None:
    """The name, or an ellipsis and its tail, when at least 4 characters fit the box; otherwise None.

    The tail, because exported names share long prefixes (`model/block_1/conv/...`) and differ at the end."""
    if height < FONT + 2:
        return None
    room = int((width - 6) / (FONT * GLYPH))
    if room >= len(name):
        return name
    return "…" + name[len(name) - room + 1:] if room >= 4 else None


@dataclass
class _Frame:
    """Pixel geometry of the plot."""

    col: int
    steps: int
    top_bytes: int

    @property
    def width(self) -> int:
        """Width of the plot area."""
        return self.col * self.steps

    @property
    def base(self) -> int:
        """Pixel row of address 0."""
        return TOP + PLOT_HEIGHT

    def x(self, step: float) -> float:
        """Pixel column of the left edge of a step."""
        return LEFT + step * self.col

    def y(self, addr: float) -> float:
        """Pixel row of an arena address."""
        return self.base - addr / self.top_bytes * PLOT_HEIGHT


#: Right end of the legend row (its last label is "peak step").
LEGEND_WIDTH = LEFT + sum(26 + GLYPH * FONT * len(label) for label in KIND_LABELS.values()) + 16 + GLYPH * FONT * 9 + 10


def _legend() -> list[str]:
    """Colour keys for the tensor kinds and the peak column."""
    out, x = [], LEFT
    for kind, label in KIND_LABELS.items():
        out.append(f'<rect x="{x:.1f}" y="31" width="12" height="12" fill="{KIND_COLOURS[kind][0]}"/>')
        out.append(_text(x + 16, 41, label))
        x += 26 + GLYPH * FONT * len(label)
    out.append(f'<rect x="{x:.1f}" y="31" width="12" height="12" fill="{PEAK_FILL}" fill-opacity="0.45" '
               f'stroke="{PEAK_STROKE}" stroke-width="2"/>')
    out.append(_text(x + 16, 41, "peak step"))
    return out


def _grid(f: _Frame) -> list[str]:
    """Address ticks with their grid lines, and the step column separators."""
    out = []
    for tick in range(0, f.top_bytes + 1, _tick_step(f.top_bytes)):
        ty = f.y(tick)
        out.append(f'<line x1="{LEFT - 4}" y1="{ty:.1f}" x2="{LEFT + f.width}" y2="{ty:.1f}" stroke="#e3e3e3"/>')
        out.append(_text(LEFT - 7, ty + 4, format_bytes(tick), anchor="end"))
    for s in range(f.steps + 1):
        out.append(f'<line x1="{f.x(s)}" y1="{TOP}" x2="{f.x(s)}" y2="{f.base + 4}" stroke="#eeeeee"/>')
    return out


def short_names(names: list[str]) -> dict[str, str]:
    """Each name without the leading and trailing '/'-separated parts that all multi-part names share.

    Exported names repeat a scope and an op suffix (`model/block_003/act/Tanh:0`) around the part that tells them
    apart; a label shows that part. Single-part names, and names made only of shared parts, stay whole."""
    split = [n.split("/") for n in names if "/" in n]
    head = tail = 0
    if len(split) > 1:
        shortest = min(len(parts) for parts in split)
        while head < shortest - 1 and len({parts[head] for parts in split}) == 1:
            head += 1
        while tail < shortest - 1 - head and len({parts[-1 - tail] for parts in split}) == 1:
            tail += 1
    out = {}
    for n in names:
        parts = n.split("/")
        middle = "/".join(parts[head:len(parts) - tail]) if "/" in n and len(split) > 1 else n
        out[n] = middle or n
    return out


def _place_label(name: str, box: tuple[float, float, float, float], placed: list[tuple[float, float, float, float]]
                 ) -> tuple[float, float, str] | None:
    """Centre and text of a label inside box (x0, x1, top, bottom) that clears the labels placed so far.

    Tries the box's middle row, then rows above and below it, centred, then the same rows at its right and left end
    (buffers an overlap permission lets share bytes, or that meet at one step, would otherwise put their names on
    top of each other); None when no spot is free.
    """
    x0, x1, top, bottom = box
    text = _fit_label(name, x1 - x0, bottom - top)
    if text is None:
        return None
    half_w, row = len(text) * FONT * GLYPH / 2 + LABEL_PAD, FONT + 3
    mid = (top + bottom) / 2
    for cx in ((x0 + x1) / 2, x1 - half_w + LABEL_PAD, x0 + half_w - LABEL_PAD):
        for k in (0, -1, 1, -2, 2):
            cy = mid + k * row
            if cy - row / 2 < top or cy + row / 2 > bottom:
                continue
            bbox = (cx - half_w, cy - row / 2, cx + half_w, cy + row / 2)
            if all(bbox[2] <= p[0] or p[2] <= bbox[0] or bbox[3] <= p[1] or p[3] <= bbox[1] for p in placed):
                placed.append(bbox)
                return cx, cy, text
    return None


def _buffers(f: _Frame, tensors: list[dict]) -> tuple[list[str], list[str]]:
    """One titled rectangle per buffer (aliases excluded), and the name labels that fit inside them.

    Buffers are drawn in order of birth, alternating two tones of their kind's colour so neighbours stay apart.
    """
    aliases: dict[str, list[str]] = {}
    for t in tensors:
        if t["alias_of"] is not None:
            aliases.setdefault(t["alias_of"], []).append(display_text(t["name"]))
    storage = sorted((t for t in tensors if t["alias_of"] is None), key=lambda t: (t["first_step"], t["offset"]))
    short = short_names([t["name"] for t in storage])
    rects, labels, placed = [], [], []
    for k, t in enumerate(storage):
        x0, x1 = f.x(t["first_step"]) + 1, f.x(t["last_step"] + 1) - 1
        y1 = f.y(t["offset"])
        h = max(y1 - f.y(t["offset"] + t["bytes"]), MIN_BAR)
        tip = (f"{display_text(t['name'])} ({KIND_LABELS[t['kind']]}): {t['bytes']:,} B at offset {t['offset']:,}, "
               f"steps {t['first_step']}..{t['last_step']}")
        if t["name"] in aliases:
            tip += f"; also holds {', '.join(aliases[t['name']])}"
        rects.append(f'<g class="buffer"><title>{escape(tip)}</title>'
                     f'<rect class="buf" data-name={quoteattr(display_text(t["name"]))} x="{x0:.1f}" y="{y1 - h:.1f}" '
                     f'width="{x1 - x0:.1f}" height="{h:.1f}" fill="{KIND_COLOURS[t["kind"]][k % 2]}" '
                     'fill-opacity="0.85" stroke="#333333" stroke-width="0.6"/></g>')
        spot = _place_label(display_text(short[t["name"]]), (x0, x1, y1 - h, y1), placed)
        if spot is not None:
            cx, cy, text = spot
            labels.append(_text(cx, cy + FONT * 0.36, text, anchor="middle",
                                extra=' fill="white" pointer-events="none"'))
    return rects, labels


def _limits(f: _Frame, limits: list[tuple[str, int, str, str]]) -> list[str]:
    """Dashed lines at (class, bytes, colour, label) levels. Labels sit at the plot's left end, where a wide plot
    is scrolled to, just above their line (below it at the plot's top edge), on a white halo over the buffers, and
    pushed apart so they stay legible."""
    out, last_y = [], None
    for cls, value, colour, text in sorted(limits, key=lambda lim: -lim[1]):
        yy = f.y(value)
        label_y = yy - 4 if yy - FONT - 4 >= TOP else yy + FONT + 2
        if last_y is not None:
            label_y = max(label_y, last_y + FONT + 2)
        last_y = label_y
        out.append(f'<line class="{cls}" x1="{LEFT}" y1="{yy:.1f}" x2="{LEFT + f.width + 6}" y2="{yy:.1f}" '
                   f'stroke="{colour}" stroke-width="1.4" stroke-dasharray="6 4"/>')
        out.append(_text(LEFT + 6, label_y, text, extra=f' class="limit-label" fill="{colour}" font-weight="bold" '
                                                        'stroke="white" stroke-width="3" paint-order="stroke"'))
    return out


def render_memory_svg(report: dict) -> str:
    """The memory picture of one compiled model as an SVG document."""
    layers = report["layers"]
    arena, bound, peak = report["arena_bytes"], report["overlap_lower_bound_bytes"], report["peak_step"]
    live_set = report["live_lower_bound_bytes"]
    steps = max(len(layers), 1)
    f = _Frame(max(24, min(64, 900 // steps)), steps, max(arena, live_set, 16))
    label_h = 12 + GLYPH * FONT * max((len(f"{layer['step']} {layer['op']}") for layer in layers), default=4)
    title = (f"{report['name']}: arena {arena:,} B, lower bound {bound:,} B, gap {report['gap_bytes']:,} B, "
             f"I/O in {'the arena' if report['io_placement'] == 'arena' else 'caller buffers'}")
    width = max(LEFT + f.width + RIGHT, LEFT + 13 * 0.62 * len(title) + 10, LEGEND_WIDTH)
    height = f.base + label_h + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
           f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>',
           _text(LEFT, 20, title, 13, extra=' font-weight="bold"')]
    out += _legend()
    if peak is not None:
        out.append(f'<rect class="peak" x="{f.x(peak)}" y="{TOP}" width="{f.col}" height="{PLOT_HEIGHT}" '
                   f'fill="{PEAK_FILL}" fill-opacity="0.45"><title>peak: step {peak}, '
                   f'{report["live_bytes_per_step"][peak]:,} B live</title></rect>')
    out += _grid(f)
    rects, labels = _buffers(f, report["tensors"])
    out += rects
    if peak is not None:
        # The outline goes over the buffers (the band under them is hidden where they fill the column).
        out.append(f'<rect class="peak-outline" x="{f.x(peak)}" y="{TOP}" width="{f.col}" height="{PLOT_HEIGHT}" '
                   f'fill="none" stroke="{PEAK_STROKE}" stroke-width="2.5"/>')
        out.append(_text(f.x(peak + 0.5), TOP - 4, "▼ peak", anchor="middle",
                         extra=f' fill="{PEAK_TEXT}" font-weight="bold"'))
    out += labels
    out.append(f'<line x1="{LEFT}" y1="{f.base}" x2="{LEFT + f.width}" y2="{f.base}" stroke="#333333"/>')
    out.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{f.base}" stroke="#333333"/>')
    limits = [("arena", arena, "#c0392b", f"arena {arena:,} B"),
              ("bound", bound, "#1f6f3f", f"lower bound {bound:,} B")]
    if live_set != bound:
        limits.append(("live-set", live_set, "#6a3d9a", f"largest live set {live_set:,} B"))
    out += _limits(f, limits)
    for layer in layers:
        x, y = f.x(layer["step"] + 0.5), f.base + 10
        weight = ' font-weight="bold"' if layer["step"] == peak else ""
        out.append(f'<text x="{x:.1f}" y="{y}" font-size="{FONT}" text-anchor="end" dominant-baseline="middle"'
                   f'{weight} transform="rotate(-90 {x:.1f} {y})"><title>{escape(display_text(layer["name"]))}</title>'
                   f"{escape(str(layer['step']) + ' ' + layer['op'])}</text>")
    out.append(_text(LEFT + f.width / 2, height - 8, "schedule step and kernel (time →)", anchor="middle"))
    mid = TOP + PLOT_HEIGHT / 2
    out.append(f'<text x="16" y="{mid:.1f}" font-size="{FONT}" text-anchor="middle" '
               f'transform="rotate(-90 16 {mid:.1f})">arena offset (0 at the bottom) →</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
