"""gemm_f32 against onnxruntime: Gemm attributes and C broadcasting, MatMul 1-D/2-D/batched broadcasting."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_model, make_model, rand

# (transA, transB, alpha, beta, M, K, N, C shape or None)
GEMM_CASES = [
    (0, 0, 1.0, 1.0, 3, 5, 7, (7,)),
    (1, 0, 0.5, 1.0, 1, 3, 1, (1, 1)),
    (0, 1, 1.0, 2.0, 5, 7, 3, (5, 3)),
    (1, 1, 1.5, 0.25, 7, 1, 5, ()),
    (0, 0, 1.0, 1.0, 2, 9, 3, (2, 1)),
    (0, 1, 1.0, 1.0, 4, 300, 6, None),
]

# (A shape, B shape): 1-D operands, 2-D, batched with broadcasting and rank mismatch
MATMUL_CASES = [
    ((5,), (5, 3)),
    ((3, 5), (5,)),
    ((1, 1), (1, 1)),
    ((3, 7, 5), (5, 3)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((4, 3), (2, 3, 3, 1)),
]


def test_gemm_cases(tmp_path):
    rng = np.random.default_rng(1)
    nodes, inputs, outputs, inits, feeds = [], {}, {}, {}, {}
    for i, (ta, tb, alpha, beta, m, k, n, c_shape) in enumerate(GEMM_CASES):
        a_shape = (k, m) if ta else (m, k)
        b_shape = (n, k) if tb else (k, n)
        inputs[f"a{i}"] = (np.float32, a_shape)
        feeds[f"a{i}"] = rand(rng, *a_shape)
        inits[f"b{i}"] = rand(rng, *b_shape)
        names = [f"a{i}", f"b{i}"]
        if c_shape is not None:
            inits[f"c{i}"] = rand(rng, *c_shape)
            names.append(f"c{i}")
        nodes.append(helper.make_node("Gemm", names, [f"y{i}"], alpha=alpha, beta=beta, transA=ta, transB=tb))
        outputs[f"y{i}"] = (np.float32, (m, n))
    check_model(make_model(nodes, inputs, outputs, inits), feeds, tmp_path)


def test_gemm_with_activation_input_c(tmp_path):
    """C as a runtime tensor, row-broadcast."""
    rng = np.random.default_rng(2)
    model = make_model([helper.make_node("Gemm", ["xa", "xb", "xc"], ["y"], transB=1)],
                       {"xa": (np.float32, (3, 4)), "xb": (np.float32, (5, 4)), "xc": (np.float32, (1, 5))},
                       {"y": (np.float32, (3, 5))})
    check_model(model, {"xa": rand(rng, 3, 4), "xb": rand(rng, 5, 4), "xc": rand(rng, 1, 5)}, tmp_path)


def test_matmul_cases(tmp_path):
    rng = np.random.default_rng(3)
    nodes, inputs, outputs, feeds = [], {}, {}, {}
    for i, (a_shape, b_shape) in enumerate(MATMUL_CASES):
        for side, shp in (("a", a_shape), ("b", b_shape)):
            inputs[f"{side}{i}"] = (np.float32, shp)
            feeds[f"{side}{i}"] = rand(rng, *shp)
        nodes.append(helper.make_node("MatMul", [f"a{i}", f"b{i}"], [f"y{i}"]))
        outputs[f"y{i}"] = (np.float32, np.matmul(feeds[f"a{i}"], feeds[f"b{i}"]).shape)
    check_model(make_model(nodes, inputs, outputs), feeds, tmp_path)
