"""Float models exported from PyTorch for the quantization tests and the float benchmark: a ResNet-8 (CIFAR), a KWS
DS-CNN, a MobileNetV2-0.35 at 96x96, a GRU keyword classifier unrolled into Linear layers, a 1-D CNN for activity
recognition and a GRU keyword model (torch.nn.GRU, ONNX's GRU op), with calibration and validation data.

Weights are PyTorch's default initialization from a fixed seed; every BatchNorm gets non-trivial statistics that
fit the data (so folding matters and activations keep unit scale). The data are class prototypes plus noise: each
sample is one of ten smooth random patterns, scaled and noised, so calibration and validation come from the same
distribution and the float model's top-1 is a stable function of the input, as on real data.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn


def _conv1d_bn(c_in: int, c_out: int, k: int) -> nn.Sequential:
    """1-D conv (no bias, same padding) + BatchNorm + ReLU."""
    return nn.Sequential(nn.Conv1d(c_in, c_out, k, padding=k // 2, bias=False), nn.BatchNorm1d(c_out), nn.ReLU())


def _conv_bn(c_in: int, c_out: int, k, stride: int = 1, groups: int = 1, relu: str | None = "relu") -> nn.Sequential:
    """Conv (no bias) + BatchNorm (+ ReLU or ReLU6)."""
    pad = (k[0] // 2, k[1] // 2) if isinstance(k, tuple) else k // 2
    layers = [nn.Conv2d(c_in, c_out, k, stride, pad, groups=groups, bias=False), nn.BatchNorm2d(c_out)]
    if relu:
        layers.append(nn.ReLU6() if relu == "relu6" else nn.ReLU())
    return nn.Sequential(*layers)


class _ResBlock(nn.Module):
    """ResNet basic block: two 3x3 conv-BN, a 1x1 strided shortcut when the shape changes, ReLU after the sum."""

    def __init__(self, c_in: int, c_out: int, stride: int):
        super().__init__()
        self.body = nn.Sequential(_conv_bn(c_in, c_out, 3, stride), _conv_bn(c_out, c_out, 3, relu=None))
        self.short = _conv_bn(c_in, c_out, 1, stride, relu=None) if stride != 1 or c_in != c_out else nn.Identity()

    def forward(self, x):
        """The forward pass."""
        return torch.relu(self.body(x) + self.short(x))


class ResNet8(nn.Module):
    """MLPerf Tiny IC ResNet-8: 3x32x32 → conv 16 → blocks 16, 32/2, 64/2 → avgpool → FC 10."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(_conv_bn(3, 16, 3), _ResBlock(16, 16, 1), _ResBlock(16, 32, 2),
                                      _ResBlock(32, 64, 2), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        """The forward pass."""
        return self.fc(self.features(x))


class DsCnn(nn.Module):
    """MLPerf Tiny KWS DS-CNN: 1x49x10 MFCC → conv 10x4/2 (64) → 4x (depthwise 3x3 + pointwise 1x1) → avgpool → FC 12."""

    def __init__(self):
        super().__init__()
        layers = [_conv_bn(1, 64, (10, 4), 2)]
        for _ in range(4):
            layers += [_conv_bn(64, 64, 3, groups=64), _conv_bn(64, 64, 1)]
        self.features = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(64, 12)

    def forward(self, x):
        """The forward pass."""
        return self.fc(self.features(x))


class _InvertedResidual(nn.Module):
    """MobileNetV2 block: 1x1 expand (ReLU6), 3x3 depthwise (ReLU6), 1x1 project; residual when shapes agree."""

    def __init__(self, c_in: int, c_out: int, stride: int, expand: int):
        super().__init__()
        hidden = c_in * expand
        layers = [_conv_bn(c_in, hidden, 1, relu="relu6")] if expand != 1 else []
        layers += [_conv_bn(hidden, hidden, 3, stride, groups=hidden, relu="relu6"),
                   _conv_bn(hidden, c_out, 1, relu=None)]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and c_in == c_out

    def forward(self, x):
        """The forward pass."""
        return x + self.body(x) if self.residual else self.body(x)


def _round8(c: float) -> int:
    """Channels rounded to a multiple of 8 as torchvision's _make_divisible does (never below 90% of c)."""
    rounded = max(8, int(c + 4) // 8 * 8)
    return rounded + 8 if rounded < 0.9 * c else rounded


class MobileNetV2(nn.Module):
    """MobileNetV2 with width multiplier `alpha` (torchvision's block table), 3x96x96 input, `classes` outputs."""

    SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                (6, 320, 1, 1)]

    def __init__(self, alpha: float = 0.35, classes: int = 10):
        super().__init__()
        c = _round8(32 * alpha)
        layers = [_conv_bn(3, c, 3, 2, relu="relu6")]
        for t, channels, n, s in self.SETTINGS:
            out = _round8(channels * alpha)
            for i in range(n):
                layers.append(_InvertedResidual(c, out, s if i == 0 else 1, t))
                c = out
        layers += [_conv_bn(c, 1280, 1, relu="relu6"), nn.AdaptiveAvgPool2d(1), nn.Flatten()]
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(1280, classes)

    def forward(self, x):
        """The forward pass."""
        return self.fc(self.features(x))


