"""Build the generated C on the host with cffi and run it from Python (the same sources as for the target)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import numpy as np

from .errors import McucompError

#: Flags for the generated sources on the host: strict C99, no FP contraction, no fast-math.
HOST_CFLAGS = ["-std=c99", "-O2", "-ffp-contract=off", "-fno-fast-math", "-Wall", "-Wextra", "-Werror",
               "-pedantic", "-fPIC"]


def _cache_root() -> Path:
    """Where host builds are kept, keyed by source hash (MCUCOMP_CACHE overrides)."""
    return Path(os.environ.get("MCUCOMP_CACHE", Path.home() / ".cache" / "mcucomp")) / "host"


def _include_closure(src: Path, seen: set[Path]) -> None:
    """Add src and every quoted #include it reaches (resolved next to it) to `seen`."""
    if src in seen or not src.exists():
        return
    seen.add(src)
    for line in src.read_text(errors="replace").splitlines():
        line = line.strip()
        if line.startswith("#include \""):
            _include_closure(src.parent / line.split('"')[1], seen)


def compile_objects(sources: list[Path], flags: list[str]) -> list[Path]:
    """Compile each C file with `flags`; objects are cached by the content of the file and the headers it includes.

    Runtime kernels are byte-identical across models of the same name, so they compile once per cache.
    """
    cc = os.environ.get("CC", "cc")
    objects = []
    for src in sources:
        closure: set[Path] = set()
        _include_closure(src, closure)
        digest = hashlib.sha256(f"{cc} {flags}".encode())
        for path in sorted(closure, key=lambda p: p.name):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
        obj = _cache_root().parent / "obj" / f"{src.stem}-{digest.hexdigest()[:24]}.o"
        if not obj.exists():
            obj.parent.mkdir(parents=True, exist_ok=True)
            tmp = obj.with_suffix(f".{os.getpid()}.tmp")
            proc = subprocess.run([cc, *flags, "-I", str(src.parent), "-c", str(src), "-o", str(tmp)],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise McucompError(f"The host C compiler failed on {src.name}: {proc.stderr.strip()[:2000]}")
            os.replace(tmp, obj)  # atomic, so concurrent builds never see a half-written object
        objects.append(obj)
    return objects


def _build_library(sources: list[Path], defines: list[str], library: Path) -> None:
    """Compile the generated C files with HOST_CFLAGS and link them into one shared library."""
    objects = compile_objects(sources, HOST_CFLAGS + defines)
    tmp = library.with_suffix(f".{os.getpid()}.tmp")
    proc = subprocess.run([os.environ.get("CC", "cc"), "-shared", *map(str, objects), "-o", str(tmp), "-lm"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise McucompError(f"Linking the generated sources failed: {proc.stderr.strip()[:2000]}")
    os.replace(tmp, library)


class HostModel:
    """A compiled model loaded in this process; `run` takes and returns dicts of numpy arrays."""

    def __init__(self, out_dir: Path, report: dict, lib, ffi):
        self.out_dir, self.report, self._lib, self._ffi = out_dir, report, lib, ffi
        self._run = getattr(lib, f"{report['name']}_run")
        self.layer_hook = None
        self.npu = None  # mcucomp.npu.host_reference.NpuHost for builds with Ethos-U regions

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
            arr = np.require(feeds[spec["name"]], requirements="C")  # unlike ascontiguousarray, keeps rank 0
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
            if self.npu is not None and self.npu.error is not None:
                error, self.npu.error = self.npu.error, None
                raise McucompError(f"{self.report['name']}_run failed in an NPU region's LiteRT reference: "
                                   f"{type(error).__name__}: {error}") from error
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
    """Compile OUTDIR's C sources (cached by content) into a shared library and load it with cffi.

    With `layer_hook`, <NAME>_PROFILE_END calls back into Python after each layer (used by --bisect) through a small
    host-only shim; the kernels and the model code are the very files in OUTDIR either way.
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
    build = _cache_root() / key
    build.mkdir(parents=True, exist_ok=True)
    library = build / f"lib{name}.so"
    hook = f"{name}_host_layer_end"
    defines = []
    if layer_hook:
        (build / "hook.h").write_text(f"void {hook}(int step);\n")
        (build / "hook.c").write_text(_HOOK_SHIM.format(hook=hook))
        defines = [f"-D{name.upper()}_PROFILE_END(i)={hook}(i)", "-include", str(build / "hook.h")]
        sources = sources + [build / "hook.c"]
    npu = bool(report.get("npu") and report["npu"].get("regions"))
    if npu:  # Ethos-U regions: the driver API answered by LiteRT (mcucomp/npu/host_reference.py)
        from .npu.host_reference import HOST_DRIVER_C

        (build / "ethosu_host.c").write_text(HOST_DRIVER_C)
        sources = sources + [build / "ethosu_host.c"]
    if not library.exists():
        _build_library(sources, defines, library)
    ffi = cffi.FFI()
    ffi.cdef(_cdef(report) + (f"\nvoid {hook}_set(void (*)(int));" if layer_hook else ""))
    if npu:
        from .npu.host_reference import HOST_DRIVER_CDEF

        ffi.cdef(HOST_DRIVER_CDEF)
    lib = ffi.dlopen(str(library))
    model = HostModel(out_dir, report, lib, ffi)
    if npu:
        from .npu.host_reference import attach

        model.npu = attach(ffi, lib, out_dir, report)
    if layer_hook:
        def _layer_end(step):
            if model.layer_hook is not None:
                model.layer_hook(step)

        model._callback = ffi.callback("void(int)", _layer_end)  # kept alive as long as the model
        getattr(lib, f"{hook}_set")(model._callback)
    return model


#: Host-only shim behind <NAME>_PROFILE_END: forwards each layer's end to a Python callback.
_HOOK_SHIM = """typedef void (*host_hook_fn)(int);
static host_hook_fn host_hook;
void {hook}_set(host_hook_fn fn);
void {hook}(int step);
void {hook}_set(host_hook_fn fn) {{ host_hook = fn; }}
void {hook}(int step) {{ if (host_hook) host_hook(step); }}
"""


def _cdef(report: dict) -> str:
    """The cffi declaration of <name>_run from the report's I/O list."""
    params = [f"const {s['ctype']} *" for s in report["inputs"]] + [f"{s['ctype']} *" for s in report["outputs"]]
    return f"int {report['name']}_run({', '.join(params + ['void *'])});"
