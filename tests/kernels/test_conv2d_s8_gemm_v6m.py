"""The GEMM paths' ARMv6-M assembly (conv2d_s8_dot.h, conv2d_s8_gemm.h; Cortex-M0/M0+) on the simulated Cortex-M0+,
function by function: the 2x2 GEMM block (mcu_conv2d_s8_dot2x2_v6m) for every k mod 4 and lone rows, the 2x2 block's
fixed-point requantization (mcu_conv2d_s8_store2x2_fixed) over the whole int32 range of accumulators, all multipliers
and shifts, against mcucomp.fixedpoint, and the fused pixel-pair GEMM (mcu_conv2d_s8_gemm_v6m, and
mcu_conv2d_s8_gemm1_v6m for a lone pixel) for odd channel counts, k tails and a lone pixel. The whole-model and
per-path comparisons on target are in test_conv2d_s8.py and tests/test_int8_zoo_target.py."""

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
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1

SOURCE = """#include "conv2d_s8_gemm.h"
#include "conv2d_s8_gemm_v6m.c"
/* desc: byte offsets in buf of w0, w1, c0, c1, then k; acc: the four accumulators, updated. */
void t_dot(const int8_t *buf, const int32_t *desc, int32_t *acc)
{
    mcu_conv2d_s8_dot2x2_v6m(buf + desc[0], buf + desc[1], buf + desc[2], buf + desc[3], desc[4], acc);
}
/* The fused GEMM of one pixel pair; a: mcu_conv2d_s8_gemm_v6m_args. */
void t_gemm(const mcu_conv2d_s8_gemm_v6m_args *a)
{
    mcu_conv2d_s8_gemm_v6m(a);
}
/* The lone pixel's fused GEMM (c1 == c0, y1 == y0). */
void t_gemm1(const mcu_conv2d_s8_gemm_v6m_args *a)
{
    mcu_conv2d_s8_gemm1_v6m(a);
}
/* Both with the requantization table, built from a's rq and c_out in the table's storage t. */
static void table(mcu_conv2d_s8_gemm_v6m_args *a, int32_t *t)
{
    mcu_conv2d_s8_params p;
    memset(&p, 0, sizeof p);
    p.g.c_out = a->c_out;
    p.rq = *a->rq;
    a->rqt = mcu_conv2d_s8_rq_table(&p, 2, t);
}
void t_gemm_t(mcu_conv2d_s8_gemm_v6m_args *a, int32_t *t)
{
    table(a, t);
    mcu_conv2d_s8_gemm_t_v6m(a);
}
void t_gemm1_t(mcu_conv2d_s8_gemm_v6m_args *a, int32_t *t)
{
    table(a, t);
    mcu_conv2d_s8_gemm1_t_v6m(a);
}
/* Block i: accumulators acc[4 i ..], channels oc = ocs[2 i], oc1 = ocs[2 i + 1]; pixel 0 to y, pixel 1 to y + 256. */
void t_rq(const mcu_requant *rq, const int32_t *acc, const int32_t *ocs, int8_t *y)
{
    const int32_t n = ocs[-1];
    int32_t i;
    for (i = 0; i < n; ++i) {
        mcu_conv2d_s8_store2x2_fixed(rq, acc + 4 * i, ocs[2 * i], ocs[2 * i + 1], y, y + 256);
    }
}
"""




@pytest.fixture(scope="module")
def v6m():
    """SOURCE built for the Cortex-M0+ with the target flags."""
    return compile_c(SOURCE, "cortex-m0plus", [RUNTIME, RUNTIME / "kernels"])


def _dot(v6m, w0, w1, c0, c1, acc) -> np.ndarray:
    """mcu_conv2d_s8_dot2x2_v6m on the simulated M0+; rows given as (buffer offset, bytes) so they may coincide."""
    code, functions = v6m
    buf = np.zeros(512, np.int8)
    for off, row in (w0, w1, c0, c1):
        buf[off:off + len(row)] = row
    desc = np.array([w0[0], w1[0], c0[0], c1[0], len(c0[1])], np.int32)
    ram = buf.tobytes() + desc.tobytes() + np.asarray(acc, np.int32).tobytes()
    _, after = call_c(code, functions["t_dot"], "cortex-m0plus", [RAM_BASE, RAM_BASE + 512, RAM_BASE + 532], ram)
    return np.frombuffer(after[532:548], np.int32)


