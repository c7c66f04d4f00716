"""The depthwise path's ARMv6-M assembly (conv2d_s8_depthwise.c, conv2d_s8_dw.h; Cortex-M0/M0+) on the simulated
Cortex-M0+: the 3x3 pixel pairs with the requantization over wide accumulators, in every geometry and output placement
they handle differently. The whole-model and per-path comparisons on target are in test_conv2d_s8.py and
tests/test_int8_zoo_target.py."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcucomp.fixedpoint import requant_fixed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "perf"))
from microbench import RAM_BASE, call_c, compile_c  # noqa: E402

RUNTIME = Path(__file__).resolve().parents[2] / "runtime_c"

SOURCE = """#include "conv2d_s8_depthwise.c"
/* The depthwise path (its pairs in assembly). */
void t_dw(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
    mcu_conv2d_s8_depthwise(p, x, y, NULL);
}
"""




@pytest.fixture(scope="module")
def v6m():
    """SOURCE built for the Cortex-M0+ with the target flags."""
    return compile_c(SOURCE, "cortex-m0plus", [RUNTIME, RUNTIME / "kernels"])


def _depthwise_reference(x, w, kbias, x_zp, stride, pad):
    """int64 accumulators of a 3x3 depthwise conv, NHWC x (n, h, w, c), w (3, 3, c), x_zp in the padding."""
    n, h, wd, c = x.shape
    xp = np.full((n, h + 2 * pad, wd + 2 * pad, c), x_zp, np.int64)
    xp[:, pad:pad + h, pad:pad + wd] = x
    ho, wo = (h + 2 * pad - 3) // stride + 1, (wd + 2 * pad - 3) // stride + 1
    acc = np.broadcast_to(kbias.astype(np.int64), (n, ho, wo, c)).copy()
    for ky in range(3):
        for kx in range(3):
            acc += xp[:, ky:ky + stride * ho:stride, kx:kx + stride * wo:stride] * w[ky, kx].astype(np.int64)
    return acc


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), c=st.sampled_from([1, 3, 8, 13, 64]), hw=st.sampled_from([(1, 1), (3, 3), (4, 7), (6, 5)]),
       stride=st.sampled_from([1, 2]), n=st.sampled_from([1, 2]), per_channel=st.sampled_from([0, 1]),
       limits=st.sampled_from([(-128, -128, 127), (5, -128, 127), (-3, -3, 127), (0, -20, 20)]),
       overlap=st.booleans(), small=st.booleans())
def test_depthwise_v6m_equals_reference(v6m, seed, c, hw, stride, n, per_channel, limits, overlap, small):
    """mcu_conv2d_s8's 3x3 depthwise path on the M0+ (pad 1, odd and even pixel counts, border and inside pairs,
    several images): accumulators from kbias over most of the int32 range, multipliers in [2^30, 2^31) or 0, shifts
    -30..31 (left shifts included; small: values they do not saturate), per channel or per tensor; y apart from x (pixel 1's outputs stored directly) or
    overlapping it (W + 1 pixels below x, stride 1: the deferred copy); every output equals numpy's requant_fixed."""
    code, functions = v6m
    rng = np.random.default_rng(seed)
    zp, qmin, qmax = limits
    h, wd = hw
    overlap = overlap and stride == 1
    big = 3 if small else 128  # small: values that a left shift does not saturate
    x = rng.integers(-big, big, (n, h, wd, c)).astype(np.int8)
    w = rng.integers(-big, big, (3, 3, c)).astype(np.int8)
    x_zp = int(rng.integers(-big, big))
    kbias = rng.integers(-(1 << 31) + (1 << 18), (1 << 31) - (1 << 18), c)
    kbias[rng.random(c) < 0.5] //= 1 << 12
    if small:
        kbias //= 1 << 26
    params = max(c, 1) if per_channel else 1
    mult = rng.integers(1 << 30, 1 << 31, params)
    mult[rng.random(params) < 0.1] = 0
    shift = rng.integers(-30, 32, params)
    shift[rng.random(params) < 0.5] = rng.integers(4, 12)
    if small:
        shift[::2] = rng.integers(-2, 0, (params + 1) // 2)
    ho, wo = (h - 1) // stride + 1, (wd - 1) // stride + 1
    acc = _depthwise_reference(x, w, kbias, x_zp, stride, 1)
    acc = ((acc + (1 << 31)) % (1 << 32)) - (1 << 31)  # the kernel's int32 sums wrap
    ch = np.arange(c) if per_channel else np.zeros(c, np.int64)
    want = requant_fixed(acc, mult[ch], shift[ch], zp, qmin, qmax)
    at = {"p": 0, "mult": 256, "shift": 256 + 4 * params, "kbias": 256 + 8 * params}
    at["w"] = at["kbias"] + 4 * c
    at["zrow"] = at["w"] + w.size
    base = (at["zrow"] + c + 4 + (wd + 1) * c + 3) & ~3
    at["x"], at["y"] = base, (base - (wd + 1) * c if overlap else base + x.size + 4)
    addr = {name: RAM_BASE + off for name, off in at.items()}
    geom = (n, c, h, wd, c, ho, wo, 3, 3, stride, stride, 1, 1, 1, 1, c)
    ram = bytearray(max(at["x"] + x.size, at["y"] + want.size) + 64)
    ram[0:128] = struct.pack("<16iiI9iiiIII", *geom, x_zp, 0, 0, addr["mult"], addr["shift"], per_channel, 0, zp,
                             qmin, qmax, 0, 1, 0, addr["w"], addr["kbias"], addr["zrow"])
    for name, array in (("mult", mult.astype(np.int32)), ("shift", shift.astype(np.int32)),
                        ("kbias", kbias.astype(np.int32)), ("w", w), ("zrow", np.full(c, x_zp, np.int8)), ("x", x)):
        ram[at[name]:at[name] + array.nbytes] = array.tobytes()
    _, after = call_c(code, functions["t_dw"], "cortex-m0plus", [addr["p"], addr["x"], addr["y"]], bytes(ram))
    got = np.frombuffer(after[at["y"]:at["y"] + want.size], np.int8).reshape(want.shape)
    assert got.tolist() == want.tolist()
