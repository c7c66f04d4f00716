"""transpose against onnxruntime (exact): default and explicit perms, rank 6, 1-sized dims, int8 and float."""

from __future__ import annotations

import itertools

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def test_transpose_all_rank4_perms(tmp_path):
    x = rand(np.random.default_rng(70), 2, 3, 1, 5)
    nodes = [helper.make_node("Transpose", ["x"], [f"y{i}"], perm=list(p))
             for i, p in enumerate(itertools.permutations(range(4)))]
    nodes.append(helper.make_node("Transpose", ["x"], ["y_default"]))
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, exact=True)


def test_transpose_rank6_int8(tmp_path):
    x = np.random.default_rng(71).integers(-128, 128, (2, 3, 2, 5, 3, 2), dtype=np.int8)
    node = helper.make_node("Transpose", ["x"], ["y"], perm=[5, 3, 1, 4, 0, 2])
    check_nodes([node], {"x": (np.int8, x.shape)}, {"x": x}, tmp_path, exact=True)


def test_transpose_int8_layout_conversions(tmp_path):
    """The byte walks of layout conversions: NCHW → NHWC with 3 channels (the unrolled 2-D walk, and its four
    pixels per three words where a plane is a multiple of 4 bytes), 5 channels (the 2-D row loop), NHWC → NCHW, and
    a 4-D perm with strided rows; uint8 too."""
    rng = np.random.default_rng(72)
    cases = [((1, 3, 7, 9), [0, 2, 3, 1], np.int8), ((1, 3, 6, 10), [0, 2, 3, 1], np.int8),
             ((1, 3, 2, 2), [0, 2, 3, 1], np.uint8), ((1, 5, 4, 6), [0, 2, 3, 1], np.int8),
             ((1, 7, 9, 3), [0, 3, 1, 2], np.int8), ((2, 3, 4, 5), [1, 0, 3, 2], np.uint8),
             ((1, 3, 1, 1), [0, 2, 3, 1], np.uint8)]
    for i, (shape, perm, dtype) in enumerate(cases):
        x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max + 1, shape).astype(dtype)
        node = helper.make_node("Transpose", ["x"], ["y"], perm=perm)
        check_nodes([node], {"x": (dtype, x.shape)}, {"x": x}, tmp_path / str(i), exact=True)


def test_transpose_word_rows(tmp_path):
    """4-byte elements (float32, int32) walk strided rows four words per trip: rows of 1 to 9 elements (the tail of
    each length), an NCHW -> NHWC conversion, and a negative step (Slice reversing the innermost axis)."""
    rng = np.random.default_rng(73)
    nodes, inputs, feeds = [], {}, {}
    for n in range(1, 10):
        inputs[f"x{n}"], feeds[f"x{n}"] = (np.float32, (2, 3, n)), rand(rng, 2, 3, n)
        nodes.append(helper.make_node("Transpose", [f"x{n}"], [f"y{n}"], perm=[0, 2, 1]))
    inputs["img"], feeds["img"] = (np.float32, (1, 7, 5, 6)), rand(rng, 1, 7, 5, 6)
    inputs["ints"] = (np.int32, (3, 11))
    feeds["ints"] = rng.integers(-(2**31), 2**31 - 1, (3, 11), dtype=np.int32)
    nodes += [helper.make_node("Transpose", ["img"], ["nhwc"], perm=[0, 2, 3, 1]),
              helper.make_node("Transpose", ["ints"], ["ints_t"], perm=[1, 0]),
              helper.make_node("Slice", ["img", "starts", "ends", "axes", "steps"], ["reversed"])]
    inits = {"starts": np.array([-1], np.int64), "ends": np.array([-(2**62)], np.int64),
             "axes": np.array([3], np.int64), "steps": np.array([-1], np.int64)}
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, exact=True)
