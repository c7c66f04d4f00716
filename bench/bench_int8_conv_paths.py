"""conv2d_s8 fast paths (depthwise, pointwise) against its general loop on a DS-CNN block, both measured on the host.

    python bench/bench_int8_conv_paths.py

The model is the repeated block of the MLPerf Tiny KWS DS-CNN: a 3x3 depthwise conv (64 channels, 25x5, pad 1) and a
1x1 pointwise conv (64 -> 64), int8 QLinearConv with ReLU-style output ranges. It is compiled twice: as mcucomp
compiles it, and with both fast paths switched off (the general loop). Reported per variant:
- instructions per inference inside mcu_conv2d_s8 (valgrind callgrind, Ir; independent of machine load), from a small
  C driver linked with the generated sources (the host flags of mcucomp.host);
- host time per inference, the median of --runs calls alternating between the two variants in one process.
Both variants must give the same bytes (checked on the same input).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import mcucomp
import mcucomp.ops.conv2d_s8 as conv_op
from mcucomp.host import HOST_CFLAGS, load

DRIVER = """#include "m.h"
#include <stdint.h>
static uint8_t arena[%(arena)d] __attribute__((aligned(16)));
static int8_t x[%(n_in)d], y[%(n_out)d];
int main(void)
{
    int i, s = 0;
    for (i = 0; i < %(n_in)d; ++i) { x[i] = (int8_t)(i * 37 + 11); }
    for (i = 0; i < %(runs)d; ++i) { s += m_run(x, y, arena) + y[i %% %(n_out)d]; }
    return s == 12345;
}
"""


def ds_cnn_block() -> onnx.ModelProto:
    """Depthwise 3x3 then pointwise 1x1 QLinearConv, 64 channels on 25x5, int8 graph I/O."""
    rng = np.random.default_rng(0)
    c, h, w = 64, 25, 5
    inits, nodes = [], []
    src = "x"
    for i, (k, group, pads) in enumerate([(3, c, [1, 1, 1, 1]), (1, 1, [0, 0, 0, 0])]):
        wq = rng.integers(-127, 128, (c, c // group, k, k)).astype(np.int8)
        names = [f"xs{i}", f"xz{i}", f"w{i}", f"ws{i}", f"wz{i}", f"ys{i}", f"yz{i}", f"b{i}"]
        values = [np.float32(0.05), np.int8(-128 if i else 3), wq, rng.uniform(0.002, 0.01, c).astype(np.float32),
                  np.zeros(c, np.int8), np.float32(0.05), np.int8(-128), rng.integers(-2000, 2000, c).astype(np.int32)]
        inits += [numpy_helper.from_array(np.asarray(v), n) for n, v in zip(names, values)]
        nodes.append(helper.make_node("QLinearConv", [src, *names], [f"y{i}"], kernel_shape=[k, k], pads=pads,
                                      group=group))
        src = f"y{i}"
    io = [helper.make_tensor_value_info(n, TensorProto.INT8, [1, c, h, w]) for n in ("x", "y1")]
    graph = helper.make_graph(nodes, "ds_cnn_block", io[:1], io[1:], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def compile_variant(model, out_dir: Path, fast: bool) -> dict:
    """Compile with the fast paths as mcucomp picks them, or with both switched off (and so no in-place pointwise
    conv, which only the pointwise path allows)."""
    saved = conv_op.depthwise, conv_op.pointwise, conv_op.conv_overlap
    if not fast:
        conv_op.depthwise = conv_op.pointwise = lambda node, g: False
        conv_op.conv_overlap = lambda node, g: None
    try:
        return mcucomp.compile_model(model, out_dir, name="m").report
    finally:
        conv_op.depthwise, conv_op.pointwise, conv_op.conv_overlap = saved


def instructions(out_dir: Path, report: dict, runs: int) -> float:
    """Ir per inference inside mcu_conv2d_s8 (callgrind), from a C driver running the model `runs` times."""
    n_in = int(np.prod(report["inputs"][0]["shape"]))
    n_out = int(np.prod(report["outputs"][0]["shape"]))
    (out_dir / "driver.c").write_text(DRIVER % dict(arena=max(report["arena_bytes"], 1), n_in=n_in, n_out=n_out,
                                                    runs=runs))
    sources = [str(out_dir / f) for f in report["files"] if f.endswith(".c")] + [str(out_dir / "driver.c")]
    exe = out_dir / "driver"
    flags = [f for f in HOST_CFLAGS if f != "-fPIC"]
    subprocess.run(["cc", *flags, "-I", str(out_dir), *sources, "-o", str(exe), "-lm"], check=True)
    out = out_dir / "callgrind.out"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--toggle-collect=m_conv2d_s8",
                    str(exe)], check=True, capture_output=True)
    summary = re.search(r"^summary:\s+(\d+)", out.read_text(), re.M)
    return int(summary.group(1)) / runs


def main() -> None:
    """Print instructions and host time per inference for the general loop and the fast paths."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    model = ds_cnn_block()
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {name: Path(tmp) / name for name in ("general", "fast")}
        reports = {name: compile_variant(model, d, name == "fast") for name, d in dirs.items()}
        ir = {name: instructions(dirs[name], reports[name], 5) for name in dirs}
        hosts = {name: load(d, layer_hook=False) for name, d in dirs.items()}
        x = {"x": np.random.default_rng(1).integers(-128, 128, (1, 64, 25, 5), dtype=np.int8)}
        assert np.array_equal(hosts["general"].run(x)["y1"], hosts["fast"].run(x)["y1"])
        times: dict[str, list[float]] = {name: [] for name in dirs}
        for _ in range(args.runs):
            for name, host in hosts.items():
                t0 = time.perf_counter()
                host.run(x)
                times[name].append(time.perf_counter() - t0)
    print("| variant | conv instructions / inference | host us / inference (median) |")
    print("|---|---|---|")
    for name in dirs:
        print(f"| {name} | {ir[name]:,.0f} | {statistics.median(times[name]) * 1e6:.0f} |")
    print(f"\ninstructions: general / fast = {ir['general'] / ir['fast']:.2f}; "
          f"time: general / fast = {statistics.median(times['general']) / statistics.median(times['fast']):.2f}")


if __name__ == "__main__":
    main()
