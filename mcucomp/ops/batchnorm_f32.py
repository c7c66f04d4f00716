"""Float32 inference BatchNormalization that fold_batchnorm could not fold into a Conv or Gemm (runtime parameters,
no float producer, ...)."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, all_float32, numel, shape


def _inference_mode(node: Node, g: Graph) -> bool:
    """Only inference mode is supported: training_mode = 1 (batch statistics and running mean/variance outputs)
    needs a training runtime; export the model in eval mode."""
    return not node.attrs.get("training_mode", 0) and not any(node.outputs[1:])


def _channel_params(node: Node, g: Graph) -> bool:
    """The input must have rank >= 2 and scale, bias, mean and variance one value per channel (input dim 1)."""
    dims = shape(g, node.inputs[0])
    return len(dims) >= 2 and all(numel(shape(g, n)) == dims[1] for n in node.inputs[1:5])


class BatchNormF32(KernelOp):
    """Per-channel (x - mean) / sqrt(var + epsilon) * scale + bias."""

    name = "batchnorm_f32"
    onnx_ops = ("BatchNormalization",)
    constraints = (all_float32, _inference_mode, _channel_params)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_batchnorm_f32(params, x, scale, bias, mean, var, y)."""
        dims = shape(g, node.inputs[0])
        params = [("n", dims[0]), ("c", dims[1]), ("inner", numel(dims[2:])),
                  ("epsilon", float(node.attrs.get("epsilon", 1e-5)))]
        return KernelCall(self.name, params, [*node.inputs[:5], node.outputs[0]])


OP = BatchNormF32()
