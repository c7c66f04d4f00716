"""quantize_linear against onnxruntime, bit for bit: random floats, exact .5 ties, saturation, per axis; the per-tensor
8-bit path (a multiply by 1 / scale, dividing near ties) on every emulated core."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers import check_nodes
from mcucomp.target.verify import verify_on_target
from target_boards import CORE_BOARDS

# On CORE_BOARDS: QADD/SSAT/USAT on the M4, M7, M33 and M55; the portable C (soft float) on the M0+.


def _floats(rng, scale: float, n: int) -> np.ndarray:
    """Random floats around the int8 range plus exact half-way ties (k + 0.5) * scale and out-of-range values."""
    ties = (rng.integers(-300, 300, n // 4) + 0.5).astype(np.float32) * np.float32(scale)
    wide = rng.uniform(-300, 300, n // 2).astype(np.float32) * np.float32(scale)
    tiny = rng.standard_normal(n - n // 4 - n // 2).astype(np.float32) * np.float32(scale)
    x = np.concatenate([ties, wide, tiny])
    x[:6] = [0.0, -0.0, 1e30, -1e30, np.inf, -np.inf]
    return x


def _near_ties(rng, scale: float, n: int) -> np.ndarray:
    """Floats within 3 ulps of (k + 0.5) * scale across and beyond the 8-bit ranges, of +-512 * scale (where the
    per-tensor path stops dividing), and special values: the cases where x * (1 / scale) may round otherwise."""
    k = np.concatenate([rng.integers(-300, 300, n - 40) + 0.5, np.full(20, 512.0), np.full(20, -512.0)])
    with np.errstate(over="ignore"):  # the largest scale: all but the smallest k overflow to infinities
        x = (k * np.float64(scale)).astype(np.float32)
    x = (x.view(np.int32) + rng.integers(-3, 4, n).astype(np.int32)).view(np.float32)
    specials = [np.nan, -np.nan, np.inf, -np.inf, 1e30, -1e30, 0.0, -0.0, 1e-45, -3e-41, 1.0, -1.0]
    return np.concatenate([np.array(specials, np.float32), x])


#: Scales with an inexact and an exact reciprocal, and the ends of the normal float32 range check_quant_params
#: accepts (the largest one's reciprocal is subnormal).
SCALES = [0.0123, 1.0 / 3.0, 0.1, 3.0, 2.0**-17, 2.0**-40, 2.0**40, 2.0**-126, 3.4e38]


@pytest.mark.parametrize("scale", SCALES)
def test_quantize_per_tensor_near_ties(scale, tmp_path):
    """int8 and uint8 per tensor, inputs at and next to rounding ties and the +-512 bound, NaN and infinities."""
    x = _near_ties(np.random.default_rng(105), scale, 4000)
    inits = {"s": np.float32(scale), "zp": np.int8(-3), "zpu": np.uint8(131)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y_s8"]),
             helper.make_node("QuantizeLinear", ["x", "s", "zpu"], ["y_u8"])]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True)


@pytest.mark.parametrize("scale", [1e-40, 3e38, 0.0, -0.0123, np.inf, np.nan])
def test_quantize_runtime_scale_without_normal_reciprocal(scale, tmp_path):
    """A runtime scale whose reciprocal is not a normal float (or a negative one) keeps onnxruntime's results: the
    per-tensor path then divides every element."""
    x = _near_ties(np.random.default_rng(107), 0.0123, 400)
    feeds = {"x": x, "s": np.array(scale, np.float32)}
    inits = {"zp": np.int8(-3), "zpu": np.uint8(131)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y_s8"]),
             helper.make_node("QuantizeLinear", ["x", "s", "zpu"], ["y_u8"])]
    inputs = {n: (v.dtype, v.shape) for n, v in feeds.items()}
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, exact=True)


@pytest.mark.parametrize("board", CORE_BOARDS)
def test_per_tensor_paths_on_target_equal_host(board, tmp_path):
    """On each QEMU core the per-tensor 8-bit QuantizeLinear (QADD/SSAT and QADD/USAT on DSP cores) and the
    DequantizeLinear back give the host build's bits (the host matches onnxruntime above)."""
    x = _near_ties(np.random.default_rng(106), 0.0123, 1000)
    inits = {"s": np.float32(0.0123), "zp": np.int8(-3), "zpu": np.uint8(131)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y_s8"]),
             helper.make_node("QuantizeLinear", ["x", "s", "zpu"], ["y_u8"]),
             helper.make_node("DequantizeLinear", ["y_s8", "s", "zp"], ["back_s8"]),
             helper.make_node("DequantizeLinear", ["y_u8", "s", "zpu"], ["back_u8"])]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True, board=board)
    result = verify_on_target(tmp_path, board, data={"x": x}, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and all(v == 0 for v in result.mismatching.values()), result.mismatching


@pytest.mark.parametrize("dtype,zp", [(np.int8, -3), (np.uint8, 131), (np.int8, 0)])
def test_quantize_per_tensor(dtype, zp, tmp_path):
    rng = np.random.default_rng(100)
    scale = np.float32(0.0123)
    x = _floats(rng, float(scale), 40000).reshape(8, 5000)
    inits = {"scale": scale, "zp": np.array(zp, dtype)}
    node = helper.make_node("QuantizeLinear", ["x", "scale", "zp"], ["y"])
    check_nodes([node], {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True)


def test_quantize_per_axis_and_default_zero_point(tmp_path):
    rng = np.random.default_rng(101)
    scales = np.array([0.5, 0.031, 0.007, 1.25, 0.2], np.float32)
    x = np.stack([_floats(rng, float(s), 3 * 7) for s in scales], axis=1).reshape(3, 5, 7)
    inits = {"scale": scales, "zp": np.array([0, -5, 7, 127, -128], np.int8), "s1": np.float32(0.05)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "scale", "zp"], ["per_axis"], axis=1),
             helper.make_node("QuantizeLinear", ["x", "s1"], ["uint8_default_zp"])]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True)


