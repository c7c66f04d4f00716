"""Small int8 QDQ models for the NPU tests: the AD autoencoder, and conv stacks with one layer the U55 cannot run."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from cli_models import make_model
from int8_models import autoencoder, quantize_qdq, unet


def _conv_stack(middle: str) -> object:
    """x[1,4,12,12] → Conv 3x3 → Relu → <middle> → Conv 3x3 → Relu → Conv 1x1 → y (float, seeded).

    middle 'dilated': a 3x3 Conv with dilation 33 (dilated height 67 > Vela's 64); 'erf': an Erf."""
    rng = np.random.default_rng(3)
    inits, nodes = [], []

    def conv(x, c_in, c_out, k, name, **attrs):
        """A seeded Conv with bias."""
        w = (rng.standard_normal((c_out, c_in, k, k)) * np.sqrt(2.0 / (c_in * k * k))).astype(np.float32)
        b = (0.05 * rng.standard_normal(c_out)).astype(np.float32)
        inits.extend([numpy_helper.from_array(w, f"{name}_w"), numpy_helper.from_array(b, f"{name}_b")])
        nodes.append(helper.make_node("Conv", [x, f"{name}_w", f"{name}_b"], [name], name=name,
                                      kernel_shape=[k, k], **attrs))
        return name

    def relu(x, name):
        """A Relu."""
        nodes.append(helper.make_node("Relu", [x], [name], name=name))
        return name

    h = relu(conv("x", 4, 8, 3, "conv_a", pads=[1, 1, 1, 1]), "relu_a")
    if middle == "dilated":
        h = conv(h, 8, 8, 3, "conv_dilated", pads=[33, 33, 33, 33], dilations=[33, 33])
    else:
        nodes.append(helper.make_node("Erf", [h], ["erf"], name="erf"))
        h = "erf"
    h = relu(conv(h, 8, 8, 3, "conv_b", pads=[1, 1, 1, 1]), "relu_b")
    y = conv(h, 8, 4, 1, "conv_c")
    return make_model(nodes, [("x", TensorProto.FLOAT, [1, 4, 12, 12])], [(y, TensorProto.FLOAT, [1, 4, 12, 12])],
                      inits)


def _pad_clip() -> object:
    """x[1,4,12,12] → Conv 2x2 padded top-left only (not TFLite SAME: a PAD op) → Clip(0.5, 3) (a clamp that is
    not a Relu: MAXIMUM and MINIMUM ops) → Conv 3x3 stride (2, 1), pads (0, 2, 1, 0) → y."""
    rng = np.random.default_rng(5)
    arrays = {"w1": rng.standard_normal((8, 4, 2, 2)).astype(np.float32), "b1": np.zeros(8, np.float32),
              "w2": (0.2 * rng.standard_normal((8, 8, 3, 3))).astype(np.float32), "b2": np.zeros(8, np.float32),
              "lo": np.float32(0.5), "hi": np.float32(3.0)}
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["h"], name="c1", kernel_shape=[2, 2], pads=[1, 1, 0, 0]),
             helper.make_node("Clip", ["h", "lo", "hi"], ["hc"], name="clip"),
             helper.make_node("Conv", ["hc", "w2", "b2"], ["y"], name="c2", kernel_shape=[3, 3], pads=[0, 2, 1, 0],
                              strides=[2, 1])]
    return make_model(nodes, [("x", TensorProto.FLOAT, [1, 4, 12, 12])], [("y", TensorProto.FLOAT, [1, 8, 6, 12])],
                      [numpy_helper.from_array(a, n) for n, a in arrays.items()])


def _flatten_fc() -> object:
    """x[1,4,6,6] → Conv 3x3 → Relu → Flatten → Gemm 288 → 10 → y: the Flatten of a channels-last 6x6 image, whose
    fully connected weights the layout pass permutes into the channels-last order."""
    rng = np.random.default_rng(7)
    arrays = {"w1": (0.3 * rng.standard_normal((8, 4, 3, 3))).astype(np.float32),
              "b1": (0.1 * rng.standard_normal(8)).astype(np.float32),
              "w2": (0.1 * rng.standard_normal((10, 288))).astype(np.float32),
              "b2": (0.1 * rng.standard_normal(10)).astype(np.float32)}
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["h"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["h"], ["hr"], name="relu"),
             helper.make_node("Flatten", ["hr"], ["flat"], name="flatten"),
             helper.make_node("Gemm", ["flat", "w2", "b2"], ["y"], name="fc", transB=1)]
    return make_model(nodes, [("x", TensorProto.FLOAT, [1, 4, 6, 6])], [("y", TensorProto.FLOAT, [1, 10])],
                      [numpy_helper.from_array(a, n) for n, a in arrays.items()])


def _fanout() -> object:
    """x[1,4,6,6] → ten Conv 3x3 → y0..y9: one candidate region with ten outputs, more than a region call takes."""
    rng = np.random.default_rng(11)
    nodes, inits = [], []
    for i in range(10):
        inits += [numpy_helper.from_array((0.3 * rng.standard_normal((4, 4, 3, 3))).astype(np.float32), f"w{i}"),
                  numpy_helper.from_array(np.zeros(4, np.float32), f"b{i}")]
        nodes.append(helper.make_node("Conv", ["x", f"w{i}", f"b{i}"], [f"y{i}"], name=f"conv{i}",
                                      kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
    return make_model(nodes, [("x", TensorProto.FLOAT, [1, 4, 6, 6])],
                      [(f"y{i}", TensorProto.FLOAT, [1, 4, 6, 6]) for i in range(10)], inits)


@lru_cache(maxsize=None)
def _quantized(kind: str, directory: str) -> Path:
    """The int8 QDQ model of `kind` written under `directory` (cached per session)."""
    model = {"autoencoder": autoencoder, "unet": unet, "padclip": _pad_clip, "flatten": _flatten_fc,
             "fanout": _fanout}.get(kind, lambda: _conv_stack(kind))()
    model.ir_version = 8
    return Path(quantize_qdq(model, Path(directory) / f"{kind}.onnx"))


def int8_model(kind: str, tmp_path_factory) -> Path:
    """Path of the int8 model `kind` ('autoencoder', 'unet', 'padclip', 'flatten', 'fanout',
    'dilated' or 'erf') in a session
    temporary directory."""
    return _quantized(kind, str(tmp_path_factory.getbasetemp()))
