"""Run the generated C on the host and compare it with onnxruntime on seeded random inputs or on samples from an
.npz file (--data), and with the file's expected outputs when it has them.

The accuracy contract lives here, in one place:
- int8 models (the schedule has int8 compute kernels): every output must equal the package's integer reference
  (mcucomp.intref) bit for bit; against onnxruntime each output reports the share of values equal, the max |Δ| in
  LSB and top-1 agreement (classifiers), which do not fail verify by themselves; and the layer-local check (each
  int8 layer fed onnxruntime's own inputs, by the integer reference, within intref's LAYER_LSB_BOUND of
  onnxruntime's output for that layer; on the first input and on the first whose outputs differ from
  onnxruntime's) must hold, else verify fails and names the layer;
- onnxruntime is one graph for every comparison: the model as written (graph optimizations off). Its default
  rewrites fuse QuantizeLinear/DequantizeLinear groups into QLinear kernels that round otherwise (e.g.
  DequantizeLinear → AveragePool → QuantizeLinear into QLinearAveragePool), and whether a group is fused depends on
  which tensors are graph outputs (an int8 tensor that is one is not retyped to uint8, which otherwise stops the
  fusion), so the end-to-end run and the exposed run of the layer-local
  check would otherwise compute different things. For int8 models the default-optimized run is compared with the
  model as written too, so a difference of onnxruntime's rewrites is reported as one, not as the C's;
- other models: integer (and bool) outputs must be identical to onnxruntime's;
- a float output tensor passes when every element satisfies |c - ort| <= FLOAT_ULP_BOUND * ulp(max|ort|), where
  ulp(v) is the spacing of float32 at v and max|ort| is taken over the finite elements of that output tensor.
  The generated kernels accumulate in their documented order, onnxruntime's MLAS in another, so float results
  differ by rounding only; the bound scales with the tensor's magnitude, not with each element's. Each float
  kernel alone stays within 4 ulp (tests/kernels/helpers.py); 64 leaves room for that error to compound over layers.
  NaN must meet NaN and infinities must be equal.
"""

from __future__ import annotations

import bisect
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import numpy as np

from . import npz
from .errors import McucompError, OptionError
from .host import HostModel, load
from .intref import missing_ops, run_graph
from .ops._layout import as_onnx_order, as_stored_order, stored_value
from .intref._checks import (LayerCheck, OrtAgreement, is_int8_model, layer_local, ort_tensor_names,
                             reference_outputs)

#: Allowed float error in units of ulp(max |reference|) per output tensor (see the module docstring).
FLOAT_ULP_BOUND = 64

#: Seconds between progress lines on stderr.
PROGRESS_INTERVAL = 2.0

#: Most random inputs one verify run compares (--inputs).
MAX_INPUTS = 1_000_000
#: Seeds are the 32-bit unsigned integers (--seed).
SEED_LIMIT = 2**32


def check_run_options(inputs: int, seed: int) -> None:
    """--inputs in [1, MAX_INPUTS] and --seed in [0, SEED_LIMIT), before anything is compiled."""
    if not 1 <= inputs <= MAX_INPUTS:
        raise OptionError(f"--inputs {inputs} (inputs= in Python) is out of range: compare between 1 and "
                          f"{MAX_INPUTS:,} random inputs.")
    if not 0 <= seed < SEED_LIMIT:
        raise OptionError(f"--seed {seed} (seed= in Python) is out of range: use a seed from 0 to {SEED_LIMIT - 1}.")


def ulp_tolerance(ref: np.ndarray) -> float:
    """The allowed |c - ref| for a float tensor: FLOAT_ULP_BOUND ulps of float32 at max |ref| (finite elements)."""
    finite = np.abs(ref[np.isfinite(ref)])
    peak = np.float32(finite.max()) if finite.size else np.float32(0)
    return FLOAT_ULP_BOUND * float(np.spacing(peak))


@dataclass
class TensorDiff:
    """How one C tensor differs from the reference: elements out of tolerance, max |diff|, max diff in ulps."""

    elements: int
    mismatched: int
    max_abs_diff: float
    max_ulp: float


