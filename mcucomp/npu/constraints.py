"""Which lowered layers can run on the Ethos-U: one small function per constraint, its docstring the user message.

Two kinds of constraint, both Vela style (`(node, g, cfg) -> bool`, True = satisfied):
- Vela 5.2's own documented limits for the TFLite operator mcucomp writes (data types, batch 1, stride, weight
  zero points, kernel sizes, weight sums), so a layer Vela would refuse never reaches it;
- bit-exactness: a layer goes to the NPU only when TFLite's integer arithmetic (what LiteRT's reference kernels
  and Ethos-U compute) equals mcucomp's fixed-mode arithmetic for it. Layers mcucomp computes in float32
  (onnxruntime's QLinearAdd/QLinearMul, LUTs built in float, windowed float average pools) stay on the CPU.

docs/SUPPORTED_NPU_OPS.md is generated from these docstrings (bench/npu_ops_doc.py --update).
"""

from __future__ import annotations

import numpy as np

from mcucomp.ir import Graph, Node

#: The IR kernel op → the TFLite operator(s) mcucomp writes for it (mcucomp/npu/tflite_writer.py).
TFLITE_OPS = {
    "conv2d_s8": "CONV_2D, DEPTHWISE_CONV_2D (+ PAD for pads other than SAME)",
    "fc_s8": "FULLY_CONNECTED when its requant rounds once (LiteRT's FULLY_CONNECTED does), else a 1x1 CONV_2D "
             "between RESHAPEs (two roundings, as LiteRT's CONV_2D)",
    "avgpool_s8": "DEPTHWISE_CONV_2D with all-one weights (the integer whole-window average)",
    "reshape": "RESHAPE",
    "maxpool_f32": "MAX_POOL_2D (int8 data)",
    "concat": "CONCATENATION",
    "resize": "RESIZE_NEAREST_NEIGHBOR",
    "transpose": "no operator of its own (a layout conversion: one NHWC tensor on the NPU; a TRANSPOSE where a "
                 "channels-first tensor enters or leaves a region)",
}

#: Why a kernel op with no TFLite writer stays on the CPU (ops not listed: "no NPU lowering in mcucomp").
#: Add, Mul and the TFLite activation tables: with --requant float mcucomp computes them in float32 (onnxruntime's
#: arithmetic); with --requant fixed it computes exactly LiteRT's int8 ADD / MUL / LOGISTIC / TANH / HARD_SWISH /
#: LEAKY_RELU, but those derive their multipliers (or table) from the tensors' absolute scales, while a region's
#: written activation scales are powers of two (tflite_writer: the only choice that makes every convolution's
#: TFLite multiplier equal mcucomp's float32-derived one). On IC ResNet-8 the three Adds' multipliers from the
#: written scales differ from mcucomp's (3 of 3), and writing the real scales instead round-trips 4 of 336
#: convolution channels, so neither choice keeps an NPU build bit-equal to the CPU build
#: (tests/npu/test_constraints.py checks the Add half).
_SCALE_CONFLICT = ("with --requant fixed mcucomp computes TFLite's int8 {op} exactly, but TFLite derives its "
                   "{what} from the tensors' absolute scales, which an NPU region cannot write next to its "
                   "convolutions (their written scales are powers of two so that their multipliers equal mcucomp's), "
                   "so it stays on the CPU to keep NPU builds bit-equal to CPU builds; ")
_FLOAT_MODE = "with --requant float it is computed in float32 (onnxruntime's arithmetic), which no NPU reproduces."
CPU_ONLY_OPS = {
    "add_s8": "int8 Add: " + _SCALE_CONFLICT.format(op="ADD", what="three multipliers") + _FLOAT_MODE,
    "mul_s8": "int8 Mul: " + _SCALE_CONFLICT.format(op="MUL", what="multiplier") + _FLOAT_MODE,
    "softmax_s8": "int8 Softmax: mcucomp's arithmetic (onnxruntime's, via float32) differs from TFLite's and "
                  "Ethos-U's exp lookup table, so it stays on the CPU to keep NPU builds bit-equal.",
    "lut8": "int8 lookup table (an activation such as Sigmoid, Tanh, HardSwish or LeakyRelu, or a rescale folded into "
            "a table): " + _SCALE_CONFLICT.format(op="LOGISTIC / TANH / HARD_SWISH / LEAKY_RELU", what="table")
            + "other tables (and every table with --requant float) are built in float32 with mcucomp's own math, "
              "which Vela's tables do not reproduce.",
}

_INT8 = ("int8",)


def _tensors(node: Node, g: Graph, kind: str) -> list:
    """The non-constant input or output tensors of a node."""
    names = node.inputs if kind == "in" else node.outputs
    return [g.tensors[n] for n in names if n and not g.tensors[n].is_const]


