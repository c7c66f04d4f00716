"""conv2d_f32's depthwise path (runtime_c/kernels/conv2d_f32_depthwise.c): which convs take it, which of its loops
a layer runs (the sliding 3x3 rows or the clipped windows) and their cost terms."""

from __future__ import annotations

from ...ir import Graph, Node
from .._window import is_3d
from ..base import shape


def depthwise(node: Node, g: Graph) -> bool:
    """A 1-D or 2-D conv with one input channel per group and more than one group (c_out a multiple of c_in): the
    depthwise path."""
    group = node.attrs.get("group", 1)
    return not is_3d(node, g) and group > 1 and group == shape(g, node.inputs[0])[1]


def slides(geom: dict) -> bool:
    """Undilated 3x3 windows of stride 1 or 2 on both axes over at least 3 input columns: the rows with 2 or 3 kernel
    rows inside the input slide (mcu_dw3_plane); the C's `three`."""
    return ((geom["k_h"], geom["k_w"], geom["dil_h"], geom["dil_w"]) == (3, 3, 1, 1)
            and geom["stride_h"] == geom["stride_w"] in (1, 2) and geom["w_in"] >= 3)


def _axis_first_end(start: int, dil: int, k: int, n: int) -> tuple[int, int]:
    """mcu_dw_first / mcu_dw_end: the taps [first, end) of a window starting at `start` that lie inside [0, n)."""
    first = min((-start + dil - 1) // dil, k) if start < 0 else 0
    end = min((n - 1 - start) // dil + 1, k) if start < n else 0
    return first, end


def _checked(geom: dict, rows: list[int], cols: list[int]) -> dict[str, int]:
    """Per plane, the clipped windows of outputs (rows x cols) as mcu_dw_row_checked walks them: calls are counted
    by the caller; here the outputs, the kernel rows entered and the taps read."""
    ky = [_axis_first_end(oy * geom["stride_h"] - geom["pad_t"], geom["dil_h"], geom["k_h"], geom["h_in"])
          for oy in rows]
    kx = [_axis_first_end(ox * geom["stride_w"] - geom["pad_l"], geom["dil_w"], geom["k_w"], geom["w_in"])
          for ox in cols]
    valid_rows = sum(max(0, e - f) for f, e in ky)
    valid_cols = sum(max(0, e - f) for f, e in kx)
    return {"outputs": len(rows) * len(cols), "rows_entered": valid_rows * len(cols),
            "taps": valid_rows * valid_cols}


def depthwise_terms(geom: dict) -> tuple[str, dict[str, int]]:
    """The path ("depthwise3x3" when the rows slide, else "depthwise") and its loops' counts over all planes: the
    planes and output rows; for sliding planes, per row with 3 (or 2) kernel rows inside the input its border outputs
    and their taps, one sliding run over the interior columns, its 3-output steps and the 1 or 2 outputs after them
    (per stride); the rows left (1 kernel row inside) and the clipped-window path walk clipped windows: per row a call,
    its outputs, the kernel rows they enter and the taps they read."""
    planes = geom["n"] * geom["c_out"]
    h_out, w_out, s = geom["h_out"], geom["w_out"], geom["stride_w"]
    terms = {"calls": 1, "planes": planes, "rows": planes * h_out}
    if not slides(geom):
        c = _checked(geom, list(range(h_out)), list(range(w_out)))
        return "depthwise", {**terms, "checked_calls": planes * h_out,
                             **{f"checked_{k}": planes * v for k, v in c.items()}}
    ox0 = min(-(-geom["pad_l"] // s), w_out)
    ox1 = min(max((geom["w_in"] - 3 + geom["pad_l"]) // s + 1, ox0), w_out)
    border = list(range(ox0)) + list(range(ox1, w_out))
    kx = [_axis_first_end(ox * s - geom["pad_l"], 1, 3, geom["w_in"]) for ox in border]
    border_cols = sum(e - f for f, e in kx)
    count = ox1 - ox0
    rows = {1: [], 2: [], 3: []}
    for oy in range(h_out):
        f, e = _axis_first_end(oy * geom["stride_h"] - geom["pad_t"], 1, 3, geom["h_in"])
        rows[max(1, e - f)].append(oy)
    terms = {**terms, "rows3": planes * len(rows[3]), "rows2": planes * len(rows[2])}
    for r in (3, 2):
        n = planes * len(rows[r])
        terms.update({f"edges{r}": n * len(border), f"edge_taps{r}": n * r * border_cols,
                      f"runs{r}_s{s}": n * (count > 0), f"steps{r}_s{s}": n * (count // 3),
                      f"tail{r}_s{s}": n * (count % 3)})
    c = _checked(geom, rows[1], list(range(w_out)))
    return "depthwise3x3", {**terms, "checked_calls": planes * len(rows[1]),
                            **{f"checked_{k}": planes * v for k, v in c.items()}}
