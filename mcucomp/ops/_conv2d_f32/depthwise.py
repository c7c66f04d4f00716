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


def _row_groups(geom: dict) -> list[tuple[int, int, int]]:
    """mcu_dw3_plane's runs of output rows with the same kernel rows inside the input: (first kernel row, kernel rows
    inside, output rows)."""
    groups: list[tuple[int, int, int]] = []
    for oy in range(geom["h_out"]):
        first, end = _axis_first_end(oy * geom["stride_h"] - geom["pad_t"], 1, 3, geom["h_in"])
        key = (first, max(0, end - first))
        if groups and groups[-1][:2] == key:
            groups[-1] = (*key, groups[-1][2] + 1)
        else:
            groups.append((*key, 1))
    return groups


def depthwise_terms(geom: dict) -> tuple[str, dict[str, int]]:
    """The path ("depthwise3x3" when the rows slide, else "depthwise") and its loops' counts over all planes: the
    planes; for sliding planes, each run of rows with the same 3 or 2 kernel rows inside the input (weights loaded
    once), its rows, their unrolled border outputs (pad 1 on the left, the last input column on the right) and those
    outputs' taps, one sliding run per row over the interior columns with its 3-output steps and the 1 or 2 outputs
    after them (per stride, and their taps); the clipped-window loop (every row of the other convs; the other border
    outputs and rows of sliding planes): its calls, outputs, the kernel rows it enters and the taps it reads."""
    planes = geom["n"] * geom["c_out"]
    h_out, w_out, s = geom["h_out"], geom["w_out"], geom["stride_w"]
    terms = {"calls": 1, "planes": planes}
    if not slides(geom):
        c = _checked(geom, list(range(h_out)), list(range(w_out)))
        return "depthwise", {**terms, "checked_calls": planes * h_out,
                             **{f"checked_{k}": planes * v for k, v in c.items()}}
    ox0 = min(-(-geom["pad_l"] // s), w_out)
    ox1 = min(max((geom["w_in"] - 3 + geom["pad_l"]) // s + 1, ox0), w_out)
    left1 = ox0 == 1 and geom["pad_l"] == 1
    right1 = [ox for ox in range(ox1, w_out) if ox * s - geom["pad_l"] == geom["w_in"] - 2]
    checked_cols = ([] if left1 else list(range(ox0))) + [ox for ox in range(ox1, w_out) if ox not in right1]
    calls = (0 if left1 or not ox0 else 1) + (w_out - ox1 - len(right1))
    count = ox1 - ox0
    counts = dict.fromkeys(("groups", "rows", "edges", "edge_taps", "step_taps", "tail_taps", "checked_calls"), 0)
    counts.update({"runs": 0, f"steps_s{s}": 0, f"tail_s{s}": 0})
    checked_rows, checked_row_cols = [], []
    oy = 0
    for _, inside, rows in _row_groups(geom):
        group = list(range(oy, oy + rows))
        oy += rows
        if inside < 2:
            checked_rows += group
            counts["checked_calls"] += rows
            continue
        edges = rows * (left1 + len(right1))
        counts["groups"] += 1
        counts["rows"] += rows
        counts["edges"] += edges
        counts["edge_taps"] += edges * 2 * inside
        counts["checked_calls"] += rows * calls
        checked_row_cols += group
        if count > 0:
            counts["runs"] += rows
            counts[f"steps_s{s}"] += rows * (count // 3)
            counts[f"tail_s{s}"] += rows * (count % 3)
            counts["step_taps"] += rows * (count // 3) * 3 * 3 * inside
            counts["tail_taps"] += rows * (count % 3) * 3 * inside
    full = _checked(geom, checked_rows, list(range(w_out)))
    border = _checked(geom, checked_row_cols, checked_cols)
    return "depthwise3x3", {**terms, **{k: planes * v for k, v in counts.items()},
                            **{f"checked_{k}": planes * (full[k] + border[k]) for k in full}}
