"""The description of a generated C program that the templates render."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class IOSpec:
    """A graph input or output as the C API shows it."""

    c_name: str
    onnx_name: str
    ctype: str
    shape: tuple[int, ...]
    scale: float | None
    zero_point: int | None
    offset: int | None  # arena offset when the buffer lives in the arena, None when caller-owned
    layout: str = ""  # "nhwc" when stored channels-last (mcucomp.ir.Tensor.layout), "" in ONNX order

    @property
    def size(self) -> int:
        """Number of elements."""
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass
class ArrayConst:
    """A constant array placed in flash."""

    symbol: str
    ctype: str
    data: np.ndarray


@dataclass
class CallSite:
    """One kernel call: function, params struct fields (nested lists of pairs) and C argument expressions."""

    func: str
    params: list[tuple[str, object]]
    args: list[str]
    comment: str
    returns_status: bool = False  # the function returns an int status, passed on by <name>_run when non-zero


@dataclass
class NpuInfo:
    """The Ethos-U configuration a program's command streams were compiled for (they run on nothing else)."""

    accelerator: str        # Vela's name, e.g. "ethos-u55-128"
    product: str            # "U55", "U65" or "U85"
    macs: int               # MACs per cycle
    label: str              # accelerator, Vela system config, memory mode and clock, for comments
    regions: int            # number of NPU region calls


#: Bytes the generated run function pushes at most: r4-r11 and lr (AAPCS callee-saved registers and the return
#: address), 36, kept 8-byte aligned.
RUN_SAVED_BYTES = 40
#: Arguments AAPCS passes in registers (r0-r3); more go on the caller's stack.
REGISTER_ARGS = 4
#: Callee-saved registers (r4-r11) that hold what the run function keeps across its calls before it spills.
SAVED_REGISTERS = 8


def pointer_array_length(arg: str) -> int:
    """Elements of a C99 compound literal array of pointers (`(const void *const[]){a, b}`), 0 for other
    arguments: it lives in the run function's frame for the whole function."""
    if not arg.startswith("(") or "*const[]){" not in arg:
        return 0
    return arg.split("*const[]){", 1)[1].count(",") + 1


@dataclass
class Program:
    """Everything emitted for one model."""

    name: str
    header_comment: list[str]
    inputs: list[IOSpec]
    outputs: list[IOSpec]
    arrays: list[ArrayConst]
    calls: list[CallSite]
    arena_size: int
    runtime_files: list[str]
    copies_in: list[tuple[str, int, int]] = field(default_factory=list)   # (c_name, offset, bytes)
    copies_out: list[tuple[str, int, int]] = field(default_factory=list)
    npu: NpuInfo | None = None  # set when the program calls an Ethos-U NPU
    float_mac: str = "fused"  # the float dot products' form, "fused" or "separate" (MCU_F32_MAC in mcu_rt.h)

    def run_frame_bytes(self) -> int:
        """Upper bound of the stack <name>_run takes while a kernel runs: the registers it saves, its pointer arrays
        (compound literals live until it returns, each in its own slot), the stack arguments of its widest call, a
        spill slot for each value it keeps across calls (the arena's and each I/O's pointer, a constant base
        address) beyond the callee-saved registers, and the stack arguments its own caller passes beyond r0-r3."""
        arrays = sum(4 * pointer_array_length(a) for call in self.calls for a in call.args)
        widest = max((1 + len(call.args) for call in self.calls), default=0)
        pointers = 1 + len(self.inputs) + len(self.outputs)
        spills = max(0, pointers + 1 - SAVED_REGISTERS)
        frame = RUN_SAVED_BYTES + arrays + 4 * max(0, widest - REGISTER_ARGS) + 4 * spills
        return -(-frame // 8) * 8 + 4 * max(0, pointers - REGISTER_ARGS)
