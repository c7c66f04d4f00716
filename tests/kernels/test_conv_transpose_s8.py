"""conv_transpose_s8 against the integer reference (bit for bit) and onnxruntime (within 1 LSB: onnxruntime runs
DQ → ConvTranspose → Q in float): 2-D strides 1 and 2 with pads and output_padding, groups, dilation, a 1-D case,
per-tensor and per-channel int8 weights, uint8 weights (a weight zero point), no bias, a fused Relu; both requant
modes."""

from __future__ import annotations

import numpy as np
import pytest

from qmodels import QModel, check_qmodel

# (x shape, c_out, kernel, attrs, per-channel weights, weight dtype, bias, relu)
CASES = [
    ((1, 4, 5, 6), 3, (3, 3), {"strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]}, True, np.int8,
     True, False),
    ((1, 3, 4, 4), 2, (2, 2), {"strides": [2, 2]}, True, np.int8, True, True),
    ((1, 4, 3, 5), 6, (3, 2), {"group": 2, "strides": [1, 2], "pads": [0, 1, 2, 0]}, True, np.int8, False, False),
    ((1, 2, 4, 4), 2, (3, 3), {"dilations": [2, 2], "pads": [1, 1, 1, 1]}, False, np.uint8, True, False),
    ((2, 3, 7), 4, (4,), {"strides": [3], "pads": [1, 2]}, True, np.int8, True, False),
]


def _case(qm: QModel, name: str, case, rng: np.random.Generator) -> str:
    """DQ(x), DQ(w), DQ(b) → ConvTranspose → [Relu] → Q; returns the ConvTranspose node's name."""
    x_shape, c_out, kernel, attrs, per_channel, w_dtype, with_bias, relu = case
    group = attrs.get("group", 1)
    c_in = x_shape[1]
    x_scale = float(rng.uniform(0.01, 0.05))
    _, xf = qm.act(f"{name}x", x_shape, x_scale, int(rng.integers(-30, 30)) + qm.zp_offset)
    w_shape = (c_in, c_out // group, *kernel)
    lo = 0 if w_dtype == np.uint8 else -127
    w = rng.integers(lo, lo + 255, w_shape).astype(w_dtype)
    w_scale = rng.uniform(0.005, 0.02, c_out // group if per_channel else ()).astype(np.float32)
    w_zp = np.full(np.shape(w_scale), 131 if w_dtype == np.uint8 else 0, w_dtype)
    wf = qm.const_dq(f"{name}w", w, w_scale, w_zp, axis=1 if per_channel else None)
    inputs = [xf, wf]
    if with_bias:
        b_scale = (np.float32(x_scale) * np.tile(np.broadcast_to(w_scale, (c_out // group,)), group)).astype(np.float32)
        inputs.append(qm.const_dq(f"{name}b", rng.integers(-3000, 3000, c_out).astype(np.int32),
                                  b_scale if per_channel else b_scale[:1].reshape(()), axis=0 if per_channel else None))
    node = f"{name}_ct"
    qm.node("ConvTranspose", inputs, [node], kernel_shape=list(kernel), **attrs)
    y = node
    if relu:
        qm.node("Relu", [y], [f"{name}_relu"])
        y = f"{name}_relu"
    out_shape = qm.infer_shape(y)
    fan = c_in // group * int(np.prod(kernel))
    y_scale = float(x_scale * np.max(w_scale) * 127 * np.sqrt(fan) / 40)
    qm.out(y, f"{name}_y", out_shape, y_scale, (-128 if relu else int(rng.integers(-20, 20))) + qm.zp_offset)
    return f"{node}_node"


@pytest.mark.parametrize("requant", ["float", "fixed"])
def test_qdq_conv_transpose(requant, tmp_path):
    rng = np.random.default_rng(40)
    qm = QModel(np.int8)
    nodes = [_case(qm, f"c{i}", case, rng) for i, case in enumerate(CASES)]
    ops = check_qmodel(qm, tmp_path, seeds=range(3), requant=requant)
    assert [ops[n] for n in nodes] == ["conv_transpose_s8"] * len(CASES)
