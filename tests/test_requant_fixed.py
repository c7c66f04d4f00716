"""Requantization helpers. Fixed point: mcucomp.fixedpoint is TFLite's arithmetic (QuantizeMultiplier's edge cases,
SaturatingRoundingDoublingHighMul written as TFLite writes it, RoundingDivideByPOT); the C helpers of mcu_rt.h (the
64-bit product and the 32-bit-only ARMv6-M sequence) equal it on every edge value and random int32 inputs. Float: the integer rounding
of mcu_round_even_sat (cores without an FPU, and the host) equals numpy's rint, saturated. And
both requantization modes on the MLPerf Tiny int8 models: the generated C equals the package's integer reference
(mcucomp.intref) bit for bit."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import cffi
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mcucomp
import mcucomp.host
from mcucomp.fixedpoint import doubling_high_mul, quantize_multiplier, requant_fixed
from mcucomp.intref._arith import requantize_rq
from mcucomp.host import HOST_CFLAGS
from mcucomp.ops._layout import stored_value
from mcucomp.pipeline import lower_model
from mcucomp.fixedpoint import saturating_scale
from mcucomp.quant import Requant

from mcucomp.intref import run_graph, run_lowered
from shared_models import shared_model

MODELS = ["kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop"]


def random_int8(lowered, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One int8 input per graph input, uniform over [-128, 127]."""
    g = lowered.graph
    return {name: rng.integers(-128, 128, size=g.tensors[name].shape, dtype=np.int8) for name in g.inputs}


@pytest.mark.parametrize("requant", ["fixed", "float"])
@pytest.mark.parametrize("model", MODELS)
def test_c_matches_integer_reference(model, requant, tmp_path):
    """Every output byte of the C equals the integer reference on 50 seeded int8 inputs, in both modes."""
    path = shared_model(f"mlperf_tiny/{model}.onnx")
    lowered = lower_model(path, requant=requant)
    mcucomp.compile_model(path, tmp_path, name=model.split("_")[0], requant=requant)
    host = mcucomp.host.load(tmp_path, layer_hook=False)
    rng = np.random.default_rng(31)
    mismatches = []
    for i in range(50):
        feeds = random_int8(lowered, rng)
        ref, got = run_lowered(lowered, feeds), host.run(feeds)
        if any(not np.array_equal(got[name], value) for name, value in ref.items()):
            mismatches.append(i)
    assert mismatches == [], f"{len(mismatches)} of 50 inputs differ from the numpy reference, first: {mismatches[:5]}"


@pytest.mark.parametrize("model", ["kws_dscnn_qop", "ic_resnet8_qop"])
def test_reference_in_float_mode_equals_onnxruntime(model):
    """The same numpy kernels with `--requant float` reproduce onnxruntime exactly on QOperator models: the reference
    is trustworthy. Every lowered tensor is exposed as an onnxruntime output: the models end in a QDQ Softmax group,
    which onnxruntime otherwise retypes to uint8 and runs as its less accurate uint8 QLinearSoftmax (up to 7 LSB
    from the true softmax); mcucomp gives that group integer semantics of its own (its int8 table)."""
    path = shared_model(f"mlperf_tiny/{model}.onnx")
    lowered = lower_model(path, requant="float")
    proto = onnx.load(path)
    produced = {o for node in proto.graph.node for o in node.output}
    names = [n.outputs[0] for n in lowered.order if n.outputs[0] in produced]
    proto.graph.output.extend(onnx.ValueInfoProto(name=n) for n in names
                              if n not in {o.name for o in proto.graph.output})
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(32)
    for i in range(20):
        feeds = random_int8(lowered, rng)
        ref = run_graph(lowered.graph, lowered.order, "float", feeds, keep_all=True)
        for name, value in zip(names, sess.run(names, feeds)):
            expected = stored_value(lowered.graph, name, value)  # channels-last tensors in the order mcucomp stores
            assert np.array_equal(ref[name], expected), f"input {i}: numpy reference differs from onnxruntime on {name}"


