"""conv2d_s8's test cases and the models built from them, shared by the per-path test files (test_conv2d_s8*.py)."""

from __future__ import annotations

import numpy as np

import mcucomp.pipeline
from mcucomp.ops import REGISTRY

from qmodels import QRANGE, ConvCase, QModel, add_qdq_conv, conv_acc, ort_scale, pick_scale

CASES = [
    ConvCase((1, 3, 1, 1), 5, (1, 1)),
    ConvCase((1, 3, 1, 1), 4, (3, 3), pads=[1, 1, 1, 1]),
    ConvCase((1, 5, 7, 9), 7, (3, 3), strides=[2, 2], pads=[0, 1, 2, 1], ties=True),
    ConvCase((2, 5, 7, 6), 5, (3, 3), pads=[1, 1, 1, 1], group=5, act="relu", y_zp=-128, ties=True),
    ConvCase((1, 5, 8, 7), 10, (3, 3), strides=[2, 2], pads=[1, 0, 1, 2], group=5),
    ConvCase((1, 4, 9, 9), 4, (3, 3), dilations=[2, 2], pads=[2, 1, 2, 3], group=4, ties=True),
    ConvCase((1, 6, 13), 6, (5,), strides=[2], pads=[2, 1], group=6),
    ConvCase((1, 6, 6, 7), 9, (2, 3), group=3, dilations=[2, 1]),
    ConvCase((1, 7, 11), 3, (3,), strides=[2], pads=[2, 1], dilations=[2]),
    ConvCase((1, 7, 6, 5), 11, (1, 1), bias=False, ties=True),
    ConvCase((2, 7, 7, 5), 6, (1, 1), strides=[2, 2]),
    ConvCase((1, 64, 25, 5), 64, (3, 3), pads=[1, 1, 1, 1], group=64, act="relu", y_zp=-128),
    ConvCase((1, 64, 25, 5), 24, (1, 1), act="relu", y_zp=-128, ties=True),
    ConvCase((1, 9, 3, 3), 5, (1, 1)),  # pointwise: odd pixel count, c_in % 4 == 1, odd c_out
    ConvCase((1, 1, 13, 6), 5, (5, 4), strides=[2, 2], pads=[2, 1, 2, 2]),  # im2col / local: KWS-like first conv
    ConvCase((1, 6, 5, 5), 3, (3, 3), pads=[1, 1, 1, 1], dilations=[1, 2]),  # im2col / direct: dilated, k % 4 == 2
    ConvCase((1, 6, 9, 8), 6, (3, 3), strides=[2, 2], pads=[1, 1, 0, 0], group=6),  # depthwise 3x3, stride 2
    ConvCase((1, 10, 7, 6), 10, (3, 3), pads=[1, 1, 1, 1], group=10),  # depthwise 3x3: 4 + 4 + 2 channels
    ConvCase((1, 7, 8, 9), 7, (2, 3), strides=[1, 2], pads=[0, 1, 1, 1], group=7),  # depthwise, not 3x3
    ConvCase((1, 16, 6, 6), 8, (1, 1), strides=[2, 2]),  # pointwise, strided
    ConvCase((1, 32, 5, 3), 7, (1, 1)),  # pointwise, k % 16 == 0: the DSP block loop, a lone channel, a lone pixel
    ConvCase((1, 16, 6, 7), 4, (3, 3), pads=[1, 1, 1, 1]),  # im2col k = 144; direct: kernel rows of 48 in one loop
    ConvCase((1, 8, 3, 5), 6, (1, 1)),  # pointwise k = 8: the DSP block loop's 4-tap steps without its 16-tap loop
    # depthwise 3x3 above DW_DEFER channels (pixels one by one), c % 4 == 2; stride 2: never the ring variant
    ConvCase((1, 262, 5, 4), 262, (3, 3), strides=[2, 2], pads=[1, 1, 1, 1], group=262),
    # pointwise on DSP cores with an FPU (mcu_conv2d_s8_pw_sweep / _sweep1): step loops of 4, 32 and 64 taps, k = 8,
    # 16, 32 without the loop, all pairs in one sweep (c_out % 4 == 0) or one a pair (the GEMM block takes c_out % 4), a
    # lone pixel with c_out % 4 == 1, 2, one pixel, the widened buffer's limit (256 taps) and past it (the GEMM block)
    ConvCase((1, 12, 3, 3), 6, (1, 1)),
    ConvCase((1, 8, 2, 5), 12, (1, 1)),
    ConvCase((1, 4, 2, 3), 8, (1, 1)),
    ConvCase((1, 24, 1, 3), 5, (1, 1)),
    ConvCase((1, 16, 3, 3), 4, (1, 1), act="relu", y_zp=-128),
    ConvCase((1, 48, 2, 2), 10, (1, 1)),
    ConvCase((1, 128, 1, 1), 9, (1, 1)),
    ConvCase((1, 256, 1, 3), 6, (1, 1)),
    ConvCase((1, 260, 1, 1), 4, (1, 1)),
    # k % 32 == 0 past one turn: 64 taps a turn, k % 64 == 32 entering the first at its middle (pairs and a lone pixel)
    ConvCase((1, 96, 3, 3), 8, (1, 1)),
    # few_channels (c_in <= 4): VWW's first conv (stride 2, pads at the end only, 8 channels) on 3x3 = 9 pixels
    ConvCase((1, 3, 7, 7), 8, (3, 3), strides=[2, 2], pads=[0, 0, 1, 1]),
    # IC-like, stride 1, all borders, 13 channels (three quads and a lone one), per-tensor weight scale
    ConvCase((1, 3, 6, 7), 13, (3, 3), pads=[1, 1, 1, 1], per_tensor=True),
    ConvCase((1, 4, 5, 6), 6, (3, 3), pads=[1, 0, 1, 2], act="relu", y_zp=-128),  # c_in 4: one quad, two left
    ConvCase((1, 2, 7, 5), 7, (2, 3), strides=[2, 1], pads=[1, 1, 0, 1]),  # c_in 2, kernel rows of 6 bytes
    ConvCase((1, 3, 5, 5), 3, (3, 3), pads=[1, 1, 1, 1]),  # no full quad: the GEMM block alone
    ConvCase((1, 2, 6, 6), 4, (2, 2), dilations=[2, 2], pads=[1, 1, 0, 0]),  # dilated: every window gathered checked
    ConvCase((1, 4, 6, 6), 4, (2, 4), strides=[1, 2], pads=[0, 1, 1, 1]),  # kernel rows of 16 bytes (gathered)
    ConvCase((2, 1, 9, 6), 12, (5, 4), strides=[2, 2], pads=[2, 1, 2, 2], ties=True),  # KWS-like, batch 2
    ConvCase((1, 1, 8, 7), 6, (3, 3), pads=[1, 1, 1, 1]),  # kernel rows of 3 bytes: bytes left only, odd count
    ConvCase((1, 2, 13), 5, (5,), strides=[2], pads=[2, 1]),  # 1-D
    # depthwise 3x3, the DSP assembly's slide bodies (runs of pairs inside the input) beside table pairs: C = 8 and
    # 128 stride 1, C = 16 stride 2, C = 32 with dilated rows
    ConvCase((1, 8, 5, 9), 8, (3, 3), pads=[1, 1, 1, 1], group=8),
    ConvCase((1, 128, 4, 6), 128, (3, 3), pads=[1, 1, 1, 1], group=128, act="relu", y_zp=-128),
    ConvCase((1, 16, 7, 11), 16, (3, 3), strides=[2, 2], pads=[1, 1, 1, 1], group=16),
    ConvCase((1, 32, 7, 6), 32, (3, 3), pads=[2, 1, 2, 1], dilations=[2, 1], group=32),
    ConvCase((1, 16, 4, 7), 16, (3, 3), pads=[1, 1, 1, 1], group=16, per_tensor=True),  # one scale for all channels
    # above DW_DEFER channels with C % 4 == 0: windows inside the input, still pixel by pixel (no slide runs)
    ConvCase((1, 512, 3, 5), 512, (3, 3), pads=[1, 1, 1, 1], group=512),
]



