"""Dropout with its mask output in inference mode (output = input, mask all true).

A Dropout without a mask output that drops nothing is removed by passes/remove_identity.py instead.
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from ._data import operand
from .base import KernelCall, KernelOp


def is_identity(node: Node, g: Graph) -> bool:
    """True when a Dropout passes its input through: training_mode absent or a constant false, or ratio a constant 0
    (ONNX's default ratio 0.5 applies when ratio is absent)."""
    training, ratio = operand(node, 2), operand(node, 1)
    if not training or (g.const(training) is not None and not np.asarray(g.const(training)).reshape(-1)[0]):
        return True
    return bool(ratio) and g.const(ratio) is not None and float(np.asarray(g.const(ratio)).reshape(-1)[0]) == 0.0


def _inference(node: Node, g: Graph) -> bool:
    """Dropout must not drop anything: training_mode must be absent or a constant false, or ratio a constant 0.
    Training-mode dropout draws random numbers, which a compiled model cannot reproduce; bind training_mode and
    ratio with --const when they are graph inputs."""
    return is_identity(node, g)


class Dropout(KernelOp):
    """Copy of the input plus an all-true mask."""

    name = "dropout"
    onnx_ops = ("Dropout",)
    constraints = (_inference,)

    def lower(self, node: Node, g: Graph) -> None:
        """Keep only the data input."""
        node.inputs = node.inputs[:1]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_dropout(params{nbytes, mask_count}, x, y, mask)."""
        y, mask = node.outputs[0], node.outputs[1]
        params = [("nbytes", g.tensors[y].nbytes), ("mask_count", g.tensors[mask].size)]
        return KernelCall(self.name, params, [node.inputs[0], y, mask])


OP = Dropout()