class GruClassifier(nn.Module):
    """A one-layer GRU over 16 steps of 20 features (the input holds the frames one after the other: a 1-D Slice
    per step, which stays int8 in the QDQ graph where Flatten or Squeeze would not), unrolled, then FC 10 on the
    last hidden state.

    Written with its gates as Linear layers, so the exported graph is MatMul/Add/Sigmoid/Tanh/Mul (ONNX's GRU op has
    no QDQ form). The update gate's complement 1 - z is sigmoid(-a), computed by its own Linear with the negated
    weights, which keeps the graph free of Sub."""

    STEPS, FEATURES, HIDDEN = 16, 20, 32

    def __init__(self):
        super().__init__()
        h = self.HIDDEN
        self.x_gates = nn.Linear(self.FEATURES, 3 * h)
        self.h_gates = nn.Linear(h, 3 * h)
        self.fc = nn.Linear(h, 10)
        self.register_buffer("input_shift", torch.zeros(self.STEPS * self.FEATURES))

    def forward(self, x):
        """The forward pass: h' = (1 - z) * n + z * h with r, z, n as in torch.nn.GRU."""
        h_size = self.HIDDEN
        wx, bx = self.x_gates.weight, self.x_gates.bias
        wh, bh = self.h_gates.weight, self.h_gates.bias
        x = x + self.input_shift  # mean removal, as keyword-spotting front ends do
        h = None  # zero state: its gate terms are the biases alone
        for t in range(self.STEPS):
            xt = x[:, t * self.FEATURES:(t + 1) * self.FEATURES]
            gx = nn.functional.linear(xt, wx, bx)
            gh = bh if h is None else nn.functional.linear(h, wh, bh)
            r = torch.sigmoid(gx[:, :h_size] + gh[..., :h_size])
            z = torch.sigmoid(gx[:, h_size:2 * h_size] + gh[..., h_size:2 * h_size])
            wz_not, bz_not = -wx[h_size:2 * h_size], -bx[h_size:2 * h_size]
            if h is None:  # one bias (its own constant: a constant both Gemm bias and Add operand stays int8)
                z_not = torch.sigmoid(nn.functional.linear(xt, wz_not, bz_not - bh[h_size:2 * h_size]))
            else:
                z_not = torch.sigmoid(nn.functional.linear(xt, wz_not, bz_not)
                                      + nn.functional.linear(h, -wh[h_size:2 * h_size], -bh[h_size:2 * h_size]))
            n = torch.tanh(gx[:, 2 * h_size:] + r * gh[..., 2 * h_size:])
            h = z_not * n if h is None else z_not * n + z * h
        return self.fc(h)


