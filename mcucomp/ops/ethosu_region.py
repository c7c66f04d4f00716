"""One Ethos-U NPU region (made by the NPU partition pass): a call of Arm's driver with Vela's command stream.

The node's attrs hold `region` (mcucomp.npu.vela.VelaRegion: command stream, weights, scratch sizes, I/O regions
and offsets), `layers` (the original layers it replaces) and `config` (the NpuConfig it was compiled for). The
command stream and the weights become const arrays in flash (16-byte aligned, <NAME>_WEIGHTS_SECTION like every
weight); Vela's scratch (and fast scratch) is this call's scratch buffer in mcucomp's arena, so the arena size is
the real total.
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from ..npu.vela import SCRATCH_FAST_REGION, SCRATCH_REGION, WEIGHTS_REGION
from ._layout import NHWC, activations, is_image
from .base import ArrayRef, KernelCall, KernelOp, numel

#: MCU_ETHOSU_MAX_IO and MCU_ETHOSU_MAX_REGIONS in runtime_c/kernels/ethosu_region.h.
MAX_IO = 8
MAX_REGIONS = 8


def _align16(n: int) -> int:
    """n rounded up to a multiple of 16."""
    return (n + 15) & ~15


def scratch_bytes(region) -> int:
    """Bytes of the call's scratch: Vela's scratch, then its fast scratch when the memory mode gives it a size of
    its own, each 16-byte aligned at run time (hence the 15 spare bytes per part: the arena offset of the buffer is
    only aligned to the board's `alignment`)."""
    if region.scratch_fast_bytes:
        return _align16(region.scratch_bytes) + region.scratch_fast_bytes + 31
    return max(region.scratch_bytes, 1) + 15


def _io_fields(g: Graph, name: str, vela_io) -> list[tuple[str, object]]:
    """The mcu_ethosu_io initializer of one region input or output; checks its size against Vela's."""
    t = g.tensors[name]
    vela_bytes = numel(vela_io.shape) * np.dtype(vela_io.dtype).itemsize
    if t.nbytes != vela_bytes:
        raise ValueError(f"NPU region tensor '{name}' has {t.nbytes} bytes, Vela's command stream expects "
                         f"{vela_bytes}")
    if vela_io.region == WEIGHTS_REGION or vela_io.region == SCRATCH_FAST_REGION or vela_io.region >= MAX_REGIONS:
        raise ValueError(f"NPU region tensor '{name}' is in Vela region {vela_io.region}, which the call cannot "
                         "provide")
    if vela_io.region != SCRATCH_REGION and vela_io.offset != 0:
        raise ValueError(f"NPU region tensor '{name}' is at offset {vela_io.offset} of its own region "
                         f"{vela_io.region}; the call points that region's base address at the tensor")
    return [("region", vela_io.region), ("offset", vela_io.offset), ("bytes", t.nbytes)]


def _io_list(g: Graph, names: list[str], vela_ios: list) -> list:
    """The MAX_IO-entry array of mcu_ethosu_io initializers (unused entries zero)."""
    if len(names) != len(vela_ios) or len(names) > MAX_IO:
        raise ValueError(f"NPU region has {len(names)} tensors for Vela's {len(vela_ios)} (at most {MAX_IO})")
    fields = [_io_fields(g, n, v) for n, v in zip(names, vela_ios)]
    return fields + [[("region", 0), ("offset", 0), ("bytes", 0)]] * (MAX_IO - len(fields))


def num_regions(region) -> int:
    """How many base addresses the invoke passes: weights, scratch, fast scratch, and any I/O regions above."""
    return max([SCRATCH_FAST_REGION + 1] + [io.region + 1 for io in region.inputs + region.outputs])


def copy_bytes(node: Node, g: Graph) -> int:
    """Bytes the call copies between mcucomp's tensors and Vela's scratch (I/O placed inside the scratch)."""
    region = node.attrs["region"]
    return sum(g.tensors[n].nbytes for n, io in zip(node.inputs + node.outputs, region.inputs + region.outputs)
               if io.region == SCRATCH_REGION)


class EthosuRegion(KernelOp):
    """A subgraph compiled by Vela for the board's Ethos-U; the C calls ethosu_invoke_v3."""

    name = "ethosu_region"
    cost_paths = ("invoke",)
    needs_npu = "ethos-u"

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_ethosu_region(params{command stream, weights, sizes, I/O places}, {x...}, {y...}, scratch)."""
        region = node.attrs["region"]
        if len(region.command_stream) % 4 or region.command_stream[:4] != b"COP1":
            raise ValueError(f"NPU region '{node.name}': Vela's command stream is not a COP1 driver payload")
        cmd_key, weights_key = f"{node.name}_command_stream", f"{node.name}_npu_weights"
        arrays = {cmd_key: np.frombuffer(region.command_stream, np.uint8),
                  weights_key: np.frombuffer(region.weights or b"\0", np.uint8)}
        params = [
            ("command_stream", ArrayRef(cmd_key)), ("command_stream_bytes", len(region.command_stream)),
            ("weights", ArrayRef(weights_key)), ("weights_bytes", len(region.weights)),
            ("scratch_bytes", region.scratch_bytes), ("scratch_fast_bytes", region.scratch_fast_bytes),
            ("num_regions", num_regions(region)),
            ("n_inputs", len(node.inputs)), ("n_outputs", len(node.outputs)),
            ("inputs", _io_list(g, node.inputs, region.inputs)),
            ("outputs", _io_list(g, node.outputs, region.outputs)),
        ]
        return KernelCall(self.name, params, [tuple(node.inputs), tuple(node.outputs)], arrays,
                          scratch_bytes(region), returns_status=True)

    def channels_last(self, node: Node, g: Graph) -> bool:
        """True when every image the region reads or writes is stored channels-last: the region was written for
        the layouts its tensors had (the partition runs after the layout pass; TFLite's NHWC needs no TRANSPOSE
        there), so it runs channels-last exactly when they all are."""
        images = [g.tensors[n] for n in activations(node, g) if is_image(g.tensors[n].shape)]
        return bool(images) and all(t.layout == NHWC for t in images)

    def macs(self, node: Node, g: Graph) -> int:
        """The MACs of the layers the region replaces, as Vela counts them."""
        return int(node.attrs["region"].summary.get("macs", 0))

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """CPU side of the call: one driver invoke and the bytes copied to and from Vela's scratch (the NPU's own
        cycles are Vela-estimated and reported apart, never added to the CPU's)."""
        return "invoke", {"calls": 1, "copy_bytes": copy_bytes(node, g)}


OP = EthosuRegion()