# -- every NPU layer -----------------------------------------------------------------------------------------------
def int8_feature_maps(node: Node, g: Graph, cfg) -> bool:
    """Feature maps (layer inputs and outputs) must be int8: mcucomp hands Vela int8 subgraphs only."""
    return all(t.dtype in _INT8 for t in _tensors(node, g, "in") + _tensors(node, g, "out"))


def quantized_feature_maps(node: Node, g: Graph, cfg) -> bool:
    """Feature maps must have one zero point each, per tensor (Vela: 'Input(s), Output and Weight tensors must
    have quantization parameters'; 'Per-axis quantization is not supported' for feature maps)."""
    from .tflite_writer import feature_map_zero_point

    names = [n for n in node.inputs + node.outputs if n and not g.tensors[n].is_const]
    return all(feature_map_zero_point(g, n) is not None for n in names)


def batch_one(node: Node, g: Graph, cfg) -> bool:
    """Batch size must be 1 (the first dimension of every feature map)."""
    return all(t.shape and t.shape[0] == 1 for t in _tensors(node, g, "in") + _tensors(node, g, "out"))


def rank_2_or_4(node: Node, g: Graph, cfg) -> bool:
    """Feature maps must be rank 4 (N, C, H, W: NHWC on the NPU) or rank 2 (N, features); rank 3 (1-D
    convolutions) and higher ranks stay on the CPU."""
    return all(len(t.shape) in (2, 4) for t in _tensors(node, g, "in") + _tensors(node, g, "out"))


def fixed_requant(node: Node, g: Graph, cfg) -> bool:
    """The layer must be lowered with --requant fixed (Q31 multiplier and shift, the NPU's arithmetic): with
    --requant float the CPU build rounds in float32 and cannot match the NPU bit for bit."""
    rq = node.attrs.get("rq")
    if rq is not None:
        return rq.mode == "fixed"
    return node.attrs.get("requant", "fixed") == "fixed"


def float32_divisor(node: Node, g: Graph, cfg) -> bool:
    """A requantization divided by a second scale (the MatMulInteger lowering) needs that divisor to be a float32
    value, which the layer's written output scale then carries (such a layer ends its NPU region)."""
    rq = node.attrs.get("rq")
    return rq is None or not rq.div or float(np.float32(rq.div)) == rq.div


GENERIC = (int8_feature_maps, quantized_feature_maps, batch_one, rank_2_or_4, fixed_requant, float32_divisor)


# -- convolution and fully connected -------------------------------------------------------------------------------
def symmetric_weights(node: Node, g: Graph, cfg) -> bool:
    """Weights must be symmetric int8 (zero point 0): Ethos-U has no weight zero point (Vela zeroes it with a
    warning, which changes the results). Quantize the model with symmetric weights (onnxruntime: the default for
    int8 weights)."""
    w_zp = node.attrs.get("w_zp")
    w = g.tensors[node.inputs[1]]
    return (w_zp is None or not np.any(np.asarray(w_zp))) and w.dtype == "int8"


def int32_bias(node: Node, g: Graph, cfg) -> bool:
    """The bias must be a constant int32 tensor (Vela: 'Bias tensors must be constant', int32 or int64)."""
    if len(node.inputs) < 3 or not node.inputs[2]:
        return True
    b = g.tensors[node.inputs[2]]
    return b.is_const and b.dtype == "int32"


def weight_sum_limit(node: Node, g: Graph, cfg) -> bool:
    """The sum of absolute weights of each output channel must not exceed 8,323,072 (Vela's limit for 8-bit
    input feature maps)."""
    w = np.abs(np.asarray(g.tensors[node.inputs[1]].data, np.int64))
    return int(w.reshape(w.shape[0], -1).sum(axis=1).max(initial=0)) <= 8_323_072


def plain_or_depthwise(node: Node, g: Graph, cfg) -> bool:
    """A grouped convolution must be plain (group 1) or depthwise (group = input channels); other group counts
    stay on the CPU (TFLite has no grouped CONV_2D that Vela accepts)."""
    group = node.attrs.get("group", 1)
    in_channels = g.tensors[node.inputs[0]].onnx_shape[1]
    return group == 1 or group == in_channels


def conv_stride(node: Node, g: Graph, cfg) -> bool:
    """Stride must be 1-3 in each spatial dimension (Vela; a plain convolution may use a larger stride only with
    dilation 1 and no padding)."""
    a = node.attrs
    if all(1 <= s <= 3 for s in a["strides"]):
        return True
    plain = a.get("group", 1) == 1
    return plain and all(d == 1 for d in a["dilations"]) and not any(a["pads"])


