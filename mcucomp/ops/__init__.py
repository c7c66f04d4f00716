"""Kernel op registry, built from the one-op-per-file modules in this package."""

from __future__ import annotations

import importlib
import pkgutil

from .base import KernelCall, KernelOp, failed_constraints

REGISTRY: dict[str, KernelOp] = {}
ONNX_OPS: dict[str, list[KernelOp]] = {}  # ONNX op -> candidate kernels, tried in name order


def _load() -> None:
    """Import every op module and register its OP."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name == "base" or info.name.startswith("_"):
            continue  # shared helpers, not ops
        op = importlib.import_module(f"{__name__}.{info.name}").OP
        REGISTRY[op.name] = op
        for onnx_op in op.onnx_ops:
            ONNX_OPS.setdefault(onnx_op, []).append(op)


_load()

__all__ = ["REGISTRY", "ONNX_OPS", "KernelCall", "KernelOp", "failed_constraints"]
