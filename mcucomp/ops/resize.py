"""Resize (and Upsample, converted to Resize): nearest, linear and cubic, every coordinate transformation mode.

Shapes, scales, sizes and roi are constant, so the compiler works out, per axis and output coordinate, which input
positions are read and with which weights (in float64, as the ONNX reference does), and the C kernel only gathers:
an output element is the weighted sum over the product of its axes' taps (or, for nearest, a copy of its one source
element). Axes the resize leaves alone get a single tap of weight 1; runs of them are merged.
"""

from __future__ import annotations

import math

import numpy as np

from ..ir import DTYPE_BYTES, Graph, Node
from ._layout import all_images, is_nhwc, to_nhwc_perm
from ._window import text_attr
from .base import MAX_RANK, ArrayRef, KernelCall, KernelOp, contiguous_strides, numel, onnx_shape, shape

MODES = ("nearest", "linear", "cubic")
COORDINATE_MODES = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                    "tf_crop_and_resize")
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _input(node: Node, k: int) -> str:
    """Name of optional input k, or ''."""
    return node.inputs[k] if len(node.inputs) > k else ""


def _attr(node: Node, name: str, default: str) -> str:
    """A string attribute of the Resize node."""
    return text_attr(node.attrs.get(name), default)


def _operands_constant(node: Node, g: Graph) -> bool:
    """Resize's roi, scales and sizes (inputs 1-3) must be constants (bind graph inputs with --const)."""
    return all(not _input(node, k) or g.const(_input(node, k)) is not None for k in (1, 2, 3))


def _scales_or_sizes(node: Node, g: Graph) -> bool:
    """Resize needs scales (input 2) or sizes (input 3)."""
    return any(g.const(_input(node, k)) is not None and g.const(_input(node, k)).size for k in (2, 3))


def _known_modes(node: Node, g: Graph) -> bool:
    """Resize's mode must be nearest, linear or cubic; coordinate_transformation_mode one of half_pixel,
    half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize; nearest_mode one of
    round_prefer_floor, round_prefer_ceil, floor, ceil."""
    return (_attr(node, "mode", "nearest") in MODES
            and _attr(node, "coordinate_transformation_mode", "half_pixel") in COORDINATE_MODES
            and _attr(node, "nearest_mode", "round_prefer_floor") in NEAREST_MODES)


