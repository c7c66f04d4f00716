"""The integer reference: a numpy interpreter of the LOWERED graph that defines what every int8 kernel computes.

One module per kernel op (`<kernel>.py` with `OPS`, the kernel op names it evaluates, and
`reference(node, g, mode, *inputs)`, returning the output, or for a multi-output kernel (split) a tuple of one array
per output); the registry is built from the files. Each reference reads only the lowered node's attributes and
constant tensors, never the generated C. Requantizations of integer accumulators follow the
`requant` option the graph was lowered with (`mode`), not a mode recorded on the node, so a kernel that ignores the
option is caught. Kernels whose arithmetic is float32 are evaluated one IEEE operation at a time in the C's order.
The generated C must equal this reference bit for bit (mcucomp.verify)."""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np


def _registry() -> dict:
    """Kernel op name → reference function, from the modules of this package."""
    table = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for op in module.OPS:
            table[op] = module.reference
    return table


REFERENCES = _registry()


def missing_ops(order) -> list[str]:
    """Kernel ops of the schedule without a reference here (sorted, unique)."""
    return sorted({node.op for node in order if node.op not in REFERENCES})


def run_graph(g, order, mode: str, feeds: dict[str, np.ndarray], keep_all: bool = False,
              forced: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Evaluate the lowered graph `g` in schedule `order` on feeds; return the graph outputs (every tensor with
    keep_all). `forced` tensors replace the computed ones as soon as they are produced (teacher forcing)."""
    values = dict(feeds)
    for node in order:
        if node.op not in REFERENCES:
            raise KeyError(f"no integer reference for kernel op '{node.op}' (node '{node.name}')")
        args = [None if not name else values[name] if name in values else g.const(name) for name in node.inputs]
        out = REFERENCES[node.op](node, g, mode, *args)
        for name, value in zip(node.outputs, out if isinstance(out, tuple) else (out,)):  # a tuple: one per output
            forced_value = forced.get(name) if forced else None
            values[name] = np.asarray(value).astype(g.tensors[name].dtype) if forced_value is None else forced_value
    return values if keep_all else {name: values[name] for name in g.outputs}


def run_lowered(lowered, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Evaluate a LoweredModel (mcucomp.pipeline.lower_model's result) on feeds; outputs by graph output name."""
    return run_graph(lowered.graph, lowered.order, lowered.options["requant"], feeds)
