"""mcu_math.h against numpy: every function within its stated ULP bound of the float64 reference rounded to float32,
on >= 10^5 points including the edge cases, and special values (0, -0, inf, NaN, domain edges) exactly like C99."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import cffi
import numpy as np
import pytest

from mcucomp.host import HOST_CFLAGS

RUNTIME = Path(__file__).resolve().parents[2] / "runtime_c"
SPECIALS = np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1e-45, -1e-45,
                       1.17549435e-38, 3.4028235e38, -3.4028235e38, 0.1, 1e-30, 1e30, 1.5, -1.5, 2.5, 16777215.0,
                       16777216.0, -16777217.0, 1e10, -1e10])


def _zero_at_minus_inf(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """y with the limit -0 where x = -inf (the float64 formulas give -inf * 0 = NaN there)."""
    return np.where(x == -np.inf, -0.0, y)


_erf, _erfc = np.frompyfunc(math.erf, 1, 1), np.frompyfunc(math.erfc, 1, 1)

#: function → (float64 reference, ULP bound: the measured maximum rounded up; 0.51 for the double-evaluated
#: functions, which measure 0.5000, i.e. correctly rounded but for double-rounding ties).
UNARY = {
    "expf": (np.exp, 2.0),
    "tanhf": (np.tanh, 2.0),
    "sigmoidf": (lambda v: 1.0 / (1.0 + np.exp(-v)), 2.0),
    "logf": (np.log, 0.51),
    "sinf": (np.sin, 0.51),
    "cosf": (np.cos, 0.51),
    "tanf": (np.tan, 0.51),
    "asinf": (np.arcsin, 0.51),
    "acosf": (np.arccos, 0.51),
    "atanf": (np.arctan, 0.51),
    "sinhf": (np.sinh, 0.51),
    "coshf": (np.cosh, 0.51),
    "asinhf": (np.arcsinh, 0.51),
    "acoshf": (np.arccosh, 0.51),
    "atanhf": (np.arctanh, 0.51),
    "erff": (_erf, 0.51),
    "softplusf": (lambda v: np.logaddexp(0.0, v), 0.51),
    "mishf": (lambda v: _zero_at_minus_inf(v, v * np.tanh(np.logaddexp(0.0, v))), 0.51),
    "geluf": (lambda v: _zero_at_minus_inf(v, 0.5 * v * _erfc(-v / math.sqrt(2.0))), 0.51),
    # x/2 (1 + tanh u) as x / (1 + e^(-2u)): 1 + tanh u cancels to 0 in float64 long before the float result does
    "gelu_tanhf": (lambda v: _zero_at_minus_inf(
        v, v / (1.0 + np.exp(-2.0 * math.sqrt(2.0 / math.pi) * (v + 0.044715 * v**3)))), 0.51),
}
#: function of (x, alpha or y) → (float64 reference, ULP bound).
BINARY = {
    "powf": (np.power, 0.51),
    "eluf": (lambda v, a: np.where(v < 0, a * np.expm1(v), v), 0.51),
    "celuf": (lambda v, a: np.maximum(v, 0.0) + np.minimum(0.0, a * np.expm1(v / a)), 0.51),
    "swishf": (lambda v, a: _zero_at_minus_inf(v, v / (1.0 + np.exp(-a * v))), 0.51),
}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    """mcu_math.h compiled with the host flags, with one array-evaluating wrapper per function."""
    build = tmp_path_factory.mktemp("mcu_math")
    ffi = cffi.FFI()
    ffi.cdef("\n".join([f"void eval_{f}(const float *x, float *y, int n);" for f in UNARY]
                       + [f"void eval_{f}(const float *x, const float *y, float *z, int n);" for f in BINARY]))
    body = "\n".join([f"void eval_{f}(const float *x, float *y, int n) {{ int i; for (i = 0; i < n; ++i) "
                      f"y[i] = mcu_{f}(x[i]); }}" for f in UNARY]
                     + [f"void eval_{f}(const float *x, const float *y, float *z, int n) {{ int i; "
                        f"for (i = 0; i < n; ++i) z[i] = mcu_{f}(x[i], y[i]); }}" for f in BINARY])
    ffi.set_source("_mcu_math_test", '#include "mcu_math.h"\n' + body, include_dirs=[str(RUNTIME)],
                   extra_compile_args=[f for f in HOST_CFLAGS if f != "-pedantic"])
    so = ffi.compile(tmpdir=str(build))
    spec = importlib.util.spec_from_file_location("_mcu_math_test", so)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_mcu_math_test"] = mod
    spec.loader.exec_module(mod)
    return mod


def _ptr(lib, a: np.ndarray):
    """A float * to a contiguous float32 array."""
    return lib.ffi.cast("float *", a.ctypes.data)


def _call(lib, func: str, *args: np.ndarray) -> np.ndarray:
    """mcu_<func> applied element-wise to float32 arrays of one length."""
    args = [np.ascontiguousarray(a, dtype=np.float32) for a in args]
    out = np.empty_like(args[0])
    getattr(lib.lib, f"eval_{func}")(*[_ptr(lib, a) for a in args], _ptr(lib, out), out.size)
    return out


def _random_floats(rng: np.random.Generator, n: int) -> np.ndarray:
    """Uniformly random finite float32 bit patterns (every exponent equally likely, subnormals included)."""
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return bits[np.isfinite(bits)]


def _inputs() -> np.ndarray:
    """Random bit patterns (the whole float range) plus dense samples where the functions change fastest."""
    rng = np.random.default_rng(120)
    dense = [rng.uniform(-110, 90, 50_000), rng.uniform(-12, 12, 50_000), rng.uniform(-1, 1, 50_000),
             rng.uniform(0.5, 2.0, 50_000)]
    edges = [0.0, -0.0, 0.625, -0.625, 88.72283, -87.33655, -103.97208, 9.1, -9.1, 1e-30, -1e-30,  # exp, tanh
             0.99999994, -0.99999994, 1.0000001, 0.785398, 0.7853982, 1.5707964, 3.1415927, 6.2831855,  # domains, pi
             89.41598, 89.41599, -89.41599, 10.05, -10.06, 3.92, 0.5, -0.5, 30.0, 30.000002]  # overflow, erf, mish
    x = np.concatenate([_random_floats(rng, 150_000), *[d.astype(np.float32) for d in dense], np.float32(edges),
                        SPECIALS])
    return np.ascontiguousarray(x, dtype=np.float32)


def _assert_ulps(name: str, got: np.ndarray, ref: np.ndarray, bound: float, args: list[np.ndarray]) -> None:
    """got within `bound` ULP of the float64 reference where its float32 rounding is finite; equal to it elsewhere."""
    with np.errstate(over="ignore"):
        rounded = ref.astype(np.float32)
        step = np.spacing(np.abs(rounded)).astype(np.float64)
    finite = np.isfinite(rounded)
    special = ~finite
    assert np.array_equal(got[special], rounded[special], equal_nan=True), (
        f"mcu_{name}: special values differ at {[a[special][got[special] != rounded[special]][:3] for a in args]}")
    zero = rounded == 0
    sign_differs = np.signbit(got[zero]) != np.signbit(rounded[zero])
    assert not sign_differs.any(), f"mcu_{name}: signs of zero differ at {[a[zero][sign_differs][:3] for a in args]}"
    step = np.clip(step[finite], 2.0 ** -149, 2.0 ** 104)  # the ULP of FLT_MAX is 2^104, not inf
    err = np.abs(got[finite].astype(np.float64) - ref[finite]) / step
    worst = int(np.argmax(err))
    at = ", ".join(repr(a[finite][worst]) for a in args)
    assert err[worst] <= bound, f"mcu_{name}({at}) = {got[finite][worst]!r}, {err[worst]:.3f} ULP off"


@pytest.mark.parametrize("func", list(UNARY))
def test_unary_within_bound(lib, func):
    x = _inputs()
    reference, bound = UNARY[func]
    with np.errstate(all="ignore"):
        ref = reference(x.astype(np.float64)).astype(np.float64)
    _assert_ulps(func, _call(lib, func, x), ref, bound, [x])


def _pow_inputs() -> tuple[np.ndarray, np.ndarray]:
    """Pairs (x, y): random bases with exponents that keep x^y mostly in range, negative bases with integer
    exponents, integer powers of small integers (exact results), and every pair of special values."""
    rng = np.random.default_rng(7)
    n = 50_000
    x = np.abs(_random_floats(rng, n))
    y = (rng.uniform(-1, 1, x.size) * 100.0 / np.maximum(np.abs(np.log(x.astype(np.float64))), 0.1)).astype(np.float32)
    xs = [x, rng.uniform(-4, 4, n), rng.uniform(0, 2, n), np.repeat(np.arange(-10, 11), 21)]
    ys = [y, rng.integers(-60, 61, n), rng.uniform(-50, 50, n), np.tile(np.arange(-10, 11), 21)]
    sx, sy = np.meshgrid(SPECIALS, SPECIALS)
    xs.append(sx.ravel())
    ys.append(sy.ravel())
    return (np.concatenate(xs).astype(np.float32), np.concatenate(ys).astype(np.float32))


@pytest.mark.parametrize("func", [f for f in BINARY if f != "powf"])
def test_activation_within_bound(lib, func):
    """Activations with a parameter, over the unary inputs and a few typical and unusual parameter values."""
    x = _inputs()
    alpha = np.resize(np.float32([1.0, 0.5, 2.0, 0.1, 3.0, 1.6732632]), x.size)
    reference, bound = BINARY[func]
    with np.errstate(all="ignore"):
        ref = reference(x.astype(np.float64), alpha.astype(np.float64))
    _assert_ulps(func, _call(lib, func, x, alpha), ref, bound, [x, alpha])


def test_powf_within_bound(lib):
    x, y = _pow_inputs()
    with np.errstate(all="ignore"):
        ref = np.power(x.astype(np.float64), y.astype(np.float64))
    _assert_ulps("powf", _call(lib, "powf", x, y), ref, BINARY["powf"][1], [x, y])


def test_powf_special_values_like_c(lib):
    """Pairs of special values whose C99 powf result is 0, inf, NaN or 1 give exactly numpy's float32 power, signs of
    zeros and infinities included (finite results are checked in ULPs above: numpy's own powf is not always
    correctly rounded)."""
    sx, sy = (a.ravel() for a in np.meshgrid(SPECIALS, SPECIALS))
    with np.errstate(all="ignore"):
        want = np.power(sx, sy)
    got = _call(lib, "powf", sx, sy)
    check = ~np.isfinite(want) | (want == 0) | (want == 1)
    assert check.sum() > 300
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    bad = check & ~same
    assert not bad.any(), list(zip(sx[bad], sy[bad], got[bad], want[bad]))[:5]
