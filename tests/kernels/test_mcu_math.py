"""mcu_math.h: mcu_expf, mcu_tanhf and mcu_sigmoidf within 2 ULP of the correctly rounded result (numpy float64)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import cffi
import numpy as np
import pytest

from mcucomp.host import HOST_CFLAGS

RUNTIME = Path(__file__).resolve().parents[2] / "runtime_c"
MAX_ULPS = 2.0
FUNCS = {"expf": np.exp, "tanhf": np.tanh, "sigmoidf": lambda v: 1.0 / (1.0 + np.exp(-v))}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    """mcu_math.h compiled with the host flags, with one array-evaluating wrapper per function."""
    build = tmp_path_factory.mktemp("mcu_math")
    ffi = cffi.FFI()
    ffi.cdef("\n".join(f"void eval_{f}(const float *x, float *y, int n);" for f in FUNCS))
    body = "\n".join(f"void eval_{f}(const float *x, float *y, int n) {{ int i; for (i = 0; i < n; ++i) "
                     f"y[i] = mcu_{f}(x[i]); }}" for f in FUNCS)
    ffi.set_source("_mcu_math_test", '#include "mcu_math.h"\n' + body, include_dirs=[str(RUNTIME)],
                   extra_compile_args=[f for f in HOST_CFLAGS if f != "-pedantic"])
    so = ffi.compile(tmpdir=str(build))
    spec = importlib.util.spec_from_file_location("_mcu_math_test", so)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_mcu_math_test"] = mod
    spec.loader.exec_module(mod)
    return mod


def _inputs() -> np.ndarray:
    """Random bit patterns (the whole float range) plus dense samples where the functions change fastest."""
    rng = np.random.default_rng(120)
    bits = rng.integers(0, 2**32, 1_000_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    dense = [rng.uniform(-110, 90, 500_000), rng.uniform(-12, 12, 500_000), rng.uniform(-1, 1, 200_000)]
    edges = [0.0, -0.0, 0.625, -0.625, 88.72283, -87.33655, -103.97208, 9.1, -9.1, 1e-30, -1e-30]
    x = np.concatenate([bits[np.isfinite(bits)], *[d.astype(np.float32) for d in dense], np.float32(edges)])
    return np.ascontiguousarray(x, dtype=np.float32)


@pytest.mark.parametrize("func", list(FUNCS))
def test_within_two_ulps(lib, func):
    x = _inputs()
    y = np.empty_like(x)
    getattr(lib.lib, f"eval_{func}")(lib.ffi.cast("float *", x.ctypes.data), lib.ffi.cast("float *", y.ctypes.data),
                                      x.size)
    with np.errstate(over="ignore"):
        ref = FUNCS[func](x.astype(np.float64))
        rounded = ref.astype(np.float32)
    finite = np.isfinite(rounded)
    assert np.array_equal(y[~finite], rounded[~finite]), "overflow to infinity differs"
    step = np.maximum(np.spacing(np.abs(rounded[finite])).astype(np.float64), 2.0 ** -149)
    err = np.abs(y[finite].astype(np.float64) - ref[finite]) / step
    worst = int(np.argmax(err))
    assert err[worst] <= MAX_ULPS, f"mcu_{func}({x[finite][worst]!r}) = {y[finite][worst]!r}, {err[worst]:.2f} ULP off"