def conv_kernel_size(node: Node, g: Graph, cfg) -> bool:
    """The dilated kernel must be at most 64 high, and its dilated height x width at most 4,096 (Vela's
    convolution kernel limits)."""
    (kh, kw), (dh, dw) = node.attrs["kernel"], node.attrs["dilations"]
    eh, ew = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    return eh <= 64 and eh * ew <= 4096


def fc_flat_input(node: Node, g: Graph, cfg) -> bool:
    """A fully connected layer's input must be rank 2, or rank 4 with a 1x1 spatial size (where NCHW and NHWC
    flatten alike)."""
    t = g.tensors[node.inputs[0]]
    return len(t.shape) == 2 or (len(t.shape) == 4 and t.onnx_shape[2] * t.onnx_shape[3] == 1)


def double_rounding(node: Node, g: Graph, cfg) -> bool:
    """A convolution's requantization must round twice (TFLite's MultiplyByQuantizedMultiplier, which LiteRT's
    CONV_2D and DEPTHWISE_CONV_2D compute); a single-rounding convolution has no TFLite twin to check it against."""
    rq = node.attrs.get("rq")
    return rq is None or rq.mode != "fixed" or rq.rounding == "double"


CONV = (double_rounding, symmetric_weights, int32_bias, weight_sum_limit, plain_or_depthwise, conv_stride, conv_kernel_size)
FC = (symmetric_weights, int32_bias, weight_sum_limit, fc_flat_input)


# -- pooling -------------------------------------------------------------------------------------------------------
def integer_average(node: Node, g: Graph, cfg) -> bool:
    """Only a whole-window integer average pool (mcucomp's 'global_int' path: one integer sum, one requant) goes to
    the NPU; windowed average pools divide in float32 on the CPU."""
    return node.attrs.get("mode") == "global_int"


def average_kernel_size(node: Node, g: Graph, cfg) -> bool:
    """The pooled window must be at most 64 high and at most 4,096 taps (Vela's depthwise kernel limits: the
    average runs as a depthwise convolution with all-one weights)."""
    kh, kw = node.attrs["kernel"]
    return kh <= 64 and kh * kw <= 4096


def int8_max_pool(node: Node, g: Graph, cfg) -> bool:
    """Max pooling on the NPU needs int8 data, no dilation, no stored indices, and padding that is TFLite's SAME or
    none."""
    a = node.attrs
    x = g.tensors[node.inputs[0]]
    if x.dtype != "int8" or len(node.outputs) > 1 or any(d != 1 for d in a.get("dilations", (1, 1))):
        return False
    if len(x.shape) != 4 or not any(a["pads"]):
        return len(x.shape) == 4
    from .tflite_writer import same_pads

    _, _, h, w = x.onnx_shape
    (kh, kw), (sh, sw) = a["kernel"], a["strides"]
    pt, pl, pb, pr = a["pads"]
    return (pt, pb) == same_pads(h, kh, sh, 1) and (pl, pr) == same_pads(w, kw, sw, 1)


def max_pool_limits(node: Node, g: Graph, cfg) -> bool:
    """Max pooling: kernel at most 256 high with at most 65,536 taps; stride 1-3 unless the padding is VALID
    (Vela)."""
    (kh, kw), strides = node.attrs["kernel"], node.attrs["strides"]
    return kh <= 256 and kh * kw <= 65536 and (all(1 <= s <= 3 for s in strides) or not any(node.attrs["pads"]))


# -- data movement -------------------------------------------------------------------------------------------------
def order_preserving_reshape(node: Node, g: Graph, cfg) -> bool:
    """A reshape goes to the NPU only where its tensors are stored in TFLite's NHWC element order (channels-last,
    such as a Flatten into a fully connected layer whose weights mcucomp permuted, or with channels or spatial size
    1); a reshape of a channels-first image would need a transpose and stays on the CPU."""
    from .tflite_writer import needs_transpose

    return not any(needs_transpose(g.tensors[n]) for n in (node.inputs[0], node.outputs[0]))


def layout_conversion(node: Node, g: Graph, cfg) -> bool:
    """A transpose goes to the NPU only when it is a layout conversion (the same tensor stored channels-first on one
    side and channels-last on the other): on the NPU both sides are one NHWC tensor. Other transposes stay on the
    CPU."""
    x, y = g.tensors[node.inputs[0]], g.tensors[node.outputs[0]]
    return x.onnx_shape == y.onnx_shape and {x.layout, y.layout} == {"", "nhwc"}


def one_quantization(node: Node, g: Graph, cfg) -> bool:
    """All inputs and the output of a concatenation must share one scale and zero point (mcucomp copies the codes;
    with different ones TFLite would rescale)."""
    out = g.tensors[node.outputs[0]].quant
    return out is not None and all(g.tensors[n].quant is not None and g.tensors[n].quant.same_as(out)
                                   for n in node.inputs)


