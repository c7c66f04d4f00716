"""Render a Program into <name>.h, <name>.c, <name>_weights.[ch] and the prefixed runtime files."""

from __future__ import annotations

import math
import re
from importlib import resources
from pathlib import Path

import jinja2
import numpy as np

from .escape import c_environment
from .program import Program

_ENV = c_environment(jinja2.PackageLoader("emit_c", "templates"))
_INCLUDE = re.compile(r'#include "([A-Za-z0-9_]+\.h)"')
_RUNTIME_IDENT = re.compile(r"\b(mcu|MCU)_")


def c_float(v: float) -> str:
    """A float32 constant as a C literal that reads back to the same bits."""
    v = float(np.float32(v))
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    text = format(v, ".9g")
    if not any(ch in text for ch in ".e"):
        text += ".0"
    return text + "f"


def c_double(v: float) -> str:
    """A float64 constant as a C literal that reads back to the same bits."""
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    text = repr(float(v))
    return text if any(ch in text for ch in ".en") else text + ".0"


def c_value(v) -> str:
    """A params-struct field value: nested initializer lists, floats, ints, or raw C expressions."""
    if isinstance(v, list):
        if v and isinstance(v[0], tuple):
            return "{" + ", ".join(f".{k} = {c_value(x)}" for k, x in v) + "}"
        return "{" + ", ".join(c_value(x) for x in v) + "}"
    if isinstance(v, (float, np.floating)):
        return c_float(v)
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return str(v)


def c_array_body(data: np.ndarray) -> str:
    """Array initializer text, sixteen values a line."""
    flat = data.reshape(-1)
    if flat.dtype == np.float32:
        items = [c_float(x) for x in flat.tolist()]
    elif flat.dtype == np.float64:
        items = [c_double(x) for x in flat.tolist()]
    elif flat.dtype == np.uint64:
        items = [f"UINT64_C({int(x)})" for x in flat.tolist()]
    elif flat.dtype == np.int64:
        # INT64_MIN has no literal: its magnitude does not fit in a signed 64-bit constant.
        items = ["(-INT64_C(9223372036854775807) - 1)" if x == -2**63 else f"INT64_C({int(x)})" for x in flat.tolist()]
    elif flat.dtype == np.uint32:
        items = [f"{int(x)}u" for x in flat.tolist()]
    else:
        items = [str(int(x)) for x in flat.astype(np.int64).tolist()]
    if not items:
        items = ["0"]
    lines = [", ".join(items[i:i + 16]) for i in range(0, len(items), 16)]
    return ",\n    ".join(lines)


def prefix_runtime_text(text: str, name: str) -> str:
    """Rename mcu_ identifiers to <name>_, MCU_ macros to <NAME>_RT_, and runtime includes to the prefixed files."""
    text = _INCLUDE.sub(lambda m: f'#include "{name}_{m.group(1)}"', text)
    # Runtime macros get NAME_RT_ so they cannot meet the model header's per-I/O macros (NAME_<IO>_RANK, ...).
    return _RUNTIME_IDENT.sub(lambda m: name + "_" if m.group(1) == "mcu" else name.upper() + "_RT_", text)


def runtime_source(rel: str) -> str:
    """The text of a runtime_c file, e.g. 'kernels/conv2d_f32.c' or 'mcu_rt.h'."""
    return resources.files("runtime_c").joinpath(rel).read_text()


#: mcu_rt.h's default float form, which the emitted copy replaces by the program's (Program.float_mac).
_FUSED_DEFAULT = "#ifndef MCU_F32_FUSED\n#define MCU_F32_FUSED 1\n#endif\n"


def with_float_mac(rt_text: str, float_mac: str) -> str:
    """mcu_rt.h's text with MCU_F32_FUSED fixed to the form `float_mac` ("fused" or "separate")."""
    if _FUSED_DEFAULT not in rt_text:
        raise ValueError("runtime_c/mcu_rt.h lost its MCU_F32_FUSED default block")
    return rt_text.replace(_FUSED_DEFAULT, f"#define MCU_F32_FUSED {int(float_mac == 'fused')}\n")


def write_program(prog: Program, out_dir: Path) -> list[str]:
    """Write every file of the program into out_dir; return the file names written."""
    ctx = {"p": prog, "NAME": prog.name.upper(), "c_value": c_value, "c_float": c_float, "c_array_body": c_array_body}
    files = {
        f"{prog.name}.h": _ENV.get_template("model.h.j2").render(**ctx),
        f"{prog.name}.c": _ENV.get_template("model.c.j2").render(**ctx),
        f"{prog.name}_weights.h": _ENV.get_template("weights.h.j2").render(**ctx),
        f"{prog.name}_weights.c": _ENV.get_template("weights.c.j2").render(**ctx),
    }
    for rel in prog.runtime_files:
        stem = rel.split("/")[-1]
        text = runtime_source(rel)
        files[f"{prog.name}_{stem}"] = prefix_runtime_text(
            with_float_mac(text, prog.float_mac) if rel == "mcu_rt.h" else text, prog.name)
    for fname, text in files.items():
        (out_dir / fname).write_text(text)
    return sorted(files)