@pytest.mark.parametrize("k", [*range(0, 13), 27, 40, 63, 64, 65, 66, 67, 100])
def test_dot2x2_every_k(v6m, k):
    """Four dot products of length k (every k mod 4, the tail taps run first) from given accumulators, int8 extremes
    included; and with the rows of a lone channel and a lone pixel (w1 == w0, c1 == c0)."""
    rng = np.random.default_rng(k)
    rows = rng.integers(-128, 128, (4, k)).astype(np.int8)
    if k:
        rows[:, 0], rows[:, -1] = -128, 127
    acc = rng.integers(-(1 << 20), 1 << 20, 4)
    w0, w1, c0, c1 = (r.astype(np.int64) for r in rows)
    want = acc + np.array([c0 @ w0, c1 @ w0, c0 @ w1, c1 @ w1])
    got = _dot(v6m, (0, rows[0]), (128, rows[1]), (256, rows[2]), (384, rows[3]), acc)
    assert got.tolist() == want.tolist()
    got = _dot(v6m, (0, rows[0]), (0, rows[0]), (256, rows[2]), (256, rows[2]), acc)
    assert got.tolist() == (acc + np.array([c0 @ w0] * 4)).tolist()


def _store2x2(v6m, acc, mult, shift, per_channel, zp, qmin, qmax, ocs) -> np.ndarray:
    """mcu_conv2d_s8_store2x2_fixed over blocks (acc rows of 4; ocs: their channels oc, oc1, flat) on the simulated
    M0+: the outputs y0, y1."""
    code, functions = v6m
    n = len(ocs) // 2
    params = 64
    rq = struct.pack("<iiiifiiii", 0, RAM_BASE + params, RAM_BASE + params + 4 * len(mult), per_channel, 0.0, zp,
                     qmin, qmax, 0)
    acc_at = params + 8 * len(mult)
    ocs_at = acc_at + 16 * n + 4
    y_at = ocs_at + 8 * n
    ram = (rq.ljust(params, b"\0") + np.asarray(mult, np.int32).tobytes() + np.asarray(shift, np.int32).tobytes()
           + np.asarray(acc, np.int32).tobytes() + np.int32(n).tobytes() + np.asarray(ocs, np.int32).tobytes()
           + bytes(512))
    _, after = call_c(code, functions["t_rq"], "cortex-m0plus",
                      [RAM_BASE, RAM_BASE + acc_at, RAM_BASE + ocs_at, RAM_BASE + y_at], ram)
    y = np.frombuffer(after[y_at:y_at + 512], np.int8).astype(np.int64)
    return y[:256], y[256:]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), per_channel=st.sampled_from([0, 1]),
       limits=st.sampled_from([(-128, -128, 127), (5, -128, 127), (127, -128, 127), (-3, -3, 127), (0, -20, 20),
                               (128, 0, 255)]))
def test_store2x2_fixed_equals_reference(v6m, seed, per_channel, limits):
    """64 blocks of random accumulators over the whole int32 range (and near zero), multipliers in [2^30, 2^31) or
    0, shifts -30..31 per channel, a lone last channel (oc1 == oc); each output equals mcucomp.fixedpoint's double
    rounding, saturated."""
    rng = np.random.default_rng(seed)
    zp, qmin, qmax = limits
    channels = 128
    mult = rng.integers(1 << 30, 1 << 31, channels)
    mult[rng.random(channels) < 0.05] = 0
    mult[:2] = (1 << 30, (1 << 31) - 1)
    shift = rng.integers(-30, 32, channels)
    shift[:4] = (-30, 31, 0, 1)
    wide = rng.integers(I32_MIN, I32_MAX, (64, 4), endpoint=True)
    narrow = rng.integers(-(1 << 16), 1 << 16, (64, 4))
    acc = np.where(rng.random((64, 4)) < 0.5, wide, narrow)
    acc[0] = (I32_MIN, I32_MAX, -1, 0)
    ocs = np.stack([np.arange(0, 128, 2), np.arange(1, 128, 2)], 1)
    ocs[-1] = (126, 126)
    acc[-1, 2:] = acc[-1, :2]  # a lone channel's block: the GEMM computes the same row twice
    y0, y1 = _store2x2(v6m, acc, mult, shift, per_channel, zp, qmin, qmax, ocs.reshape(-1))
    c = np.arange(channels) if per_channel else np.zeros(channels, np.int64)
    for b, (oc, oc1) in enumerate(ocs):
        pairs = ((y0[oc], acc[b, 0], oc), (y1[oc], acc[b, 1], oc))
        if oc1 != oc:
            pairs += ((y0[oc1], acc[b, 2], oc1), (y1[oc1], acc[b, 3], oc1))
        for got, a, ch in pairs:
            want = int(requant_fixed(np.int64(a), mult[c[ch]], shift[c[ch]], zp, qmin, qmax)) & 0xFF
            assert int(got) & 0xFF == want, f"block {b}, channel {ch}: acc {a}, mult {mult[c[ch]]}, " \
                                            f"shift {shift[c[ch]]}: {int(got) & 0xFF} != {want}"


