"""Simulated cycles per element of the int8 Add, average pool and transpose layers of the MLPerf Tiny files and the
test zoo's VWW-style MobileNet and pools/adds/concats models, on the Cortex-M4 and M0+ boards (zero wait states):
the rows behind BENCHMARKS.md's "Kernels without MACs" table.

    python bench/bench_elementwise_pools.py            # markdown rows on stdout
    PYTHONPATH=/path/to/other/tree python bench/bench_elementwise_pools.py   # the same figures of another tree

Elements: the output's for add_s8 and transpose, the window taps summed (the layer's MACs) for avgpool_s8. Each
model is profiled with `mcucomp profile MODEL --board B --json --inputs 1` (the models' int8 I/O where they have it).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "perf"))

import onnx  # noqa: E402

from cycle_models import CYCLE_MODELS  # noqa: E402
from int8_models import pools_adds_concats, quantize_qdq  # noqa: E402

from mcucomp.pipeline import lower_model  # noqa: E402

BOARDS = {"cortex-m4": "nucleo-l4r5zi", "cortex-m0plus": "nucleo-g0b1re"}
OPS = ("add_s8", "avgpool_s8", "transpose")
MODELS = ("kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop", "vww_mbnet_int8", "pools_adds_concats")


def model_path(name: str, directory: Path) -> tuple[str, dict[str, str]]:
    """The model file and its compile options."""
    if name == "pools_adds_concats":
        path = directory / "pools_adds_concats.onnx"
        quantize_qdq(pools_adds_concats(), path)
        return str(path), {"io_dtype": "int8"}
    model = CYCLE_MODELS[name]()
    if isinstance(model, str):
        return model, {}
    path = directory / f"{name}.onnx"
    onnx.save(model, path)
    return str(path), {}


def layer_rows(name: str, directory: Path) -> list[tuple]:
    """(model, layer, op, core, elements, cycles) of every layer of OPS, on each core."""
    path, options = model_path(name, directory)
    extra = [a for k, v in options.items() for a in (f"--{k.replace('_', '-')}", v)]
    lowered = lower_model(path, **options)
    sizes = {n.name: lowered.graph.tensors[n.outputs[0]].size for n in lowered.order}
    rows = []
    for core, board in BOARDS.items():
        # cwd away from any tree: `python -m` puts the cwd first on sys.path, PYTHONPATH must choose the package
        out = subprocess.run([sys.executable, "-m", "mcucomp", "profile", path, "--board", board, "--json",
                              "--inputs", "1", *extra], capture_output=True, text=True, check=True, cwd=directory)
        for layer in json.loads(out.stdout)["layers"]:
            if layer["op"] in OPS:
                elements = layer["macs"] if layer["op"] == "avgpool_s8" else sizes[layer["name"]]
                rows.append((name, layer["name"], layer["op"], core, elements, layer["cycles_zero_wait"]))
    return rows


def main() -> int:
    """Print one markdown row per layer: cycles and cycles per element on each core."""
    with tempfile.TemporaryDirectory() as tmp:
        rows = [r for name in MODELS for r in layer_rows(name, Path(tmp))]
    print("| model | layer | op | elements | " + " | ".join(f"{c} cycles (per element)" for c in BOARDS) + " |")
    print("|---|---|---|---|" + "---|" * len(BOARDS))
    keys = sorted({(r[0], r[1], r[2], r[4]) for r in rows}, key=lambda k: (MODELS.index(k[0]), k[1]))
    for model, layer, op, elements in keys:
        cells = []
        for core in BOARDS:
            cycles = next(r[5] for r in rows if (r[0], r[1], r[3]) == (model, layer, core))
            cells.append(f"{cycles:,} ({cycles / elements:.1f})")
        print(f"| {model} | {layer} | {op} | {elements:,} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
