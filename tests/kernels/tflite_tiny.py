"""A one-operator int8 .tflite written with the flatbuffers builder and Vela's schema classes, run by LiteRT: the
oracle for `--requant fixed`, which must equal TFLite's int8 kernels bit for bit (the NPU path checks Ethos-U regions
against LiteRT). Kept to what the elementwise tests need: 1-D int8 tensors, per-tensor quantization."""

from __future__ import annotations

import flatbuffers
import numpy as np
from ethosu.vela.tflite import (Buffer, BuiltinOperator, BuiltinOptions, LeakyReluOptions, Model, Operator,
                                OperatorCode, QuantizationParameters, SubGraph, Tensor, TensorType)

OPS = {"ADD": BuiltinOperator.BuiltinOperator.ADD, "MUL": BuiltinOperator.BuiltinOperator.MUL,
       "LOGISTIC": BuiltinOperator.BuiltinOperator.LOGISTIC, "TANH": BuiltinOperator.BuiltinOperator.TANH,
       "HARD_SWISH": BuiltinOperator.BuiltinOperator.HARD_SWISH,
       "LEAKY_RELU": BuiltinOperator.BuiltinOperator.LEAKY_RELU, "RELU": BuiltinOperator.BuiltinOperator.RELU,
       "RELU6": BuiltinOperator.BuiltinOperator.RELU6}


def _vector(b: flatbuffers.Builder, start, values, prepend) -> int:
    """A flatbuffers vector of scalars (built back to front)."""
    start(b, len(values))
    for v in reversed(values):
        prepend(v)
    return b.EndVector()


def _tensor(b: flatbuffers.Builder, name: str, length: int, scale: float, zp: int) -> int:
    """An int8 tensor [length] with per-tensor quantization, on the empty buffer 0."""
    q_scale = _vector(b, QuantizationParameters.StartScaleVector, [float(scale)], b.PrependFloat32)
    q_zp = _vector(b, QuantizationParameters.StartZeroPointVector, [int(zp)], b.PrependInt64)
    QuantizationParameters.Start(b)
    QuantizationParameters.AddScale(b, q_scale)
    QuantizationParameters.AddZeroPoint(b, q_zp)
    quant = QuantizationParameters.End(b)
    shape = _vector(b, Tensor.StartShapeVector, [length], b.PrependInt32)
    name_off = b.CreateString(name)
    Tensor.Start(b)
    Tensor.AddShape(b, shape)
    Tensor.AddType(b, TensorType.TensorType.INT8)
    Tensor.AddBuffer(b, 0)
    Tensor.AddName(b, name_off)
    Tensor.AddQuantization(b, quant)
    return Tensor.End(b)