@pytest.mark.parametrize("k, c_out, lone, small", [(1, 1, False, False), (3, 5, False, False), (27, 16, False, False),
                                                   (40, 7, True, False), (64, 64, False, False), (66, 3, True, False),
                                                   (8, 2, False, False), (8, 16, False, True), (9, 9, True, True)])
def test_gemm_v6m_equals_reference(v6m, k, c_out, lone, small):
    """One pixel pair (or a lone pixel: c1 == c0, y1 == y0, also through the 1x2 block) against every output channel,
    odd counts included, with the requantization parameters read per channel or from the per-call table: kbias + the
    dot products, requantized per channel (double rounding, zp 7; small: values that left shifts do not saturate),
    equals numpy."""
    code, functions = v6m
    rng = np.random.default_rng(k * 100 + c_out)
    big = 3 if small else 128  # small: values that a left shift does not saturate
    w = rng.integers(-big, big, (c_out, k)).astype(np.int8)
    cols = rng.integers(-big, big, (2, k)).astype(np.int8)
    if lone:
        cols[1] = cols[0]
    kbias = rng.integers(-(1 << 20), 1 << 20, c_out) // (1 << 17 if small else 1)
    mult = rng.integers(1 << 30, 1 << 31, c_out)
    shift = rng.integers(-2, 14, c_out)
    if small:
        shift[::2] = rng.integers(-2, 0, (c_out + 1) // 2)
    zp, qmin, qmax = 7, -128, 127
    at = {"rq": 0, "args": 64, "mult": 128, "shift": 128 + 4 * c_out, "kbias": 128 + 8 * c_out}
    at["w"] = at["kbias"] + 4 * c_out
    at["c0"] = at["w"] + w.size
    at["c1"] = at["c0"] if lone else at["c0"] + k
    at["y0"] = at["c0"] + 2 * k + 4
    at["y1"] = at["y0"] if lone else at["y0"] + c_out
    addr = {name: RAM_BASE + off for name, off in at.items()}
    at["t"] = (at["y0"] + 2 * c_out + 8) & ~3
    addr["t"] = RAM_BASE + at["t"]
    ram = bytearray(at["t"] + 16 * (c_out + 1))
    ram[0:36] = struct.pack("<iiiifiiii", 0, addr["mult"], addr["shift"], 1, 0.0, zp, qmin, qmax, 0)
    ram[64:104] = struct.pack("<IIiIIiIIII", addr["c0"], addr["c1"], k, addr["w"], addr["kbias"], c_out, addr["y0"],
                              addr["y1"], addr["rq"], 0)
    for name, array in (("mult", mult.astype(np.int32)), ("shift", shift.astype(np.int32)),
                        ("kbias", kbias.astype(np.int32)), ("w", w), ("c0", cols[0]), ("c1", cols[1])):
        ram[at[name]:at[name] + array.nbytes] = array.tobytes()
    acc = kbias[None, :] + cols.astype(np.int64) @ w.astype(np.int64).T
    want = requant_fixed(acc, mult[None, :], shift[None, :], zp, qmin, qmax)
    for name in ("t_gemm", "t_gemm_t", "t_gemm1", "t_gemm1_t") if lone else ("t_gemm", "t_gemm_t"):
        _, after = call_c(code, functions[name], "cortex-m0plus", [addr["args"], addr["t"]], bytes(ram))
        y0 = np.frombuffer(after[at["y0"]:at["y0"] + c_out], np.int8)
        y1 = np.frombuffer(after[at["y1"]:at["y1"] + c_out], np.int8)
        assert y0.tolist() == want[0].tolist(), name
        assert y1.tolist() == want[1].tolist(), name
