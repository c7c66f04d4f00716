"""int8 addition with broadcasting, in onnxruntime's QLinearAdd or float (DQ, Add, Q) arithmetic, or (`--requant
fixed`) TFLite's int8 ADD as LiteRT's builtin kernel computes it: inputs shifted left by 20 bits, each rescaled by
its own multiplier with one rounding, summed, rescaled by the output multiplier with MultiplyByQuantizedMultiplier
(reference_integer_ops::Add rounds the operands twice instead: see mcucomp/intref/_add.py).

Whatever the arithmetic, the code is a function of the two int8 codes, which the compiler evaluates for all 65,536
pairs with the integer reference's arithmetic (mcucomp/intref/_add.py) and, where it can, replaces by a linear
integer form the C computes with two multiply-adds and a saturating shift (linear_form); the C keeps the arithmetic
itself for the rare elements near a rounding tie ('ties' form) and for nodes with no form."""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from ..intref._add import TFLITE_LEFT_SHIFT, add_codes, output_cap, qlinear_terms, tflite_add_multipliers
from ..ir import Graph, Node
from ._overlap import elementwise
from ._layout import all_images
from .base import KernelCall, KernelOp, OverlapMargin, broadcast_params

MODES = {"qlinear": 0, "float": 1, "fixed": 2}
#: Fraction bits of the linear forms (MCU_ADD_S8_EXACT_SHIFT, MCU_ADD_S8_TIES_SHIFT).
EXACT_SHIFT, TIES_SHIFT = 22, 16
#: MCU_ADD_S8_LIN_*: which linear form the C runs.
LIN_KINDS = {None: 0, "exact": 1, "ties": 2}
#: How far (in units) the exact form's multipliers may move from the rounded real ones in the search.
_SEARCH = 32


class LinearForm(NamedTuple):
    """x = a_mult·a + b_mult·b + offset in int32 for int8 codes a, b; 'exact': code = sat(x >> EXACT_SHIFT) for every
    pair; 'ties': code = sat(x >> TIES_SHIFT) for every pair whose uint32 x << (32 - TIES_SHIFT) is at least near
    (the others lie near a rounding tie and take the mode's arithmetic)."""

    kind: str
    a_mult: int
    b_mult: int
    offset: int
    near: int


def linear_form(node: Node, g: Graph) -> LinearForm | None:
    """The cheapest linear form that reproduces the node's codes, checked for all 65,536 pairs of int8 codes against
    the integer reference; None when there is none (the C then runs the mode's arithmetic on every element)."""
    keys = ("mode", "a_scale", "b_scale", "y_scale", "a_zp", "b_zp", "y_zp", "qmin", "qmax")
    return _linear_form(tuple((k, node.attrs[k]) for k in keys) + (("offsets", tuple(node.attrs.get("offsets",
                                                                                                  (0, 0, 0)))),))


@functools.lru_cache(maxsize=256)
def _linear_form(key: tuple) -> LinearForm | None:
    """linear_form of the attributes in key (the search costs tens of milliseconds: calls and cost terms share it)."""
    at = dict(key)
    f32 = np.float32
    sa, sb, sy = f32(at["a_scale"]), f32(at["b_scale"]), f32(at["y_scale"])
    # the codes approximate a·alpha + b·beta + gamma; QLinearAdd's ratios are float32 (its zero-point terms cancel)
    with np.errstate(over="ignore", invalid="ignore"):  # infinite ratios fail the range test below
        alpha, beta = (np.float64(sa / sy), np.float64(sb / sy)) if at["mode"] == "qlinear" \
            else (np.float64(sa) / np.float64(sy), np.float64(sb) / np.float64(sy))
        gamma = at["y_zp"] - alpha * at["a_zp"] - beta * at["b_zp"]
    if not 128 * (abs(alpha) + abs(beta)) + abs(gamma) + 2 < 2 ** (30 - TIES_SHIFT):
        return None
    qa = np.arange(-128, 128, dtype=np.int64)[:, None]
    qb = np.arange(-128, 128, dtype=np.int64)[None, :]
    want = add_codes(at, qa.astype(np.int8), qb.astype(np.int8)).astype(np.int64)
    form = _exact_form(alpha, beta, want, at["qmin"], at["qmax"])
    if form is not None:
        return form
    s = TIES_SHIFT
    big_a, big_b = int(round(alpha * 2 ** s)), int(round(beta * 2 ** s))
    for w_bits in (s - 10, s - 9, s - 8, s - 7, s - 6):
        w = 1 << w_bits
        c = int(round((gamma + 0.5) * 2 ** s)) + w
        x = big_a * qa + big_b * qb + c
        near = (x & ((1 << s) - 1)) < 2 * w
        fast = np.clip(x >> s, at["qmin"], at["qmax"])
        if np.abs(x).max() < 2 ** 31 and np.array_equal(fast[~near], want[~near]):
            return LinearForm("ties", big_a, big_b, c, (2 * w) << (32 - s))
    return None


