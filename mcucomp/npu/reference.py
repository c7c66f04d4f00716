"""LiteRT run of a region's .tflite (exactly the file handed to Vela): the host reference of an NPU region.

There is no Ethos-U simulator here, so an NPU region's numerics are checked against TFLite's reference kernels
(``OpResolverType.BUILTIN_REF``: no XNNPACK delegate, no optimised kernels with other rounding), which Ethos-U
reproduces bit for bit. Results of this module are "reference-checked", never "NPU-verified".
BUILTIN_REF is right for every operator a region may hold (convolutions, pools, data movement: LiteRT's
optimised int8 kernels compute the same integers). It would not be for ADD: mcucomp's fixed-mode add_s8 matches
LiteRT's optimised ADD, which rounds each operand once where reference_integer_ops::Add rounds twice (about one
pair in 10^6 differs); ADD stays on the CPU (constraints.CPU_ONLY_OPS), so the question does not arise.
"""

from __future__ import annotations

import numpy as np

from mcucomp.errors import McucompError


class LiteRTMissingError(McucompError):
    """ai-edge-litert is not installed but an NPU build is being verified."""


def _interpreter_class():
    """LiteRT's Interpreter and OpResolverType, or a clear error naming the package to install."""
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except ImportError:
        raise LiteRTMissingError(
            "verify of an NPU build checks every NPU region with LiteRT, which is not installed: "
            "pip install 'mcucomp[verify]' (ai-edge-litert==2.3.0), or verify the all-CPU build "
            "(--npu-placement off)."
        ) from None
    return Interpreter, OpResolverType


class RegionReference:
    """A LiteRT interpreter (reference kernels) of one region; run() maps NHWC int8 inputs to outputs."""

    def __init__(self, tflite: bytes):
        interpreter, resolver = _interpreter_class()
        self.interpreter = interpreter(model_content=bytes(tflite),
                                       experimental_op_resolver_type=resolver.BUILTIN_REF)
        self.interpreter.allocate_tensors()

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        """Outputs (TFLite order and layout) for inputs given in the subgraph's input order and layout."""
        it = self.interpreter
        for detail, value in zip(it.get_input_details(), inputs):
            it.set_tensor(detail["index"], np.asarray(value, detail["dtype"]).reshape(detail["shape"]))
        it.invoke()
        return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]


def run_region(tflite: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """One LiteRT run of a region's TFLite bytes."""
    return RegionReference(tflite).run(inputs)
