"""conv2d_f32's paths per layer shape and core: simulated cycles per MAC of the path each conv takes, and of the
general loop on the same conv (the path choice switched off), side by side.

    python bench/bench_float_conv_paths.py [--core cortex-m4 ...] [--markdown]

The layers: the 3x3 convs of a CIFAR ResNet-8 (16->16 at 32x32, 32->32 at 16x16, 64->64 at 8x8, pad 1), its first
conv (3->16 at 32x32), a pointwise conv (64->128 at 12x12) and a 1-D conv (k=9, 32->64 over 128 steps, pad 4), each
one float Conv with a bias, profiled alone (mcucomp profile: simulated cycles, Arm TRM instruction timings, zero
wait states). The M0+ has no FPU (soft-float); layers whose tensors do not fit its board's RAM are left out.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import mcucomp
import mcucomp.ops.conv2d_f32 as conv_op
from mcucomp.pipeline import lower_model
from mcucomp.errors import McucompError
from mcucomp.perf.profile import profile_compiled

#: Board per core (the boards of tests/target_boards.py with a cycle simulator).
BOARDS = {"cortex-m4": "nucleo-l4r5zi", "cortex-m33": "nucleo-u575zi", "cortex-m7": "disco-f746ng",
          "cortex-m0plus": "nucleo-g0b1re"}

#: name -> (input shape, weight shape, pads)
LAYERS = {
    "3x3 16->16 at 32x32": ((1, 16, 32, 32), (16, 16, 3, 3), [1, 1, 1, 1]),
    "3x3 32->32 at 16x16": ((1, 32, 16, 16), (32, 32, 3, 3), [1, 1, 1, 1]),
    "3x3 64->64 at 8x8": ((1, 64, 8, 8), (64, 64, 3, 3), [1, 1, 1, 1]),
    "1x1 64->128 at 12x12": ((1, 64, 12, 12), (128, 64, 1, 1), [0, 0, 0, 0]),
    "first 3x3 3->16 at 32x32": ((1, 3, 32, 32), (16, 3, 3, 3), [1, 1, 1, 1]),
    "1-D k=9 32->64 over 128": ((1, 32, 128), (64, 32, 9), [4, 4]),
}


def conv_model(x_shape, w_shape, pads) -> onnx.ModelProto:
    """One float Conv with constant weights and bias (seeded normal values)."""
    rng = np.random.default_rng(0)
    w = (0.1 * rng.standard_normal(w_shape)).astype(np.float32)
    b = (0.1 * rng.standard_normal(w_shape[0])).astype(np.float32)
    y_shape = [1, w_shape[0], *x_shape[2:]]
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=pads)], "conv",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def cycles_per_mac(model: onnx.ModelProto, board: str, out: Path) -> float | None:
    """Zero-wait simulated cycles per MAC of the model's conv; None when it does not fit the board."""
    try:
        mcucomp.compile_model(model, out, name="m", board=board)
        layer = profile_compiled(out, board).layers[0]
    except McucompError:
        return None
    return layer.cycles_zero_wait / layer.macs


def measure(cores: list[str]) -> list[dict]:
    """Per layer and core: the path taken, its cycles per MAC and the general loop's."""
    rows = []
    paths = conv_op.conv_path
    with tempfile.TemporaryDirectory() as tmp:
        for name, (x_shape, w_shape, pads) in LAYERS.items():
            model = conv_model(x_shape, w_shape, pads)
            g, order = lower_model(model)[:2]
            path = paths(order[0], g)
            for core in cores:
                row = {"layer": name, "core": core, "path": path}
                row["path_cmac"] = cycles_per_mac(model, BOARDS[core], Path(tmp) / f"{core}-path")
                conv_op.conv_path = lambda node, graph: "general"
                try:
                    row["general_cmac"] = cycles_per_mac(model, BOARDS[core], Path(tmp) / f"{core}-general")
                finally:
                    conv_op.conv_path = paths
                rows.append(row)
                print(row, flush=True)
    return rows


def markdown(rows: list[dict]) -> str:
    """The rows as a table: per layer its path, and per core the path's cycles/MAC and the general loop's."""
    def cell(r):
        if r["path_cmac"] is None or r["general_cmac"] is None:
            return "–"
        return f"{r['path_cmac']:.2f} ({r['general_cmac']:.1f})"
    cores = list(dict.fromkeys(r["core"] for r in rows))
    layers = list(dict.fromkeys((r["layer"], r["path"]) for r in rows))
    by = {(r["layer"], r["core"]): r for r in rows}
    lines = ["| layer | path | " + " | ".join(cores) + " |", "|---|---|" + "---:|" * len(cores)]
    lines += [f"| {layer} | {path} | " + " | ".join(cell(by[layer, c]) for c in cores) + " |" for layer, path in layers]
    return "\n".join(lines)


def main() -> None:
    """Measure and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--core", action="append", choices=sorted(BOARDS), help="repeat; default: all four")
    args = ap.parse_args()
    print(markdown(measure(args.core or list(BOARDS))))


if __name__ == "__main__":
    main()
