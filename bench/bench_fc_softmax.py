"""Simulated cycles of fc_s8, softmax_s8 and the requantization, per core (zero wait states, `mcucomp profile`).

- fc_s8: the AD autoencoder of tests/int8_models.py (quantize_static QDQ, 640-128x4-8-128x4-640) with
  `--io-dtype int8` (no float I/O layers) in both requantization modes: cycles/MAC of its fc_s8 layers, of the
  whole inference, and the cost per output beyond the MACs (requantization, block and chunk overhead): the 8 → 128
  layer minus its 1,024 MACs at the cycles/MAC of the 128 → 128 layers, per output.
- softmax_s8: the last layer of the MLPerf Tiny KWS QOperator file (12 classes, the table mode).

Run it on two trees to compare (the package on PYTHONPATH is measured; run from outside the worktree):
    cd /tmp && PYTHONPATH=/work/main python /path/to/bench/bench_fc_softmax.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests"))

BOARDS = ["nucleo-l4r5zi", "disco-f746ng", "nucleo-u575zi", "nucleo-g0b1re"]
KWS = HERE.parent / "shared" / "models" / "mlperf_tiny" / "kws_dscnn_qop.onnx"


def profile(model: Path, board: str, *options: str) -> dict:
    """`mcucomp profile --json` of one model on one board (run in a scratch directory)."""
    with tempfile.TemporaryDirectory() as cwd:
        out = subprocess.run([sys.executable, "-m", "mcucomp", "profile", str(model), "--board", board, "--json",
                              *options], cwd=cwd, capture_output=True, text=True, env=os.environ, check=True)
    return json.loads(out.stdout)


def main() -> None:
    """Print one row per board."""
    from int8_models import autoencoder, quantize_qdq

    work = Path(tempfile.mkdtemp())
    ad = quantize_qdq(autoencoder(), work / "ad_qdq.onnx")
    print("board | fc_s8 c/MAC (float / fixed) | AD c/MAC int8 I/O (float / fixed) | c/output beyond MACs (float / "
          "fixed) | KWS softmax_s8 cycles | outputs equal host")
    for board in BOARDS:
        row, ok = [], True
        per_mode = {}
        for mode in ("float", "fixed"):
            d = profile(ad, board, "--io-dtype", "int8", "--requant", mode)
            ok &= d["outputs_match_host"]
            fcs = [la for la in d["layers"] if la["op"] == "fc_s8"]
            macs = sum(la["macs"] for la in fcs)
            mid = [la for la in fcs if la["macs"] == 128 * 128]
            per_mac = sum(la["cycles_zero_wait"] for la in mid) / sum(la["macs"] for la in mid)
            small = [la for la in fcs if la["macs"] == 8 * 128][1]  # 8 → 128 (the first is 128 → 8)
            per_mode[mode] = (sum(la["cycles_zero_wait"] for la in fcs) / macs,
                              d["total_cycles_zero_wait"] / macs,
                              (small["cycles_zero_wait"] - per_mac * small["macs"]) / 128)
        kws = profile(KWS, board)
        ok &= kws["outputs_match_host"]
        softmax = next(la["cycles_zero_wait"] for la in kws["layers"] if la["op"] == "softmax_s8")
        for i in range(3):
            row.append(f"{per_mode['float'][i]:.2f} / {per_mode['fixed'][i]:.2f}")
        print(f"{board} | " + " | ".join(row) + f" | {softmax:,} | {ok}")


if __name__ == "__main__":
    main()
