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


@lru_cache(maxsize=None)
def _quantized(kind: str, directory: str) -> Path:
    """The int8 QDQ model of `kind` written under `directory` (cached per session)."""
    model = {"autoencoder": autoencoder, "unet": unet}.get(kind, lambda: _conv_stack(kind))()
    model.ir_version = 8
    return Path(quantize_qdq(model, Path(directory) / f"{kind}.onnx"))


def int8_model(kind: str, tmp_path_factory) -> Path:
    """Path of the int8 model `kind` ('autoencoder', 'unet', 'dilated' or 'erf') in a session temporary
    directory."""
    return _quantized(kind, str(tmp_path_factory.getbasetemp()))
