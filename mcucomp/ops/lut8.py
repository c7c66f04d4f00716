"""8-bit → 8-bit lookup table: onnxruntime's QLinearSigmoid, QLinearLeakyRelu and the requantized inputs of
QLinearConcat, with the 256-entry table computed at compile time (mcucomp/ops/_lut.py)."""

from __future__ import annotations

import hashlib

import numpy as np

from ..ir import Graph, Node
from ._overlap import elementwise
from ._layout import same_image
from .base import ArrayRef, KernelCall, KernelOp, OverlapMargin


class Lut8(KernelOp):
    """attrs: table (output code per input code, lowest input code first, in the tensors' original 8-bit types),
    x_lo (the lowest input code, as the kernel sees it) and y_shift (added to every output code); the two follow the
    tensors' uint8 → int8 shift (mcucomp.passes.qutil.to_int8_domain)."""

    name = "lut8"

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_lut8(params{count, table}, x, y): the C table is indexed by the input byte (code & 0xff); one 256-byte
        array per distinct table."""
        a = node.attrs
        codes = np.arange(-128, 128)
        table = np.empty(256, np.int8)
        table[codes & 0xFF] = np.asarray(a["table"])[codes - a["x_lo"]] + a["y_shift"]
        # keyed by content: layers with identical tables share one array in flash
        key = f"lut8_table_{hashlib.sha256(table.tobytes()).hexdigest()[:16]}"
        return KernelCall(self.name, [("count", g.tensors[node.outputs[0]].size), ("table", ArrayRef(key))],
                          [node.inputs[0], node.outputs[0]], {key: table})

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout: the loop walks `count` elements in storage order."""
        return same_image(node, g)

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads x[i], then writes y[i] (by groups of four, all read before any is written: a
        write still lands only on bytes of x already read, so the elementwise margin holds)."""
        return elementwise(node, g)


OP = Lut8()
