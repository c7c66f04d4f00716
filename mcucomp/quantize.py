"""Post-training static quantization, ONNX → ONNX, through onnxruntime.quantization (before the frontend).

The defaults are what mcucomp's int8 kernels and the Ethos-U take without rewriting: QDQ form, int8 activations
(asymmetric), int8 weights symmetric per output channel (zero point 0), int32 biases, after onnxruntime's own
pre-processing (`quant_pre_process`: shape inference, constant and BatchNormalization folding). The quantizer is
onnxruntime's; this module reads and checks the calibration data, feeds it with a progress bar, and writes the
result all or nothing.

Calibration data come as the `verify --data` format (an .npz whose arrays are keyed by input name, with a leading
sample axis) or as a directory of `<input name>.npy` files with the same content. There is no default: without
calibration data nothing is quantized.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import numpy as np
import onnx

from . import npz
from .errors import McucompError, OptionError

#: Calibration methods by option value: onnxruntime's CalibrationMethod member names.
METHODS = {"minmax": "MinMax", "entropy": "Entropy", "percentile": "Percentile"}
#: Fewest calibration samples accepted: fewer give ranges that clip ordinary inputs.
MIN_SAMPLES = 8
#: metadata_props key marking a model file written by `mcucomp quantize` (so re-running may replace it).
WRITTEN_BY_KEY = "mcucomp.quantize"


@dataclass(frozen=True)
class QuantizeOptions:
    """The quantization choices: calibration method, per-tensor weights, sample cap, nodes left in float."""

    method: str = "minmax"
    per_tensor: bool = False
    calib_samples: int | None = None
    keep_float: tuple[str, ...] = ()

    def describe(self) -> dict:
        """The options as report.json records them."""
        return {"method": self.method, "weights": "per-tensor" if self.per_tensor else "per-channel",
                "activations": "int8 asymmetric", "weights_type": "int8 symmetric (zero point 0)",
                "bias": "int32", "format": "QDQ", "keep_float": list(self.keep_float)}


@dataclass
class QuantizedModel:
    """The quantized model's bytes, the number of calibration samples used, and what report.json records."""

    data: bytes
    samples: int
    source: str
    options: QuantizeOptions
    calibration: str
    info: dict = field(default_factory=dict)


def _quantization_api():
    """onnxruntime.quantization, with an actionable error when onnxruntime is missing."""
    try:
        from onnxruntime import quantization
    except ImportError:
        raise McucompError(
            "Quantizing needs onnxruntime's quantization tools, and onnxruntime is not installed. Install it with "
            "`python -m pip install 'mcucomp[quantize]'` (or `python -m pip install onnxruntime==1.31.1`).") from None
    return quantization


def _arrays(path: Path | dict) -> dict[str, np.ndarray]:
    """The arrays of an .npz file or of a directory of .npy files (named after the file stem); a dict as given."""
    if isinstance(path, dict):
        return dict(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix == ".npy" and p.is_file())
        if not files:
            raise OptionError(f"--calib '{path}' is a directory without .npy files: save one array per model input "
                              "as <input name>.npy, with the samples along the first axis.")
        try:
            return {p.stem: np.load(p, allow_pickle=False) for p in files}
        except (OSError, ValueError) as exc:
            raise OptionError(f"--calib '{path}': cannot read its .npy files ({exc}). Save each with "
                              "numpy.save(path, array).") from None
    return npz.read_npz(path, "--calib", "an .npz written by numpy.savez(path, **{input_name: samples}) or a "
                        "directory of <input name>.npy files, samples along the first axis",
                        "Write it with numpy.savez(path, **{input_name: samples}).")


def _input_specs(model: onnx.ModelProto) -> dict[str, tuple[np.dtype, list]]:
    """{graph input name: (numpy dtype, dims with None for symbolic ones)}, initializers excluded."""
    inits = {i.name for i in model.graph.initializer}
    specs = {}
    for value in model.graph.input:
        if value.name in inits:
            continue
        tensor = value.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim]
        specs[value.name] = (np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)), dims)
    return specs


def _shape_text(dims) -> str:
    """`1x3x32x32`, with '?' for a symbolic dim."""
    return "x".join("?" if d is None else str(d) for d in dims) or "scalar"