def _dtype_fits_mode(node: Node, g: Graph) -> bool:
    """Resize's cubic mode, and tf_crop_and_resize (which writes extrapolation_value), need float32 data; linear mode
    takes float32, or 8-bit data with at most two resized axes (integer weights); nearest mode copies elements of any
    dtype."""
    dtype = g.tensors[node.inputs[0]].dtype
    if dtype == "float32":
        return True
    if _attr(node, "coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize":
        return False
    mode = _attr(node, "mode", "nearest")
    return mode == "nearest" or (mode == "linear" and dtype in ("int8", "uint8") and _resized_axes(node, g) <= 2)


def _resized_axes(node: Node, g: Graph) -> int:
    """How many axes the resize changes (0 when its geometry is not constant yet)."""
    if not _operands_constant(node, g) or not _scales_or_sizes(node, g):
        return 0
    return sum(resized for *_, resized in axis_plan(node, g))


#: Fraction bits of the integer weights of 8-bit linear resizes (per resized axis).
WEIGHT_BITS = 10


def code_zero_point(g: Graph, name: str) -> int:
    """The zero point of 8-bit data (0 when it has no quantization)."""
    q = g.tensors[name].quant
    return 0 if q is None else int(np.asarray(q.zero_point).reshape(-1)[0])


def integer_weights(tables) -> tuple[np.ndarray, int]:
    """The taps' weights of an 8-bit linear resize as integers (a resized axis's row in units of 2^-WEIGHT_BITS,
    rounded, its largest entry adjusted so that the row sums to exactly 2^WEIGHT_BITS; an untouched axis's weight 1),
    concatenated as the offsets are, and the right shift that divides the product of an output's weights back out."""
    rows, shift = [], 0
    for index, weights, _, _ in tables:
        if weights.shape[1] == 1 and np.all(weights == 1.0):
            rows.append(np.ones(weights.shape, np.int64))
            continue
        q = np.rint(weights * (1 << WEIGHT_BITS)).astype(np.int64)
        q[np.arange(q.shape[0]), np.argmax(q, axis=1)] += (1 << WEIGHT_BITS) - q.sum(axis=1)
        rows.append(q)
        shift += WEIGHT_BITS
    return np.concatenate([r.reshape(-1) for r in rows]).astype(np.int32), shift


def _rank_fits(node: Node, g: Graph) -> bool:
    """Resize supports inputs of rank 1 to 6."""
    return 1 <= len(shape(g, node.inputs[0])) <= MAX_RANK


def _nearest_coeffs(ratio: float, nearest_mode: str) -> list[float]:
    """One-hot weights of the two neighbours (floor, ceil) of a coordinate with this fractional part."""
    if ratio == 1.0:
        return [0.0, 1.0]
    up = {"round_prefer_floor": ratio > 0.5, "round_prefer_ceil": ratio >= 0.5, "floor": False, "ceil": True}
    return [0.0, 1.0] if up[nearest_mode] else [1.0, 0.0]


def _linear_coeffs(ratio: float, scale: float, antialias: bool) -> list[float]:
    """Linear weights; with antialias a triangle filter stretched by 1/scale when downsampling."""
    if not antialias:
        return [1.0 - ratio, ratio]
    scale = min(scale, 1.0)
    start = int(math.floor(-1 / scale) + 1)
    args = (np.arange(start, 2 - start) - ratio) * scale
    coeffs = np.clip(1 - np.abs(args), 0, 1)
    return list(coeffs / coeffs.sum())


def _cubic_kernel(x: float, a: float) -> float:
    """Keys' cubic convolution kernel with coefficient a."""
    x = abs(x)
    if x <= 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def _cubic_coeffs(ratio: float, scale: float, antialias: bool, a: float) -> list[float]:
    """Cubic weights of the four neighbours; with antialias the kernel stretched by 1/scale when downsampling."""
    if not antialias:
        return [_cubic_kernel(1 + ratio, a), _cubic_kernel(ratio, a), _cubic_kernel(1 - ratio, a),
                _cubic_kernel(2 - ratio, a)]
    scale = min(scale, 1.0)
    start = int(math.floor(-2 / scale) + 1)
    coeffs = np.array([_cubic_kernel(scale * (i - ratio), a) for i in range(start, 2 - start)])
    return list(coeffs / coeffs.sum())


def _source_coords(mode: str, in_len: int, out_len: int, scale: float, roi: tuple[float, float]) -> np.ndarray:
    """Input coordinate of each output position under a coordinate_transformation_mode.

    As in the ONNX reference (the node tests' expectations), the output length in these formulas is scale * in_len,
    which onnxruntime replaces by the integer output length: the two differ when scales give a fractional size."""
    y = np.arange(out_len, dtype=np.float64)
    out_width = scale * in_len
    if mode == "align_corners":
        return np.zeros(out_len) if out_width == 1 else y * (in_len - 1) / (out_width - 1)
    if mode == "asymmetric":
        return y / scale
    if mode == "tf_crop_and_resize":
        start, end = roi
        if out_width == 1:
            return np.full(out_len, (end - start) * (in_len - 1) / 2) + start * (in_len - 1)
        return y * (end - start) * (in_len - 1) / (out_width - 1) + start * (in_len - 1)
    if mode == "pytorch_half_pixel":
        return np.full(out_len, -0.5) if out_width == 1 else (y + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        offset = in_len / 2 * (1 - out_len / out_width)
        return offset + (y + 0.5) / scale - 0.5
    return (y + 0.5) / scale - 0.5


def axis_taps(node: Node, in_len: int, out_len: int, scale: float, roi: tuple[float, float]
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per output position of one axis: source indices [out, taps], weights [out, taps] and an extrapolated flag.

    The neighbours are the taps nearest the source coordinate (ties to the lower index), read with edge clamping,
    as in the ONNX reference; nearest mode keeps only the neighbour whose weight is 1.
    """
    mode = _attr(node, "mode", "nearest")
    coord_mode = _attr(node, "coordinate_transformation_mode", "half_pixel")
    antialias = bool(node.attrs.get("antialias", 0))
    a = float(node.attrs.get("cubic_coeff_a", -0.75))
    nearest_mode = _attr(node, "nearest_mode", "round_prefer_floor")
    x = _source_coords(coord_mode, in_len, out_len, scale, roi)
    outside = (x < 0) | (x > in_len - 1) if coord_mode == "tf_crop_and_resize" else np.zeros(out_len, bool)
    ratios = np.where(x == np.floor(x), 1.0, x - np.floor(x))
    coeff = {"nearest": lambda r: _nearest_coeffs(r, nearest_mode),
             "linear": lambda r: _linear_coeffs(r, scale, antialias),
             "cubic": lambda r: _cubic_coeffs(r, scale, antialias, a)}[mode]
    weights = np.array([coeff(float(r)) for r in ratios], np.float64).reshape(out_len, -1)
    n = weights.shape[1]
    pad = -(-n // 2)
    padded = x + pad
    floor = np.floor(padded)
    frac = padded - floor
    if n % 2 == 0:
        offset = np.where(frac == 0, -(n // 2), -(n // 2) + 1)
    else:
        offset = np.where(frac <= 0.5, -((n - 1) // 2), -((n - 1) // 2) + 1)
    index = (floor.astype(np.int64) + offset)[:, None] + np.arange(n)[None, :] - pad
    if node.attrs.get("exclude_outside", 0):
        weights = np.where((index < 0) | (index >= in_len), 0.0, weights)
        sums = weights.sum(axis=1, keepdims=True)
        weights = weights / np.where(sums == 0, 1.0, sums)
    index = np.clip(index, 0, in_len - 1)
    if mode == "nearest":
        pick = np.argmax(weights, axis=1)
        index, weights = index[np.arange(out_len), pick][:, None], np.ones((out_len, 1))
    return index, weights, outside


def axis_plan(node: Node, g: Graph) -> list[tuple[int, int, float, tuple[float, float], bool]]:
    """Per axis: (input length, output length, scale, roi, resized) with ONNX's axes, sizes, scales and
    keep_aspect_ratio_policy rules; the output lengths are the IR's. Axes in the stored order (channel axis last
    when the node runs channels-last)."""
    in_dims = onnx_shape(g, node.inputs[0])
    out_dims = onnx_shape(g, node.outputs[0])
    r = len(in_dims)
    axes = [a % r for a in node.attrs.get("axes", range(r))]
    scales = g.const(_input(node, 2))
    sizes = g.const(_input(node, 3))
    roi_in = g.const(_input(node, 1))
    scale = [1.0] * r
    if sizes is not None and sizes.size:
        ratios = {a: int(s) / in_dims[a] for a, s in zip(axes, sizes.reshape(-1))}
        policy = _attr(node, "keep_aspect_ratio_policy", "stretch")
        if policy != "stretch":
            pick = min if policy == "not_larger" else max
            ratios = dict.fromkeys(axes, pick(ratios.values()))
        for a, s in ratios.items():
            scale[a] = s
    else:
        for a, s in zip(axes, scales.reshape(-1)):
            scale[a] = float(s)
    roi = [(0.0, 1.0)] * r
    if roi_in is not None and roi_in.size:
        flat = [float(v) for v in roi_in.reshape(-1)]
        for i, a in enumerate(axes):
            roi[a] = (flat[i], flat[len(axes) + i])
    plan = []
    for a in range(r):
        identity = (math.isclose(scale[a], 1.0) and out_dims[a] == in_dims[a]
                    and math.isclose(roi[a][0], 0.0) and math.isclose(roi[a][1], 1.0))
        plan.append((in_dims[a], out_dims[a], scale[a], roi[a], a in axes and not identity))
    return [plan[a] for a in to_nhwc_perm(r)] if is_nhwc(node) else plan


def _identity(length: int, stride: int) -> tuple[np.ndarray, np.ndarray, None, int]:
    """The table of an untouched axis: one tap of weight 1 at the same position."""
    return np.arange(length)[:, None], np.ones((length, 1)), None, stride


def axis_tables(node: Node, g: Graph) -> list[tuple[np.ndarray, np.ndarray, np.ndarray | None, int]]:
    """Per kernel axis: source indices [out, taps], weights [out, taps], extrapolated flags (None: never) and the
    input's element stride; each run of untouched axes becomes one single-tap axis."""
    tables, run = [], None  # run: (merged length, stride of its last axis)
    for (in_len, out_len, scale, roi, resized), stride in zip(axis_plan(node, g),
                                                               contiguous_strides(shape(g, node.inputs[0]))):
        if not resized:
            run = (run[0] * out_len, stride) if run else (out_len, stride)
            continue
        if run:
            tables.append(_identity(*run))
            run = None
        tables.append((*axis_taps(node, in_len, out_len, scale, roi), stride))
    if run or not tables:
        tables.append(_identity(*(run or (1, 1))))
    return tables


class Resize(KernelOp):
    """Resize of constant geometry as a gather with precomputed per-axis taps."""

    name = "resize"
    cost_paths = ("nearest", "linear_s8", "weighted_f32")
    onnx_ops = ("Resize",)
    constraints = (_operands_constant, _scales_or_sizes, _known_modes, _dtype_fits_mode, _rank_fits)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_resize(params{rank, out_dims, taps, table, offsets, weights|NULL, iweights|NULL, shift, is_signed,
        zero_point, elem_size, extrapolation}, x, y): float weights for float32 linear/cubic, integer weights for 8-bit
        linear."""
        tables = axis_tables(node, g)
        offsets = []
        for index, _, outside, stride in tables:
            off = index.astype(np.int64) * stride
            if outside is not None:
                off[outside, 0] = -1
            offsets.append(off.reshape(-1))
        starts = np.cumsum([0] + [o.size for o in offsets[:-1]]).tolist()
        nearest = _attr(node, "mode", "nearest") == "nearest"
        dtype = g.tensors[node.inputs[0]].dtype
        integer = not nearest and dtype in ("int8", "uint8")
        keys = (f"{node.name}_offsets", f"{node.name}_weights")
        arrays = {keys[0]: np.concatenate(offsets).astype(np.int32)}
        shift = 0
        if integer:
            arrays[keys[1]], shift = integer_weights(tables)
        elif not nearest:
            arrays[keys[1]] = np.concatenate([w.reshape(-1) for _, w, _, _ in tables]).astype(np.float32)
        pad = [0] * (MAX_RANK - len(tables))
        params = [("rank", len(tables)), ("out_dims", [t[0].shape[0] for t in tables] + pad),
                  ("taps", [t[0].shape[1] for t in tables] + pad), ("table", starts + pad),
                  ("offsets", ArrayRef(keys[0])),
                  ("weights", "NULL" if nearest or integer else ArrayRef(keys[1])),
                  ("iweights", ArrayRef(keys[1]) if integer else "NULL"), ("shift", shift),
                  ("is_signed", int(dtype == "int8")), ("zero_point", code_zero_point(g, node.inputs[0])),
                  ("elem_size", DTYPE_BYTES[dtype]),
                  ("extrapolation", float(node.attrs.get("extrapolation_value", 0.0)))]
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]], arrays)

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per output element two walks over the axes (bounds, then offsets or taps) and a counter step; nearest
        copies one element (a memcpy of its bytes), the weighted modes visit every tap (float multiply-adds, or
        integer ones for 8-bit linear)."""
        mode = _attr(node, "mode", "nearest")
        out = g.tensors[node.outputs[0]]
        terms = {"calls": 1, "elements": out.size, "axis_steps": out.size * len(out.shape)}
        if mode == "nearest":
            return "nearest", {**terms, "bytes": out.nbytes}
        path = "linear_s8" if g.tensors[node.inputs[0]].dtype in ("int8", "uint8") else "weighted_f32"
        return path, {**terms, "taps": self.macs(node, g)}

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout for images: the per-axis tables follow the stored order of the axes (axis_plan)."""
        return all_images(node, g)

    def macs(self, node: Node, g: Graph) -> int:
        """One multiply-add per tap of every output element (0 for nearest)."""
        if _attr(node, "mode", "nearest") == "nearest":
            return 0
        return g.tensors[node.outputs[0]].size * numel(t[0].shape[1] for t in axis_tables(node, g))


OP = Resize()
