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
