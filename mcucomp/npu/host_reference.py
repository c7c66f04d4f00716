"""Host verify of an NPU build: the generated C runs on the host, and each ethosu_invoke_v3 it makes is answered by
LiteRT running that region's .tflite (the file handed to Vela) on the bytes at the region's base addresses.

So every CPU layer, the region calls' copies in and out of Vela's scratch and the arena plan are the generated C's
own; only the NPU's arithmetic is the reference's. Results are "reference-checked", not "NPU-verified".
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from .files import read_io
from .reference import RegionReference

#: Host-only stand-in of the Ethos-U driver API the generated C calls: forwards every invoke to a Python callback.
HOST_DRIVER_C = """#include <stdint.h>
#include <stddef.h>
struct ethosu_driver { int unused; };
typedef int (*host_npu_fn)(const void *, int, uint64_t *, const size_t *, int);
static host_npu_fn host_npu;
static struct ethosu_driver host_driver;
void mcucomp_host_npu_set(host_npu_fn fn);
struct ethosu_driver *ethosu_reserve_driver(void);
void ethosu_release_driver(struct ethosu_driver *drv);
int ethosu_invoke_v3(struct ethosu_driver *drv, const void *custom_data_ptr, const int custom_data_size,
                     uint64_t *const base_addr, const size_t *base_addr_size, const int num_base_addr,
                     void *user_arg);
void mcucomp_host_npu_set(host_npu_fn fn) { host_npu = fn; }
struct ethosu_driver *ethosu_reserve_driver(void) { return &host_driver; }
void ethosu_release_driver(struct ethosu_driver *drv) { (void)drv; }
int ethosu_invoke_v3(struct ethosu_driver *drv, const void *custom_data_ptr, const int custom_data_size,
                     uint64_t *const base_addr, const size_t *base_addr_size, const int num_base_addr,
                     void *user_arg)
{
    (void)drv;
    (void)user_arg;
    return host_npu ? host_npu(custom_data_ptr, custom_data_size, base_addr, base_addr_size, num_base_addr) : -1;
}
"""

HOST_DRIVER_CDEF = "void mcucomp_host_npu_set(int (*)(const void *, int, uint64_t *, const size_t *, int));"


class NpuHost:
    """The Python side of the stand-in: LiteRT interpreters by command-stream hash, and the last failure."""

    def __init__(self, out_dir: Path, report: dict):
        self.regions = {}
        for spec in report["npu"]["regions"]:
            tflite = (Path(out_dir) / spec["tflite"]).read_bytes()
            self.regions[spec["command_stream_sha256"]] = (RegionReference(tflite), spec)
        self.error: BaseException | None = None
        self.invocations = 0
        #: When a list: the bytes of every region output written, in call order (on-target verify replays them).
        self.record: list[bytes] | None = None

    def invoke(self, ffi, cmd, length: int, base, sizes, count: int) -> int:
        """Run the region whose command stream is at `cmd` with LiteRT; 0, or -1 after recording the error."""
        try:
            key = hashlib.sha256(ffi.buffer(ffi.cast("const char *", cmd), length)).hexdigest()
            reference, spec = self.regions[key]

            def memory(region: int) -> np.ndarray:
                """The bytes of one base-address region, writable."""
                if region >= count:
                    raise ValueError(f"region {region} has no base address (only {count})")
                return np.frombuffer(ffi.buffer(ffi.cast("char *", base[region]), sizes[region]), np.uint8)

            outputs = reference.run([read_io(memory(io["region"]), io) for io in spec["inputs"]])
            for io, value in zip(spec["outputs"], outputs):
                target = memory(io["region"])
                data = np.ascontiguousarray(value).view(np.uint8).reshape(-1)
                target[io["offset"]:io["offset"] + io["bytes"]] = data
                if self.record is not None:
                    self.record.append(data.tobytes())
            self.invocations += 1
            return 0
        except BaseException as exc:  # reported by HostModel.run: the C only sees the driver's error code
            self.error = exc
            return -1


def attach(ffi, lib, out_dir: Path, report: dict) -> NpuHost:
    """Install the LiteRT-backed stand-in in a loaded host library; keep the returned object alive with it."""
    host = NpuHost(out_dir, report)
    host.callback = ffi.callback("int(const void *, int, uint64_t *, const size_t *, int)",
                                 lambda *a: host.invoke(ffi, *a))
    lib.mcucomp_host_npu_set(host.callback)
    return host
