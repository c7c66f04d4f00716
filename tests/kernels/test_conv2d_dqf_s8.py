"""conv2d_dqf_s8 bit-exact against onnxruntime: the QDQ convs onnxruntime runs in float (MLAS FMA order, K blocks).

onnxruntime (x86) keeps DQ → Conv → Q in float when the activations stay int8 (8-bit graph I/O) or when a Relu/Clip
between Conv and Q changes the result. Cases cover K beyond one and two MLAS K blocks, output-pixel counts that split
over threads, depthwise, grouped, dilated, 1-D and pointwise convs, 1x1 images and asymmetric pads; several use
power-of-two scale ratios so that many results are exact ties, where a different summation order shows.
"""

from __future__ import annotations

import numpy as np

from qmodels import ConvCase, QModel, add_qdq_conv, check_qmodel

CASES = [
    ConvCase((1, 3, 1, 1), 5, (1, 1), ties=True),
    ConvCase((1, 3, 1, 1), 4, (3, 3), pads=[1, 1, 1, 1]),
    ConvCase((1, 5, 7, 9), 7, (3, 3), strides=[2, 2], pads=[0, 1, 2, 1], ties=True),
    ConvCase((2, 5, 7, 6), 5, (3, 3), pads=[1, 1, 1, 1], group=5, act="relu", ties=True),
    ConvCase((1, 5, 8, 7), 10, (3, 3), strides=[2, 2], pads=[1, 0, 1, 2], group=5),
    ConvCase((1, 6, 6, 7), 9, (2, 3), group=3, dilations=[2, 1], act="clip"),
    ConvCase((1, 7, 11), 3, (3,), strides=[2], pads=[2, 1], dilations=[2]),
    ConvCase((1, 7, 6, 5), 11, (1, 1), bias=False, ties=True),
    ConvCase((1, 20, 9, 7), 6, (3, 3), pads=[1, 1, 1, 1], ties=True),
    ConvCase((1, 45, 6, 5), 5, (3, 3), pads=[1, 0, 1, 1], ties=True),
    ConvCase((1, 64, 25, 5), 64, (3, 3), pads=[1, 1, 1, 1], group=64, act="relu", ties=True),
    ConvCase((1, 64, 25, 5), 64, (1, 1), act="relu", ties=True),
    ConvCase((1, 150, 7, 3), 3, (1, 1), ties=True),
    ConvCase((1, 1, 49, 10), 16, (10, 4), strides=[2, 2], pads=[4, 1, 5, 2], act="relu", y_zp=-128, ties=True),
    ConvCase((1, 7, 9, 6), 1, (1, 1), ties=True),
    ConvCase((1, 3, 7, 5), 1, (3, 3), pads=[1, 1, 1, 1], ties=True),
    ConvCase((1, 24, 8, 11), 24, (2, 11), group=24, ties=True),
    ConvCase((1, 64, 7, 9), 64, (2, 9), group=64, ties=True),
    ConvCase((1, 3, 23, 13), 3, (3, 13), group=3, ties=True),
    ConvCase((1, 1, 5, 11), 4, (3, 11), ties=True),
    ConvCase((1, 2, 4, 6), 6, (4, 1), group=2, ties=True),
    ConvCase((1, 1, 4, 21), 1, (4, 1), ties=True),
    ConvCase((2, 16, 20, 20), 24, (3, 3), pads=[1, 1, 1, 1], ties=True),
    ConvCase((1, 16, 40, 20), 20, (3, 3), pads=[1, 1, 1, 1], ties=True),
    ConvCase((1, 12, 30, 20), 40, (1, 1), ties=True),
]


def test_int8_io_runs_in_float(tmp_path):
    rng = np.random.default_rng(9)
    qm = QModel()
    for i, case in enumerate(CASES):
        add_qdq_conv(qm, f"c{i}", case, rng, "q")
    ops = check_qmodel(qm, tmp_path, seeds=range(10))
    assert [ops[f"c{i}_conv_node"] for i in range(len(CASES))] == ["conv2d_dqf_s8"] * len(CASES)


def test_kept_activation_blocks_fusion(tmp_path):
    """Retyped (uint8) groups whose Relu/Clip is not redundant: onnxruntime runs Conv, the activation and Q in float."""
    rng = np.random.default_rng(10)
    cases = [ConvCase((1, 5, 7, 6), 7, (3, 3), pads=[1, 1, 1, 1], act="relu", y_zp=-20, ties=True),
             ConvCase((1, 6, 6, 7), 6, (3, 3), group=6, act="clip", ties=True),
             ConvCase((1, 9, 5, 5), 8, (1, 1), act="relu", y_zp=3)]
    qm = QModel()
    for i, case in enumerate(cases):
        add_qdq_conv(qm, f"c{i}", case, rng, "f")
    ops = check_qmodel(qm, tmp_path, seeds=range(4))
    assert [ops[f"c{i}_conv_node"] for i in range(len(cases))] == ["conv2d_dqf_s8"] * len(cases)