def nearest_as_tflite(node: Node, g: Graph, cfg) -> bool:
    """A resize goes to the NPU only in nearest mode on int8 H and W, when TFLite's RESIZE_NEAREST_NEIGHBOR (with
    some align_corners / half_pixel_centers flags) reads exactly mcucomp's source pixels."""
    from .tflite_writer import resize_flags

    mode = node.attrs.get("mode", b"nearest")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if mode != "nearest" or g.tensors[node.inputs[0]].dtype != "int8":
        return False
    try:
        return resize_flags(node, g) is not None
    except (KeyError, ValueError, TypeError):
        return False


CONSTRAINTS = {
    "conv2d_s8": GENERIC + CONV,
    "fc_s8": GENERIC + FC,
    "avgpool_s8": GENERIC + (integer_average, average_kernel_size),
    "maxpool_f32": GENERIC + (int8_max_pool, max_pool_limits),
    "reshape": GENERIC + (order_preserving_reshape,),
    "concat": GENERIC + (one_quantization,),
    "resize": GENERIC + (nearest_as_tflite,),
    "transpose": GENERIC + (layout_conversion,),
}


def message(fn) -> str:
    """A constraint's user message: its docstring on one line."""
    return " ".join(fn.__doc__.split())


def npu_refusal(node: Node, g: Graph, cfg) -> str | None:
    """None when the layer can run on `cfg`'s NPU, else the reason it stays on the CPU (a constraint's message)."""
    if node.op in CPU_ONLY_OPS:
        return CPU_ONLY_OPS[node.op]
    checks = CONSTRAINTS.get(node.op)
    if checks is None:
        floating = "" if int8_feature_maps(node, g, cfg) else ", a float layer: the NPU computes int8 and int16 only"
        return f"no NPU lowering in mcucomp for kernel op '{node.op}'{floating} (it runs mcucomp's CPU kernel)."
    for check in checks:
        if not check(node, g, cfg):
            return message(check)
    return None


def vela_operator_sets() -> tuple[list[str], list[str]]:
    """(TFLite operators Vela 5.2 places on Ethos-U55/U65, those only Ethos-U85 adds), from Vela itself."""
    from ethosu import regor

    u55 = set(regor.tflite_operator_constraints("EthosU55"))
    u85 = set(regor.tflite_operator_constraints("EthosU85"))
    return sorted(u55), sorted(u85 - u55)


def supported_ops_markdown() -> str:
    """docs/SUPPORTED_NPU_OPS.md: every constraint's message, per kernel op, and Vela's operator sets."""
    lines = [
        "# Layers mcucomp places on an Ethos-U NPU",
        "",
        "Generated from the constraint docstrings in `mcucomp/npu/constraints.py` by "
        "`python bench/npu_ops_doc.py --update`; do not edit (tests/npu/test_constraints.py checks it is current).",
        "",
        "A layer goes to the NPU when every constraint of its kernel op holds; otherwise it stays on the CPU and the "
        "report gives the first failing constraint's text as its `placement_reason`. With `--npu-placement auto` a "
        "supported layer may still stay on the CPU when the estimates say it is cheaper there (the reason then reads "
        "`cheaper on CPU: X vs Y cycles`).",
        "",
        "## Every NPU layer",
        "",
    ]
    lines += [f"- {message(check)}" for check in GENERIC]
    lines += ["", "## Kernel ops written for the NPU, and their own constraints", ""]
    for op, checks in CONSTRAINTS.items():
        lines += [f"### `{op}` → {TFLITE_OPS[op]}", ""]
        lines += [f"- {message(check)}" for check in checks if check not in GENERIC]
        lines.append("")
    lines += ["## Kernel ops kept on the CPU", ""]
    lines += [f"- `{op}`: {why}" for op, why in CPU_ONLY_OPS.items()]
    lines += ["- every other kernel op: no NPU lowering in mcucomp yet (it runs mcucomp's CPU kernel).", ""]
    u55, u85_only = vela_operator_sets()
    lines += [
        "## What Vela 5.2 itself accepts, per product",
        "",
        "mcucomp writes only the operators above; Vela's own lists (from `ethosu.regor.tflite_operator_constraints`) "
        "say what a future lowering could use.",
        "",
        f"- Ethos-U55 and Ethos-U65 ({len(u55)} TFLite operators): " + ", ".join(u55) + ".",
        f"- Ethos-U85 adds {len(u85_only)}: " + ", ".join(u85_only) + ".",
        "",
    ]
    return "\n".join(lines)