RUNTIME = Path(__file__).resolve().parents[1] / "runtime_c"
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
EDGE_ACC = sorted({I32_MIN, I32_MIN + 1, I32_MAX, I32_MAX - 1, 0, 1, -1, 2, -2, 3, -3, 127, -128, 1 << 15, -(1 << 15),
                   (1 << 16) - 1, -(1 << 16), (1 << 16) + 1, (1 << 30), -(1 << 30), (1 << 30) - 1, -(1 << 30) + 1,
                   (1 << 24) + 7, -(1 << 24) - 9, 0x7FFF0000, -0x7FFF0001, 0x00012345, -0x00012345})
EDGE_MULT = [0, 1 << 30, (1 << 30) + 1, (1 << 31) - 1, (1 << 31) - 2, (1 << 31) - 128, 0x55555555, 0x40000080,
             0x7FFF0000, 0x4000FFFF]
EDGE_SHIFT = [-30, -29, -16, -1, 0, 1, 2, 15, 16, 30, 31]


def _tflite_srdhm(a: int, b: int) -> int:
    """SaturatingRoundingDoublingHighMul exactly as TFLite writes it: a nudge by the product's sign, a division
    by 2^31 rounding towards zero, saturation of INT32_MIN · INT32_MIN."""
    if a == b == I32_MIN:
        return I32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    q = abs(ab + nudge) // (1 << 31)
    return q if ab + nudge >= 0 else -q


def _tflite_requant(acc: int, mult: int, shift: int, zp: int, qmin: int, qmax: int) -> int:
    """MultiplyByQuantizedMultiplier(acc, mult, -shift) (int32 wrapping left shift, RoundingDivideByPOT as TFLite
    writes it: mask, remainder, threshold), + zp, clamped — written independently of mcucomp.fixedpoint."""
    left, right = max(0, -shift), max(0, shift)
    x = ((acc << left) + (1 << 31)) % (1 << 32) - (1 << 31)
    v = _tflite_srdhm(x, mult)
    mask = (1 << right) - 1
    threshold = (mask >> 1) + (1 if v < 0 else 0)
    v = (v >> right) + (1 if (v & mask) > threshold else 0)
    return min(max(v + zp, qmin), qmax)


