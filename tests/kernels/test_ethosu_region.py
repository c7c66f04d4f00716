"""ethosu_region: the generated C of an NPU region (Vela's raw output of MLPerf Tiny KWS) built on the host with the
driver stand-in: base addresses and sizes pass its checks, the I/O goes through Vela's scratch, a refusal by the
driver comes back as the model's error code, and each memory mode lays out its scratch."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[1] / "npu")]

from mcucomp.boards import load_board  # noqa: E402
from mcucomp.ops import REGISTRY  # noqa: E402
from mcucomp.pipeline import plan_lowered, write_planned  # noqa: E402
from mcucomp.ops.ethosu_region import scratch_bytes  # noqa: E402
from region_model import region_lowered, vela_region, write_region_model  # noqa: E402
from standin_host import build_standin, report_of  # noqa: E402

RUN_CDEF = "int npu_model_run(const int8_t *in0, int8_t *out0, void *arena);"


def _host_model(tmp_path, defines=(), **kwargs):
    """(ffi, lib, report) of the region model compiled for corstone-300 and built with the stand-in."""
    out = tmp_path / "model"
    write_region_model(out, **kwargs)
    report = report_of(out)
    ffi, lib = build_standin(tmp_path / "build", report, out, list(defines), RUN_CDEF)
    return ffi, lib, report


def _run(ffi, lib, report, x: np.ndarray):
    """npu_model_run on x with a 16-byte aligned arena: (status, output bytes)."""
    raw = ffi.new("uint8_t[]", report["arena_bytes"] + 16)
    arena = ffi.cast("void *", (int(ffi.cast("uintptr_t", raw)) + 15) // 16 * 16)
    y = ffi.new("int8_t[]", 12)
    ffi.memmove(y, b"\x55" * 12, 12)
    status = lib.npu_model_run(ffi.from_buffer("int8_t[]", x), y, arena)
    return status, bytes(ffi.buffer(y))


def test_region_call_passes_the_standin_and_copies_io_through_the_scratch(tmp_path):
    """Vela puts KWS's input and output both at offset 0 of the scratch (region 1): the stand-in computes nothing,
    so the output read back from offset 0 is the first 12 bytes of the input copied there."""
    ffi, lib, report = _host_model(tmp_path)
    x = np.arange(490, dtype=np.int64).astype(np.int8)
    status, y = _run(ffi, lib, report, x)
    assert status == 0, ffi.string(lib.fw_ethosu_standin_error())
    assert lib.fw_ethosu_standin_invokes() == 1
    assert y == x[:12].tobytes()


def test_driver_refusal_is_the_models_error_and_outputs_stay_unwritten(tmp_path):
    """A stand-in playing an ethos-u55-256 refuses the ethos-u55-128 stream: <NAME>_ERR_NPU_INVOKE (-3)."""
    ffi, lib, report = _host_model(tmp_path, ["-DFW_NPU_MACS_LOG2=8"])
    status, y = _run(ffi, lib, report, np.zeros(490, np.int8))
    assert status == -3
    assert y == b"\x55" * 12
    assert "MAC count" in ffi.string(lib.fw_ethosu_standin_error()).decode()


@pytest.mark.parametrize("npu, system_config, memory_mode", [
    ("ethos-u65-256", "Ethos_U65_High_End", "Dedicated_Sram_384KB"),
    ("ethos-u85-256", None, None),
])
def test_memory_modes_and_products(tmp_path, npu, system_config, memory_mode):
    """Dedicated_Sram gives Vela's fast scratch a size of its own (placed after the scratch, 16-byte aligned, not
    overlapping it); the U85 places I/O at non-zero scratch offsets. Both pass the stand-in playing their NPU."""
    ffi, lib, report = _host_model(tmp_path, npu=npu, system_config=system_config, memory_mode=memory_mode)
    region = report["npu"]["regions"][0]
    assert (region["scratch_fast_bytes"] > 0) == (memory_mode is not None)
    status, _ = _run(ffi, lib, report, np.zeros(490, np.int8))
    assert status == 0, ffi.string(lib.fw_ethosu_standin_error())
    assert report["arena_bytes"] >= region["scratch_bytes"] + region["scratch_fast_bytes"] + 490 + 12


def test_scratch_is_one_arena_buffer_and_constants_are_aligned_flash_arrays(tmp_path):
    out = tmp_path / "model"
    report = write_region_model(out)
    (layer,) = [row for row in report["layers"] if row["op"] == "ethosu_region"]
    scratch = [t for t in report["tensors"] if t["kind"] == "scratch"]
    assert len(scratch) == 1 and scratch[0]["bytes"] >= 22192
    weights_c = (out / "npu_model_weights.c").read_text()
    for symbol in ("command_stream[3664]", "npu_weights[31104]"):
        line = next(line for line in weights_c.splitlines() if symbol in line)
        assert line.startswith("const uint8_t ") and "NPU_MODEL_WEIGHTS_SECTION NPU_MODEL_ALIGN16" in line
    header = (out / "npu_model.h").read_text()
    assert '#define NPU_MODEL_NPU_CONFIG "ethos-u55-128"' in header and "int ethosu_invoke_v3(" in header


def test_scratch_bytes_leave_room_to_align_each_part():
    _, shared = vela_region("kws_ref_model.tflite", "ethos-u55-128", "Ethos_U55_High_End_Embedded", "Shared_Sram")
    _, dedicated = vela_region("kws_ref_model.tflite", "ethos-u65-256", "Ethos_U65_High_End", "Dedicated_Sram_384KB")
    assert scratch_bytes(shared) == shared.scratch_bytes + 15
    assert scratch_bytes(dedicated) == (dedicated.scratch_bytes + 15) // 16 * 16 + dedicated.scratch_fast_bytes + 31


def test_call_refuses_a_tensor_that_is_not_the_size_vela_compiled_for():
    cfg, region = vela_region("kws_ref_model.tflite", "ethos-u55-128", "Ethos_U55_High_End_Embedded", "Shared_Sram")
    lowered = region_lowered(cfg, region)
    g, (node,) = lowered.graph, lowered.order
    g.tensors["in0"].shape = (49, 10, 2)
    with pytest.raises(ValueError, match="Vela's command stream expects 490"):
        REGISTRY["ethosu_region"].call(node, g)


def test_io_in_its_own_region_is_passed_in_place_and_must_be_aligned(tmp_path):
    """An input Vela puts in a region of its own (region 3, as with --separate-io-regions) becomes that region's
    base address, no copy: with --io caller the caller's buffer itself, which must be 16-byte aligned
    (<NAME>_ERR_ALIGN otherwise, before the driver is reached)."""
    import dataclasses

    cfg, region = vela_region("kws_ref_model.tflite", "ethos-u55-128", "Ethos_U55_High_End_Embedded", "Shared_Sram")
    region = dataclasses.replace(region, inputs=[dataclasses.replace(region.inputs[0], region=3)])
    planned = plan_lowered(region_lowered(cfg, region, io="caller"), "npu_model", load_board("corstone-300"),
                           "kws", "test")
    report = write_planned(planned, tmp_path / "model").report
    assert report["arena_bytes"] < region.scratch_bytes + 32  # no copy of the input in the arena
    ffi, lib = build_standin(tmp_path / "build", report, tmp_path / "model", [], RUN_CDEF)
    raw = ffi.new("uint8_t[]", report["arena_bytes"] + 16 + 490 + 32)
    base = (int(ffi.cast("uintptr_t", raw)) + 15) // 16 * 16
    arena, x = ffi.cast("void *", base), (base + report["arena_bytes"] + 15) & ~15
    y = ffi.new("int8_t[]", 12)
    assert lib.npu_model_run(ffi.cast("int8_t *", x), y, arena) == 0, ffi.string(lib.fw_ethosu_standin_error())
    assert lib.npu_model_run(ffi.cast("int8_t *", x + 4), y, arena) == -2
    assert lib.fw_ethosu_standin_invokes() == 1


@pytest.mark.parametrize("base_addr", ["uint64_t *const base_addr", "const uint64_t *base_addr"])
def test_header_compiles_with_the_drivers_own_header_included_first(tmp_path, base_addr):
    """An application including ethosu_driver.h (either form of ethosu_invoke_v3's base_addr) before <name>.h."""
    import subprocess

    out = tmp_path / "model"
    write_region_model(out)
    (tmp_path / "ethosu_driver.h").write_text(
        "#ifndef ETHOSU_DRIVER_H\n#define ETHOSU_DRIVER_H\n#include <stddef.h>\n#include <stdint.h>\n"
        "struct ethosu_driver;\nstruct ethosu_driver *ethosu_reserve_driver(void);\n"
        "void ethosu_release_driver(struct ethosu_driver *drv);\n"
        "int ethosu_invoke_v3(struct ethosu_driver *drv, const void *custom_data_ptr, const int custom_data_size, "
        f"{base_addr}, const size_t *base_addr_size, const int num_base_addr, void *user_arg);\n#endif\n")
    (tmp_path / "app.c").write_text('#include "ethosu_driver.h"\n#include "npu_model.h"\n'
                                    "int app(void);\nint app(void) { return NPU_MODEL_NPU_MACS; }\n")
    flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only"]
    proc = subprocess.run(["cc", *flags, "-I", str(tmp_path), "-I", str(out), str(tmp_path / "app.c")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
