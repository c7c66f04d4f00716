"""Float32 Softmax, LogSoftmax and Hardmax along one axis (opset-13 semantics; older models are converted to opset 13
by the frontend, which rewrites their coerce-to-2-D semantics as Flatten → op → Reshape)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._cost import params_dict
from .base import KernelCall, KernelOp, all_float32, numel, shape

#: ONNX op → MCU_SOFTMAX / MCU_LOG_SOFTMAX / MCU_HARDMAX.
MODES = {"Softmax": 0, "LogSoftmax": 1, "Hardmax": 2}


class SoftmaxF32(KernelOp):
    """Softmax-family ops on float32 tensors."""

    name = "softmax_f32"
    cost_paths = tuple(mode.lower() for mode in MODES)
    onnx_ops = tuple(MODES)
    constraints = (all_float32,)

    def lower(self, node: Node, g: Graph) -> None:
        """Record which of the three ops this is."""
        node.attrs["mode"] = MODES[node.op]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_softmax_f32(params{outer, axis_len, inner, mode}, x, y)."""
        dims = shape(g, node.inputs[0])
        axis = node.attrs.get("axis", -1) % max(len(dims), 1)
        params = [("outer", numel(dims[:axis])), ("axis_len", dims[axis] if dims else 1),
                  ("inner", numel(dims[axis + 1:])), ("mode", node.attrs["mode"])]
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]])

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per line (outer x inner) a max, exponentials and a sum over the axis (Softmax, LogSoftmax or Hardmax)."""
        p = params_dict(self.call(node, g))
        path = {v: k for k, v in MODES.items()}[p["mode"]].lower()
        return path, {"calls": 1, "lines": p["outer"] * p["inner"], "elements": g.tensors[node.outputs[0]].size}


OP = SoftmaxF32()
