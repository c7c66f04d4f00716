"""Several models in one image, and warning-free generated C for Cortex-M.

(a) The two KWS models (same kernels, so every runtime symbol would collide without prefixes) compiled as `kws_qdq`
    and `kws_qop`, all their .c files built with strict host gcc flags and linked with a small driver into one shared
    object: no duplicate symbols, every defined external symbol starts with its model's prefix, only correctly
    rounded libm functions are referenced, and the combined image computes what onnxruntime computes.
(b) Every generated .c of the four shared int8 models and a float model compiles with arm-none-eabi-gcc -Werror for
    Cortex-M4 (hard float) and Cortex-M0+ (soft float).
"""

from __future__ import annotations

import ctypes
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

import mcucomp

from float_models import ic_resnet8
from shared_models import shared_model

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-ffp-contract=off"]
TARGETS = {
    "cortex-m4": ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"],
    "cortex-m0plus": ["-mcpu=cortex-m0plus", "-mthumb", "-mfloat-abi=soft"],
}
# What generated code may take from the C library: memory functions and exactly rounded float functions only
# (plus the GOT that -fPIC refers to, and the ARM EABI helpers gcc calls for soft float and 64-bit division).
ALLOWED_LIBC = {"memcpy", "memset", "memmove", "sqrtf", "fabsf", "floorf", "ceilf", "truncf", "rintf", "nearbyintf",
                "fmaf", "fmodf", "copysignf", "_GLOBAL_OFFSET_TABLE_"}
COMPILER_HELPERS = "__aeabi_"
PAIR = {"kws_qdq": "mlperf_tiny/kws_dscnn_qdq.onnx", "kws_qop": "mlperf_tiny/kws_dscnn_qop.onnx"}

DRIVER = """\
#include "kws_qdq.h"
#include "kws_qop.h"

/* Runs both models on the same input, each in its own caller-provided arena; 0 when both report OK. */
int run_both(const int8_t *x, int8_t *y_qdq, int8_t *y_qop, void *arena_qdq, void *arena_qop)
{
    return kws_qdq_run(x, y_qdq, arena_qdq) | kws_qop_run(x, y_qop, arena_qop);
}
"""


def compile_c(cc: str, flags: list[str], sources: list[Path], obj_dir: Path) -> list[Path]:
    """Compile each source to obj_dir/<stem>.o in one compiler call; fail the test with the diagnostics."""
    obj_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([cc, *flags, "-c", *map(str, sources)], cwd=obj_dir, capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr, f"{cc} {' '.join(flags)}:\n{proc.stderr}"
    return [obj_dir / f"{s.stem}.o" for s in sources]


def check_symbols(nm: str, obj: Path, prefix: str) -> None:
    """Every external symbol obj defines starts with prefix; it needs nothing else but the allowed C library."""
    out = subprocess.run([nm, "-g", str(obj)], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3:
            defined.add(parts[2])
    stray = sorted(s for s in defined if not s.startswith(prefix))
    assert not stray, f"{obj.name} defines symbols without the '{prefix}' prefix: {stray}"
    foreign = sorted(s for s in undefined - ALLOWED_LIBC if not s.startswith((prefix, COMPILER_HELPERS)))
    assert not foreign, f"{obj.name} needs {foreign} from outside its model and the allowed C library"


def c_sources(out_dir: Path) -> list[Path]:
    """The generated .c files listed in a compile's report."""
    return [out_dir / f for f in json.loads((out_dir / "report.json").read_text())["files"] if f.endswith(".c")]


def aligned_arena(size: int, align: int = 16) -> np.ndarray:
    """A zeroed byte buffer of `size` bytes whose address is a multiple of `align`."""
    raw = np.zeros(size + align, np.uint8)
    start = -raw.ctypes.data % align
    return raw[start:start + size]


def test_two_kws_models_link_into_one_image(tmp_path):
    """Both KWS flavors in one shared object: prefixed symbols only, and outputs equal onnxruntime's."""
    objects, arenas = [], {}
    for name, rel in PAIR.items():
        out = tmp_path / name
        arenas[name] = aligned_arena(mcucomp.compile_model(shared_model(rel), out, name=name).report["arena_bytes"])
        for obj in compile_c("gcc", [*STRICT, "-O2", "-fPIC"], c_sources(out), tmp_path / "obj" / name):
            check_symbols("nm", obj, name + "_")
            objects.append(obj)
    (tmp_path / "driver.c").write_text(DRIVER)
    includes = [f"-I{tmp_path / name}" for name in PAIR]
    driver = compile_c("gcc", [*STRICT, "-O2", "-fPIC", *includes], [tmp_path / "driver.c"], tmp_path / "obj")
    lib = tmp_path / "image.so"
    proc = subprocess.run(["gcc", "-shared", "-Wl,--fatal-warnings", "-o", str(lib), *map(str, objects + driver),
                           "-lm"], capture_output=True, text=True)
    assert proc.returncode == 0, f"linking both models failed:\n{proc.stderr}"

    run_both = ctypes.CDLL(str(lib)).run_both
    run_both.argtypes, run_both.restype = [ctypes.c_void_p] * 5, ctypes.c_int
    sessions = {name: ort.InferenceSession(str(shared_model(rel)), providers=["CPUExecutionProvider"])
                for name, rel in PAIR.items()}
    rng = np.random.default_rng(41)
    for _ in range(5):
        x = rng.integers(-128, 128, size=(1, 1, 49, 10), dtype=np.int8)
        y = {name: np.zeros((1, 12), np.int8) for name in PAIR}
        assert run_both(*(a.ctypes.data for a in (x, y["kws_qdq"], y["kws_qop"], arenas["kws_qdq"],
                                                  arenas["kws_qop"]))) == 0
        for name, sess in sessions.items():
            assert np.array_equal(y[name], sess.run(None, {"input_1": x})[0]), f"{name} in the shared image differs"


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_generated_c_is_warning_free_on_cortex_m(target, tmp_path):
    """arm-none-eabi-gcc -O2 -Werror -pedantic compiles every generated file of five models without a diagnostic,
    and the objects keep to their prefix and the allowed C library."""
    cc = shutil.which("arm-none-eabi-gcc")
    if cc is None:
        pytest.fail("arm-none-eabi-gcc is not installed: install it with `apt-get install gcc-arm-none-eabi "
                    "libnewlib-arm-none-eabi` (.ci/run does this)")
    models = {m.split("_")[0] + "_" + m.split("_")[-1]: shared_model(f"mlperf_tiny/{m}.onnx")
              for m in ("kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop")}
    models["ic_f32"] = ic_resnet8(seed=4, batchnorm=True)
    for name, model in models.items():
        out = tmp_path / name
        mcucomp.compile_model(model, out, name=name)
        for obj in compile_c(cc, [*TARGETS[target], *STRICT, "-O2"], c_sources(out), tmp_path / "obj" / name):
            check_symbols(str(Path(cc).with_name("arm-none-eabi-nm")), obj, name + "_")