def qdq_model(boundary: str, cases=CASES) -> tuple[QModel, list[dict]]:
    """All cases side by side in one QDQ model."""
    rng = np.random.default_rng(7)
    qm = QModel()
    infos = [add_qdq_conv(qm, f"c{i}", case, rng, boundary) for i, case in enumerate(cases)]
    return qm, infos


def add_qlinearconv(qm: QModel, name: str, case: ConvCase, rng, dtype, w_dtype) -> None:
    """QLinearConv on 8-bit graph I/O; uint8 weights get a per-tensor zero point of 128-ish."""
    cin_g = case.x[1] // case.group
    x_scale, y_zp = float(rng.uniform(0.01, 0.05)), int(rng.integers(-30, 30))
    x_zp = int(rng.integers(-40, 40))
    w_zp = 0
    if np.dtype(dtype) == np.uint8:
        x_zp, y_zp = x_zp + 128, y_zp + 128
    w = rng.integers(-127, 128, (case.m, cin_g) + case.k)
    if np.dtype(w_dtype) == np.uint8:
        w_zp = int(rng.integers(120, 136))
        w = np.clip(w + w_zp, 0, 255)
    w = w.astype(w_dtype)
    w_scale = rng.uniform(0.002, 0.02, 1 if case.per_tensor else case.m).astype(np.float32)
    bias = rng.integers(-3000, 3000, case.m).astype(np.int32)
    x = qm.raw_input(f"{name}_x", case.x, dtype)
    lo, hi = QRANGE[np.dtype(dtype)]
    acc = conv_acc(rng.integers(lo, hi + 1, case.x), x_zp, w, w_zp, bias, case.strides, case.pads, case.dilations,
                   case.group)
    y_scale = pick_scale(acc * ort_scale(x_scale, w_scale, 1.0).reshape((1, -1) + (1,) * (acc.ndim - 2)), rng)
    inputs = [x, qm.init(f"{name}_xs", np.float32(x_scale)), qm.init(f"{name}_xz", np.array(x_zp, dtype)),
              qm.init(f"{name}_w", w), qm.init(f"{name}_ws", w_scale),
              qm.init(f"{name}_wz", np.full(len(w_scale), w_zp, w_dtype)),
              qm.init(f"{name}_ys", np.float32(y_scale)), qm.init(f"{name}_yz", np.array(y_zp, dtype)),
              qm.init(f"{name}_b", bias)]
    qm.node("QLinearConv", inputs, [f"{name}_y"], kernel_shape=list(case.k), strides=case.strides, pads=case.pads,
            dilations=case.dilations, group=case.group)
    qm.raw_output(f"{name}_y", acc.shape, dtype)


def qlinearconv_model(dtype, w_dtype, seed=8) -> QModel:
    """Every case as a QLinearConv side by side."""
    rng = np.random.default_rng(seed)
    qm = QModel(dtype)
    for i, case in enumerate(CASES):
        add_qlinearconv(qm, f"c{i}", case, rng, dtype, w_dtype)
    return qm


def deny_scratch(monkeypatch):
    """Make memory.choose_scratch deny every optional scratch: the group-1 convs take the local or direct path."""
    def deny(g, order, io_in_arena, alignment):
        for node in order:
            if REGISTRY[node.op].scratch_optional(node, g):
                node.attrs["scratch"] = False

    monkeypatch.setattr(mcucomp.pipeline, "choose_scratch", deny)