def calibration_samples(calib, model: onnx.ModelProto, limit: int | None = None) -> list[dict[str, np.ndarray]]:
    """The calibration feeds, one dict per sample, checked against the model's inputs (names, dtypes, shapes,
    finite values, at least MIN_SAMPLES), at most `limit` of them; an OptionError naming the problem otherwise.

    `calib`: an .npz path, a directory of .npy files, or a dict of arrays by input name."""
    path = calib if isinstance(calib, dict) else Path(os.fspath(calib))
    arrays = _arrays(path)
    specs = _input_specs(model)
    unknown = sorted(set(arrays) - set(specs))
    missing = [name for name in specs if name not in arrays]
    if unknown or missing:
        raise OptionError(f"--calib '{path}': " + "; ".join(
            ([f"no array for input(s) {', '.join(repr(n) for n in missing)}"] if missing else [])
            + ([f"array(s) {', '.join(repr(n) for n in unknown)} name no model input"] if unknown else []))
            + f". The model's inputs: {', '.join(f'{n} ({_shape_text(d)})' for n, (_, d) in specs.items())}; key "
            "each array by one of these names.")
    counts = {}
    for name, (dtype, dims) in specs.items():
        array = arrays[name]
        if array.dtype != dtype:
            raise OptionError(f"--calib '{path}': array '{name}' is {array.dtype}, but input '{name}' is {dtype}. "
                              f"Convert it with array.astype(numpy.{dtype}).")
        if array.ndim == len(dims) and dims[:1] == [1]:
            array = arrays[name] = array[:, np.newaxis]  # the batch axis of a batch-1 input used as the sample axis
        if array.ndim != len(dims) + 1 or any(d is not None and d != a for d, a in zip(dims, array.shape[1:])):
            raise OptionError(f"--calib '{path}': array '{name}' has shape {_shape_text(array.shape)}, but input "
                              f"'{name}' needs Nx{_shape_text(dims)}: N samples along a leading axis, each of the "
                              "input's shape (as `verify --data` takes them).")
        if np.issubdtype(array.dtype, np.floating) and not np.isfinite(array).all():
            bad = int(np.flatnonzero(~np.isfinite(array.reshape(len(array), -1)).all(axis=1))[0])
            raise OptionError(f"--calib '{path}': array '{name}' holds NaN or infinite values (first in sample "
                              f"#{bad}); calibration ranges would be meaningless. Remove or repair those samples.")
        counts[name] = len(array)
    if len(set(counts.values())) > 1:
        raise OptionError(f"--calib '{path}': the arrays hold different numbers of samples ("
                          + ", ".join(f"'{k}' {n}" for k, n in counts.items())
                          + "); give every input the same number along the leading axis.")
    count = next(iter(counts.values()), 0)
    wanted = MIN_SAMPLES if limit is None else max(limit, MIN_SAMPLES)
    if count < wanted:
        need = (f"--calib-samples {limit} asks for {limit}" if limit is not None and limit > MIN_SAMPLES else
                f"at least {MIN_SAMPLES} are needed")
        raise OptionError(f"--calib '{path}' holds {count} sample{'s' * (count != 1)}, but {need}: add "
                          "representative inputs (a few hundred are typical), or lower --calib-samples.")
    count = count if limit is None else min(count, limit)
    return [{name: np.ascontiguousarray(arrays[name][i]) for name in specs} for i in range(count)]


class ProgressBar:
    """A one-line text progress bar on a stream: `label [#####.....] done/total`, redrawn in place."""

    WIDTH = 30

    def __init__(self, stream: TextIO | None, label: str, total: int):
        self.stream, self.label, self.total = stream, label, total
        self.done = 0

    def advance(self) -> None:
        """Count one more step and redraw; a newline after the last."""
        self.done += 1
        filled = self.WIDTH * self.done // max(self.total, 1)
        if self.stream is None or (filled == self.WIDTH * (self.done - 1) // max(self.total, 1)
                                   and self.done < self.total):
            return
        end = "\n" if self.done >= self.total else ""
        print(f"\r{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {self.done}/{self.total}", end=end,
              file=self.stream, flush=True)


def _reader(api, samples: list[dict[str, np.ndarray]], bar: ProgressBar):
    """A CalibrationDataReader over the samples that advances the bar as onnxruntime takes each one."""

    class SampleReader(api.CalibrationDataReader):
        """Hands onnxruntime's calibrator one sample at a time."""

        def __init__(self):
            self.queue = iter(samples)

        def get_next(self):
            """The next sample's feeds, or None after the last."""
            sample = next(self.queue, None)
            if sample is not None:
                bar.advance()
            return sample

    return SampleReader()


def _check_keep_float(model: onnx.ModelProto, keep_float: tuple[str, ...]) -> None:
    """Every --keep-float name is a node of the (pre-processed) model."""
    names = [n.name for n in model.graph.node]
    unknown = [k for k in keep_float if k not in set(names)]
    if unknown:
        import difflib

        hints = {k: difflib.get_close_matches(k, names, 3, 0.5) for k in unknown}
        raise OptionError("--keep-float names no node " + "; ".join(
            f"'{k}'" + (f" (close: {', '.join(hints[k])})" if hints[k] else "") for k in unknown)
            + ". Give node names as the model has them (`mcucomp quantize` keeps onnxruntime's pre-processed names; "
              "the per-layer table of `mcucomp verify --reference` lists them).")