def _exact_form(alpha: float, beta: float, want: np.ndarray, qmin: int, qmax: int) -> LinearForm | None:
    """Integers A, B, C with sat((A·a + B·b + C) >> EXACT_SHIFT) == want[a, b] for all pairs and |x| < 2^31, A and B
    within _SEARCH of the rounded reals: each pair bounds x to the codes' interval, so for each A the bounds over a
    give per-b bounds on B·b + C, and a C exists for B when their tightest lower bound is below the upper one."""
    s = EXACT_SHIFT
    qa = np.arange(-128, 128, dtype=np.int64)[:, None]
    codes_b = np.arange(-128, 128, dtype=np.int64)
    unbounded = 1 << 50
    lower = np.where(want > qmin, want << s, -unbounded)  # x >= lower
    upper = np.where(want < qmax, (want + 1) << s, unbounded)  # x < upper
    a0, b0 = int(round(alpha * 2 ** s)), int(round(beta * 2 ** s))
    b_mults = np.arange(b0 - _SEARCH, b0 + _SEARCH + 1, dtype=np.int64)
    for a_mult in sorted(range(a0 - _SEARCH, a0 + _SEARCH + 1), key=lambda v: abs(v - a0)):
        lo_b = (lower - a_mult * qa).max(axis=0)
        hi_b = (upper - a_mult * qa).min(axis=0)
        c_min = (lo_b[None, :] - b_mults[:, None] * codes_b[None, :]).max(axis=1)
        c_max = (hi_b[None, :] - b_mults[:, None] * codes_b[None, :]).min(axis=1) - 1
        feasible = np.nonzero(c_min <= c_max)[0]
        for j in feasible[np.argsort(np.abs(b_mults[feasible] - b0))]:
            b_mult, c = int(b_mults[j]), int((c_min[j] + c_max[j]) // 2)
            x = a_mult * qa + b_mult * codes_b[None, :] + c
            if np.abs(x).max() < 2 ** 31 and np.array_equal(np.clip(x >> s, qmin, qmax), want):
                return LinearForm("exact", a_mult, b_mult, c, 0)
    return None


def lowered_mode(requant: str, a_scale: float, b_scale: float, y_scale: float) -> str:
    """The mode a lowering gives add_s8: 'fixed' (TFLite's ADD, its multipliers from float64) with `--requant fixed`
    or where QLinearAdd's float32 ratios a_scale / y_scale or b_scale / y_scale pass 2^100 (its float32 steps would
    overflow to infinities and NaN), else 'qlinear'."""
    ratios = (float(np.float32(a_scale)) / float(np.float32(y_scale)),
              float(np.float32(b_scale)) / float(np.float32(y_scale)))
    return "fixed" if requant == "fixed" or max(ratios) > 2.0**100 else "qlinear"


class AddS8(KernelOp):
    """attrs: mode ('qlinear' | 'float' | 'fixed'), a/b/y scale and zp, qmin, qmax, offsets (128 per uint8-run
    tensor, qlinear only)."""

    name = "add_s8"
    cost_paths = ("linear_exact", "linear_ties", *MODES)
    unlowered_paths = {"float": "lowered_mode gives QLinearAdd's arithmetic ('qlinear') or TFLite's ('fixed'); the "
                                "C's float mode (dequantize, add, quantize) is given by no lowering"}

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_add_s8(params, a, b, y)."""
        a = node.attrs
        r_ay, r_by, fixed = qlinear_terms(a)
        off = a.get("offsets", (0, 0, 0))
        mults = [(0, 0)] * 3 if a["mode"] != "fixed" else \
            tflite_add_multipliers(a["a_scale"], a["b_scale"], a["y_scale"], output_cap(a))
        lin = linear_form(node, g) or LinearForm(None, 0, 0, 0, 0)
        return KernelCall(
            self.name,
            [("bc", broadcast_params(g, node)), ("mode", MODES[a["mode"]]),
             ("a_scale", a["a_scale"]), ("b_scale", a["b_scale"]), ("y_scale", a["y_scale"]),
             ("a_zp", a["a_zp"]), ("b_zp", a["b_zp"]), ("y_zp", a["y_zp"]), ("qmin", a["qmin"]), ("qmax", a["qmax"]),
             ("r_ay", float(r_ay)), ("r_by", float(r_by)), ("fixed", float(fixed)),
             ("a_off", off[0]), ("b_off", off[1]), ("y_off", off[2]),
             ("left_shift", TFLITE_LEFT_SHIFT), ("a_mult", mults[0][0]), ("a_shift", mults[0][1]),
             ("b_mult", mults[1][0]), ("b_shift", mults[1][1]), ("y_mult", mults[2][0]), ("y_shift", mults[2][1]),
             ("lin", LIN_KINDS[lin.kind]), ("lin_a", lin.a_mult), ("lin_b", lin.b_mult), ("lin_c", lin.offset),
             ("lin_near", lin.near)],
            [node.inputs[0], node.inputs[1], node.outputs[0]],
        )

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per element: the linear form's two multiply-adds ('linear_exact'; 'linear_ties' adds a tie test, the rare
        elements near a tie are not counted), else the mode's arithmetic: two FMAs ('qlinear'), two products and a
        division ('float'), three 32-bit rescales ('fixed'); per run of the innermost collapsed dim (one run when
        the shapes are equal) a dispatch and a broadcast counter step. The linear forms count the elements of runs
        that the C specialises (both inputs contiguous, the full int8 range: word loads, constant bounds) apart
        from the others (`strided_elements`: an input broadcast along the run, or a fused activation's bounds)."""
        form = linear_form(node, g)
        path = f"linear_{form.kind}" if form is not None else node.attrs["mode"]
        bc = dict(broadcast_params(g, node))
        elements = g.tensors[node.outputs[0]].size
        last = bc["rank"] - 1
        flat = bc["a_strides"][last] == 1 and bc["b_strides"][last] == 1 and \
            (node.attrs["qmin"], node.attrs["qmax"]) == (-128, 127)
        counted = "elements" if form is None or flat else "strided_elements"
        return path, {"calls": 1, counted: elements, "runs": elements // bc["dims"][last]}

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout when both inputs are runtime images of the output's rank: the broadcast walks the stored
        shapes, which the layout pass permutes alike."""
        return not any(g.tensors[i].is_const for i in node.inputs) and all_images(node, g)

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads a[ia] (ia == i when a is not broadcast) and b[ib], then writes y[i]."""
        return elementwise(node, g)


OP = AddS8()
