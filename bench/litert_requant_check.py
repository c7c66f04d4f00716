"""Does `--requant fixed` (mcucomp.fixedpoint) compute what LiteRT computes? Builds tiny int8 .tflite models
(FULLY_CONNECTED per tensor, CONV_2D 1x1 per channel) with the flatbuffers object API of LiteRT's schema, runs them
in LiteRT (its default optimized kernels and its reference kernels), and compares every output with
mcucomp.fixedpoint (TFLite's double rounding) and with a single-rounding variant (TOSA RESCALE double_round = false).
The multipliers are derived as TFLite derives them (float32 scales promoted to double), so only the arithmetic is
compared. Effective scales in [2^-4, 2^-1) make half of the outputs land where the two roundings can differ.

    python bench/litert_requant_check.py
"""

from __future__ import annotations

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as tfl
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from mcucomp.fixedpoint import quantize_multiplier, requant_fixed


def _tensor(name, shape, ttype, buffer, scale, zp, axis=0):
    """A quantized tensor."""
    q = tfl.QuantizationParametersT(scale=[float(s) for s in np.atleast_1d(scale)],
                                    zeroPoint=[int(z) for z in np.atleast_1d(zp)], quantizedDimension=axis)
    return tfl.TensorT(shape=list(shape), type=ttype, buffer=buffer, name=name.encode(), quantization=q)


def build(op: str, k: int, n: int, w: np.ndarray, bias: np.ndarray, x_s, x_zp, w_s, y_s, y_zp) -> bytes:
    """A one-operator model: x int8 → op(w int8, bias int32) → y int8."""
    i8, i32 = tfl.TensorType.INT8, tfl.TensorType.INT32
    buffers = [tfl.BufferT(), tfl.BufferT(), tfl.BufferT(data=list(w.astype(np.int8).tobytes())),
               tfl.BufferT(data=list(bias.astype(np.int32).tobytes())), tfl.BufferT()]
    if op == "fc":
        x_shape, w_shape, y_shape, code = (1, k), (n, k), (1, n), tfl.BuiltinOperator.FULLY_CONNECTED
        opts_type, opts = tfl.BuiltinOptions.FullyConnectedOptions, tfl.FullyConnectedOptionsT()
    else:
        x_shape, w_shape, y_shape, code = (1, 1, 1, k), (n, 1, 1, k), (1, 1, 1, n), tfl.BuiltinOperator.CONV_2D
        opts_type, opts = tfl.BuiltinOptions.Conv2DOptions, tfl.Conv2DOptionsT()
        opts.strideW = opts.strideH = 1
    tensors = [_tensor("x", x_shape, i8, 1, x_s, x_zp), _tensor("w", w_shape, i8, 2, w_s, np.zeros(np.size(w_s))),
               _tensor("b", (n,), i32, 3, np.float32(x_s) * np.asarray(w_s, np.float32), np.zeros(np.size(w_s))),
               _tensor("y", y_shape, i8, 4, y_s, y_zp)]
    operator = tfl.OperatorT(opcodeIndex=0, inputs=[0, 1, 2], outputs=[3], builtinOptionsType=opts_type,
                             builtinOptions=opts)
    sub = tfl.SubGraphT(tensors=tensors, inputs=[0], outputs=[3], operators=[operator], name=b"main")
    model = tfl.ModelT(version=3, operatorCodes=[tfl.OperatorCodeT(deprecatedBuiltinCode=code, builtinCode=code,
                                                                  version=3)],
                       subgraphs=[sub], buffers=buffers, description=b"mcucomp requant check")
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def single_rounding(acc, mult, shift, zp, lo, hi):
    """round_half_up(acc · mult / 2^(31 + shift)) + zp, clamped: TOSA RESCALE with double_round = false."""
    total = 31 + np.asarray(shift, np.int64)
    v = (np.asarray(acc, np.int64) * np.asarray(mult, np.int64) + (np.int64(1) << (total - 1))) >> total
    return np.clip(v + zp, lo, hi)


def check(op: str, seed: int, resolver) -> tuple[int, int, int, int]:
    """(outputs compared, not saturated, mismatches with fixedpoint, mismatches with single rounding)."""
    rng = np.random.default_rng(seed)
    k, n = 8, 64
    x_s, x_zp, y_zp = np.float32(0.05), int(rng.integers(-20, 20)), int(rng.integers(-10, 10))
    w = rng.integers(-2, 3, (n, k))  # small weights: accumulators of a few hundred, few saturated outputs
    per_channel = op == "conv"
    w_s = rng.uniform(0.002, 0.01, n if per_channel else 1).astype(np.float32)
    effective = rng.uniform(1 / 16, 1 / 2, w_s.size)
    y_s = np.float32(x_s * w_s[0] / effective[0]) if not per_channel else np.float32(0.02)
    if per_channel:  # choose each channel's weight scale so that its effective scale lands in [2^-4, 2^-1)
        w_s = (effective * y_s / x_s).astype(np.float32)
    bias = rng.integers(-200, 200, n)
    interp = Interpreter(model_content=build(op, k, n, w, bias, x_s, x_zp, w_s, y_s, y_zp),
                         experimental_op_resolver_type=resolver)
    interp.allocate_tensors()
    inp, out = interp.get_input_details()[0], interp.get_output_details()[0]
    totals = np.zeros(4, np.int64)
    for _ in range(200):
        x = rng.integers(-128, 128, inp["shape"]).astype(np.int8)
        interp.set_tensor(inp["index"], x)
        interp.invoke()
        got = interp.get_tensor(out["index"]).reshape(-1).astype(np.int64)
        acc = (x.reshape(-1).astype(np.int64) - x_zp) @ w.T + bias
        real = np.float64(x_s) * w_s.astype(np.float64) / np.float64(y_s)  # TFLite: double from float32 scales
        pairs = [quantize_multiplier(float(r)) for r in np.broadcast_to(real, (n,))]
        mult, shift = (np.array(v, np.int64) for v in zip(*pairs))
        ours = requant_fixed(acc, mult, shift, y_zp, -128, 127)
        single = single_rounding(acc, mult, shift, y_zp, -128, 127)
        inside = (ours > -128) & (ours < 127)
        totals += [got.size, int(inside.sum()), int((ours != got).sum()), int((single != got).sum())]
    return tuple(int(t) for t in totals)


def main() -> None:
    """Print the comparison table."""
    print("op    kernels     outputs  unsaturated  != fixedpoint  != single rounding")
    for op in ("fc", "conv"):
        for name, resolver in (("default", OpResolverType.BUILTIN), ("no-xnnpack", OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES),
                               ("reference", OpResolverType.BUILTIN_REF)):
            total, inside, bad, bad_single = check(op, 7, resolver)
            print(f"{op:5s} {name:10s} {total:8d} {inside:12d} {bad:13d} {bad_single:18d}")


if __name__ == "__main__":
    main()