def quantize_model(model, calib, options: QuantizeOptions = QuantizeOptions(),
                   progress: TextIO | None = sys.stderr) -> QuantizedModel:
    """Quantize the float ONNX model at path `model` with the samples in `calib` (see calibration_samples); return
    the model's bytes.

    Writes only into a temporary directory, removed before returning."""
    api = _quantization_api()
    if options.method not in METHODS:
        raise OptionError(f"--method {options.method}: choose one of {', '.join(METHODS)}.")
    if options.calib_samples is not None and options.calib_samples < 1:
        raise OptionError(f"--calib-samples {options.calib_samples}: give a positive number of samples.")
    path = Path(os.fspath(model))
    try:
        proto = onnx.load(path, load_external_data=False)
    except Exception as exc:  # onnx raises DecodeError, OSError, ValueError
        raise OptionError(f"Cannot read '{path}' as an ONNX model ({type(exc).__name__}: {exc}).") from None
    samples = calibration_samples(calib, proto, options.calib_samples)
    with tempfile.TemporaryDirectory(prefix="mcucomp-quantize-") as tmp:
        prepared, output = Path(tmp) / "prepared.onnx", Path(tmp) / "int8.onnx"
        try:
            api.quant_pre_process(str(path), str(prepared))
        except Exception as exc:  # onnxruntime's shape inference and optimizer raise many kinds
            raise OptionError(f"onnxruntime's quantization pre-processing cannot process '{path}' ({exc}). "
                              "Check that onnxruntime can run the model.") from None
        _check_keep_float(onnx.load(prepared), options.keep_float)
        bar = ProgressBar(progress, "calibrating", len(samples))
        try:
            api.quantize_static(
                str(prepared), str(output), _reader(api, samples, bar), quant_format=api.QuantFormat.QDQ,
                per_channel=not options.per_tensor, reduce_range=False, activation_type=api.QuantType.QInt8,
                weight_type=api.QuantType.QInt8, nodes_to_exclude=list(options.keep_float) or None,
                calibrate_method=getattr(api.CalibrationMethod, METHODS[options.method]),
                extra_options={"ActivationSymmetric": False, "WeightSymmetric": True, "QuantizeBias": True})
        except Exception as exc:  # onnxruntime's calibration session and quantizer raise many kinds
            raise OptionError(f"onnxruntime could not quantize '{path}' ({type(exc).__name__}: {exc}).") from None
        quantized = onnx.load(output)
    onnx.helper.set_model_props(quantized, {**{p.key: p.value for p in quantized.metadata_props},
                                            WRITTEN_BY_KEY: f"from {path.name}"})
    source = "<arrays>" if isinstance(calib, dict) else os.fspath(calib)
    info = {"float_model": path.name, "calibration": source, "calibration_samples": len(samples),
            **options.describe()}
    return QuantizedModel(quantized.SerializeToString(), len(samples), path.name, options, source, info)


def _written_by_mcucomp(path: Path) -> bool:
    """True when path holds an ONNX model `mcucomp quantize` wrote (its metadata carries WRITTEN_BY_KEY)."""
    try:
        proto = onnx.load(path, load_external_data=False)
    except Exception:  # not an ONNX file at all
        return False
    return any(p.key == WRITTEN_BY_KEY for p in proto.metadata_props)


def check_destination(out, model) -> Path:
    """The -o path, checked before any work: not the input model, and not a file mcucomp did not write."""
    out = Path(os.path.abspath(out))
    if out.exists() and Path(os.path.abspath(model)).exists() and os.path.samefile(out, model):
        raise OptionError(f"-o '{out}' is the float model itself: choose another file name, e.g. "
                          f"{Path(model).stem}_int8.onnx.")
    if os.path.lexists(out) and (not out.is_file() or out.is_symlink()):
        raise OptionError(f"-o '{out}' exists and is not a regular file: choose another -o.")
    if out.exists() and not _written_by_mcucomp(out):
        raise OptionError(f"-o '{out}' exists and was not written by `mcucomp quantize`: remove it or choose "
                          "another -o. Nothing was written.")
    if not out.parent.is_dir():
        raise OptionError(f"-o '{out}': directory '{out.parent}' does not exist: create it or choose another -o.")
    return out


def write_atomically(data: bytes, out: Path) -> None:
    """Write data to out through a temporary file in the same directory, renamed over out only when complete."""
    fd, tmp = tempfile.mkstemp(prefix=".mcucomp-", suffix=".onnx", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
