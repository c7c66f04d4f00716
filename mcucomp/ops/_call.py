"""The C call a kernel op's `call()` describes (KernelCall) and its pointers to constant arrays (ArrayRef): plain data
that the op base class, the cost terms and code generation read."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class ArrayRef:
    """A params field that points at a constant array: a tensor name, or a key of KernelCall.arrays."""

    key: str


@dataclass
class KernelCall:
    """One C kernel call: function and params struct name, struct fields, and tensor arguments in order."""

    func: str
    params: list[tuple[str, object]]
    args: list[str]
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    scratch_bytes: int = 0
    #: True when the C function returns an int status (0 = done) that the model's run function returns on failure.
    returns_status: bool = False
