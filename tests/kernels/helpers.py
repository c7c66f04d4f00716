"""Shared helpers for kernel tests: build a small ONNX model, compile it, run it on the host and in onnxruntime.

Float tolerance
---------------
Float outputs are compared in ULPs of the largest reference magnitude: |got - ref| <= FLOAT_ULPS * ulp(max|ref|).
Scaling by the largest magnitude (not element-wise) is how a float kernel's error actually behaves: a dot product or a
sum carries rounding errors of the size of its largest terms, whatever its own value. FLOAT_ULPS = 2 is the smallest
bound every float kernel here meets against onnxruntime's CPU provider (measured: Gemm with K=300, AveragePool and
Tanh need 2; Sigmoid, Softmax and MatMul stay within 1). The differences come from the summation order and the
approximations: MLAS accumulates GEMMs in K blocks and pooling sums in vector lanes, and approximates
exp/tanh/logistic with its own polynomials, while our kernels accumulate sequentially and use mcu_math.h (<= 2 ULP
each). Data movement, Add/Sub/Mul/Div (one rounding each), Relu/Clip/LeakyRelu, MaxPool and (De)QuantizeLinear must
match exactly (compare with `exact=True`).

The bound is stated per float multiply-accumulate form (option float_mac, mcu_rt.h MCU_F32_MAC). FLOAT_ULPS holds for
the fused form (fmaf, one rounding per step, as MLAS's FMA kernels). The separate form (multiply, then add: the
default on the Cortex-M4, M33 and M0+) rounds each product too, which adds at most 2^-24 * sum|a_k * b_k| to a dot
product; over these tests (K up to 300, standard-normal data) that stays within SEPARATE_MAC_ULPS = 4 ulp(max|ref|)
(measured 3.0, a 3x3x2 conv with runtime weights). Models with a dot-product layer built in the separate form are held
to SEPARATE_MAC_ULPS, every other model to FLOAT_ULPS.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import mcucomp
import mcucomp.host

FLOAT_ULPS = 2
SEPARATE_MAC_ULPS = 4

_ONNX_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int8): TensorProto.INT8,
               np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int32): TensorProto.INT32,
               np.dtype(np.int64): TensorProto.INT64}
_ONNX_TYPES.update({np.dtype(t): helper.np_dtype_to_tensor_dtype(np.dtype(t))
                    for t in (np.bool_, np.int16, np.uint16, np.uint32, np.uint64, np.float64)})


def value_info(name: str, dtype, shape) -> onnx.ValueInfoProto:
    """A graph input/output declaration with a full static shape."""
    return helper.make_tensor_value_info(name, _ONNX_TYPES[np.dtype(dtype)], list(shape))


def make_model(nodes, inputs: dict, outputs: dict, initializers: dict | None = None, opset: int = 13
               ) -> onnx.ModelProto:
    """A checked model from nodes; inputs/outputs map name -> (dtype, shape); initializers map name -> array."""
    graph = helper.make_graph(
        nodes, "test",
        [value_info(n, d, s) for n, (d, s) in inputs.items()],
        [value_info(n, d, s) for n, (d, s) in outputs.items()],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in (initializers or {}).items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def run_both(model: onnx.ModelProto, feeds: dict, out_dir, **options) -> tuple[dict, dict]:
    """Compile and run `model` on the host, and run it in onnxruntime; return (ours, reference) by output name."""
    mcucomp.compile_model(model, out_dir, name="m", **options)
    ours = mcucomp.host.load(out_dir).run(feeds)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    ref = dict(zip(names, sess.run(names, feeds)))
    return ours, ref


def ulp(x: float) -> float:
    """The float32 ULP at magnitude x (the smallest subnormal step at zero)."""
    return float(np.spacing(np.float32(abs(x))))


def assert_close(got: np.ndarray, ref: np.ndarray, name: str = "output", exact: bool = False,
                 ulps: int = FLOAT_ULPS) -> None:
    """Exact (bit-for-bit) comparison, or |got - ref| <= ulps * ulp(max|ref|) for floats."""
    assert got.shape == ref.shape and got.dtype == ref.dtype, (
        f"{name}: {got.dtype}{got.shape} vs {ref.dtype}{ref.shape}")
    if exact or got.dtype != np.float32:
        # bit for bit: -0.0 differs from 0.0, NaN equals NaN (atleast_1d: 0-d arrays cannot be viewed as bytes)
        same = np.atleast_1d(got).view(np.uint8) == np.atleast_1d(ref).view(np.uint8)
        bad = np.flatnonzero(~same.reshape(got.size, -1).all(axis=1)) if got.size else np.array([], int)
        assert bad.size == 0, (
            f"{name}: {bad.size} elements differ, first at {bad[0]}: {got.flat[bad[0]]} vs {ref.flat[bad[0]]}")
        return
    bound = ulps * ulp(np.max(np.abs(ref))) if ref.size else 0.0
    err = np.abs(got.astype(np.float64) - ref.astype(np.float64))
    worst = int(np.argmax(err)) if err.size else 0
    assert err.size == 0 or err.flat[worst] <= bound, (
        f"{name}: |got - ref| = {err.flat[worst]:.3g} at {worst} ({got.flat[worst]} vs {ref.flat[worst]}) exceeds "
        f"{ulps} ulp(max|ref|) = {bound:.3g}")


def check_model(model: onnx.ModelProto, feeds: dict, out_dir, exact: bool = False, **options) -> dict:
    """Run on both sides and compare every output; return our outputs."""
    ours, ref = run_both(model, feeds, out_dir, **options)
    ulps = float_ulps(json.loads((Path(out_dir) / "report.json").read_text()))
    for name, value in ref.items():
        assert_close(ours[name], value, name, exact, ulps)
    return ours


def float_ulps(report: dict) -> int:
    """The float bound (in ulp(max|ref|)) for a compiled model: SEPARATE_MAC_ULPS when it has a dot-product layer
    built in the separate form, else FLOAT_ULPS."""
    separate = report["float_mac"]["form"] == "separate"
    return SEPARATE_MAC_ULPS if separate and report["float_mac"]["layers"] else FLOAT_ULPS


def rand(rng: np.random.Generator, *shape) -> np.ndarray:
    """Standard-normal float32 data of a shape."""
    return rng.standard_normal(shape).astype(np.float32)


def infer_outputs(nodes, inputs: dict, initializers: dict | None = None, opset: int = 13) -> dict:
    """name -> (dtype, shape) of every node output, from ONNX shape inference (so tests need not redo the maths)."""
    graph = helper.make_graph(nodes, "probe", [value_info(n, d, s) for n, (d, s) in inputs.items()], [],
                              [numpy_helper.from_array(np.asarray(v), n) for n, v in (initializers or {}).items()])
    model = onnx.shape_inference.infer_shapes(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), strict_mode=True)
    produced = {o for n in nodes for o in n.output}
    return {vi.name: (helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type),
                      tuple(d.dim_value for d in vi.type.tensor_type.shape.dim))
            for vi in model.graph.value_info if vi.name in produced}


def check_nodes(nodes, inputs: dict, feeds: dict, out_dir, initializers: dict | None = None, opset: int = 13,
                exact: bool = False, **options) -> dict:
    """Build a model of `nodes` whose every node output is a graph output, then check_model it."""
    outputs = infer_outputs(nodes, inputs, initializers, opset)
    model = make_model(nodes, inputs, outputs, initializers, opset)
    return check_model(model, feeds, out_dir, exact, **options)


def check_nodes_with_reference(nodes, inputs: dict, feeds: dict, out_dir, initializers: dict | None = None,
                               opset: int = 13, **options) -> dict:
    """check_nodes against onnx.reference.ReferenceEvaluator, bit for bit, where onnxruntime lacks the op or dtype."""
    from onnx.reference import ReferenceEvaluator

    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, initializers, opset), initializers, opset)
    mcucomp.compile_model(model, out_dir, name="m", **options)
    ours = mcucomp.host.load(out_dir).run(feeds)
    names = [o.name for o in model.graph.output]
    for name, value in zip(names, ReferenceEvaluator(model).run(None, feeds)):
        assert_close(ours[name], np.require(value, requirements="C"), name, exact=True)  # C order: compared as bytes
    return ours


def channels_last(monkeypatch, *ops: str) -> None:
    """Make the layout pass run these layout-follower kernels channels-last wherever they can (as a channels-last
    conv next to them would), with transposes to the ONNX-order graph I/O."""
    from mcucomp.passes import layout

    monkeypatch.setattr(layout, "LAYOUT_FOLLOWERS", tuple(op for op in layout.LAYOUT_FOLLOWERS if op not in ops))


def layer_layouts(out_dir) -> dict[str, set[str]]:
    """The layouts each kernel op of a compiled model ran in (report.json), by op."""
    import json
    from pathlib import Path

    layouts: dict[str, set[str]] = {}
    for layer in json.loads((Path(out_dir) / "report.json").read_text())["layers"]:
        layouts.setdefault(layer["op"], set()).add(layer["layout"])
    return layouts
