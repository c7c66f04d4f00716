"""The driver stand-in's checks, each shown to fail: it is only worth something if a payload that would fault or be
refused on an Ethos-U is refused here too. Payloads are Vela's real raw output (KWS, ethos-u55-128), mutated."""

from __future__ import annotations

import struct

import pytest

from region_model import write_region_model
from standin_host import build_standin, report_of

COP1_CONFIG_WORD = 2   # word index of the config word (after "COP1" and the config action's tag)
COP1_STREAM_TAG = 7    # word index of the command-stream action's tag (after three NOPs)


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    """(ffi, lib, report, command stream bytes) for KWS compiled for corstone-300's ethos-u55-128."""
    out = tmp_path_factory.mktemp("kws")
    write_region_model(out)
    report = report_of(out)
    ffi, lib = build_standin(tmp_path_factory.mktemp("standin"), report)
    from region_model import vela_region

    _, region = vela_region("kws_ref_model.tflite", "ethos-u55-128", "Ethos_U55_High_End_Embedded", "Shared_Sram")
    return ffi, lib, report, region


class Invoke:
    """One invoke's arguments in 16-byte aligned host buffers, to be spoiled one at a time."""

    def __init__(self, ffi, region):
        self.ffi = ffi
        self.keep = []
        self.payload = bytearray(region.command_stream)
        self.cmd_misalign = 0
        self.sizes = [len(region.weights), region.scratch_bytes, region.scratch_bytes]
        self.bases = [self.aligned(len(region.weights)), self.aligned(region.scratch_bytes), 0]
        self.bases[2] = self.bases[1]
        self.n = 3

    def aligned(self, nbytes: int, misalign: int = 0) -> int:
        """Address of a fresh buffer of nbytes starting `misalign` bytes past a 16-byte boundary."""
        buf = self.ffi.new("uint8_t[]", nbytes + 32)
        self.keep.append(buf)
        address = int(self.ffi.cast("uintptr_t", buf))
        return (address + 15) // 16 * 16 + misalign

    def run(self, lib) -> tuple[int, str]:
        """ethosu_invoke_v3 with these arguments: (status, the stand-in's reason)."""
        cmd = self.aligned(len(self.payload), self.cmd_misalign)
        self.ffi.memmove(self.ffi.cast("uint8_t *", cmd), bytes(self.payload), len(self.payload))
        drv = lib.ethosu_reserve_driver()
        status = lib.ethosu_invoke_v3(drv, self.ffi.cast("void *", cmd), len(self.payload),
                                      self.ffi.new("uint64_t[]", self.bases), self.ffi.new("size_t[]", self.sizes),
                                      self.n, self.ffi.NULL)
        lib.ethosu_release_driver(drv)
        return status, self.ffi.string(lib.fw_ethosu_standin_error()).decode()

    def word(self, index: int, value: int) -> None:
        """Replace one 32-bit word of the payload."""
        self.payload[4 * index:4 * index + 4] = struct.pack("<I", value)

    def get(self, index: int) -> int:
        """One 32-bit word of the payload."""
        return struct.unpack_from("<I", self.payload, 4 * index)[0]


def test_vela_payload_as_generated_passes(standin):
    ffi, lib, _, region = standin
    before = lib.fw_ethosu_standin_invokes()
    assert Invoke(ffi, region).run(lib) == (0, "")
    assert lib.fw_ethosu_standin_invokes() == before + 1


def _spoil_fourcc(inv):
    inv.payload[:4] = b"COP2"


def _spoil_length(inv):
    inv.payload += b"\0\0"


def _spoil_cmd_alignment(inv):
    inv.cmd_misalign = 4


def _spoil_base_alignment(inv):
    inv.bases[1] += 8


def _spoil_weights_size(inv):
    inv.sizes[0] -= 16


def _spoil_scratch_size(inv):
    inv.sizes[1] = inv.sizes[2] = 1024


def _spoil_macs(inv):
    inv.word(COP1_CONFIG_WORD, (inv.get(COP1_CONFIG_WORD) & ~0xF) | 8)   # a stream for 256 MACs/cycle


def _spoil_product(inv):
    inv.word(COP1_CONFIG_WORD, inv.get(COP1_CONFIG_WORD) | (1 << 28))   # a stream for the Ethos-U65


def _spoil_stream_length(inv):
    inv.word(COP1_STREAM_TAG, inv.get(COP1_STREAM_TAG) + (1 << 16))     # declares one word more than there is


def _spoil_action(inv):
    inv.word(4, 0x09)                                                     # a NOP replaced by an unknown action


def _spoil_nop_padding(inv):
    del inv.payload[16:20]                                                # one NOP less: the stream starts at 28


def _spoil_region_count(inv):
    inv.n = 2


@pytest.mark.parametrize("spoil, message", [
    (_spoil_fourcc, "COP1 fourcc"),
    (_spoil_length, "multiple of 4"),
    (_spoil_cmd_alignment, "payload is not 16-byte aligned"),
    (_spoil_nop_padding, "command stream is not 16-byte aligned"),
    (_spoil_base_alignment, "base address is not 16-byte aligned"),
    (_spoil_weights_size, "region 0 (weights) size"),
    (_spoil_scratch_size, "region 1 (scratch) is smaller"),
    (_spoil_macs, "another MAC count"),
    (_spoil_product, "another Ethos-U product"),
    (_spoil_stream_length, "length does not match"),
    (_spoil_action, "unknown driver action"),
    (_spoil_region_count, "num_base_addr"),
], ids=lambda v: v.__name__[7:] if callable(v) else None)
def test_each_check_refuses_what_faults_on_hardware(standin, spoil, message):
    ffi, lib, _, region = standin
    inv = Invoke(ffi, region)
    spoil(inv)
    status, why = inv.run(lib)
    assert status == -1 and message in why, why


def test_invoke_without_a_reserved_driver_is_refused(standin):
    ffi, lib, _, region = standin
    drv = lib.ethosu_reserve_driver()
    lib.ethosu_release_driver(drv)
    status = lib.ethosu_invoke_v3(drv, ffi.NULL, 0, ffi.NULL, ffi.NULL, 0, ffi.NULL)
    assert status == -1 and "reserved driver" in ffi.string(lib.fw_ethosu_standin_error()).decode()
