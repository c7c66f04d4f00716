"""reduce against onnxruntime (float32, float64) and the ONNX reference (integers, bool): every Reduce* op, axes as
attribute (opset 13) or input (opset 18), keepdims, negative axes, noop_with_empty_axes, GlobalMaxPool fallback."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, check_nodes_with_reference, infer_outputs, make_model, rand, run_both

OPS = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
       "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"]
# (axes or None for the default, keepdims, noop_with_empty_axes)
AXES = [([1], 1, 0), ([0, 2], 0, 0), ([-1], 1, 0), (None, 0, 0), ([], 1, 1), ([2, 0, 1], 1, 0)]


def _reduce_nodes(ops, cases, x_name="x", opset=18):
    """One node per (op, case); axes come from initializers (opset 18) or attributes (opset 13)."""
    nodes, inits = [], {}
    for op in ops:
        for i, (axes, keep, noop) in enumerate(cases):
            ins = [x_name]
            attrs = {"keepdims": keep}
            if noop:
                attrs["noop_with_empty_axes"] = 1
            if axes is not None and opset >= 18:
                inits[f"axes{i}"] = np.array(axes, np.int64)
                ins.append(f"axes{i}")
            elif axes:
                attrs["axes"] = axes
            nodes.append(helper.make_node(op, ins, [f"{op}_{i}_{x_name}"], **attrs))
    return nodes, inits


def _grid(rng, values, shape) -> np.ndarray:
    """float32 data drawn from `values`."""
    return rng.choice(np.asarray(values, np.float32), shape)


def test_reduce_float32_every_op(tmp_path):
    """The data lie on a dyadic grid (multiples of 1/16 below 4; powers of two for products), so sums, sums of
    squares and products are exact in float32 in any order: the comparison checks the kernel, not the order."""
    rng = np.random.default_rng(10)
    feeds = {"x": _grid(rng, np.arange(1, 33) / 16, (3, 4, 5)),  # > 0: ReduceLogSum is finite
             "n": _grid(rng, np.arange(-32, 33) / 16, (3, 4, 5)),
             "p": _grid(rng, [-2, -1, -0.5, 0.5, 1, 2], (3, 4, 5))}
    nodes, inits = _reduce_nodes([op for op in OPS if op != "ReduceProd"], AXES)
    nodes += _reduce_nodes([op for op in OPS if op not in ("ReduceLogSum", "ReduceProd")], AXES, x_name="n")[0]
    nodes += _reduce_nodes(["ReduceProd"], AXES, x_name="p")[0]
    check_nodes(nodes, {k: (np.float32, v.shape) for k, v in feeds.items()}, feeds, tmp_path, initializers=inits,
                opset=18)


def test_reduce_opset13_attribute_axes(tmp_path):
    """ReduceMean/Max take axes as an attribute up to opset 17; ReduceSum as an input from opset 13."""
    x = rand(np.random.default_rng(11), 2, 1, 3, 7)
    nodes, inits = _reduce_nodes(["ReduceMean", "ReduceMax", "ReduceL2"], [([1, 3], 0, 0), ([-2], 1, 0)], opset=13)
    sum_nodes, sum_inits = _reduce_nodes(["ReduceSum"], [([3], 0, 0), ([], 1, 1)], opset=18)
    check_nodes(nodes + sum_nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path,
                initializers={**inits, **sum_inits}, opset=13)


def test_reduce_integers_wrap(tmp_path):
    """Sums and products keep the low bits of the type; Mean truncates; Max/Min of signed and unsigned types."""
    rng = np.random.default_rng(12)
    feeds = {"i32": np.array([[2**31 - 1, 5, -7], [-(2**31), -1, 9]], np.int32),
             "i64": rng.integers(-(2**40), 2**40, (3, 5)).astype(np.int64),
             "u8": rng.integers(0, 256, (4, 3)).astype(np.uint8),
             "i8": np.array([[-128, 127, 3], [5, -6, -128]], np.int8)}
    cases = [([1], 0, 0), ([0], 1, 0), (None, 1, 0)]
    nodes, inits = [], {}
    for name, ops in (("i32", ["ReduceSum", "ReduceProd", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceL1"]),
                      ("i64", ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceL1"]),
                      ("u8", ["ReduceMax", "ReduceMin"]), ("i8", ["ReduceMax", "ReduceMin"])):
        n, i = _reduce_nodes(ops, cases, x_name=name)
        nodes += n
        inits.update(i)
    inputs = {k: (v.dtype, v.shape) for k, v in feeds.items()}
    check_nodes_with_reference(nodes, inputs, feeds, tmp_path, initializers=inits, opset=18)


def test_reduce_bool_max_min(tmp_path):
    b = np.array([[True, False, True], [False, False, False], [True, True, True]])
    nodes, inits = _reduce_nodes(["ReduceMax", "ReduceMin"], [([1], 1, 0), ([0], 0, 0)], x_name="b", opset=20)
    check_nodes_with_reference(nodes, {"b": (np.bool_, b.shape)}, {"b": b}, tmp_path, initializers=inits, opset=20)


def test_globalmaxpool_fallback(tmp_path):
    """GlobalMaxPool of ranks and dtypes maxpool_f32 does not take (rank 5, float64) runs as a max over dims 2..."""
    rng = np.random.default_rng(14)
    d4, f5 = rng.standard_normal((2, 3, 4, 5)), rand(rng, 1, 2, 3, 2, 4)
    check_nodes([helper.make_node("GlobalMaxPool", ["f5"], ["y"])], {"f5": (np.float32, f5.shape)}, {"f5": f5},
                tmp_path / "f5", exact=True)
    check_nodes_with_reference([helper.make_node("GlobalMaxPool", ["d4"], ["y"])], {"d4": (np.float64, d4.shape)},
                               {"d4": d4}, tmp_path / "d4", opset=22)


def test_reduce_float64(tmp_path):
    """float64 reductions (the log/exp ones in double): within 1e-13 of onnxruntime (relative, not bit for bit: the
    summation orders differ)."""
    feeds = {"d": np.random.default_rng(13).standard_normal((3, 4, 5))}
    nodes, inits = _reduce_nodes(["ReduceSum", "ReduceLogSumExp", "ReduceL2", "ReduceMax", "ReduceMean", "ReduceProd"],
                                 [([1], 1, 0), ([0, 2], 0, 0)], x_name="d")
    inputs = {k: (v.dtype, v.shape) for k, v in feeds.items()}
    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, inits, 18), inits, 18)
    ours, refs = run_both(model, feeds, tmp_path)
    for name, ref in refs.items():
        assert ours[name].dtype == ref.dtype and ours[name].shape == ref.shape, name
        np.testing.assert_allclose(ours[name], ref, rtol=1e-13, atol=0, err_msg=name)
