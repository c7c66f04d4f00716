"""Small quantized models for the int8 kernel tests, their feeds, and integer references.

A `QModel` holds several independent cases side by side, so one compile serves many of them. Each quantized
activation enters in one of two ways, because onnxruntime treats them differently:

- "q" boundary: an 8-bit graph input read by a DequantizeLinear (and an 8-bit graph output written by a
  QuantizeLinear). onnxruntime sees the types as written; on x86 it runs int8 Conv/MatMul groups in float.
- "f" boundary: a float graph input → QuantizeLinear → DequantizeLinear (and QuantizeLinear → DequantizeLinear →
  float output), as `quantize_static` writes a whole model. onnxruntime retypes such int8 Q/DQ pairs to uint8 and
  fuses the group into an integer op.

Feeds cover every 8-bit value: "f" inputs are fed the exact dequantized value of a random 8-bit code.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

import mcucomp
import mcucomp.host
from mcucomp.fixedpoint import quantize_multiplier, requant_fixed
from mcucomp.intref import run_lowered
from mcucomp.pipeline import lower_model

from helpers import assert_close, value_info

QRANGE = {np.dtype(np.int8): (-128, 127), np.dtype(np.uint8): (0, 255)}


class QModel:
    """Accumulates nodes, initializers, graph inputs/outputs and feed recipes of independent quantized cases."""

    def __init__(self, act_dtype=np.int8):
        self.act_dtype = np.dtype(act_dtype)
        #: Added to int8-centred zero points so uint8 activations keep codes around the same middle.
        self.zp_offset = 128 if self.act_dtype == np.uint8 else 0
        self.nodes: list[onnx.NodeProto] = []
        self.inits: dict[str, np.ndarray] = {}
        self.inputs: dict[str, tuple] = {}
        self.outputs: dict[str, tuple] = {}
        self._codes: dict[str, tuple] = {}  # graph input -> (shape, scale, zp, dtype, is_float)

    def init(self, name: str, value) -> str:
        """Add an initializer and return its name."""
        self.inits[name] = np.asarray(value)
        return name

    def node(self, op: str, inputs: list[str], outputs: list[str], domain: str = "", **attrs) -> None:
        """Append one node."""
        self.nodes.append(helper.make_node(op, inputs, outputs, name=outputs[0] + "_node", domain=domain,
                                           **attrs))

    def act(self, name: str, shape, scale: float, zp: int, boundary: str = "q", dtype=None) -> tuple[str, str]:
        """A quantized activation input: (8-bit tensor name, dequantized float tensor name)."""
        dtype = np.dtype(dtype or self.act_dtype)
        s = self.init(f"{name}_scale", np.float32(scale))
        z = self.init(f"{name}_zp", np.array(zp, dtype))
        q = f"{name}_q"
        if boundary == "f":
            self.inputs[name] = (np.float32, tuple(shape))
            self.node("QuantizeLinear", [name, s, z], [q])
        else:
            self.inputs[q] = (dtype, tuple(shape))
        self._codes[name if boundary == "f" else q] = (tuple(shape), np.float32(scale), zp, dtype, boundary == "f")
        self.node("DequantizeLinear", [q, s, z], [f"{name}_dq"])
        return q, f"{name}_dq"

    def const_dq(self, name: str, q: np.ndarray, scale, zp=None, axis: int | None = None) -> str:
        """A constant quantized tensor behind a DequantizeLinear (per channel when `scale` has several values)."""
        q_name = self.init(name, q)
        s = self.init(f"{name}_scale", np.asarray(scale, np.float32))
        inputs = [q_name, s]
        if zp is not None:
            inputs.append(self.init(f"{name}_zp", np.asarray(zp, q.dtype)))
        extra = {"axis": axis} if axis is not None else {}
        self.node("DequantizeLinear", inputs, [f"{name}_dq"], **extra)
        return f"{name}_dq"

    def out(self, fname: str, name: str, shape, scale: float, zp: int, boundary: str = "q", dtype=None) -> str:
        """Quantize a float tensor to a graph output (through a DequantizeLinear for the "f" boundary)."""
        dtype = np.dtype(dtype or self.act_dtype)
        s = self.init(f"{name}_scale", np.float32(scale))
        z = self.init(f"{name}_zp", np.array(zp, dtype))
        self.node("QuantizeLinear", [fname, s, z], [f"{name}_q"])
        if boundary == "f":
            self.node("DequantizeLinear", [f"{name}_q", s, z], [name])
            self.outputs[name] = (np.float32, tuple(shape))
            return name
        self.outputs[f"{name}_q"] = (dtype, tuple(shape))
        return f"{name}_q"

    def raw_input(self, name: str, shape, dtype, scale: float = 1.0, zp: int = 0) -> str:
        """An 8-bit graph input used directly by a QOperator node."""
        self.inputs[name] = (np.dtype(dtype), tuple(shape))
        self._codes[name] = (tuple(shape), np.float32(scale), zp, np.dtype(dtype), False)
        return name

    def raw_output(self, name: str, shape, dtype) -> str:
        """Declare a graph output written directly by a QOperator node."""
        self.outputs[name] = (np.dtype(dtype), tuple(shape))
        return name

    def infer_shape(self, name: str, opset: int = 13) -> tuple[int, ...]:
        """The shape ONNX shape inference gives a tensor of the nodes added so far."""
        graph = helper.make_graph(self.nodes, "probe", [value_info(n, d, s) for n, (d, s) in self.inputs.items()], [],
                                  [numpy_helper.from_array(v, n) for n, v in self.inits.items()])
        model = onnx.shape_inference.infer_shapes(
            helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), strict_mode=True)
        info = next(v for v in model.graph.value_info if v.name == name)
        return tuple(d.dim_value for d in info.type.tensor_type.shape.dim)

    def model(self, opset: int = 13) -> onnx.ModelProto:
        """The checked model (ir_version 8 so onnxruntime accepts it)."""
        graph = helper.make_graph(
            self.nodes, "q",
            [value_info(n, d, s) for n, (d, s) in self.inputs.items()],
            [value_info(n, d, s) for n, (d, s) in self.outputs.items()],
            [numpy_helper.from_array(v, n) for n, v in self.inits.items()])
        opsets = [helper.make_opsetid("", opset), helper.make_opsetid("com.microsoft", 1)]
        model = helper.make_model(graph, opset_imports=opsets)
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model

    def codes(self, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Random 8-bit codes over the full range for every quantized input (by graph input name)."""
        result = {}
        for name, (shape, _, _, dtype, _) in self._codes.items():
            lo, hi = QRANGE[dtype]
            result[name] = rng.integers(lo, hi + 1, size=shape).astype(dtype)
        return result

    def feeds(self, codes: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Graph feeds for given codes: float inputs get the exact dequantized value of their code."""
        result = {}
        for name, q in codes.items():
            _, scale, zp, _, is_float = self._codes[name]
            result[name] = (np.float32(q.astype(np.int32) - zp) * scale).astype(np.float32) if is_float else q
        return result


def conv_acc(x: np.ndarray, x_zp: int, w: np.ndarray, w_zp, bias, strides, pads, dilations, group: int
             ) -> np.ndarray:
    """int64 accumulators of an integer 1-D or 2-D convolution with ONNX semantics (pads hold the zero point)."""
    one_d = x.ndim == 3
    if one_d:
        x, w = x[:, :, None, :], w[:, :, None, :]
        strides, dilations, pads = [1, strides[0]], [1, dilations[0]], [0, pads[0], 0, pads[1]]
    xs = np.pad(x.astype(np.int64) - x_zp, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    n, _, h, wd = xs.shape
    m, cg, kh, kw = w.shape
    oh = (h - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    wz = w.astype(np.int64) - np.broadcast_to(np.asarray(w_zp, np.int64).reshape(-1), (m,))[:, None, None, None]
    out = np.zeros((n, m, oh, ow), np.int64)
    mg = m // group
    for gi in range(group):
        xg = xs[:, gi * cg:(gi + 1) * cg]
        for ky in range(kh):
            for kx in range(kw):
                y0, x0 = ky * dilations[0], kx * dilations[1]
                rows = slice(y0, y0 + strides[0] * (oh - 1) + 1, strides[0])
                patch = xg[:, :, rows, x0:x0 + strides[1] * (ow - 1) + 1:strides[1]]
                out[:, gi * mg:(gi + 1) * mg] += np.einsum("nchw,mc->nmhw", patch, wz[gi * mg:(gi + 1) * mg, :, ky, kx])
    if bias is not None:
        out += np.asarray(bias, np.int64)[None, :, None, None]
    return out[:, :, 0, :] if one_d else out


def fixed_requant(acc: np.ndarray, real_scale, zp: int, lo: int, hi: int, axis: int,
                  rounding: str = "double") -> np.ndarray:
    """The `--requant fixed` result of int accumulators, from mcucomp.fixedpoint (per channel along `axis`), in the
    kernel's rounding ("double" for convolutions, "single" for fully connected layers)."""
    real = np.asarray(real_scale, np.float64).reshape(-1)
    pairs = [quantize_multiplier(float(r)) for r in real]
    view = [1] * acc.ndim
    view[axis] = -1
    mult = np.array([m for m, _ in pairs], np.int64).reshape(view if real.size > 1 else [1])
    shift = np.array([s for _, s in pairs], np.int64).reshape(view if real.size > 1 else [1])
    return requant_fixed(acc, mult, shift, zp, lo, hi, rounding)


def ort_scale(x_scale, w_scale, y_scale) -> np.ndarray:
    """The float32 per-channel requantization scale onnxruntime computes: (x_scale * w_scale[c]) / y_scale."""
    xw = (np.float32(x_scale) * np.asarray(w_scale, np.float32).reshape(-1)).astype(np.float32)
    return (xw / np.float32(y_scale)).astype(np.float32)


def pick_scale(real: np.ndarray, rng: np.random.Generator) -> float:
    """An output scale that spreads `real` over most of the 8-bit range and saturates a few values."""
    return float(np.float32(np.percentile(np.abs(real), 97) / 110.0 * rng.uniform(0.8, 1.25) + 1e-6))


class ConvCase:
    """One quantized Conv: x shape, output channels, kernel, window attributes, group, bias and activation;
    per_tensor: one weight scale and zero point for all output channels (QLinearConv cases)."""

    def __init__(self, x, m, k, strides=None, pads=None, dilations=None, group=1, bias=True, act=None, ties=False,
                 y_zp=None, per_tensor=False):
        self.x, self.m, self.k, self.group, self.bias, self.act = tuple(x), m, tuple(k), group, bias, act
        self.ties, self.y_zp, self.per_tensor = ties, y_zp, per_tensor
        rank = len(self.k)
        self.strides = list(strides or [1] * rank)
        self.pads = list(pads or [0] * (2 * rank))
        self.dilations = list(dilations or [1] * rank)

    def __repr__(self) -> str:
        return (f"x{'x'.join(map(str, self.x))}_m{self.m}_k{'x'.join(map(str, self.k))}_s{self.strides}"
                f"_p{self.pads}_d{self.dilations}_g{self.group}{'_b' if self.bias else ''}{self.act or ''}"
                f"{'_ties' if self.ties else ''}")


def add_qdq_conv(qm: QModel, name: str, case: ConvCase, rng: np.random.Generator, boundary: str,
                 w_dtype=np.int8, w_scale=None) -> dict:
    """DQ(x), DQ(w per channel, symmetric), DQ(int32 bias) → Conv → [Relu/Clip] → Q, as quantize_static writes it.

    Activations have the model's type (zero points moved by 128 for uint8); uint8 weights get zero point 128.
    `w_scale` (one per output channel) replaces the random weight scales; the bias scale is x_scale · w_scale.
    With `case.ties` the scales are chosen so that x_scale·w_scale[c]/y_scale is a power of two: the exact result
    then often lies half-way between two codes, where any difference in arithmetic shows. Returns what a reference
    needs: the input's name, the integer parameters and onnxruntime's requantization scale."""
    cin_g = case.x[1] // case.group
    off = qm.zp_offset
    x_scale, x_zp = float(rng.uniform(0.01, 0.05)), int(rng.integers(-40, 40)) + off
    w_max = 4 if case.ties else 127  # small accumulators: a tie every few outputs
    w = rng.integers(-w_max, w_max + 1, (case.m, cin_g) + case.k).astype(np.int8)
    w_scale = rng.uniform(0.002, 0.02, case.m).astype(np.float32) if w_scale is None else np.float32(w_scale)
    if case.ties:
        w_scale = (np.float32(w_scale[0]) * np.exp2(rng.integers(-1, 2, case.m))).astype(np.float32)
    bias = rng.integers(-3000, 3000, case.m).astype(np.int32) if case.bias else None
    xq, xf = qm.act(name, case.x, x_scale, x_zp, boundary)
    w_off = 128 if np.dtype(w_dtype) == np.uint8 else 0
    inputs = [xf, qm.const_dq(f"{name}_w", (w.astype(np.int16) + w_off).astype(w_dtype), w_scale,
                              np.full(case.m, w_off, w_dtype), axis=0)]
    if bias is not None:
        b_scale = (np.float32(x_scale) * w_scale).astype(np.float32)
        inputs.append(qm.const_dq(f"{name}_b", bias, b_scale, np.zeros(case.m, np.int32), axis=0))
    sample = rng.integers(-128, 128, case.x) + off
    acc = conv_acc(sample, x_zp, w, 0, bias, case.strides, case.pads, case.dilations, case.group)
    real = acc * (np.float32(x_scale) * w_scale).reshape((1, -1) + (1,) * (acc.ndim - 2))
    y_scale = pick_scale(real, rng)
    if case.ties:
        base = np.float32(np.float32(x_scale) * w_scale[0])
        y_scale = float(base * np.float32(np.exp2(np.round(np.log2(y_scale / base)))))
    y_zp = (int(rng.integers(-30, 30)) if case.y_zp is None else case.y_zp) + off
    qm.node("Conv", inputs, [f"{name}_conv"], kernel_shape=list(case.k), strides=case.strides, pads=case.pads,
            dilations=case.dilations, group=case.group)
    y = f"{name}_conv"
    lo, hi = QRANGE[qm.act_dtype]
    if case.act == "relu":
        qm.node("Relu", [y], [f"{name}_relu"])
        y, lo = f"{name}_relu", max(lo, y_zp)
    elif case.act == "clip":
        cmin, cmax = np.float32(-0.25 * 100 * y_scale), np.float32(0.5 * 100 * y_scale)
        qm.node("Clip", [y, qm.init(f"{name}_cmin", cmin), qm.init(f"{name}_cmax", cmax)], [f"{name}_clip"])
        y = f"{name}_clip"
        lo = max(lo, int(np.rint(cmin / np.float32(y_scale))) + y_zp)
        hi = min(hi, int(np.rint(cmax / np.float32(y_scale))) + y_zp)
    out = qm.out(y, f"{name}_y", acc.shape, y_scale, y_zp, boundary)
    return dict(input=xq if boundary == "q" else name, output=out, x_zp=x_zp, w=w, bias=bias,
                scale=ort_scale(x_scale, w_scale, y_scale), y_zp=y_zp, lo=lo, hi=hi, case=case)


def conv_fixed_reference(info: dict, codes: dict) -> np.ndarray:
    """Expected `--requant fixed` output of an add_qdq_conv case for the given input codes."""
    case = info["case"]
    acc = conv_acc(codes[info["input"]], info["x_zp"], info["w"], 0, info["bias"], case.strides, case.pads,
                   case.dilations, case.group)
    return fixed_requant(acc, info["scale"], info["y_zp"], info["lo"], info["hi"], axis=1).astype(np.int8)


def _dequantize_scale(g, name: str) -> float:
    """The per-tensor scale of the DequantizeLinear that makes the float graph output `name`."""
    node = g.producer(name)
    assert node is not None and node.op == "dequantize_linear", f"float output {name} is not a DequantizeLinear"
    return float(np.asarray(g.const(node.inputs[1])).reshape(-1)[0])


def check_qmodel(qm: QModel, out_dir, seeds=range(4), reference=None, ort_lsb: int = 1, ort_skip=(),
                 **options) -> dict[str, str]:
    """Compile once, run random codes of every seed on the host; every output must equal the package's integer
    reference (mcucomp.intref) bit for bit, and onnxruntime's output within `ort_lsb` LSB (0: bit-exact, for
    QOperator ops whose onnxruntime kernel is integer; 1 for QDQ groups, which onnxruntime may run in float).

    With `reference(codes) -> {output: array}` (the `--requant fixed` tests) that reference replaces onnxruntime
    and must match exactly. Outputs in `ort_skip` are compared with the integer reference only (where onnxruntime's
    own arithmetic is known to be off; each caller says why). Returns the kernel op of every lowered node by node name."""
    model = qm.model()
    result = mcucomp.compile_model(model, out_dir, name="m", **options)
    lowered = lower_model(model, **options)
    host = mcucomp.host.load(result.out_dir, layer_hook=False)
    sess = None if reference else ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for seed in seeds:
        codes = qm.codes(np.random.default_rng(seed))
        feeds = qm.feeds(codes)
        ours = host.run(feeds)
        for name, value in run_lowered(lowered, feeds).items():
            assert_close(ours[name], value, f"{name} (seed {seed}, integer reference)", exact=True)
        if reference:
            for name, value in reference(codes).items():
                assert_close(ours[name], value, f"{name} (seed {seed})", exact=True)
            continue
        names = [o.name for o in sess.get_outputs()]
        for name, value in zip(names, sess.run(names, feeds)):
            if name in ort_skip:
                continue
            if ort_lsb == 0:
                assert_close(ours[name], value, f"{name} (seed {seed})", exact=True)
                continue
            # a float output is a DequantizeLinear of codes: compare codes (difference / its scale)
            lsb = _dequantize_scale(lowered.graph, name) if value.dtype == np.float32 else 1.0
            worst = float(np.abs(ours[name].astype(np.float64) - value.astype(np.float64)).max()) / lsb
            assert worst <= ort_lsb + 1e-3, f"{name} (seed {seed}): {worst} LSB from onnxruntime (bound {ort_lsb})"
    return {layer["name"]: layer["op"] for layer in result.report["layers"]}
