"""avgpool_s8 bit-exact with the integer reference and against onnxruntime: QDQ GlobalAveragePool
(QLinearGlobalAveragePool's integer sum) and AveragePool (an integer window sum requantized by the scale of its tap
count, within 1 LSB; QLinearAveragePool's float sum, bit-exact, in `float` requantization) with asymmetric pads,
stride 2 on odd sizes, count_include_pad both ways, ceil_mode, 1-D and whole-image windows, 1x1 images; channels-last
and `fixed` requantization."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import channels_last, layer_layouts
from qmodels import QModel, check_qmodel

# (op, input shape, attributes)
CASES = [
    ("GlobalAveragePool", (1, 5, 7, 9), {}),
    ("GlobalAveragePool", (2, 3, 1, 1), {}),
    ("GlobalAveragePool", (1, 7, 11), {}),
    ("GlobalAveragePool", (1, 64, 25, 5), {}),
    ("AveragePool", (1, 3, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 2, 1], count_include_pad=1)),
    ("AveragePool", (1, 3, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 2, 1], count_include_pad=0)),
    ("AveragePool", (2, 5, 6, 5), dict(kernel_shape=[2, 3], strides=[2, 2], ceil_mode=1, count_include_pad=1,
                                       pads=[0, 1, 0, 1])),
    ("AveragePool", (2, 5, 6, 5), dict(kernel_shape=[2, 3], strides=[2, 2], ceil_mode=1)),
    ("AveragePool", (1, 3, 7, 8), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 0, 1], ceil_mode=1,
                                       count_include_pad=1)),
    ("AveragePool", (1, 3, 7, 8), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 0, 1], ceil_mode=1)),
    ("AveragePool", (1, 7, 1, 1), dict(kernel_shape=[1, 1])),
    ("AveragePool", (1, 5, 9), dict(kernel_shape=[4], strides=[2], pads=[2, 1], count_include_pad=1)),
    ("AveragePool", (1, 6, 25, 5), dict(kernel_shape=[25, 5])),
    ("GlobalAveragePool", (1, 8, 23, 25), {}),  # channels-last: 575 pixels, two word lanes emptied every 256
    # channels-last windows of 4k channels: four channels per word
    ("AveragePool", (1, 8, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 2, 1], count_include_pad=1)),
    ("AveragePool", (2, 12, 7, 8), dict(kernel_shape=[3, 2], strides=[2, 1], pads=[1, 1, 0, 1], ceil_mode=1)),
    ("AveragePool", (1, 4, 6, 6), dict(kernel_shape=[2, 2], strides=[2, 2])),
]
#: Cases over one-pixel images: lowered to a lut8 (each output its input code requantized by the pool's scale).
ONE_PIXEL = {i for i, (_, shape, _) in enumerate(CASES) if int(np.prod(shape[2:])) == 1}


def _model(boundaries: str, dtype) -> QModel:
    """Every case side by side: DQ → pool → Q."""
    rng = np.random.default_rng(40)
    qm = QModel(dtype)
    off = qm.zp_offset
    for i, (op, shape, attrs) in enumerate(CASES):
        x_scale = float(rng.uniform(0.01, 0.05))
        _, xf = qm.act(f"p{i}", shape, x_scale, int(rng.integers(-40, 40)) + off, boundaries[0])
        qm.node(op, [xf], [f"p{i}_pool"], **attrs)
        out_shape = qm.infer_shape(f"p{i}_pool")
        y_scale = float(np.float32(x_scale * rng.uniform(0.5, 1.2)))
        qm.out(f"p{i}_pool", f"p{i}_y", out_shape, y_scale, int(rng.integers(-30, 30)) + off, boundaries[1])
    return qm


@pytest.mark.parametrize("boundaries,dtype", [("qq", np.int8), ("ff", np.int8), ("fq", np.int8), ("qq", np.uint8)])
def test_qdq_pool(boundaries, dtype, tmp_path):
    """qq: int8 QLinear pools; ff: uint8 (retyped) QLinear pools; fq: float pools (types differ); uint8 graph I/O:
    uint8 QLinear pools. count_include_pad divides by the kernel size, as QLinearAveragePool does; onnxruntime's
    float AveragePool (fq) divides a ceil_mode window hanging past the pads (case 8) by fewer taps, so that case is
    compared with the integer reference only in fq."""
    qm = _model(boundaries, dtype)
    ops = check_qmodel(qm, tmp_path, seeds=range(5), ort_skip=["p8_y", "p8_y_q"] if boundaries == "fq" else [])
    assert [ops[f"p{i}_pool_node"] for i in range(len(CASES))] == \
        ["lut8" if i in ONE_PIXEL else "avgpool_s8" for i in range(len(CASES))]
    assert ONE_PIXEL == {1, 10}


def _pool_shape(shape, attrs) -> tuple[int, ...]:
    """Output shape of an AveragePool (explicit pads, ceil_mode) or of a global pool (no kernel_shape)."""
    if "kernel_shape" not in attrs:
        return tuple(shape[:2]) + (1,) * (len(shape) - 2)
    rank = len(shape) - 2
    pads = attrs.get("pads", [0] * (2 * rank))
    strides = attrs.get("strides", [1] * rank)
    out = []
    for i in range(rank):
        span = shape[2 + i] + pads[i] + pads[i + rank] - attrs["kernel_shape"][i]
        out.append((-(-span // strides[i]) if attrs.get("ceil_mode", 0) else span // strides[i]) + 1)
    return tuple(shape[:2]) + tuple(out)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_qlinear_pools(dtype, tmp_path):
    """com.microsoft QLinearGlobalAveragePool and QLinearAveragePool (QOperator format) on 8-bit graph I/O."""
    rng = np.random.default_rng(41)
    qm = QModel(dtype)
    t = qm.act_dtype.type
    off = qm.zp_offset
    for i, (op, shape, attrs) in enumerate(CASES):
        x_s = float(rng.uniform(0.01, 0.05))
        x = qm.raw_input(f"p{i}_x", shape, dtype)
        inputs = [x, qm.init(f"p{i}_xs", np.float32(x_s)), qm.init(f"p{i}_xz", t(int(rng.integers(-40, 40)) + off)),
                  qm.init(f"p{i}_ys", np.float32(x_s * rng.uniform(0.5, 1.2))),
                  qm.init(f"p{i}_yz", t(int(rng.integers(-30, 30)) + off))]
        qm.node(f"QLinear{op}", inputs, [f"p{i}_y"], domain="com.microsoft", **attrs)
        qm.raw_output(f"p{i}_y", _pool_shape(shape, attrs), dtype)
    ops = check_qmodel(qm, tmp_path, seeds=range(5))
    assert [ops[f"p{i}_y_node"] for i in range(len(CASES))] == \
        ["lut8" if i in ONE_PIXEL else "avgpool_s8" for i in range(len(CASES))]


@pytest.mark.parametrize("boundaries", ["qq", "fq"])
def test_qdq_pool_channels_last(boundaries, tmp_path, monkeypatch):
    """Every case channels-last (mcu_avgpool_s8 pixel by pixel, channels c_in elements apart), bit-exact as above."""
    channels_last(monkeypatch, "avgpool_s8")
    check_qmodel(_model(boundaries, np.int8), tmp_path, seeds=range(3),
                 ort_skip=["p8_y", "p8_y_q"] if boundaries == "fq" else [])
    assert layer_layouts(tmp_path)["avgpool_s8"] == {"nhwc"}


def test_qdq_pool_channels_last_fixed(tmp_path, monkeypatch):
    """Every case channels-last in `fixed` requantization (the divisor's Q31 entry per window), bit-exact with the
    integer reference."""
    channels_last(monkeypatch, "avgpool_s8")
    check_qmodel(_model("qq", np.int8), tmp_path, seeds=range(3), requant="fixed")
    assert layer_layouts(tmp_path)["avgpool_s8"] == {"nhwc"}


@pytest.mark.parametrize("requant", ["float", "fixed"])
def test_qdq_windows_sum_in_integers(requant, tmp_path):
    """QDQ windows smaller than the image run window_int in both requantization modes (divisor table by tap count:
    count_include_pad, ceil_mode windows past the pads), within 1 LSB of onnxruntime."""
    from mcucomp.pipeline import lower_model

    qm = _model("qq", np.int8)
    check_qmodel(qm, tmp_path, seeds=range(3), requant=requant)
    modes = {n.name: n.attrs["mode"] for n in lower_model(qm.model(), requant=requant).order if n.op == "avgpool_s8"}
    whole = [op == "GlobalAveragePool" or i in (10, 12) for i, (op, _, _) in enumerate(CASES)]  # kernel == image
    assert [modes.get(f"p{i}_pool_node") for i in range(len(CASES))] == \
        [None if i in ONE_PIXEL else "global_int" if w else "window_int" for i, w in enumerate(whole)]


def _global_model() -> tuple[QModel, list[tuple[int, ...]]]:
    """QLinearGlobalAveragePool of 4k channels over 1, 256, 257 and 600 pixels, int8 I/O."""
    qm = QModel(np.int8)
    shapes = [(1, 4, 1, 1), (2, 8, 16, 16), (1, 4, 1, 257), (1, 12, 20, 30)]
    for i, shape in enumerate(shapes):
        x = qm.raw_input(f"p{i}_x", shape, np.int8)
        inputs = [x, qm.init(f"p{i}_xs", np.float32(0.02)), qm.init(f"p{i}_xz", np.int8(-3 + 5 * i)),
                  qm.init(f"p{i}_ys", np.float32(0.021)), qm.init(f"p{i}_yz", np.int8(4 - i))]
        qm.node("QLinearGlobalAveragePool", inputs, [f"p{i}_y"], domain="com.microsoft")
        qm.raw_output(f"p{i}_y", shape[:2] + (1, 1), np.int8)
    return qm, shapes


@pytest.mark.parametrize("requant", ["float", "fixed"])
def test_global_pool_lanes_at_extremes(requant, tmp_path, monkeypatch):
    """Channels-last whole-image pools of 4k channels (the word-lane path: 16-bit lanes emptied every 256 pixels)
    on inputs at the ends of the int8 range, uniform and mixed, equal the integer reference bit for bit."""
    import mcucomp
    import mcucomp.host
    from mcucomp.intref import run_lowered
    from mcucomp.pipeline import lower_model

    channels_last(monkeypatch, "avgpool_s8")
    qm, shapes = _global_model()
    model = qm.model()
    mcucomp.compile_model(model, tmp_path, name="m", requant=requant)
    assert layer_layouts(tmp_path)["avgpool_s8"] == {"nhwc"}
    host = mcucomp.host.load(tmp_path, layer_hook=False)
    lowered = lower_model(model, requant=requant)
    rng = np.random.default_rng(42)
    for fill in (-128, 127, "ends"):
        feeds = {f"p{i}_x": (np.full(s, fill, np.int8) if fill != "ends"
                             else rng.choice(np.array([-128, 127], np.int8), s)) for i, s in enumerate(shapes)}
        got, want = host.run(feeds), run_lowered(lowered, feeds)
        for name, value in want.items():
            assert np.array_equal(got[name], value), (fill, name)


@pytest.mark.parametrize("board", ["nucleo-l4r5zi", "disco-f746ng", "nucleo-u575zi", "corstone-300", "nucleo-g0b1re"])
def test_channels_last_pools_on_target_equal_host(board, tmp_path, monkeypatch):
    """On each QEMU core (SXTAB16 lanes on DSP cores, masked unsigned lanes and aligned word loads on the M0+) every
    case channels-last (whole-image and windowed word lanes, the one-channel loops) equals the host build bit for
    bit, in the core's default requantization."""
    import mcucomp
    from mcucomp.target.verify import verify_on_target

    channels_last(monkeypatch, "avgpool_s8")
    mcucomp.compile_model(_model("qq", np.int8).model(), tmp_path, name="m", board=board)
    result = verify_on_target(tmp_path, board, inputs=4, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and all(v == 0 for v in result.mismatching.values()), result.mismatching
