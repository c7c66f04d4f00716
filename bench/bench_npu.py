"""NPU builds of the MLPerf Tiny models and the tests' VWW/AD-style models, per Ethos-U config, with
`--npu-placement max` (and auto's estimated latency), next to Vela's own summary of the same subgraphs; then
host verification of the U55-128 builds against the all-CPU `--requant fixed` build on 1,000 random inputs.

Run: python bench/bench_npu.py [--inputs 1000] [--configs ethos-u55-128,...] [--skip-verify]
Prints the Markdown tables of BENCHMARKS.md's "NPU placement and cycles" section.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from int8_models import autoencoder, mobilenet_v2, quantize_qdq  # noqa: E402
from mcucomp.npu.config import make_config  # noqa: E402
from mcucomp.npu.vela import _captured_console  # noqa: E402
from mcucomp.pipeline import plan_model  # noqa: E402
from mcucomp.pipeline import verify_model  # noqa: E402

SHARED = REPO.parent / "shared" / "models" / "mlperf_tiny"
CONFIGS = ["ethos-u55-128", "ethos-u55-256", "ethos-u65-256", "ethos-u85-256"]


def models(tmp: Path) -> dict[str, Path]:
    """Model label → ONNX path: the four shared MLPerf Tiny files and the tests' VWW- and AD-style models."""
    paths = {m: SHARED / f"{m}.onnx" for m in ("kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop")}
    for label, build in (("vww_mobilenet_v2 (tests)", mobilenet_v2), ("ad_autoencoder (tests)", autoencoder)):
        model = build()
        model.ir_version = 8
        paths[label] = Path(quantize_qdq(model, tmp / f"{build.__name__}.onnx"))
    return paths


def vela_cli_cycles(tflite: bytes, accelerator: str, work: Path) -> tuple[int, int]:
    """(cycles_total, cycles_npu) from Vela's own command-line compile of one region's .tflite (its summary CSV)."""
    from ethosu.vela.vela import main

    cfg = make_config(accelerator)
    src = work / "region.tflite"
    src.write_bytes(tflite)
    with _captured_console():
        main([str(src), *cfg.vela_args(), "--output-format", "raw", "--output-dir", str(work)])
    with open(work / f"region_summary_{cfg.system_config}.csv", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    return int(row["cycles_total"]), int(row["cycles_npu"])


def build_row(label: str, path: Path, accelerator: str, work: Path) -> list[str]:
    """One table row: placement counts, Vela-estimated cycles (mcucomp's and Vela CLI's), CPU fallback, memory."""
    planned = plan_model(str(path), board="corstone-300", npu=accelerator, io_dtype="int8", npu_placement="max")
    report = planned.report
    placement = report["npu_placement"]
    auto = plan_model(str(path), board="corstone-300", npu=accelerator, io_dtype="int8")
    regions = [n for n in planned.order if n.op == "ethosu_region"]
    cli_total = sum(vela_cli_cycles(n.attrs["tflite"], accelerator, work)[0] for n in regions)
    flash = sum(len(n.attrs["region"].command_stream) + len(n.attrs["region"].weights) for n in regions)
    npu_cycles = placement["npu_cycles_vela_estimated"]
    return [label, accelerator, f"{placement['npu_layers']} / {placement['cpu_layers']}", str(len(regions)),
            f"{npu_cycles:,}", f"{1e3 * npu_cycles / placement['npu_hz']:.3f}", f"{cli_total:,}",
            f"{placement['cpu_cycles_estimated']:,}", f"{report['arena_bytes']:,}", f"{flash:,}",
            f"{report['flash_bytes']:,}", f"{placement['estimated_latency_us']:,.0f}",
            f"{auto.report['npu_placement']['estimated_latency_us']:,.0f}"]


HEADER = ["model", "NPU config", "layers NPU / CPU", "regions", "NPU cycles (Vela-estimated)", "NPU ms at 500 MHz",
          "Vela CLI cycles, same .tflite", "CPU cycles of fallback layers (estimated)", "arena B (with Vela scratch)",
          "NPU flash B (cmd + weights)", "all flash B", "max: est. latency us", "auto: est. latency us"]


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table."""
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                     + ["| " + " | ".join(r) + " |" for r in rows])


def main(argv=None) -> int:
    """Print the NPU tables."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=1000, help="random inputs per model for host verify")
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--skip-verify", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-npu-") as tmp:
        tmp = Path(tmp)
        paths = models(tmp)
        rows = []
        for label, path in paths.items():
            for accelerator in args.configs.split(","):
                rows.append(build_row(label, path, accelerator, tmp))
        print(table(HEADER, rows))
        if args.skip_verify:
            return 0
        print()
        verify_rows = []
        for label, path in paths.items():
            start = time.perf_counter()
            result = verify_model(str(path), inputs=args.inputs, board="corstone-300", io_dtype="int8",
                                  npu_placement="max", progress=None)
            mismatching = sum(o.mismatching for o in result.outputs)
            verify_rows.append([label, str(result.npu_regions), str(result.npu_invocations), str(result.inputs),
                                str(mismatching), "yes" if result.ok else "NO",
                                f"{time.perf_counter() - start:.1f}"])
        print(table(["model (ethos-u55-128, max)", "regions", "LiteRT region calls", "inputs",
                     "mismatching inputs vs all-CPU fixed build", "reference-checked, bit-equal", "seconds"],
                    verify_rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