def compare(got: np.ndarray, ref: np.ndarray) -> TensorDiff:
    """Compare a C result with the reference under the module's contract (exact integers, ULP-bounded floats)."""
    if got.shape != ref.shape:
        return TensorDiff(ref.size, ref.size, float("inf"), float("inf"))
    if not np.issubdtype(ref.dtype, np.floating):
        diff = np.abs(got.astype(np.int64) - ref.astype(np.int64))
        worst = float(diff.max()) if diff.size else 0.0
        return TensorDiff(ref.size, int(np.count_nonzero(diff)), worst, worst)
    g64, r64 = got.astype(np.float64), ref.astype(np.float64)
    with np.errstate(invalid="ignore"):
        diff = np.abs(g64 - r64)
    diff[(g64 == r64) | (np.isnan(g64) & np.isnan(r64))] = 0.0
    diff[np.isnan(diff)] = np.inf
    worst = float(diff.max()) if diff.size else 0.0
    ulp = ulp_tolerance(ref) / FLOAT_ULP_BOUND
    return TensorDiff(ref.size, int(np.count_nonzero(diff > FLOAT_ULP_BOUND * ulp)), worst, worst / ulp)


@dataclass
class OutputStats:
    """One graph output over all inputs: how many inputs were compared, how many mismatched, worst diffs."""

    name: str
    dtype: str
    compared: int = 0
    mismatching: int = 0
    max_abs_diff: float = 0.0
    max_ulp: float = 0.0
    first_bad_input: int | None = None

    def add(self, index: int, d: TensorDiff) -> None:
        """Fold in the comparison for input number `index`."""
        self.compared += 1
        self.max_abs_diff = max(self.max_abs_diff, d.max_abs_diff)
        self.max_ulp = max(self.max_ulp, d.max_ulp)
        if d.mismatched:
            self.mismatching += 1
            if self.first_bad_input is None:
                self.first_bad_input = index


@dataclass
class LayerDiff:
    """One intermediate tensor compared in --bisect: the layer (step, name, op) that produced it and the diff."""

    step: int
    layer: str
    op: str
    tensor: str
    diff: TensorDiff


@dataclass
class VerifyResult:
    """Per-output statistics and, when bisected, the per-layer comparison of one input."""

    report: dict
    out_dir: Path | None  # None when compiled to a temporary directory (already removed)
    inputs: int
    seed: int
    outputs: list[OutputStats]
    layers: list[LayerDiff] | None = None
    bisect_input: int | None = None
    skipped_tensors: list[str] = field(default_factory=list)
    data: str | None = None                         # the --data file the inputs came from (None: random inputs)
    expected: list[OutputStats] = field(default_factory=list)  # C against the data file's expected outputs

    #: int8 models: what `outputs` compare against ('integer reference' or, when ops lack one, 'onnxruntime')
    against: str = "onnxruntime"
    reference_missing: list[str] = field(default_factory=list)
    agreement: list[OrtAgreement] | None = None
    #: int8 models: onnxruntime with its default graph optimizations against the model as written, per output
    ort_rewrites: list[OrtAgreement] | None = None
    layer_checks: list[LayerCheck] | None = None
    layers_skipped: list[str] = field(default_factory=list)
    layer_check_inputs: list[int] = field(default_factory=list)  # the inputs the layer-local check ran on
    #: NPU builds: how many Ethos-U regions the C called (each answered by LiteRT on the region's .tflite) and how
    #: many region calls were made over all inputs
    npu_regions: int = 0
    npu_invocations: int = 0

    @property
    def ok(self) -> bool:
        """True when no output mismatched on any input (against the reference and the expected outputs) and every
        layer-local check held."""
        return all(o.mismatching == 0 for o in self.outputs + self.expected) and self.first_bad_local is None

    @property
    def first_bad_local(self) -> LayerCheck | None:
        """The first int8 layer, in schedule order, beyond the layer-local bound."""
        return next((c for c in self.layer_checks or [] if not c.ok), None)

    @property
    def first_bad_layer(self) -> LayerDiff | None:
        """The first layer, in schedule order, whose output is out of tolerance."""
        return next((layer for layer in self.layers or [] if layer.diff.mismatched), None)


def _onnxruntime():
    """Import onnxruntime, which only verification needs, with an actionable error when it is missing."""
    try:
        import onnxruntime
    except ImportError:
        raise McucompError(
            "mcucomp verify needs onnxruntime as the reference, and it is not installed. "
            "Install it with `python -m pip install onnxruntime` (or `python -m pip install -e '.[test]'`)."
        ) from None
    return onnxruntime


