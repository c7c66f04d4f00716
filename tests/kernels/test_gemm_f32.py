"""gemm_f32 against onnxruntime: Gemm attributes and C broadcasting, MatMul 1-D/2-D/batched broadcasting."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import helper

import mcucomp
from helpers import check_model, make_model, rand
from mcucomp.target.verify import verify_on_target
from target_boards import CORE_BOARDS

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


# (op, A shape, B shape, transB, alpha, beta, C shape or None): constant B; N and K around the row blocks (8, 4, 1)
# and the assembly loops' column turns (4 and 8); one row of A (matvec) and more (blocked, with a lone last row)
PACKED_CASES = [
    ("Gemm", (1, 17), (13, 17), 1, 1.0, 1.0, (13,)),
    ("Gemm", (1, 9), (9, 12), 0, 0.5, 2.0, (1, 12)),
    ("Gemm", (1, 3), (5, 3), 1, 1.0, 1.0, None),
    ("Gemm", (1, 33), (33, 3), 0, 1.0, 0.25, ()),
    ("Gemm", (3, 8), (8, 9), 0, 1.5, 1.0, (3, 1)),
    ("Gemm", (2, 5), (20, 5), 1, 1.0, 1.0, (2, 20)),
    ("Gemm", (5, 16), (16, 4), 0, 1.0, 1.0, (4,)),
    ("MatMul", (1, 7), (7, 3), 0, 1.0, 0.0, None),
    ("MatMul", (2, 3, 12), (12, 11), 0, 1.0, 0.0, None),
    ("MatMul", (4, 6), (6,), 0, 1.0, 0.0, None),
    ("MatMul", (9,), (9,), 0, 1.0, 0.0, None),
    ("MatMul", (21,), (21, 6), 0, 1.0, 0.0, None),
    ("MatMul", (3, 1), (1, 8), 0, 1.0, 0.0, None),
    ("Gemm", (1, 31), (15, 31), 1, 1.0, 1.0, (15,)),
    ("MatMul", (1, 24), (24, 7), 0, 1.0, 0.0, None),
]

PATH_OF_ROWS = {True: "matvec", False: "blocked"}


def _packed_model(seed: int):
    """PACKED_CASES in one model (B and C constants); the model, its feeds and each node's expected path."""
    rng = np.random.default_rng(seed)
    nodes, inputs, outputs, inits, feeds, paths = [], {}, {}, {}, {}, {}
    for i, (op, a_shape, b_shape, trans_b, alpha, beta, c_shape) in enumerate(PACKED_CASES):
        inputs[f"a{i}"] = (np.float32, a_shape)
        feeds[f"a{i}"] = rand(rng, *a_shape)
        inits[f"b{i}"] = rand(rng, *b_shape)
        names = [f"a{i}", f"b{i}"]
        attrs = {}
        if op == "Gemm":
            attrs = dict(alpha=alpha, beta=beta, transB=trans_b)
            if c_shape is not None:
                inits[f"c{i}"] = rand(rng, *c_shape)
                names.append(f"c{i}")
        nodes.append(helper.make_node(op, names, [f"y{i}"], name=f"n{i}", **attrs))
        b = inits[f"b{i}"].T if trans_b else inits[f"b{i}"]
        outputs[f"y{i}"] = (np.float32, np.matmul(feeds[f"a{i}"], b).shape)
        paths[f"n{i}"] = PATH_OF_ROWS[int(np.prod(a_shape[:-1])) == 1]
    return make_model(nodes, inputs, outputs, inits), feeds, paths


@pytest.mark.parametrize("form", ["fused", "separate"])
def test_packed_paths_against_ort(form, tmp_path):
    """Constant B takes the matvec path (one row of A) or the blocked path (more rows): the C calls that path's
    function, and every output is within the form's bound of onnxruntime."""
    model, feeds, paths = _packed_model(4)
    check_model(model, feeds, tmp_path, float_mac=form)
    source = (tmp_path / "m.c").read_text()
    assert all(f"m_gemm_f32_{path}(" in source for path in ("matvec", "blocked"))
    report = json.loads((tmp_path / "report.json").read_text())
    assert {layer["name"]: layer["kernel_path"] for layer in report["layers"]} == {
        name: f"gemm_f32.{path}" for name, path in paths.items()}


@pytest.mark.parametrize("form", ["fused", "separate"])
@pytest.mark.parametrize("board", CORE_BOARDS)
def test_paths_on_target_equal_host(board, form, tmp_path):
    """On each QEMU core, in both float forms (the assembly loops in the separate form on cores with an FPU), every
    gemm_f32 path (the packed ones with their block tails, and the general one over a runtime B and transA) equals
    the host build bit for bit."""
    model, _, _ = _packed_model(5)
    model.graph.node.append(helper.make_node("Gemm", ["ga", "gb"], ["gy"], name="general", transA=1, alpha=0.5))
    model.graph.input.extend([helper.make_tensor_value_info("ga", onnx.TensorProto.FLOAT, [9, 3]),
                              helper.make_tensor_value_info("gb", onnx.TensorProto.FLOAT, [9, 5])])
    model.graph.output.append(helper.make_tensor_value_info("gy", onnx.TensorProto.FLOAT, [3, 5]))
    mcucomp.compile_model(model, tmp_path, name="m", board=board, float_mac=form)
    result = verify_on_target(tmp_path, board, inputs=4, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and all(v == 0 for v in result.mismatching.values()), result.mismatching


def test_layers_sharing_b_share_its_packing(tmp_path):
    """Gemms over one constant B (an unrolled recurrence's weights) read one packed array: the flash holds B once."""
    b = rand(np.random.default_rng(6), 12, 12)
    nodes = [helper.make_node("Gemm", ["x", "b"], ["h"], transB=1),
             helper.make_node("Gemm", ["h", "b"], ["y"], transB=1)]
    model = make_model(nodes, {"x": (np.float32, (1, 12))}, {"y": (np.float32, (1, 12))}, {"b": b})
    mcucomp.compile_model(model, tmp_path, name="m")
    assert json.loads((tmp_path / "report.json").read_text())["flash_bytes"] == b.nbytes
