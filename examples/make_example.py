"""Write examples/tiny_cnn.onnx: a small float32 CNN (CIFAR-sized input, 10 classes) with fixed-seed weights.

Run `python examples/make_example.py`; the output is byte-for-byte reproducible (onnx.helper, numpy seed 2024).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEED = 2024
OUT = Path(__file__).resolve().parent / "tiny_cnn.onnx"


def _conv_block(rng, index: int, x: str, c_in: int, c_out: int, pool: bool) -> tuple[list, list, str]:
    """Conv 3x3 (pad 1) + Relu (+ MaxPool 2x2): nodes, initializers and the block's output name."""
    w = (rng.standard_normal((c_out, c_in, 3, 3)) * np.sqrt(2.0 / (9 * c_in))).astype(np.float32)
    b = (0.1 * rng.standard_normal(c_out)).astype(np.float32)
    conv, relu = f"conv{index}", f"relu{index}"
    nodes = [helper.make_node("Conv", [x, f"{conv}.w", f"{conv}.b"], [f"{conv}_out"], name=conv,
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", [f"{conv}_out"], [f"{relu}_out"], name=relu)]
    out = f"{relu}_out"
    if pool:
        nodes.append(helper.make_node("MaxPool", [out], [f"pool{index}_out"], name=f"pool{index}",
                                      kernel_shape=[2, 2], strides=[2, 2]))
        out = f"pool{index}_out"
    return nodes, [numpy_helper.from_array(w, f"{conv}.w"), numpy_helper.from_array(b, f"{conv}.b")], out


def build() -> onnx.ModelProto:
    """image[1,3,32,32] → 3 conv blocks (8, 16, 32 channels) → global average pool → Gemm → Softmax → probs[1,10]."""
    rng = np.random.default_rng(SEED)
    nodes, inits, x = [], [], "image"
    for index, (c_in, c_out, pool) in enumerate(((3, 8, True), (8, 16, True), (16, 32, False)), start=1):
        block_nodes, block_inits, x = _conv_block(rng, index, x, c_in, c_out, pool)
        nodes += block_nodes
        inits += block_inits
    fc_w = (rng.standard_normal((10, 32)) * np.sqrt(1.0 / 32)).astype(np.float32)
    fc_b = (0.1 * rng.standard_normal(10)).astype(np.float32)
    inits += [numpy_helper.from_array(fc_w, "fc.w"), numpy_helper.from_array(fc_b, "fc.b")]
    nodes += [helper.make_node("GlobalAveragePool", [x], ["gap_out"], name="gap"),
              helper.make_node("Flatten", ["gap_out"], ["flat_out"], name="flatten"),
              helper.make_node("Gemm", ["flat_out", "fc.w", "fc.b"], ["logits"], name="fc", transB=1),
              helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1)]
    graph = helper.make_graph(nodes, "tiny_cnn",
                              [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
                              [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="mcucomp-example")
    model.ir_version = 8  # onnxruntime 1.31 rejects newer IR versions
    onnx.checker.check_model(model, full_check=True)
    return model


if __name__ == "__main__":
    onnx.save(build(), OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes)")
