"""Simulated cycles per MAC of float depthwise 3x3 layers (pads 1, bias, fused activation) of the shapes of KWS
DS-CNN and MobileNetV2-0.35 at 96x96, per board: one layer per model, profiled on the instruction-level simulator
(Arm manuals' timings, zero wait states). MACs count every tap of every window, padding included.

    python bench/bench_depthwise_f32.py                                   # M4, M33, M7
    python bench/bench_depthwise_f32.py --board nucleo-g0b1re --small     # M0+ (soft float): the small layers only
"""

from __future__ import annotations

import argparse

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from mcucomp.pipeline import profile_model

#: (label, channels, height, width, stride, activation): DS-CNN's depthwise layers, then MobileNetV2-0.35's at
#: 48x48, 24x24 (stride 2 into it), 12x12, 6x6 and 3x3, and a tiny unactivated plane.
LAYERS = (("DS-CNN 64ch 25x5", 64, 25, 5, 1, "Relu"), ("MNv2 16ch 48x48", 16, 48, 48, 1, "Clip"),
          ("MNv2 48ch 48x48 s2", 48, 48, 48, 2, "Clip"), ("MNv2 96ch 12x12", 96, 12, 12, 1, "Clip"),
          ("MNv2 144ch 6x6", 144, 6, 6, 1, "Clip"), ("MNv2 336ch 3x3", 336, 3, 3, 1, "Clip"),
          ("8ch 4x4", 8, 4, 4, 1, None))
#: The layers the M0+ (soft float, about 200 cycles per MAC) is simulated on in reasonable time.
SMALL = ("MNv2 336ch 3x3", "8ch 4x4")
BOARDS = ("nucleo-l4r5zi", "nucleo-u575zi", "disco-f746ng")


def layer_model(channels: int, height: int, width: int, stride: int, activation: str | None):
    """One depthwise 3x3 Conv (pads 1, bias) and its activation (Relu, Clip(0, 6) or none)."""
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.standard_normal((channels, 1, 3, 3)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal(channels).astype(np.float32), "b")]
    conv_out = "c" if activation else "y"
    nodes = [helper.make_node("Conv", ["x", "w", "b"], [conv_out], group=channels, pads=[1, 1, 1, 1],
                              strides=[stride, stride])]
    if activation == "Relu":
        nodes.append(helper.make_node("Relu", ["c"], ["y"]))
    elif activation == "Clip":
        inits += [numpy_helper.from_array(np.float32(0), "lo"), numpy_helper.from_array(np.float32(6), "hi")]
        nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["y"]))
    out = (height + 2 - 3) // stride + 1, (width + 2 - 3) // stride + 1
    graph = helper.make_graph(
        nodes, "dw", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, height, width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, channels, *out])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main() -> None:
    """Print one row per layer: simulated cycles per MAC on each board."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", action="append", help="board id (repeatable; default: M4, M33, M7)")
    parser.add_argument("--small", action="store_true", help="only the small layers (for the M0+)")
    args = parser.parse_args()
    boards = args.board or list(BOARDS)
    print("| layer | " + " | ".join(boards) + " |")
    print("|---|" + "---|" * len(boards))
    for label, *shape in LAYERS:
        if args.small and label not in SMALL:
            continue
        cells = []
        for board in boards:
            result = profile_model(layer_model(*shape), board, inputs=1, name="m")
            conv = next(layer for layer in result.layers if layer.op == "conv2d_f32")
            cells.append(f"{conv.cycles_zero_wait / conv.macs:.2f}")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