def elementwise_model(op: str, length: int, inputs: list[tuple[float, int]], output: tuple[float, int],
                      alpha: float | None = None) -> bytes:
    """The .tflite bytes of y = op(x0[, x1]) over int8 vectors of `length`; inputs/output as (scale, zero point)."""
    b = flatbuffers.Builder(1024)
    tensors = [_tensor(b, f"x{i}", length, s, z) for i, (s, z) in enumerate(inputs)]
    tensors.append(_tensor(b, "y", length, *output))
    options = 0
    if alpha is not None:
        LeakyReluOptions.Start(b)
        LeakyReluOptions.AddAlpha(b, float(alpha))
        options = LeakyReluOptions.End(b)
    op_inputs = _vector(b, Operator.StartInputsVector, list(range(len(inputs))), b.PrependInt32)
    op_outputs = _vector(b, Operator.StartOutputsVector, [len(inputs)], b.PrependInt32)
    Operator.Start(b)
    Operator.AddOpcodeIndex(b, 0)
    Operator.AddInputs(b, op_inputs)
    Operator.AddOutputs(b, op_outputs)
    if alpha is not None:
        Operator.AddBuiltinOptionsType(b, BuiltinOptions.BuiltinOptions.LeakyReluOptions)
        Operator.AddBuiltinOptions(b, options)
    operator = Operator.End(b)
    sg_tensors = _vector(b, SubGraph.StartTensorsVector, tensors, b.PrependUOffsetTRelative)
    sg_inputs = _vector(b, SubGraph.StartInputsVector, list(range(len(inputs))), b.PrependInt32)
    sg_outputs = _vector(b, SubGraph.StartOutputsVector, [len(inputs)], b.PrependInt32)
    sg_ops = _vector(b, SubGraph.StartOperatorsVector, [operator], b.PrependUOffsetTRelative)
    SubGraph.Start(b)
    SubGraph.AddTensors(b, sg_tensors)
    SubGraph.AddInputs(b, sg_inputs)
    SubGraph.AddOutputs(b, sg_outputs)
    SubGraph.AddOperators(b, sg_ops)
    subgraph = SubGraph.End(b)
    code = OPS[op]
    OperatorCode.Start(b)
    OperatorCode.AddDeprecatedBuiltinCode(b, min(code, 127))
    OperatorCode.AddBuiltinCode(b, code)
    OperatorCode.AddVersion(b, 1 if op == "HARD_SWISH" else 2)
    opcode = OperatorCode.End(b)
    Buffer.Start(b)
    empty = Buffer.End(b)
    codes = _vector(b, Model.StartOperatorCodesVector, [opcode], b.PrependUOffsetTRelative)
    subgraphs = _vector(b, Model.StartSubgraphsVector, [subgraph], b.PrependUOffsetTRelative)
    buffers = _vector(b, Model.StartBuffersVector, [empty], b.PrependUOffsetTRelative)
    Model.Start(b)
    Model.AddVersion(b, 3)
    Model.AddOperatorCodes(b, codes)
    Model.AddSubgraphs(b, subgraphs)
    Model.AddBuffers(b, buffers)
    b.Finish(Model.End(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def run_litert(model: bytes, *xs: np.ndarray) -> np.ndarray:
    """LiteRT's output for int8 vector inputs, from its builtin kernels (the XNNPACK delegate, which LiteRT applies by
    default and whose int8 arithmetic differs, is left out: TFLite Micro, CMSIS-NN and Vela follow the builtins)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    interp = Interpreter(model_content=model,
                         experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interp.allocate_tensors()
    for detail, x in zip(interp.get_input_details(), xs):
        interp.set_tensor(detail["index"], np.asarray(x, np.int8))
    interp.invoke()
    return interp.get_tensor(interp.get_output_details()[0]["index"]).copy()


def check_binary_fixed_against_litert(onnx_op: str, tfl_op: str, dtype, qoperator: bool, params, out_dir) -> None:
    """Every pair of 8-bit codes through `onnx_op` (QDQ, or com.microsoft QLinear<op>) compiled with --requant fixed:
    the C and the integer reference equal LiteRT's `tfl_op` for each (a, b, y) quantization in `params` ((scale,
    int8 zero point) triples). uint8 models are compared through TFLite's int8 model with codes 128 lower."""
    import mcucomp
    import mcucomp.host
    from mcucomp.intref import run_lowered
    from mcucomp.pipeline import lower_model

    from helpers import assert_close
    from qmodels import QModel

    qm = QModel(dtype)
    off = qm.zp_offset
    t = qm.act_dtype.type
    grid = np.arange(-128, 128)
    a_codes, b_codes = np.repeat(grid, 256).reshape(256, 256), np.tile(grid, 256).reshape(256, 256)
    feeds, expected = {}, {}
    for i, (a_q, b_q, y_q) in enumerate(params):
        name = f"s{i}"
        if qoperator:
            a, b = qm.raw_input(f"{name}a", (256, 256), dtype), qm.raw_input(f"{name}b", (256, 256), dtype)
            quant = [qm.init(f"{name}{k}{j}", np.float32(q[0]) if j == "s" else t(q[1] + off))
                     for k, q in zip("aby", (a_q, b_q, y_q)) for j in "sz"]
            qm.node(f"QLinear{onnx_op}", [a, *quant[:2], b, *quant[2:]], [f"{name}_y"], domain="com.microsoft")
            y = qm.raw_output(f"{name}_y", (256, 256), dtype)
        else:
            a, af = qm.act(f"{name}a", (256, 256), a_q[0], a_q[1] + off)
            b, bf = qm.act(f"{name}b", (256, 256), b_q[0], b_q[1] + off)
            qm.node(onnx_op, [af, bf], [f"{name}_f"])
            y = qm.out(f"{name}_f", name, (256, 256), y_q[0], y_q[1] + off)
        feeds[a], feeds[b] = (a_codes + off).astype(dtype), (b_codes + off).astype(dtype)
        litert = run_litert(elementwise_model(tfl_op, 65536, [a_q, b_q], y_q), a_codes.reshape(-1),
                            b_codes.reshape(-1))
        expected[y] = (litert.astype(np.int32) + off).astype(dtype).reshape(256, 256)
    model = qm.model()
    result = mcucomp.compile_model(model, out_dir, name="m", requant="fixed", fit_check=False)  # host only
    ours = mcucomp.host.load(result.out_dir, layer_hook=False).run(feeds)
    reference = run_lowered(lower_model(model, requant="fixed"), feeds)
    for name, value in expected.items():
        assert_close(ours[name], value, f"{name} against LiteRT", exact=True)
        assert_close(reference[name], value, f"{name} integer reference against LiteRT", exact=True)
