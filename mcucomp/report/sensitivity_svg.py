"""The per-layer sensitivity chart of report.html: one horizontal bar per quantized tensor, its SNR in dB against
the float model's tensor, worst (shortest) first, drawn from report.json's "accuracy" alone."""

from __future__ import annotations

from xml.sax.saxutils import escape

from .tables import display_text

#: Bar colours: below WEAK_DB, below FAIR_DB, and above (orange, yellow, blue: distinguishable with colour-blindness).
WEAK_DB, FAIR_DB = 20.0, 30.0
COLOURS = ("#e15759", "#edc948", "#4e79a7")
BAR, GAP, LABEL_WIDTH, PLOT_WIDTH, FONT = 14, 4, 330, 420, 11
#: Most bars drawn; the page's table lists every layer.
MAX_BARS = 60
#: Characters of a layer name shown before it is cut (the tail, where exported names differ).
NAME_CHARS = 52


def _colour(snr: float | None) -> str:
    """The bar colour for an SNR (None: exact)."""
    if snr is None or snr >= FAIR_DB:
        return COLOURS[2]
    return COLOURS[0] if snr < WEAK_DB else COLOURS[1]


def _name(text: str) -> str:
    """The name's tail when it is longer than NAME_CHARS."""
    text = display_text(text)
    return text if len(text) <= NAME_CHARS else "…" + text[-(NAME_CHARS - 1):]


def render_sensitivity_svg(layers: list[dict]) -> str:
    """The chart for report.json's accuracy.layers (already worst first); '' without layers."""
    rows = layers[:MAX_BARS]
    if not rows:
        return ""
    top = max([60.0] + [row["snr_db"] for row in rows if row["snr_db"] is not None])
    height = 30 + len(rows) * (BAR + GAP) + 24
    width = LABEL_WIDTH + PLOT_WIDTH + 60
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="{FONT}">',
             f'<text x="{LABEL_WIDTH}" y="16" font-weight="bold">SNR of each quantized tensor vs. float (dB, '
             'higher is better)</text>']
    for i, row in enumerate(rows):
        y = 30 + i * (BAR + GAP)
        snr = row["snr_db"]
        length = PLOT_WIDTH * (1.0 if snr is None else max(snr, 0.0) / top)
        value = "exact" if snr is None else f"{snr:.1f}"
        tip = escape(f"{display_text(row['layer'])} ({row['op']}): tensor {display_text(row['tensor'])}, {value} dB")
        parts.append(f'<g><title>{tip}</title>'
                     f'<text x="{LABEL_WIDTH - 6}" y="{y + BAR - 3}" text-anchor="end">{escape(_name(row["layer"]))}'
                     f'</text><rect x="{LABEL_WIDTH}" y="{y}" width="{length:.1f}" height="{BAR}" '
                     f'fill="{_colour(snr)}"/><text x="{LABEL_WIDTH + length + 4:.1f}" y="{y + BAR - 3}">{value}'
                     '</text></g>')
    axis_y = 30 + len(rows) * (BAR + GAP) + 4
    for db in range(0, int(top) + 1, 10):
        x = LABEL_WIDTH + PLOT_WIDTH * db / top
        parts.append(f'<line x1="{x:.1f}" y1="26" x2="{x:.1f}" y2="{axis_y}" stroke="#ddd"/>'
                     f'<text x="{x:.1f}" y="{axis_y + 14}" text-anchor="middle">{db}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
