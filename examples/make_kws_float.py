"""Write the float KWS example of README's quantize path: examples/kws_float.onnx (a DS-CNN keyword spotter exported
from PyTorch, 1x49x10 MFCC in, 12 scores out), examples/kws_calib.npz (64 calibration samples under `input`) and
examples/kws_val.npz (100 other samples under `input`, their classes under `labels`).

Run `python examples/make_kws_float.py` (needs torch, a test extra); the model and data come from
tests/pytorch_models.py with fixed seeds.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import pytorch_models  # noqa: E402

MODEL = "ds_cnn"
CALIBRATION, VALIDATION = 64, 100


def main() -> None:
    """Export the model and write both sample files."""
    pytorch_models.export(MODEL, HERE / "kws_float.onnx")
    np.savez_compressed(HERE / "kws_calib.npz", input=pytorch_models.samples(MODEL, CALIBRATION, 1)[0][:, np.newaxis])
    x, classes = pytorch_models.samples(MODEL, VALIDATION, 2)
    np.savez_compressed(HERE / "kws_val.npz", input=x[:, np.newaxis], labels=classes)


if __name__ == "__main__":
    main()
