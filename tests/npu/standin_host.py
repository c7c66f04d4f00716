"""Host builds of the Ethos-U driver stand-in (mcucomp/target/firmware/fw_ethosu_standin.c), alone or linked with a
model's generated C, loaded with cffi: the same C file the target firmware links, built with the host gcc and
mcucomp's strict host flags."""

from __future__ import annotations

import json
import subprocess
from importlib import resources
from pathlib import Path

import cffi

from mcucomp.host import HOST_CFLAGS, compile_objects
from mcucomp.target.build import NPU_STANDIN_FILES, npu_expect_header

STANDIN_CDEF = """
struct ethosu_driver;
struct ethosu_driver *ethosu_reserve_driver(void);
void ethosu_release_driver(struct ethosu_driver *drv);
int ethosu_invoke_v3(struct ethosu_driver *drv, const void *custom_data_ptr, const int custom_data_size,
                     uint64_t *const base_addr, const size_t *base_addr_size, const int num_base_addr,
                     void *user_arg);
const char *fw_ethosu_standin_error(void);
int fw_ethosu_standin_invokes(void);
"""


def build_standin(build_dir: Path, report: dict, model_dir: Path | None = None, defines: list[str] = (),
                  cdef: str = ""):
    """Build the stand-in (playing report["npu"]) and, with model_dir, that model's C into one shared library;
    returns (ffi, lib)."""
    build_dir.mkdir(parents=True, exist_ok=True)
    for name in NPU_STANDIN_FILES:
        (build_dir / name).write_text(resources.files("mcucomp.target").joinpath("firmware", name).read_text())
    (build_dir / "fw_npu_expect.h").write_text(npu_expect_header(report))
    sources = [build_dir / "fw_ethosu_standin.c"]
    if model_dir is not None:
        sources += sorted(model_dir / f for f in report["files"] if f.endswith(".c"))
    objects = compile_objects(sources, HOST_CFLAGS + list(defines))
    library = build_dir / "libstandin.so"
    subprocess.run(["cc", "-shared", *map(str, objects), "-o", str(library)], check=True)
    ffi = cffi.FFI()
    ffi.cdef(STANDIN_CDEF + cdef)
    return ffi, ffi.dlopen(str(library))


def report_of(model_dir: Path) -> dict:
    """report.json of a compiled model directory."""
    return json.loads((Path(model_dir) / "report.json").read_text())
