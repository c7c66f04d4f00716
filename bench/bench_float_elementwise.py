"""Simulated cycles per element of the float32 layers without MACs (element-wise arithmetic, Relu and Clip, pooling,
Softmax, Sigmoid, Tanh, Transpose) on representative shapes, on the Cortex-M4 and M0+ boards (zero wait states): the
rows behind BENCHMARKS.md's "Float kernels without MACs" table.

    python bench/bench_float_elementwise.py            # markdown rows on stdout
    PYTHONPATH=/path/to/other/tree python bench/bench_float_elementwise.py   # the same figures of another tree

Elements: those of the layer's first input (a pool's window taps are its input elements). Each one-layer model is
profiled with `mcucomp profile MODEL --board B --json --inputs 1`. The M0+ board (144 KB of RAM) takes the
cases marked * (same-shape Add, Clip, Relu, Transpose) at half the height and width.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BOARDS = {"cortex-m4": "nucleo-l4r5zi", "cortex-m0plus": "nucleo-g0b1re"}


def _model(node: onnx.NodeProto, x_shape: list[int], y_shape: list[int], inits: dict | None = None,
           second: list[int] | None = None) -> onnx.ModelProto:
    """A one-node float32 model: input x (and y2 when `second`), output y, constant initializers."""
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)]
    if second:
        inputs.append(helper.make_tensor_value_info("x2", TensorProto.FLOAT, second))
    graph = helper.make_graph([node], node.op_type, inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
                              [numpy_helper.from_array(np.asarray(v, np.float32), k) for k, v in (inits or {}).items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def cases(small: bool) -> list[tuple[str, onnx.ModelProto]]:
    """(label, model) of each case; `small` halves the height and width of the cases marked * in their label."""
    half = 2 if small else 1
    image, wide = [1, 16, 32 // half, 32 // half], [1, 96, 24 // half, 24 // half]
    bias = np.random.default_rng(0).standard_normal((1, 16, 1, 1))
    return [
        ("Add, same shape [16, 32, 32]*", _model(helper.make_node("Add", ["x", "x2"], ["y"]), image, image,
                                                  second=image)),
        ("Add, per-channel bias [16, 32, 32]", _model(helper.make_node("Add", ["x", "b"], ["y"]), [1, 16, 32, 32],
                                                        [1, 16, 32, 32], {"b": bias})),
        ("GlobalAveragePool [64, 8, 8]", _model(helper.make_node("GlobalAveragePool", ["x"], ["y"]), [1, 64, 8, 8],
                                                [1, 64, 1, 1])),
        ("MaxPool 2x2/2 [32, 16, 16]", _model(helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2],
                                                               strides=[2, 2]), [1, 32, 16, 16], [1, 32, 8, 8])),
        ("Clip(0, 6) [96, 24, 24]*", _model(helper.make_node("Clip", ["x", "lo", "hi"], ["y"]), wide, wide,
                                          {"lo": 0.0, "hi": 6.0})),
        ("Relu [96, 24, 24]*", _model(helper.make_node("Relu", ["x"], ["y"]), wide, wide)),
        ("Softmax of 12", _model(helper.make_node("Softmax", ["x"], ["y"], axis=-1), [1, 12], [1, 12])),
        ("Softmax of 1000", _model(helper.make_node("Softmax", ["x"], ["y"], axis=-1), [1, 1000], [1, 1000])),
        ("Sigmoid of 4096", _model(helper.make_node("Sigmoid", ["x"], ["y"]), [1, 4096], [1, 4096])),
        ("Tanh of 4096", _model(helper.make_node("Tanh", ["x"], ["y"]), [1, 4096], [1, 4096])),
        ("Transpose NCHW -> NHWC [16, 32, 32]*", _model(helper.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 3, 1]),
                                                       image, [1, *image[2:], image[1]])),
    ]


def profile(model: onnx.ModelProto, board: str, directory: Path) -> tuple[str, int, int]:
    """(kernel path, zero-wait cycles, first-input elements) of the model's one layer on the board."""
    path = directory / f"{model.graph.name}_{board}.onnx"
    onnx.save(model, path)
    # cwd away from any tree: `python -m` puts the cwd first on sys.path, PYTHONPATH must choose the package
    out = subprocess.run([sys.executable, "-m", "mcucomp", "profile", str(path), "--board", board, "--json",
                          "--inputs", "1"], capture_output=True, text=True, check=True, cwd=directory)
    layer = json.loads(out.stdout)["layers"][0]
    elements = int(np.prod([d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]))
    shown = subprocess.run([sys.executable, "-m", "mcucomp", "show", str(path)], capture_output=True, text=True,
                           check=True, cwd=directory).stdout.split()
    kernel = next(word for word in shown if word.startswith(layer["op"]))
    return kernel, layer["cycles_zero_wait"], elements


def main() -> int:
    """Print one markdown row per case: the kernel path and cycles per element on each core."""
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for core, board in BOARDS.items():
            for label, model in cases(small=core == "cortex-m0plus"):
                kernel, cycles, elements = profile(model, board, Path(tmp))
                rows.setdefault(label, {})[core] = (kernel, cycles / elements)
    print("| layer | kernel path | " + " | ".join(f"{c} cycles per element" for c in BOARDS) + " |")
    print("|---|---|" + "---:|" * len(BOARDS))
    for label, by_core in rows.items():
        kernel = by_core["cortex-m4"][0]
        print(f"| {label} | {kernel} | " + " | ".join(f"{by_core[c][1]:.1f}" if c in by_core else "" for c in BOARDS)
              + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