def test_single_rounding_is_round_half_up_of_the_exact_product():
    """"single": Python's exact integers, floor(acc · mult / 2^(31 + shift) + 1/2), on the edge grid."""
    grid = [(a, m, s) for a in EDGE_ACC for m in EDGE_MULT for s in EDGE_SHIFT if s >= -30]
    acc, mult, shift = (np.array(v, np.int64) for v in zip(*grid))
    want = [min(max((2 * a * m + (1 << (31 + s))) // (1 << (32 + s)) + 3, -128), 127) for a, m, s in grid]
    assert requant_fixed(acc, mult, shift, 3, -128, 127, "single").tolist() == want


def test_quantize_multiplier_edges():
    """TFLite's QuantizeMultiplier: mantissa rounded half away from zero, 2^31 carried into the exponent,
    exponents below -31 give a zero multiplier, left shifts up to 30; from 2^30 up (infinity included) the
    multiplier saturates to 2^30 · (1 - 2^-31), as TFLite's single-rounding build does."""
    assert quantize_multiplier(0.5) == (1 << 30, 0)
    assert quantize_multiplier(1.0) == (1 << 30, -1)
    assert quantize_multiplier(0.75) == (3 << 29, 0)
    assert quantize_multiplier(0.0) == (0, 0)
    assert quantize_multiplier(2.0 ** -32) == (1 << 30, 31)
    assert quantize_multiplier(2.0 ** -32 * (1 - 2.0 ** -40)) == (1 << 30, 31)  # rounds up into exponent -31
    assert quantize_multiplier(2.0 ** -33) == (0, 0)
    assert quantize_multiplier(2.0 ** -33 * 1.5) == (0, 0)
    assert quantize_multiplier(0.5 + 2.0 ** -33) == (1 << 30, 0)  # 2^30 + 0.25 rounds down
    assert quantize_multiplier(0.5 + 2.0 ** -32) == ((1 << 30) + 1, 0)  # 2^30 + 0.5: half away from zero
    assert quantize_multiplier(2.0 ** 29 * 1.5) == (3 << 29, -30)
    assert quantize_multiplier(2.0 ** 30 * (1 - 2.0 ** -40)) == ((1 << 31) - 1, -30)  # rounds up into exponent 31
    for huge in (2.0 ** 30, 2.0 ** 60, 3.4e38, float("inf")):
        assert quantize_multiplier(huge) == ((1 << 31) - 1, -30)
    assert quantize_multiplier(1e-11) == (0, 0) and quantize_multiplier(1e-45) == (0, 0)


def test_reference_equals_tflite_formulation():
    """fixedpoint's floor((x·m + 2^30) / 2^31) and vectorized RoundingDivideByPOT equal TFLite's formulation."""
    grid = [(a, m, s) for a in EDGE_ACC for m in EDGE_MULT for s in EDGE_SHIFT]
    acc, mult, shift = (np.array(v, np.int64) for v in zip(*grid))
    assert all(doubling_high_mul(a, m) == _tflite_srdhm(a, m) for a in EDGE_ACC for m in EDGE_MULT)
    got = requant_fixed(acc, mult, shift, 5, -128, 127)
    want = [_tflite_requant(a, m, s, 5, -128, 127) for a, m, s in grid]
    assert got.tolist() == want


def test_split_products_fit_int32():
    """The 32-bit-only doubling high multiply (mcu_rt.h): with x = xh 2^16 + xl and m = mh 2^16 + ml, xl and ml the
    low halves read as int16, the middle sum s = xh ml + xl mh + floor((xl ml + 2^30) / 2^16) stays within int32 for
    every int32 x and 0 <= m < 2^31. s is bilinear in (xh, xl) and (mh, ml) up to the floor, so its extremes lie at
    the corners of the ranges (and next to them); the largest |s| found there is 2^31 - 2^15."""
    def near(lo, hi):
        return sorted({lo, lo + 1, lo + 2, hi, hi - 1, hi - 2, 0, 1, -1})

    extremes = []
    for xh in near(-(1 << 15), 1 << 15):
        for xl in near(-(1 << 15), (1 << 15) - 1):
            if not I32_MIN <= xh * 65536 + xl <= I32_MAX:
                continue
            for mh in near(0, 1 << 15):
                for ml in near(-(1 << 15), (1 << 15) - 1):
                    if 0 <= mh * 65536 + ml < 1 << 31:
                        extremes.append(xh * ml + xl * mh + ((xl * ml + (1 << 30)) >> 16))
    assert max(extremes) == (1 << 31) - (1 << 15) and min(extremes) == -(1 << 31) + (1 << 15)


@pytest.fixture(scope="module", params=["int64", "mul32"])
def rq_lib(request, tmp_path_factory):
    """mcu_rt.h's fixed-point helpers compiled with the host flags: the 64-bit product, or (MCU_REQUANT_MUL32) the
    32-bit-only sequence ARMv6-M runs."""
    build = tmp_path_factory.mktemp(f"rq_{request.param}")
    ffi = cffi.FFI()
    ffi.cdef("void rq_fixed(const int32_t *acc, const int32_t *mult, const int32_t *shift, int32_t single,"
             " int32_t zp, int32_t qmin, int32_t qmax, int32_t *out, int n);"
             "void rq_dhm(const int32_t *x, const int32_t *m, int32_t *out, int n);"
             "void rq_round(const float *v, int32_t *out, int n);"
             "void rq_plain(const int32_t *acc, const float *scale, int32_t zp, int32_t qmin, int32_t qmax,"
             " int32_t *plain, int32_t *applied, int n);")
    body = ("void rq_fixed(const int32_t *acc, const int32_t *mult, const int32_t *shift, int32_t single, int32_t zp,"
            " int32_t qmin, int32_t qmax, int32_t *out, int n) { int i; for (i = 0; i < n; ++i)"
            " out[i] = mcu_requant_fixed(acc[i], mult[i], shift[i], single, zp, qmin, qmax); }\n"
            "void rq_dhm(const int32_t *x, const int32_t *m, int32_t *out, int n) { int i; for (i = 0; i < n; ++i)"
            " out[i] = mcu_doubling_high_mul(x[i], m[i]); }\n"
            "void rq_round(const float *v, int32_t *out, int n) { int i; for (i = 0; i < n; ++i)"
            " out[i] = mcu_round_even_sat(v[i]); }\n"
            "void rq_plain(const int32_t *acc, const float *scale, int32_t zp, int32_t qmin, int32_t qmax,"
            " int32_t *plain, int32_t *applied, int n) { int i; mcu_requant rq;"
            " memset(&rq, 0, sizeof rq); rq.scale = scale; rq.per_channel = 1; rq.zp = zp;"
            " rq.qmin = qmin; rq.qmax = qmax; for (i = 0; i < n; ++i) { plain[i] = mcu_requant_plain(&rq, acc[i], i);"
            " applied[i] = mcu_requant_apply(&rq, acc[i], i); } }\n")
    defines = ["-DMCU_REQUANT_MUL32=1"] if request.param == "mul32" else []
    module = f"_rq_test_{request.param}"
    ffi.set_source(module, '#include "mcu_rt.h"\n' + body, include_dirs=[str(RUNTIME)],
                   extra_compile_args=[f for f in HOST_CFLAGS if f != "-pedantic"] + defines)
    so = ffi.compile(tmpdir=str(build))
    spec = importlib.util.spec_from_file_location(module, so)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module] = mod
    spec.loader.exec_module(mod)
    return mod


def _c_requant(lib, acc, mult, shift, zp, qmin, qmax, rounding) -> np.ndarray:
    """mcu_requant_fixed over int32 arrays of one length."""
    acc, mult, shift = (np.ascontiguousarray(v, np.int32) for v in (acc, mult, shift))
    out = np.empty_like(acc)
    ptr = lambda a: lib.ffi.cast("int32_t *", a.ctypes.data)  # noqa: E731
    lib.lib.rq_fixed(ptr(acc), ptr(mult), ptr(shift), int(rounding == "single"), zp, qmin, qmax, ptr(out), out.size)
    return out


@pytest.mark.parametrize("rounding", ["double", "single"])
def test_c_helpers_on_edge_values(rq_lib, rounding):
    """Every (edge acc, edge mult, edge shift) in both roundings, and the doubling high multiply alone, against the
    reference."""
    grid = [(a, m, s) for a in EDGE_ACC for m in EDGE_MULT for s in EDGE_SHIFT]
    acc, mult, shift = (np.array(v, np.int64) for v in zip(*grid))
    for zp, qmin, qmax in ((0, I32_MIN, I32_MAX), (-7, -128, 127), (100, -128, 127), (-128, -128, 127)):
        got = _c_requant(rq_lib, acc, mult, shift, zp, qmin, qmax, rounding)
        want = requant_fixed(acc, mult, shift, zp, qmin, qmax, rounding)
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, f"zp {zp}: first mismatch at (acc, mult, shift) = {grid[bad[0]]}: {got[bad[0]]} != " \
                              f"{want[bad[0]]}"
    x, m = (np.ascontiguousarray(v, np.int32) for v in zip(*[(a, m) for a in EDGE_ACC for m in EDGE_MULT]))
    out = np.empty_like(x)
    ptr = lambda a: rq_lib.ffi.cast("int32_t *", a.ctypes.data)  # noqa: E731
    rq_lib.lib.rq_dhm(ptr(x), ptr(m), ptr(out), out.size)
    assert out.tolist() == doubling_high_mul(x, m).tolist()


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rounding=st.sampled_from(["double", "single"]))
def test_c_helpers_on_random_int32(rq_lib, seed, rounding):
    """20,000 random accumulators, multipliers in [2^30, 2^31) and shifts in [-30, 31] per example."""
    rng = np.random.default_rng(seed)
    n = 20000
    acc = rng.integers(I32_MIN, I32_MAX, n, endpoint=True)
    mult = rng.integers(1 << 30, 1 << 31, n)
    shift = rng.integers(-30, 32, n)
    zp = int(rng.integers(-128, 128))
    got = _c_requant(rq_lib, acc, mult, shift, zp, -128, 127, rounding)
    assert np.array_equal(got, requant_fixed(acc, mult, shift, zp, -128, 127, rounding))


def test_round_even_sat_equals_rint(rq_lib):
    """mcu_round_even_sat's bit manipulation: every half-integer up to 2^24, ties at both signs, powers of two, values
    past ±2^31 and infinities, and 10^6 random floats of every exponent; rint saturated to int32."""
    rng = np.random.default_rng(5)
    halves = np.arange(-(1 << 16), 1 << 16, dtype=np.float64) + 0.5
    edges = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, 0.49999997, 2.0 ** 23 - 0.5, 2.0 ** 23, 2.0 ** 30, 2.0 ** 31,
             -(2.0 ** 31), 2.0 ** 31 - 128, -(2.0 ** 31) + 128, 3e38, -3e38, np.inf, -np.inf, 1e-45, -1e-45,
             16777215.0, 16777217.0, 8388609.5]
    bits = rng.integers(0, 1 << 32, 1_000_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    v = np.concatenate([halves.astype(np.float32), np.float32(edges), bits[~np.isnan(bits)]])
    out = np.empty(v.size, np.int32)
    rq_lib.lib.rq_round(rq_lib.ffi.cast("float *", v.ctypes.data), rq_lib.ffi.cast("int32_t *", out.ctypes.data),
                        v.size)
    want = np.clip(np.rint(v.astype(np.float64)), I32_MIN, I32_MAX).astype(np.int64)
    bad = np.flatnonzero(out != want)
    assert bad.size == 0, f"{bad.size} differ, first {v[bad[0]]!r}: {out[bad[0]]} != {want[bad[0]]}"


def _c_plain(lib, acc, scale, zp, qmin, qmax) -> tuple[np.ndarray, np.ndarray]:
    """mcu_requant_plain and mcu_requant_apply (float mode, per channel: element i is channel i)."""
    acc, scale = np.ascontiguousarray(acc, np.int32), np.ascontiguousarray(scale, np.float32)
    plain, applied = np.empty_like(acc), np.empty_like(acc)
    ptr = lambda a, t="int32_t *": lib.ffi.cast(t, a.ctypes.data)  # noqa: E731
    lib.lib.rq_plain(ptr(acc), ptr(scale, "float *"), zp, qmin, qmax, ptr(plain), ptr(applied), acc.size)
    return plain, applied


def test_plain_float_requant_equals_apply(rq_lib):
    """The kernels' inlined float requantization (finite scales, no div) equals mcu_requant_apply on random and edge
    accumulators, scales up to overflow, and int8 / uint8 / narrowed ranges; Requant.plain, which decides at
    compile time whether the kernels may inline it, refuses infinite or NaN scales, a div and fixed mode."""
    rng = np.random.default_rng(11)
    n = 200_000
    acc = np.concatenate([rng.integers(I32_MIN, I32_MAX, n // 2, endpoint=True), rng.integers(-3000, 3000, n // 2)])
    acc[:len(EDGE_ACC)] = EDGE_ACC
    scale = np.exp2(rng.uniform(-40, 40, n)).astype(np.float32) * rng.choice([-1, 1], n)
    scale[:4] = [0.0, -0.0, 3e38, 1e-45]
    for zp, qmin, qmax in ((-128, -128, 127), (5, -128, 127), (-3, -3, 127), (128, 0, 255), (0, -20, 20)):
        plain, applied = _c_plain(rq_lib, acc, scale, zp, qmin, qmax)
        bad = np.flatnonzero(plain != applied)
        assert bad.size == 0, f"zp {zp}: acc {acc[bad[0]]} scale {scale[bad[0]]!r}: {plain[bad[0]]} != " \
                              f"{applied[bad[0]]}"
    assert Requant(scale, 0, -128, 127).plain()
    for bad_scale in (np.inf, -np.inf, np.nan):
        assert not Requant(np.r_[scale[:7], bad_scale], 0, -128, 127).plain()
    assert not Requant(scale[4:8], 0, -128, 127, div=2.0).plain()
    assert not Requant(np.float32([0.5, 0.25]), 0, -128, 127, mode="fixed").plain()


M0PLUS_SOURCE = """#include "mcu_rt.h"
/* in: n records (acc0, acc1, mult, shift); lims: zp, qmin, qmax, single_round. out, 3 words a record: the pair
 * helper's two results (double rounding) and mcu_requant_fixed of acc0 in lims' rounding. */
void rq_check(const int32_t *in, const int32_t *lims, int32_t *out, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; ++i) {
        const int32_t *r = in + 4 * i;
        const mcu_requant rq = {NULL, r + 2, r + 3, 0, 0.0f, lims[0], lims[1], lims[2], 0};
        mcu_requant_fixed_pair(&rq, 0, r[0], r[1], &out[3 * i], &out[3 * i + 1]);
        out[3 * i + 2] = mcu_requant_fixed(r[0], r[2], r[3], lims[3], lims[0], lims[1], lims[2]);
    }
}
/* A GEMM's use: n channels (mult, shift per channel), two accumulators each, int8 stores. */
void rq_gemm(const int32_t *acc, const int32_t *mult, const int32_t *shift, int8_t *y)
{
    const mcu_requant rq = {NULL, mult, shift, 1, 0.0f, 3, -128, 127, 0};
    const int32_t n = acc[0];
    int32_t c;
    for (c = 0; c < n; ++c) {
        int32_t v0, v1;
        mcu_requant_fixed_pair(&rq, c, acc[1 + 2 * c], acc[2 + 2 * c], &v0, &v1);
        y[2 * c] = (int8_t)v0;
        y[2 * c + 1] = (int8_t)v1;
    }
}
"""


@pytest.fixture(scope="module")
def m0plus_rq():
    """M0PLUS_SOURCE built for the Cortex-M0+ (ARMv6-M: the 32-bit-only sequence and its assembly)."""
    from perf.microbench import compile_c
    return compile_c(M0PLUS_SOURCE, "cortex-m0plus", [RUNTIME])


def _m0plus_check(m0plus_rq, acc0, acc1, mult, shift, zp, qmin, qmax, single) -> np.ndarray:
    """rq_check on the simulated Cortex-M0+: (pair v0, pair v1, mcu_requant_fixed) per record."""
    from perf.microbench import RAM_BASE, call_c
    code, functions = m0plus_rq
    records = np.stack([np.asarray(v, np.int64) for v in (acc0, acc1, mult, shift)], 1).astype(np.int32)
    lims = np.array([zp, qmin, qmax, single], np.int32)
    out_at = 16 + records.nbytes
    ram = lims.tobytes() + records.tobytes() + bytes(12 * len(records))
    _, after = call_c(code, functions["rq_check"], "cortex-m0plus",
                      [RAM_BASE + 16, RAM_BASE, RAM_BASE + out_at, len(records)], ram)
    return np.frombuffer(after[out_at:], np.int32).reshape(-1, 3).astype(np.int64)


def test_m0plus_requant_on_edge_values(m0plus_rq):
    """On the simulated Cortex-M0+ (the assembly of mcu_doubling_high_mul, the pair helper the GEMM uses): every
    edge (acc, mult, shift) in both roundings equals the reference."""
    grid = [(a, m, s) for a in EDGE_ACC for m in EDGE_MULT for s in EDGE_SHIFT]
    acc, mult, shift = (np.array(v, np.int64) for v in zip(*grid))
    acc1 = acc[::-1].copy()
    for zp, qmin, qmax in ((0, I32_MIN, I32_MAX), (-7, -128, 127), (-128, -128, 127)):
        for single, rounding in ((0, "double"), (1, "single")):
            got = _m0plus_check(m0plus_rq, acc, acc1, mult, shift, zp, qmin, qmax, single)
            assert got[:, 0].tolist() == requant_fixed(acc, mult, shift, zp, qmin, qmax).tolist()
            assert got[:, 1].tolist() == requant_fixed(acc1, mult, shift, zp, qmin, qmax).tolist()
            want = requant_fixed(acc, mult, shift, zp, qmin, qmax, rounding)
            bad = np.flatnonzero(got[:, 2] != want)
            assert bad.size == 0, f"{rounding}: first mismatch at {grid[bad[0]]}: {got[bad[0], 2]} != {want[bad[0]]}"


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), single=st.sampled_from([0, 1]))
def test_m0plus_requant_on_random_int32(m0plus_rq, seed, single):
    """On the simulated Cortex-M0+: 4,000 random accumulator pairs over the whole int32 range, multipliers in
    [2^30, 2^31) and shifts in [-30, 31] per example."""
    rng = np.random.default_rng(seed)
    n = 4000
    acc0, acc1 = rng.integers(I32_MIN, I32_MAX, (2, n), endpoint=True)
    mult = rng.integers(1 << 30, 1 << 31, n)
    shift = rng.integers(-30, 32, n)
    zp = int(rng.integers(-128, 128))
    got = _m0plus_check(m0plus_rq, acc0, acc1, mult, shift, zp, -128, 127, single)
    assert np.array_equal(got[:, 0], requant_fixed(acc0, mult, shift, zp, -128, 127))
    assert np.array_equal(got[:, 1], requant_fixed(acc1, mult, shift, zp, -128, 127))
    assert np.array_equal(got[:, 2], requant_fixed(acc0, mult, shift, zp, -128, 127, "single" if single else "double"))


def test_requant_scales_that_would_overflow_are_folded_and_capped():
    """Requant stores a finite scale at or above the saturating bound as that bound (every nonzero accumulator
    saturates either way, and the fixed-point left shift stays at bits + 1), and folds a divisor whose float32 steps
    could overflow (scale > 2^96) into the scale; the results equal the exact float64 ones (in double rounding for
    the accumulators TFLite's left shift does not wrap)."""
    assert saturating_scale(-128, 127, 0) == 256.0 and saturating_scale(-128, 127, -128) == 256.0
    assert saturating_scale(100, 127, -128) == 256.0 and saturating_scale(-3, 127, -3) == 256.0
    assert saturating_scale(0, 20, 10) == 16.0
    acc = np.array(EDGE_ACC + [0, 1, -1, 2, -2, 1000, -1000], np.int64)
    for zp, qmin, qmax in ((-128, -128, 127), (5, -128, 127), (-128, 100, 127), (0, -20, 20)):
        for scale, div in ((1e3, 0.0), (2.0**40, 0.0), (3e38, 0.0), (3e38, 2.0**126), (2.0**100, 2.0**90)):
            rq = Requant(np.float32([scale]), zp, qmin, qmax, div=div)
            assert float(rq.scale.max()) <= saturating_scale(qmin, qmax, zp) and not (div and rq.div)
            want = np.clip(np.rint(acc * (scale / (div or 1.0))) + zp, qmin, qmax)
            assert np.array_equal(requantize_rq(acc[None, :], "float", rq)[0], want), (zp, qmin, qmax, scale, div)
            rq.rounding = "single"
            assert np.array_equal(requantize_rq(acc[None, :], "fixed", rq)[0], want), (zp, qmin, qmax, scale, div)
            # double rounding shifts acc left by at most 9 here: TFLite's int32 wrap starts at |acc| = 2^22
            rq.rounding, small = "double", np.abs(acc) < 1 << 22
            got = requantize_rq(acc[None, small], "fixed", rq)[0]
            assert np.array_equal(got, want[small]), (zp, qmin, qmax, scale, div)
