"""What quantization costs: the generated C's outputs against a float reference model under onnxruntime (the model
as written, graph optimizations off, as verify runs it), per output, and the per-layer sensitivity of the quantized
model (`verify --reference`).

Per output, over the N compared samples (c: the C's output, dequantized when it is int8; r: the reference's):
- cosine: the mean over samples of c·r / (|c| |r|), each sample's output flattened (1 when both are zero);
- snr_db: 10 log10(Σ r² / Σ (c - r)²) over all samples and elements (None when c equals r exactly);
- rmse: sqrt(mean((c - r)²)); max_abs_error: max |c - r|;
- top1_agreement: the share of samples whose argmax agree, for classifier-shaped outputs (K >= 2 scores, with at
  most one leading axis of 1), else None;
- with labels (one class index per sample), the top-1 accuracy of the reference and of the C.

Per layer: for every tensor of the float model that the quantized model quantizes (a QuantizeLinear reads it and a
DequantizeLinear gives back the value the next layer reads), the SNR of that dequantized value, under onnxruntime,
against the float model's tensor of the same name, over the first SENSITIVITY_SAMPLES samples; worst first. The
layer named is the quantized model's node producing the tensor (the name `--keep-float` takes).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from . import outdir
from .errors import OptionError
from .host import load
from .report.html import REPORT_HTML, render_report_html
from .report.svg import MEMORY_SVG
from .verify import _session, onnx_order, ort_feeds

#: Samples the per-layer sensitivity runs (both models keep every intermediate tensor of each).
SENSITIVITY_SAMPLES = 16


@dataclass
class OutputAccuracy:
    """The accuracy figures of one output (see the module docstring)."""

    name: str
    samples: int
    cosine: float
    snr_db: float | None
    rmse: float
    max_abs_error: float
    top1_agreement: float | None
    accuracy_reference: float | None = None
    accuracy_c: float | None = None


@dataclass
class LayerSensitivity:
    """One quantized tensor: the float model's node producing it, its op, and its SNR against the float tensor."""

    layer: str
    op: str
    tensor: str
    snr_db: float | None


@dataclass
class AccuracyResult:
    """Per-output accuracy and per-layer sensitivity against the reference model."""

    reference: str
    outputs: list[OutputAccuracy]
    layers: list[LayerSensitivity] = field(default_factory=list)
    layer_samples: int = 0

    def to_json(self) -> dict:
        """The result as one JSON-able object: per output name its figures, and the layers worst first."""
        return {"reference": self.reference,
                "outputs": {o.name: {k: v for k, v in asdict(o).items() if k != "name"} for o in self.outputs},
                "layers": [asdict(layer) for layer in self.layers], "layer_samples": self.layer_samples}


def snr_db(reference: np.ndarray, value: np.ndarray) -> float | None:
    """10 log10(Σ reference² / Σ (value - reference)²) in float64; None when value equals reference."""
    r, v = np.asarray(reference, np.float64), np.asarray(value, np.float64)
    noise = float(np.sum((v - r) ** 2))
    return None if noise == 0.0 else 10.0 * float(np.log10(max(float(np.sum(r * r)), 1e-300) / noise))


def _cosine(c: np.ndarray, r: np.ndarray) -> float:
    """c·r / (|c| |r|) of two flattened arrays in float64; 1 when both are zero, 0 when one is."""
    c, r = c.astype(np.float64).ravel(), r.astype(np.float64).ravel()
    nc, nr = np.linalg.norm(c), np.linalg.norm(r)
    if nc == 0.0 or nr == 0.0:
        return 1.0 if nc == nr else 0.0
    return float(np.dot(c, r) / (nc * nr))


def is_classifier(shape) -> bool:
    """True for scores of K >= 2 classes: shape [K] or [1, K] (or [1, 1, K] ...)."""
    dims = list(shape)
    return len(dims) >= 1 and dims[-1] >= 2 and all(d == 1 for d in dims[:-1])


def output_accuracy(name: str, c: list[np.ndarray], r: list[np.ndarray],
                    labels: np.ndarray | None = None) -> OutputAccuracy:
    """The figures of one output from the C's and the reference's values, one array per sample."""
    cs = np.stack([np.asarray(x, np.float64) for x in c])
    rs = np.stack([np.asarray(x, np.float64) for x in r])
    diff = cs - rs
    classifier = is_classifier(rs.shape[1:])
    top_c = cs.reshape(len(cs), -1).argmax(axis=1) if classifier else None
    top_r = rs.reshape(len(rs), -1).argmax(axis=1) if classifier else None
    result = OutputAccuracy(
        name, len(cs), float(np.mean([_cosine(a, b) for a, b in zip(cs, rs)])), snr_db(rs, cs),
        float(np.sqrt(np.mean(diff ** 2))), float(np.max(np.abs(diff))),
        float(np.mean(top_c == top_r)) if classifier else None)
    if labels is not None and classifier:
        result.accuracy_reference = float(np.mean(top_r == labels))
        result.accuracy_c = float(np.mean(top_c == labels))
    return result


