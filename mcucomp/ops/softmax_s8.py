"""int8 softmax as onnxruntime runs DQ → Softmax → Q: its QLinearSoftmax lookup table when it fuses the group, else
dequantize a row, its float softmax, quantize."""

from __future__ import annotations

import math

import numpy as np

from ..ir import Graph, Node
from .base import ArrayRef, KernelCall, KernelOp, shape

MODES = {"float": 0, "qlinear": 1}  # MCU_SOFTMAX_S8_* in runtime_c/kernels/softmax_s8.h


def qlinear_table(x_scale: float, axis_len: int) -> np.ndarray:
    """QLinearSoftmax's table: entry i = exp((i - 255 + shift) * x_scale), computed in double and stored as float,
    where shift = max(0, log(FLT_MAX / axis_len) - 5) / x_scale keeps the sum of a row finite."""
    xs = float(np.float32(x_scale))
    shift = max(0.0, math.log(float(np.float32(np.finfo(np.float32).max) / np.float32(axis_len))) - 5) / xs
    return np.array([math.exp((i - 255 + shift) * xs) for i in range(256)], np.float32)


class SoftmaxS8(KernelOp):
    """attrs: axis (normalized), mode ('float' | 'qlinear'), ort_u8 (onnxruntime runs the output as uint8),
    x/y scale and zp, qmin, qmax."""

    name = "softmax_s8"
    cost_paths = tuple(MODES)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_softmax_s8(params, x, y, scratch)."""
        a = node.attrs
        dims = shape(g, node.inputs[0])
        axis = a["axis"]
        outer, inner = int(np.prod(dims[:axis])), int(np.prod(dims[axis + 1:]))
        mode = a.get("mode", "float")
        arrays = {}
        table = "NULL"
        if mode == "qlinear":
            arrays[f"{node.name}_table"] = qlinear_table(a["x_scale"], dims[axis])
            table = ArrayRef(f"{node.name}_table")
        # QLinearSoftmax: code = min(round(e * floor(1 / y_scale) / sum) + zp, top) in onnxruntime's type (uint8
        # codes are ours + 128); a product that overflows to inf gives 127 for int8 and the zero point for uint8
        offset = 128 if a.get("ort_u8") else 0
        return KernelCall(
            self.name,
            [("outer", outer), ("axis_len", dims[axis]), ("inner", inner), ("x_scale", a["x_scale"]),
             ("y_scale", a["y_scale"]), ("x_zp", a["x_zp"]), ("y_zp", a["y_zp"]), ("qmin", a["qmin"]),
             ("qmax", a["qmax"]), ("mode", MODES[mode]), ("table", table),
             ("y_mult", float(np.floor(np.float32(1.0) / np.float32(a["y_scale"])))), ("offset", offset),
             ("top", 255 if offset else 127), ("inf_code", a["y_zp"] + offset if offset else 127)],
            [node.inputs[0], node.outputs[0]],
            arrays,
            scratch_bytes=4 * dims[axis],
        )

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per line (outer x inner) a max and a sum over the axis; per element a table lookup and a division
        ('qlinear') or a dequantization, an exponential and a division ('float')."""
        a = node.attrs
        dims = shape(g, node.inputs[0])
        return a.get("mode", "float"), {"calls": 1, "lines": int(np.prod(dims)) // dims[a["axis"]],
                                        "elements": g.tensors[node.outputs[0]].size}


OP = SoftmaxS8()
