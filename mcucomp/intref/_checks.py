"""The checks `mcucomp verify` runs on int8 models: the C against the integer reference (bit for bit), the C's outputs
against onnxruntime (share equal, max |Δ| in LSB, top-1), and the layer-local check against onnxruntime with teacher
forcing (each int8 layer fed onnxruntime's own input for it must land within LAYER_LSB_BOUND of onnxruntime's
output for it)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import REFERENCES, missing_ops, run_graph
from ..ops._layout import stored_value

#: A layer fed onnxruntime's input may differ from onnxruntime's output by this many LSB (rounding of the
#: requantization: onnxruntime runs some groups in float, our kernels in integers); more is a bug.
LAYER_LSB_BOUND = 1

#: Kernel ops with 8-bit outputs that the layer-local check compares (the first eight compute; the data movement
#: listed here runs channels-last or not, so onnxruntime's ONNX-order values check its stored order too; others are
#: exact data movement or float).
INT8_KERNELS = ("conv2d_s8", "fc_s8", "add_s8", "mul_s8", "avgpool_s8", "softmax_s8", "lut8", "conv_transpose_s8",
                "maxpool_f32", "concat", "transpose", "depth_to_space", "tile", "expand")


def is_int8_model(order) -> bool:
    """True when the lowered schedule contains an int8 compute kernel (the model is quantized)."""
    return any(node.op in INT8_KERNELS[:8] for node in order)


@dataclass
class OrtAgreement:
    """One graph output of the C against onnxruntime over all inputs: share of values equal, max |Δ| in LSB, top-1."""

    name: str
    elements: int = 0
    equal: int = 0
    max_lsb: int = 0
    top1_compared: int = 0
    top1_equal: int = 0

    def add(self, got: np.ndarray, ref: np.ndarray) -> None:
        """Fold in one input's output; top-1 when the output is a classifier's [1, N > 1]."""
        diff = np.abs(got.astype(np.int64) - ref.astype(np.int64))
        self.elements += diff.size
        self.equal += int(np.count_nonzero(diff == 0))
        self.max_lsb = max(self.max_lsb, int(diff.max()) if diff.size else 0)
        if ref.ndim == 2 and ref.shape[0] == 1 and ref.shape[1] > 1:
            self.top1_compared += 1
            self.top1_equal += int(np.argmax(got) == np.argmax(ref))

    @property
    def share_equal(self) -> float:
        """Fraction of output values equal to onnxruntime's."""
        return self.equal / self.elements if self.elements else 1.0


@dataclass
class LayerCheck:
    """One int8 layer fed onnxruntime's inputs: its max |Δ| in LSB against onnxruntime's output and where."""

    step: int
    layer: str
    op: str
    tensor: str
    elements: int
    differing: int
    max_lsb: int

    @property
    def ok(self) -> bool:
        """Within LAYER_LSB_BOUND."""
        return self.max_lsb <= LAYER_LSB_BOUND


def _as_lowered(value: np.ndarray, dtype: str) -> np.ndarray:
    """onnxruntime's codes in the lowered graph's type (uint8 runs as int8: codes shifted by -128)."""
    if value.dtype == np.uint8 and dtype == "int8":
        return (value.astype(np.int16) - 128).astype(np.int8)
    return value


def ort_tensor_names(g, order, proto) -> list[str]:
    """The lowered tensors the int8 layers read or write that the ONNX model also produces (to expose)."""
    produced = {out for node in proto.graph.node for out in node.output}
    names = []
    for node in order:
        if node.op in INT8_KERNELS:
            for name in [i for i in node.inputs if i] + node.outputs[:1]:
                if name in produced and name not in names:
                    names.append(name)
    return names


def layer_local(g, order, mode: str, ort_values: dict[str, np.ndarray]) -> tuple[list[LayerCheck], list[str]]:
    """Each int8 layer evaluated by the integer reference on onnxruntime's inputs (ONNX order, rearranged into each
    tensor's stored order, ops._layout.stored_value), against onnxruntime's output; returns the checks and the
    layers skipped because onnxruntime does not expose one of their tensors."""
    ort_values = dict(ort_values)
    for node in order:  # a layout conversion's output is its input's tensor in another stored order
        src, dst = node.inputs[0] if node.inputs else "", node.outputs[0]
        if node.op in ("transpose", "reshape") and src in ort_values and dst not in ort_values \
                and g.tensors[src].layout != g.tensors[dst].layout:
            ort_values[dst] = ort_values[src]
    ort_values = {k: stored_value(g, k, v) for k, v in ort_values.items()}
    checks, skipped = [], []
    for step, node in enumerate(order):
        if node.op not in INT8_KERNELS:
            continue
        names = [i for i in node.inputs if i and not g.tensors[i].is_const] + node.outputs[:1]
        if any(n not in ort_values for n in names):
            skipped.append(node.name)
            continue
        args = [None if not i else _as_lowered(ort_values[i], g.tensors[i].dtype) if i in ort_values
                else g.const(i) for i in node.inputs]
        got = np.asarray(REFERENCES[node.op](node, g, mode, *args)).astype(g.tensors[node.outputs[0]].dtype)
        ref = _as_lowered(ort_values[node.outputs[0]], g.tensors[node.outputs[0]].dtype)
        diff = np.abs(got.astype(np.int64).reshape(-1) - ref.astype(np.int64).reshape(-1))
        checks.append(LayerCheck(step, node.name, node.op, node.outputs[0], diff.size, int(np.count_nonzero(diff)),
                                 int(diff.max()) if diff.size else 0))
    return checks, skipped


def reference_outputs(g, order, mode: str, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray] | None:
    """The integer reference's graph outputs, or None when a kernel op of the schedule has no reference."""
    if missing_ops(order):
        return None
    return run_graph(g, order, mode, feeds)
