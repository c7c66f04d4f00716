"""The C runtime mcucomp copies into a model's output: mcu_rt.h, mcu_math.h and the kernels (kernels/<stem>.[ch])."""

from __future__ import annotations

import re
from importlib import resources

_INCLUDE = re.compile(r'^#include "([A-Za-z0-9_]+\.h)"', re.M)


def kernel_files(stems) -> list[str]:
    """The runtime_c files (relative paths) of kernel stems: each stem's .h and .c where present, then the kernel
    headers they include and those headers' .c where present, transitively (a path file's shared helpers, and the
    code they declare), each once in that order."""
    kernels = resources.files("runtime_c").joinpath("kernels")
    files: list[str] = []
    todo = [f"{stem}.{ext}" for stem in stems for ext in ("h", "c")]
    while todo:
        name = todo.pop(0)
        rel = f"kernels/{name}"
        if rel in files or not kernels.joinpath(name).is_file():
            continue
        files.append(rel)
        for header in _INCLUDE.findall(kernels.joinpath(name).read_text()):
            todo += [header, header[:-2] + ".c"]
    return files
