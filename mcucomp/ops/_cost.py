"""Loop counts of the kernels' C code: the terms the cycle estimator (mcucomp/perf/estimate.py) weighs per core.

Each op's `cost_terms(node, g)` names the code path its C takes for the node and counts how often each part of
that path's loops runs (calls, output elements, taps actually read, taps whose bounds are only checked, ...). The
counts here follow the loops literally, so a term is what one kind of loop body costs, and a fitted coefficient is
that body's cycles.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import Graph, Node
from ._call import KernelCall


def params_dict(call: KernelCall) -> dict:
    """The call's params as a dict (nested structs become nested dicts)."""
    return {k: params_dict_fields(v) if _is_fields(v) else v for k, v in call.params}


def _is_fields(value) -> bool:
    """A nested struct initializer: a non-empty list of (field, value) pairs."""
    return isinstance(value, list) and bool(value) and all(isinstance(i, tuple) and len(i) == 2 for i in value)


def params_dict_fields(fields: list[tuple[str, object]]) -> dict:
    """A nested struct initializer as a dict."""
    return {k: params_dict_fields(v) if _is_fields(v) else v for k, v in fields}


def axis_valid_taps(out_len: int, in_len: int, k: int, stride: int, dil: int, pad: int) -> list[int]:
    """Per output position along one axis: how many of the window's k taps fall inside [0, in_len)."""
    return [sum(0 <= o * stride - pad + t * dil < in_len for t in range(k)) for o in range(out_len)]


@dataclass(frozen=True)
class Window:
    """Sums over all output pixels of one plane of a window (separable: a pixel's valid taps = vz * vy * vx)."""

    pixels: int  # d_out * h_out * w_out
    taps: int  # k_d * k_h * k_w, per pixel
    depth_valid: int  # sum over pixels of the valid kernel planes (the ky loops entered; pixels below 3-D)
    rows_valid: int  # sum over pixels of the valid kernel rows (the kx loops entered)
    taps_valid: int  # sum over pixels of the taps inside the input
    inside_pixels: int  # pixels whose whole window lies inside the input (no bounds checks on the fast paths)


def window(geom: dict, depth: dict | None = None) -> Window:
    """The Window sums of an mcu_conv_geom initializer and the depth params fields (dicts; no depth: 2-D)."""
    d = depth or {"d_out": 1, "d_in": 1, "k_d": 1, "stride_d": 1, "dil_d": 1, "pad_f": 0}
    vz = axis_valid_taps(d["d_out"], d["d_in"], d["k_d"], d["stride_d"], d["dil_d"], d["pad_f"])
    vy = axis_valid_taps(geom["h_out"], geom["h_in"], geom["k_h"], geom["stride_h"], geom["dil_h"], geom["pad_t"])
    vx = axis_valid_taps(geom["w_out"], geom["w_in"], geom["k_w"], geom["stride_w"], geom["dil_w"], geom["pad_l"])
    full = [sum(v == k for v in vs) for vs, k in ((vz, d["k_d"]), (vy, geom["k_h"]), (vx, geom["k_w"]))]
    return Window(pixels=len(vz) * len(vy) * len(vx), taps=d["k_d"] * geom["k_h"] * geom["k_w"],
                  depth_valid=sum(vz) * len(vy) * len(vx), rows_valid=sum(vz) * sum(vy) * len(vx),
                  taps_valid=sum(vz) * sum(vy) * sum(vx), inside_pixels=full[0] * full[1] * full[2])


def requant_terms(rq_fields: dict, outputs: int) -> dict[str, int]:
    """The per-output cost of mcu_requant_apply: float scale (plus a division when div != 0) or Q31 fixed point."""
    if rq_fields.get("mult", "NULL") != "NULL":
        return {"rq_fixed_outputs": outputs}
    terms = {"rq_float_outputs": outputs}
    if rq_fields.get("div"):
        terms["rq_div_outputs"] = outputs
    return terms


def element_terms(node: Node, g: Graph) -> dict[str, int]:
    """The default terms: one call, the output elements and the elements of every input."""
    inputs = sum(g.tensors[i].size for i in node.inputs if i)
    return {"calls": 1, "out_elements": sum(g.tensors[o].size for o in node.outputs), "in_elements": inputs}


def window_loop_terms(geom: dict, depth: dict | None = None) -> dict[str, int]:
    """A per-plane window loop that skips kernel planes and rows outside the input and checks each column: per
    output, the kernel rows entered (ky iterations), the taps checked (kx iterations) and the taps read."""
    win = window(geom, depth)
    planes = geom["n"] * geom["c_out"]
    return {"outputs": planes * win.pixels, "kernel_rows": planes * win.depth_valid * geom["k_h"],
            "rows_entered": planes * win.rows_valid, "row_taps": planes * win.rows_valid * geom["k_w"],
            "valid_taps": planes * win.taps_valid}


def copy_terms(sizes: list[int], repeats: int = 1) -> dict[str, int]:
    """The cost of `repeats` rounds of one memcpy per size in `sizes` (bytes): the copies, and their bytes split by
    whether a copy moves whole words (memcpy's word loop) or not (its byte tail)."""
    words = sum(n for n in sizes if n % 4 == 0)
    return {"calls": 1, "copies": repeats * len(sizes), "word_bytes": repeats * words,
            "odd_bytes": repeats * (sum(sizes) - words)}


def chunk_copy_terms(call: KernelCall, sizes_field: str) -> dict[str, int]:
    """copy_terms of mcu_concat / mcu_split: per outer row one memcpy per chunk of the call's byte-size array."""
    p = params_dict(call)
    return copy_terms([int(n) for n in call.arrays[p[sizes_field].key]], p["outer"])


def walk_terms(p: dict) -> tuple[str, dict[str, int]]:
    """The path and loop counts of mcu_transpose for its params (runtime_c/kernels/transpose.c): a byte walk over two
    dims ('bytes_2d'; three columns: 'rgb_2d' two pixels per loop trip, 'rgb_words_2d' first four pixels per three
    words from contiguous word-aligned planes), a deeper byte walk ('bytes': a counter step per row), one memcpy per
    row where the innermost dim is contiguous ('rows_copy'), and element by element for wider elements ('elements');
    the rows (each steps the index counters) and elements or bytes moved."""
    rank, count, es = p["rank"], p["count"], p["elem_bytes"]
    row = p["dims"][rank - 1] if rank else 1
    rows = count // row if count else 0
    if p["strides"][rank - 1] == 1 if rank else True:
        return "rows_copy", {**copy_terms([row * es], rows), "rows": rows}
    if es != 1:
        return "elements", {"calls": 1, "elements": count, "rows": rows}
    if rank != 2:
        return "bytes", {"calls": 1, "elements": count, "rows": rows}
    if p["dims"][1] != 3:
        return "bytes_2d", {"calls": 1, "elements": count, "rows": rows}
    # three columns (RGB pixels): two pixels per loop trip, and first four pixels per three words where the planes
    # are contiguous and word-aligned (mcu_transpose_rgb_words; graph tensors are word-aligned in the arena and I/O)
    quads = rows // 4 if p["strides"][0] == 1 and p["strides"][1] % 4 == 0 and p["offset"] % 4 == 0 else 0
    rest = rows - 4 * quads
    return ("rgb_words_2d" if quads else "rgb_2d"), {"calls": 1, "quads": quads, "pairs": rest // 2,
                                                      "lone": rest % 2}