def _session(model_bytes_or_path, as_written: bool = True):
    """An onnxruntime session on the CPU provider: the reference. as_written turns its graph optimizations off, so
    it computes the model as written whichever tensors are exposed as graph outputs (its rewrites fuse
    QuantizeLinear/DequantizeLinear groups into QLinear kernels that round otherwise, and which groups they fuse
    depends on the graph outputs); otherwise onnxruntime's default options."""
    ort = _onnxruntime()
    options = ort.SessionOptions()
    if as_written:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        return ort.InferenceSession(model_bytes_or_path, options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise McucompError(f"onnxruntime cannot load the model as a reference: {first}.") from None


def random_feeds(specs: list[dict], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One random input per graph input: integers uniform over the dtype's full range, floats from N(0, 1)."""
    feeds = {}
    for spec in specs:
        dtype = np.dtype(spec["dtype"])
        shape = spec["shape"]
        if dtype == np.bool_:
            feeds[spec["name"]] = rng.integers(0, 2, size=shape).astype(np.bool_)
        elif np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            feeds[spec["name"]] = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        else:
            feeds[spec["name"]] = rng.standard_normal(size=shape).astype(dtype)
    return feeds


@dataclass
class VerifyData:
    """Samples read from an .npz file: per sample, the input feeds and the expected outputs the file gives."""

    source: str
    feeds: list[dict[str, np.ndarray]]
    expected: list[dict[str, np.ndarray]]


def _dims(shape) -> str:
    """`1x3x32x32` (or `scalar`)."""
    return "x".join(map(str, shape)) or "scalar"


def read_npz(path) -> dict[str, np.ndarray]:
    """The arrays of an .npz file, or an OptionError saying why it cannot be used."""
    return npz.read_npz(path, "--data", "an .npz file written by numpy.savez(path, **arrays) whose keys are the "
                        "model's input names (and optionally output names)",
                        "Write it with numpy.savez(path, **{input_name: array}).")


def data_arrays(data, name: str | None = None) -> tuple[str, dict[str, np.ndarray]]:
    """(name for messages, arrays) of a --data argument: an .npz path, or a dict of arrays by ONNX name."""
    if isinstance(data, dict):
        return name or "<arrays>", data
    return os.fspath(data), read_npz(data)


def data_feeds(data, report: dict) -> list[dict[str, np.ndarray]]:
    """The input feeds of each sample of `data` (an .npz path or a dict of arrays), checked against report."""
    name, arrays = data_arrays(data)
    return verify_data(arrays, report, name).feeds


def _samples(source: str, key: str, array: np.ndarray, spec: dict, role: str) -> np.ndarray:
    """The array as a stack of samples: exactly the tensor's shape is one sample, a leading extra axis counts them."""
    want_dtype, want_shape = np.dtype(spec["dtype"]), tuple(spec["shape"])
    if array.dtype != want_dtype:
        raise OptionError(f"--data '{source}': array '{key}' is {array.dtype}, but {role} '{spec['name']}' is "
                          f"{want_dtype}. Convert it with array.astype(numpy.{want_dtype}).")
    if array.shape == want_shape:
        return array[np.newaxis]
    if array.ndim == len(want_shape) + 1 and array.shape[1:] == want_shape and array.shape[0] > 0:
        return array
    raise OptionError(f"--data '{source}': array '{key}' has shape {_dims(array.shape)}, but {role} "
                      f"'{spec['name']}' needs {_dims(want_shape)} for one sample or Nx{_dims(want_shape)} for N "
                      "samples (N >= 1 along a new leading axis).")


def verify_data(arrays: dict[str, np.ndarray], report: dict, source: str) -> VerifyData:
    """Check arrays (by ONNX tensor name) against the compiled model's inputs and outputs; split into samples."""
    inputs = {s["name"]: s for s in report["inputs"]}
    outputs = {s["name"]: s for s in report["outputs"]}
    extra = sorted(set(arrays) - set(inputs) - set(outputs))
    if extra:
        raise OptionError(f"--data '{source}': key(s) {', '.join(repr(k) for k in extra)} name neither an input nor "
                          f"an output of the model. Inputs: {', '.join(inputs)}; outputs: {', '.join(outputs)}.")
    missing = [name for name in inputs if name not in arrays]
    if missing:
        specs = ", ".join(f"'{n}' ({inputs[n]['dtype']}, {_dims(inputs[n]['shape'])})" for n in missing)
        raise OptionError(f"--data '{source}' has no array for input(s) {specs}. Keys found: "
                          f"{', '.join(sorted(arrays)) or 'none'}. Every input needs one.")
    stacks = {k: _samples(source, k, a, inputs.get(k) or outputs[k], "input" if k in inputs else "output")
              for k, a in arrays.items()}
    counts = {k: len(v) for k, v in stacks.items()}
    if len(set(counts.values())) > 1:
        listed = ", ".join(f"'{k}' {n}" for k, n in counts.items())
        raise OptionError(f"--data '{source}': the arrays hold different numbers of samples ({listed}); give every "
                          "input and expected output the same number along the leading axis.")
    count = next(iter(counts.values()))
    return VerifyData(source,
                      [{k: np.ascontiguousarray(stacks[k][i]) for k in inputs} for i in range(count)],
                      [{k: stacks[k][i] for k in outputs if k in stacks} for i in range(count)])


class _Progress:
    """Prints `verify: done/total inputs` to a stream at most every PROGRESS_INTERVAL seconds."""

    def __init__(self, stream: TextIO | None, total: int):
        self.stream, self.total = stream, total
        self.last = time.monotonic()

    def tick(self, done: int) -> None:
        """Report progress if enough time has passed since the last line."""
        now = time.monotonic()
        if self.stream is not None and now - self.last >= PROGRESS_INTERVAL:
            print(f"verify: {done}/{self.total} inputs compared", file=self.stream, flush=True)
            self.last = now


def _capture_plan(report: dict) -> list[tuple[int, str]]:
    """Intermediate arena tensors as (producing schedule step, name), in schedule order; graph inputs excluded.

    An alias (reshape-like view) shares its root's bytes and step, and is listed right after its root.
    """
    inputs = {s["name"] for s in report["inputs"]}
    tensors = sorted((t for t in report["tensors"] if "scratch_of" not in t and t["name"] not in inputs),
                     key=lambda t: (t["first_step"], t["alias_of"] is not None, t["name"]))
    return [(t["first_step"], t["name"]) for t in tensors]


def _call_index(report: dict, step: int) -> int:
    """The PROFILE_END index (calls only; alias layers emit no call) of the last call at or before schedule `step`."""
    call_steps = [layer["step"] for layer in report["layers"] if not layer["alias"]]
    return bisect.bisect_right(call_steps, step) - 1


def bisect_layers(model_path: str, host: HostModel, feeds: dict[str, np.ndarray], constants: dict | None = None,
                  reference: dict[str, np.ndarray] | None = None, graph=None) -> tuple[list[LayerDiff], list[str]]:
    """Compare every intermediate tensor both sides expose, in schedule order; return diffs and skipped names.

    The other side is onnxruntime, or `reference` (every tensor of the integer reference) for int8 models;
    onnxruntime's values go into the order the lowered `graph` stores them in (channels-last images)."""
    import onnx

    report = host.report
    plan = _capture_plan(report)
    if reference is not None:
        ref = reference
    else:
        proto = onnx.load(model_path)
        produced = {out for node in proto.graph.node for out in node.output}
        ref = onnx_order(report["outputs"],
                         _ort_values(model_path, [name for _, name in plan if name in produced], feeds, constants,
                                     report))
        ref = {k: stored_value(graph, k, v) for k, v in ref.items()} if graph is not None else ref
    sizes = {t["name"]: (t["bytes"], t["offset"]) for t in report["tensors"]}
    capture, steps, skipped = [], {}, []
    for step, name in plan:
        index = _call_index(report, step)
        if name not in ref or index < 0 or ref[name].nbytes != sizes[name][0]:
            skipped.append(name)
            continue
        capture.append((name, index, sizes[name][1], str(ref[name].dtype), list(ref[name].shape)))
        steps[name] = step
    got = host.run(feeds, capture=capture)
    diffs = []
    for name, _, _, _, _ in capture:
        layer = report["layers"][steps[name]]
        diffs.append(LayerDiff(steps[name], layer["name"], layer["op"], name, compare(got[name], ref[name])))
    return diffs, skipped


def ort_feeds(report: dict, feeds: dict[str, np.ndarray], session) -> dict[str, np.ndarray]:
    """The C's feeds as onnxruntime takes them: channels-last inputs (io_layout=nhwc) in ONNX order, and 8-bit
    inputs that io_dtype=int8 made of float ones dequantized ((q - zp) · scale in float32, which onnxruntime's
    QuantizeLinear maps back to q)."""
    feeds = onnx_order(report["inputs"], feeds)
    if report["options"].get("io_dtype") != "int8":
        return feeds
    out = dict(feeds)
    float_inputs = {i.name for i in session.get_inputs() if i.type == "tensor(float)"}
    for spec in report["inputs"]:
        if spec["name"] in float_inputs and spec["scale"] is not None and not isinstance(spec["scale"], list):
            q = feeds[spec["name"]].astype(np.int64) - spec["zero_point"]
            out[spec["name"]] = (q.astype(np.float32) * np.float32(spec["scale"])).astype(np.float32)
    return out


def onnx_order(specs: list[dict], arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The arrays of the graph I/O `specs` (report inputs or outputs) stored channels-last, in ONNX order."""
    layouts = {s["name"]: s.get("layout") for s in specs}
    return {k: as_onnx_order(v, layouts.get(k, "")) for k, v in arrays.items()}


def c_outputs(report: dict, outputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """onnxruntime's outputs as the C gives them: channels-last where io_layout=nhwc made them so, and with
    io_dtype=int8, float outputs quantized by the output's scale and zero point (round half to even, saturated),
    which recovers the codes its DequantizeLinear read."""
    layouts = {s["name"]: s.get("layout") for s in report["outputs"]}
    outputs = {k: as_stored_order(v, layouts.get(k, "")) for k, v in outputs.items()}
    if report["options"].get("io_dtype") != "int8":
        return outputs
    out = dict(outputs)
    for spec in report["outputs"]:
        value = outputs.get(spec["name"])
        if value is not None and value.dtype == np.float32 and spec["dtype"] in ("int8", "uint8"):
            info = np.iinfo(np.dtype(spec["dtype"]))
            q = np.rint(value / np.float32(spec["scale"])).astype(np.int64) + spec["zero_point"]
            out[spec["name"]] = np.clip(q, info.min, info.max).astype(spec["dtype"])
    return out


def _ort_values(model_path: str, names: list[str], feeds: dict, constants: dict | None,
                report: dict | None = None) -> dict[str, np.ndarray]:
    """onnxruntime's values of `names` (exposed as extra graph outputs) and of the graph outputs on one input."""
    import onnx

    proto = onnx.load(model_path)
    existing = {o.name for o in proto.graph.output}
    proto.graph.output.extend(onnx.ValueInfoProto(name=n) for n in names if n not in existing)
    session = _session(proto.SerializeToString())
    if report is not None:
        feeds = ort_feeds(report, feeds, session)
    values = dict(zip([o.name for o in session.get_outputs()], session.run(None, {**feeds, **(constants or {})})))
    return values if report is None else c_outputs(report, values)


def _lsb_scale(g, name: str) -> float | None:
    """For a float output made by a per-tensor DequantizeLinear: its scale (one LSB), else None."""
    node = g.producer(name)
    if node is None or node.op != "dequantize_linear":
        return None
    scale = g.const(node.inputs[1])
    return None if scale is None or np.size(scale) != 1 else float(np.asarray(scale).reshape(-1)[0])


def _int8_checks(result: VerifyResult, model_path: str, lowered, samples: list[tuple[int, dict]],
                 constants: dict | None) -> None:
    """The layer-local check on each (index, feeds) of samples, worst per layer over them (fills
    result.layer_checks, result.layers_skipped and result.layer_check_inputs)."""
    import onnx

    g, order = lowered.graph, lowered.order
    names = ort_tensor_names(g, order, onnx.load(model_path))
    merged: list[LayerCheck] = []
    for index, feeds in samples:
        values = {**onnx_order(result.report["outputs"],
                               _ort_values(model_path, names, feeds, constants, result.report)),
                  **onnx_order(result.report["inputs"], feeds)}
        checks, result.layers_skipped = layer_local(g, order, lowered.options["requant"], values)
        merged = [LayerCheck(c.step, c.layer, c.op, c.tensor, m.elements + c.elements, m.differing + c.differing,
                             max(m.max_lsb, c.max_lsb)) for m, c in zip(merged, checks)] if merged else checks
        result.layer_check_inputs.append(index)
    result.layer_checks = merged


def _add_lsb(agreement: OrtAgreement, g, got: np.ndarray, ref: np.ndarray) -> None:
    """Fold one input's output into agreement, in LSB of the output's DequantizeLinear for float outputs (float
    outputs without one are not counted)."""
    lsb = _lsb_scale(g, agreement.name)
    if lsb is not None:
        agreement.add(np.rint(got / np.float32(lsb)), np.rint(ref / np.float32(lsb)))
    elif not np.issubdtype(got.dtype, np.floating):
        agreement.add(got, ref)


def verify_compiled(model, out_dir, lowered, inputs: int = 10, seed: int = 0, bisect_always: bool = False,
                    progress: TextIO | None = None, constants: dict | None = None, data=None,
                    data_name: str | None = None) -> VerifyResult:
    """Load the C in out_dir (compiled from `model`, a path, with `constants`) and compare it with the integer
    reference and onnxruntime on random inputs (see the module docstring). `lowered` is the LoweredModel the
    integer reference runs: the model lowered with the options of that compile (mcucomp.pipeline.lower_compiled).

    Inputs bound at compile time (`constants`) are fed to onnxruntime with the same values. `data` (an .npz path or
    a dict of arrays by ONNX name) replaces the random inputs by its samples, and its output arrays, when it has any,
    are compared with the C as well; data_name names a dict in messages. Bisects (compares every intermediate
    tensor on one input) when an output mismatches, or always when asked.
    """
    model_path = os.fspath(model)
    host = load(out_dir)
    report = host.report
    samples = None
    if data is not None:
        data_name, data = data_arrays(data, data_name)
        samples = verify_data(data, report, data_name)
        inputs = len(samples.feeds)
    int8 = is_int8_model(lowered.order)
    missing = missing_ops(lowered.order) if int8 else []
    session = _session(model_path)
    default_session = _session(model_path, as_written=False) if int8 else None
    ref_names = [o.name for o in session.get_outputs()]
    stats = [OutputStats(s["name"], s["dtype"]) for s in report["outputs"]]
    agreement = [OrtAgreement(s["name"]) for s in report["outputs"]] if int8 else None
    rewrites = [OrtAgreement(s["name"]) for s in report["outputs"]] if int8 else None
    given = samples.expected[0] if samples is not None else {}
    expected = [OutputStats(s["name"], s["dtype"]) for s in report["outputs"] if s["name"] in given]
    rng = np.random.default_rng(seed)
    meter = _Progress(progress, inputs)
    first_bad = None
    first_feeds = None
    first_ort_diff = None
    for index in range(inputs):
        feeds = samples.feeds[index] if samples is not None else random_feeds(report["inputs"], rng)
        if index == 0:
            first_feeds = feeds
        ort_feed = {**ort_feeds(report, feeds, session), **(constants or {})}
        ort_out = c_outputs(report, dict(zip(ref_names, session.run(None, ort_feed))))
        got = host.run(feeds)
        ref = reference_outputs(lowered.graph, lowered.order, lowered.options["requant"], feeds) \
            if int8 and not missing else ort_out
        for st in stats:
            st.add(index, compare(got[st.name], ref[st.name]))
        for st in expected:
            st.add(index, compare(got[st.name], samples.expected[index][st.name]))
        unequal = sum(ag.elements - ag.equal for ag in agreement or [])
        for ag in agreement or []:
            _add_lsb(ag, lowered.graph, got[ag.name], ort_out[ag.name])
        if first_ort_diff is None and sum(ag.elements - ag.equal for ag in agreement or []) > unequal:
            first_ort_diff = (index, feeds)
        if default_session is not None:
            default_out = c_outputs(report, dict(zip(ref_names, default_session.run(None, ort_feed))))
            for rw in rewrites:
                _add_lsb(rw, lowered.graph, default_out[rw.name], ort_out[rw.name])
        if first_bad is None and any(st.first_bad_input == index for st in stats):
            first_bad = (index, feeds)
        meter.tick(index + 1)
    result = VerifyResult(report, Path(out_dir).resolve(), inputs, seed, stats,
                          against="integer reference" if int8 and not missing else "onnxruntime",
                          reference_missing=missing, agreement=agreement, ort_rewrites=rewrites,
                          data=samples.source if samples is not None else None, expected=expected)
    if host.npu is not None:
        result.npu_regions, result.npu_invocations = len(host.npu.regions), host.npu.invocations
    if int8 and first_feeds is not None:
        checked = [(0, first_feeds)] + ([first_ort_diff] if first_ort_diff and first_ort_diff[0] else [])
        _int8_checks(result, model_path, lowered, checked, constants)
    if first_bad is not None or (bisect_always and first_feeds is not None):
        index, feeds = first_bad if first_bad is not None else (0, first_feeds)
        reference = None
        if result.against == "integer reference":
            reference = run_graph(lowered.graph, lowered.order, lowered.options["requant"], feeds, keep_all=True)
        result.layers, result.skipped_tensors = bisect_layers(model_path, host, feeds, constants, reference,
                                                              lowered.graph)
        result.bisect_input = index
    return result