class HarCnn1d(nn.Module):
    """A 1-D CNN for activity recognition: 3 accelerometer axes x 128 samples → conv 9 (32) → maxpool 2 → conv 5 (64)
    → maxpool 2 → conv 3 (128) → global average pool → FC 10."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(_conv1d_bn(3, 32, 9), nn.MaxPool1d(2), _conv1d_bn(32, 64, 5), nn.MaxPool1d(2),
                                      _conv1d_bn(64, 128, 3), nn.AdaptiveAvgPool1d(1), nn.Flatten())
        self.fc = nn.Linear(128, 10)

    def forward(self, x):
        """The forward pass."""
        return self.fc(self.features(x))


class GruKws(nn.Module):
    """A GRU keyword model: 49 frames of 10 MFCC features through torch.nn.GRU (128 units, exported as ONNX's GRU
    op), its last hidden state through FC 10."""

    STEPS, FEATURES, HIDDEN = 49, 10, 128

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(self.FEATURES, self.HIDDEN, batch_first=True)
        self.fc = nn.Linear(self.HIDDEN, 10)

    def forward(self, x):
        """The forward pass."""
        return self.fc(self.gru(x)[1][0])


#: name: (constructor, one sample's data shape, the model input's shape for one sample)
MODELS = {"resnet8": (ResNet8, (3, 32, 32), (3, 32, 32)), "ds_cnn": (DsCnn, (1, 49, 10), (1, 49, 10)),
          "mobilenetv2_035": (MobileNetV2, (3, 96, 96), (3, 96, 96)), "gru": (GruClassifier, (16, 20), (320,)),
          "har_cnn1d": (HarCnn1d, (3, 128), (3, 128)), "gru_kws": (GruKws, (49, 10), (49, 10))}

#: The models the quantization tests quantize wholly to int8 (quantize_static has no QDQ form of ONNX's GRU op, so
#: gru_kws keeps a float GRU layer).
QUANTIZED = ("resnet8", "ds_cnn", "mobilenetv2_035", "gru", "har_cnn1d")
#: The float benchmark's models (bench/bench_float.py): the five architectures the float kernels are measured on.
FLOAT_BENCH = ("resnet8", "ds_cnn", "mobilenetv2_035", "har_cnn1d", "gru_kws")


def samples(name: str, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """count float32 inputs for model `name` and their classes: one of ten smooth random prototypes (fixed per
    model) times a gain in [0.7, 1.3], plus 20% Gaussian noise; `seed` picks the samples, not the prototypes."""
    _, shape, input_shape = MODELS[name]
    proto_rng = np.random.default_rng(sum(map(ord, name)))
    coarse = proto_rng.standard_normal((10, *shape[:-2], max(2, shape[-2] // 4), max(2, shape[-1] // 4)))
    protos = np.stack([_upsample(c, shape[-2:]) for c in coarse])
    rng = np.random.default_rng(seed)
    classes = rng.integers(0, 10, count)
    gains = rng.uniform(0.7, 1.3, (count,) + (1,) * len(shape))
    data = protos[classes] * gains + 0.2 * rng.standard_normal((count, *shape))
    return data.reshape(count, *input_shape).astype(np.float32), classes


def _upsample(coarse: np.ndarray, size) -> np.ndarray:
    """Bilinear upsampling of the last two axes to `size` (a smooth pattern from a coarse random one)."""
    out = torch.nn.functional.interpolate(torch.from_numpy(coarse).float().reshape(1, -1, *coarse.shape[-2:]),
                                          size=tuple(size), mode="bilinear", align_corners=False)
    return out.reshape(*coarse.shape[:-2], *size).numpy()


def build(name: str, seed: int = 0) -> nn.Module:
    """Model `name` in eval mode with seeded weights and BatchNorm statistics measured on its own data."""
    torch.manual_seed(seed)
    net = MODELS[name][0]()
    net.train()
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.momentum = None  # cumulative average over the batches below
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.1)
        for m in net.modules():
            if isinstance(m, nn.Conv2d) and m.groups > 1:
                m.weight.abs_()  # positive taps: random zero-mean 3x3 filters are high-pass, which no trained
                # depthwise layer is, and would amplify any rounding noise over the smooth signal at every layer
            if getattr(m, "residual", False):  # residual branches start small, as torchvision's zero_init_residual
                m.body[-1][1].weight.uniform_(0.1, 0.3)
        if isinstance(net, GruClassifier):
            net.input_shift.copy_(torch.from_numpy(-samples(name, 256, 999)[0].mean(axis=0)))
        for i in range(4):
            net(torch.from_numpy(samples(name, 64, 1000 + i)[0]))
        net.eval()
        _fit_head(net, *samples(name, 512, 2000))
    return net


def _fit_head(net: nn.Module, x: np.ndarray, classes: np.ndarray) -> None:
    """Set the final Linear by ridge regression from its input features to 4 * one-hot(class), a linear probe: the
    logits then separate the classes as a trained model's do (random heads give near-equal logits and a top-1
    that any rounding flips)."""
    features = []
    net.fc.register_forward_hook(lambda module, args, out: features.append(args[0]))
    net(torch.from_numpy(x))
    f = torch.cat([features[0], torch.ones(len(x), 1)], 1).double()
    target = 4.0 * torch.nn.functional.one_hot(torch.from_numpy(classes), net.fc.out_features).double()
    gram = f.T @ f
    ridge = 0.1 * torch.trace(gram) / len(gram)  # strong enough that no feature of tiny variance gets a huge weight
    solution = torch.linalg.solve(gram + ridge * torch.eye(len(gram), dtype=torch.float64), f.T @ target)
    net.fc.weight.copy_(solution[:-1].T.float())
    net.fc.bias.copy_(solution[-1].float())
    net.fc._forward_hooks.clear()


def export(name: str, path: Path) -> Path:
    """Export model `name` to ONNX at `path` (TorchScript exporter with its constant folding, which evaluates the
    unrolled GRU's negated weights and bias slices)."""
    net = build(name)
    example = torch.from_numpy(samples(name, 1, 0)[0])
    with torch.no_grad():
        torch.onnx.export(net, (example,), str(path), input_names=["input"], output_names=["logits"], dynamo=False,
                          opset_version=13)
    return path
