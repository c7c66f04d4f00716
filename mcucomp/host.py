"""Build the generated C on the host with cffi and run it from Python (the same sources as for the target)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from .errors import McucompError

#: Flags for the generated sources on the host: strict C99, no FP contraction, no fast-math.
HOST_CFLAGS = ["-std=c99", "-O2", "-ffp-contract=off", "-fno-fast-math", "-Wall", "-Wextra", "-Werror",
               "-pedantic", "-fPIC"]


def _cache_root() -> Path:
    """Where host builds are kept, keyed by source hash (MCUCOMP_CACHE overrides)."""
    return Path(os.environ.get("MCUCOMP_CACHE", Path.home() / ".cache" / "mcucomp")) / "host"


def _compile_objects(sources: list[Path], build: Path, defines: list[str]) -> list[str]:
    """Compile each generated C file with HOST_CFLAGS; return the object paths."""
    cc = os.environ.get("CC", "cc")
    objects = []
    for src in sources:
        obj = build / (src.stem + ".o")
        cmd = [cc, *HOST_CFLAGS, *defines, "-I", str(src.parent), "-c", str(src), "-o", str(obj)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise McucompError(f"Host C compiler failed on {src.name}: {proc.stderr.strip()[:2000]}")
        objects.append(str(obj))
    return objects


class HostModel:
    """A compiled model loaded in this process; `run` takes and returns dicts of numpy arrays."""

    def __init__(self, out_dir: Path, report: dict, lib, ffi):
        self.out_dir, self.report, self._lib, self._ffi = out_dir, report, lib, ffi
        self._run = getattr(lib, f"{report['name']}_run")
        self.layer_hook = None

    def _arena(self) -> np.ndarray:
        """A fresh 16-byte-aligned arena filled with a pattern, so reads of unwritten bytes show up."""
        size = max(self.report["arena_bytes"], 1)
        raw = np.full(size + 16, 0xA5, dtype=np.uint8)
        start = (-raw.ctypes.data) % 16
        return raw[start:start + size]

    def run(self, feeds: dict[str, np.ndarray], capture: list[tuple[str, int, int, str, list]] | None = None
            ) -> dict[str, np.ndarray]:
        """Run one inference; with `capture` (name, step, offset, dtype, shape), also return those tensors."""
        args = []
        keep = []
        for spec in self.report["inputs"]:
            if spec["name"] not in feeds:
                raise McucompError(f"Missing input '{spec['name']}'; expected {[s['name'] for s in self.report['inputs']]}.")
            arr = np.ascontiguousarray(feeds[spec["name"]])
            if arr.dtype != np.dtype(spec["dtype"]) or list(arr.shape) != spec["shape"]:
                raise McucompError(
                    f"Input '{spec['name']}' must be {spec['dtype']}{spec['shape']}, got {arr.dtype}{list(arr.shape)}."
                )
            keep.append(arr)
            args.append(self._ffi.cast(f"{spec['ctype']} *", arr.ctypes.data))
        outputs = {}
        for spec in self.report["outputs"]:
            arr = np.zeros(spec["shape"], dtype=spec["dtype"])
            outputs[spec["name"]] = arr
            args.append(self._ffi.cast(f"{spec['ctype']} *", arr.ctypes.data))
        arena = self._arena()
        captured = {}
        if capture is not None:
            self.layer_hook = self._capture_hook(arena, capture, captured)
        try:
            status = self._run(*args, self._ffi.cast("void *", arena.ctypes.data))
        finally:
            self.layer_hook = None
        if status != 0:
            raise McucompError(f"{self.report['name']}_run returned error {status}.")
        if capture is not None:
            outputs.update(captured)
        return outputs

    @staticmethod
    def _capture_hook(arena, capture, captured):
        """A layer-end hook that copies the listed tensors out of the arena after their step."""
        by_step: dict[int, list] = {}
        for item in capture:
            by_step.setdefault(item[1], []).append(item)

        def on_layer_end(step):
            for name, _, offset, dtype, shp in by_step.get(step, []):
                n = int(np.prod(shp)) * np.dtype(dtype).itemsize
                captured[name] = arena[offset:offset + n].view(dtype).reshape(shp).copy()

        return on_layer_end




def load(out_dir, layer_hook: bool = True) -> HostModel:
    """Compile OUTDIR's C sources (cached by content) into a Python extension and load it.

    With `layer_hook`, <NAME>_LAYER_END calls back into Python after each layer (used by --bisect); the kernels
    and the model code are the very files in OUTDIR either way.
    """
    import cffi

    out_dir = Path(out_dir).resolve()
    report = json.loads((out_dir / "report.json").read_text())
    name = report["name"]
    sources = sorted(out_dir / f for f in report["files"] if f.endswith(".c"))
    digest = hashlib.sha256(f"{HOST_CFLAGS} hook={layer_hook}".encode())
    for src in sorted(out_dir / f for f in report["files"] if f.endswith((".c", ".h"))):
        digest.update(src.name.encode())
        digest.update(src.read_bytes())
    key = digest.hexdigest()[:20]
    module = f"_mcucomp_{name}_{key}"
    build = _cache_root() / key
    build.mkdir(parents=True, exist_ok=True)
    existing = list(build.glob(f"{module}*.so"))
    hook = f"{name}_host_layer_end"
    if not existing:
        defines = []
        if layer_hook:
            (build / "hook.h").write_text(f"void {hook}(int step);\n")
            defines = [f"-D{name.upper()}_LAYER_END(i,n)={hook}(i)", "-include", str(build / "hook.h")]
        objects = _compile_objects(sources, build, defines)
        ffi = cffi.FFI()
        ffi.cdef(_cdef(report) + (f'\nextern "Python+C" void {hook}(int);' if layer_hook else ""))
        ffi.set_source(module, f'#include "{name}.h"', include_dirs=[str(out_dir)], extra_objects=objects,
                       libraries=["m"])
        ffi.compile(tmpdir=str(build), verbose=False)
        existing = list(build.glob(f"{module}*.so"))
    spec = importlib.util.spec_from_file_location(module, existing[0])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module] = mod
    spec.loader.exec_module(mod)
    model = HostModel(out_dir, report, mod.lib, mod.ffi)
    if layer_hook:
        @mod.ffi.def_extern(name=hook)
        def _layer_end(step):
            if model.layer_hook is not None:
                model.layer_hook(step)
    return model


def _cdef(report: dict) -> str:
    """The cffi declaration of <name>_run from the report's I/O list."""
    params = [f"const {s['ctype']} *" for s in report["inputs"]] + [f"{s['ctype']} *" for s in report["outputs"]]
    return f"int {report['name']}_run({', '.join(params + ['void *'])});"