def test_quantize_runtime_scale_and_zero_point(tmp_path):
    rng = np.random.default_rng(102)
    scales = np.array([0.5, 0.031, 0.007], np.float32)
    x = np.stack([_floats(rng, float(s), 4 * 5) for s in scales], axis=1).reshape(4, 3, 5)
    feeds = {"x": x, "s": np.array(0.0123, np.float32), "zp": np.array(-3, np.int8), "s_axis": scales,
             "zp_axis": np.array([0, 17, 250], np.uint8)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["per_tensor"]),
             helper.make_node("QuantizeLinear", ["x", "s_axis", "zp_axis"], ["per_axis"], axis=1),
             helper.make_node("QuantizeLinear", ["x", "s"], ["no_zp"])]
    inputs = {n: (v.dtype, v.shape) for n, v in feeds.items()}
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)


@pytest.mark.parametrize("dtype,zp", [(np.int16, -300), (np.uint16, 40000)])
def test_quantize_16bit(dtype, zp, tmp_path):
    rng = np.random.default_rng(103)
    x = (_floats(rng, 100.0, 3 * 7 * 11) * np.float32(1.5)).reshape(3, 7, 11)
    feeds = {"x": x, "zp_in": np.array(zp, dtype)}
    inits = {"s": np.float32(0.75), "zp": np.array(zp, dtype), "s_axis": np.linspace(0.1, 2, 7).astype(np.float32),
             "zp_axis": np.arange(7).astype(dtype) * 1000}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["const_params"]),
             helper.make_node("QuantizeLinear", ["x", "s", "zp_in"], ["runtime_zp"]),
             helper.make_node("QuantizeLinear", ["x", "s_axis", "zp_axis"], ["per_axis"], axis=-2)]
    inputs = {n: (v.dtype, v.shape) for n, v in feeds.items()}
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, opset=21, exact=True)


@pytest.mark.parametrize("axis,block", [(1, 2), (0, 3), (2, 4)])
def test_quantize_blocked(axis, block, tmp_path):
    rng = np.random.default_rng(104)
    dims = [3, 5, 4]
    # onnxruntime's blocked path converts x / scale to int before saturating: keep it inside int32 (no 1e30, inf)
    x = _floats(rng, 0.02, 66)[6:].reshape(dims)
    rng.shuffle(x.reshape(-1))
    sdims = list(dims)
    sdims[axis] = -(-dims[axis] // block)
    feeds = {"x": x, "s": rng.uniform(0.005, 0.05, sdims).astype(np.float32)}
    inits = {"zp": rng.integers(-20, 20, sdims, dtype=np.int8), "zpu": rng.integers(100, 150, sdims, dtype=np.uint8)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y_s8"], axis=axis, block_size=block),
             helper.make_node("QuantizeLinear", ["x", "s", "zpu"], ["y_u8"], axis=axis, block_size=block)]
    inputs = {n: (v.dtype, v.shape) for n, v in feeds.items()}
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, opset=21, exact=True)