def _float_outputs(report: dict, got: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The C's outputs in ONNX order and as float: int8 outputs (io_dtype=int8) dequantized by their scale and zero
    point."""
    out = onnx_order(report["outputs"], got)
    for spec in report["outputs"]:
        if spec["dtype"] in ("int8", "uint8") and spec.get("scale") is not None and not isinstance(spec["scale"], list):
            q = out[spec["name"]].astype(np.int64) - spec["zero_point"]
            out[spec["name"]] = q.astype(np.float32) * np.float32(spec["scale"])
    return out


def check_labels(labels: np.ndarray, key: str, count: int) -> np.ndarray:
    """The --labels array as int64 class indices, one per sample, or an OptionError."""
    labels = np.asarray(labels)
    if not np.issubdtype(labels.dtype, np.integer) or labels.reshape(-1).shape[0] != count:
        raise OptionError(f"--labels {key}: the array is {labels.dtype} of shape "
                          f"{'x'.join(map(str, labels.shape)) or 'scalar'}, but it must hold one integer class index "
                          f"per sample ({count}). Save it with numpy.savez(..., {key}=numpy.asarray(classes)).")
    return labels.reshape(-1).astype(np.int64)


def layer_sensitivity(quantized_model, reference_model, feeds: list[dict[str, np.ndarray]]
                      ) -> list[LayerSensitivity]:
    """The SNR of each quantized tensor against the float model's tensor of the same name, worst first."""
    import onnx

    q, f = onnx.load(os.fspath(quantized_model)), onnx.load(os.fspath(reference_model))
    producers = {out: node for node in f.graph.node for out in node.output}
    consumers: dict[str, list] = {}
    for node in q.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    pairs = {}  # float tensor → the quantized model's dequantized tensor
    for tensor in producers:
        quant = next((n for n in consumers.get(tensor, []) if n.op_type == "QuantizeLinear"), None)
        dequant = next((n for n in consumers.get(quant.output[0], []) if n.op_type == "DequantizeLinear"), None) \
            if quant is not None else None
        if dequant is not None:
            pairs[tensor] = dequant.output[0]
    if not pairs:
        return []
    values = []
    for model, names in ((f, list(pairs)), (q, list(pairs.values()))):
        existing = {o.name for o in model.graph.output}
        model.graph.output.extend(onnx.ValueInfoProto(name=n) for n in names if n not in existing)
        session = _session(model.SerializeToString())
        outputs = [o.name for o in session.get_outputs()]
        inputs = {i.name for i in session.get_inputs()}
        runs = [dict(zip(outputs, session.run(None, {k: v for k, v in feed.items() if k in inputs})))
                for feed in feeds]
        values.append({n: np.stack([run[n] for run in runs]) for n in names})
    quantized_producers = {out: node for node in q.graph.node for out in node.output}
    rows = [LayerSensitivity(node.name, node.op_type, t, snr_db(values[0][t], values[1][d]))
            for t, d in pairs.items() for node in [quantized_producers.get(t, producers[t])]]
    return sorted(rows, key=lambda row: float("inf") if row.snr_db is None else row.snr_db)


def compare_with_reference(out_dir, reference_model, feeds: list[dict[str, np.ndarray]],
                           labels: np.ndarray | None = None, quantized_model=None) -> AccuracyResult:
    """Run the C in out_dir and the reference model (a path) under onnxruntime on the same feeds (the C's inputs, as
    verify takes them); per-output figures, and per-layer sensitivity when quantized_model (the QDQ model the C was
    compiled from) is given."""
    host = load(out_dir)
    report = host.report
    session = _session(os.fspath(reference_model))
    ref_names = [o.name for o in session.get_outputs()]
    c_names = [s["name"] for s in report["outputs"]]
    if len(ref_names) != len(c_names):
        raise OptionError(f"--reference '{reference_model}' has {len(ref_names)} output(s) and the compiled model "
                          f"{len(c_names)}: give the float model this one was quantized from.")
    by_name = set(ref_names) == set(c_names)
    got: dict[str, list] = {n: [] for n in c_names}
    want: dict[str, list] = {n: [] for n in c_names}
    ort_inputs = []
    for feed in feeds:
        c_out = _float_outputs(report, host.run(feed))
        ref_feed = ort_feeds(report, feed, session)
        ort_inputs.append(ref_feed)
        ref_out = dict(zip(ref_names, session.run(None, ref_feed)))
        for i, name in enumerate(c_names):
            got[name].append(c_out[name])
            want[name].append(ref_out[name if by_name else ref_names[i]])
    outputs = [output_accuracy(n, got[n], want[n], labels) for n in c_names]
    result = AccuracyResult(os.fspath(reference_model), outputs)
    if quantized_model is not None:
        result.layer_samples = min(len(feeds), SENSITIVITY_SAMPLES)
        result.layers = layer_sensitivity(quantized_model, reference_model, ort_inputs[:result.layer_samples])
    return result


def record_accuracy(out_dir, accuracy: AccuracyResult) -> None:
    """Add the accuracy to OUTDIR's report.json (key "accuracy") and redraw its report.html with the sensitivity
    chart, each file replaced whole; the manifest follows the page's new content."""
    out_dir = Path(out_dir)
    report = json.loads((out_dir / outdir.MANIFEST_FILE).read_text(encoding="utf-8"))
    report["accuracy"] = accuracy.to_json()
    page = render_report_html(report, (out_dir / MEMORY_SVG).read_text(encoding="utf-8")).encode("utf-8")
    hashes = {k: v for k, v in report[outdir.MANIFEST_KEY].items() if k != outdir.MANIFEST_FILE}
    hashes[REPORT_HTML] = hashlib.sha256(page).hexdigest()
    manifest = outdir.manifest_text(report, hashes).encode("utf-8")
    for name, data in ((REPORT_HTML, page), (outdir.MANIFEST_FILE, manifest)):
        fd, tmp = tempfile.mkstemp(prefix=".mcucomp-", dir=out_dir)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, out_dir / name)
