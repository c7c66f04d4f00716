"""Cortex-M0+ (ARMv6-M) pieces of conv2d_s8 on the cycle simulator (zero wait states), function by function.

    python bench/bench_m0plus_conv.py [--tree DIR]

`--tree` picks the runtime_c of another checkout, to compare two trees side by side. Reports the fixed-mode
requantization per output out of line (mcu_requant_apply, one call per output) and inside the fused GEMM
(mcu_conv2d_s8_gemm_v6m, measured with k = 0: accumulators from kbias, requantization, stores, loop; and with the
per-call requantization table, mcu_conv2d_s8_gemm_t_v6m), and the fused GEMM's cycles per MAC for a pixel pair
against 64 channels. Needs arm-none-eabi-gcc.
"""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "perf"))
from microbench import RAM_BASE, call_c, compile_c  # noqa: E402

APPLY = """#include "mcu_rt.h"
__attribute__((noinline)) static int8_t rq_any(const mcu_requant *rq, int32_t acc, int32_t ch)
{
    return (int8_t)mcu_requant_apply(rq, acc, ch);
}
void b_apply(const mcu_requant *rq, const int32_t *acc, int8_t *y, int32_t n)
{
    const mcu_requant r = *rq;
    int32_t i;
    for (i = 0; i < n; ++i) {
        y[i] = rq_any(&r, acc[i], i >> 1);
    }
}
"""

FUSED = """#include "conv2d_s8_gemm.h"
#include "conv2d_s8_gemm_v6m.c"
void b_gemm(const mcu_conv2d_s8_gemm_v6m_args *a)
{
    mcu_conv2d_s8_gemm_v6m(a);
}
"""

#: The table variant: the per-call requantization table built first (not timed: once per layer call).
FUSED_TABLE = FUSED + """void b_table(mcu_conv2d_s8_gemm_v6m_args *a, int32_t *t)
{
    mcu_conv2d_s8_params p;
    memset(&p, 0, sizeof p);
    p.g.c_out = a->c_out;
    p.rq = *a->rq;
    a->rqt = mcu_conv2d_s8_rq_table(&p, 2, t);
}
void b_gemm_t(const mcu_conv2d_s8_gemm_v6m_args *a)
{
    mcu_conv2d_s8_gemm_t_v6m(a);
}
"""

CHANNELS = 64


def _rq_struct(mult_at: int, shift_at: int) -> bytes:
    """An mcu_requant in fixed mode, per channel, zp -3, int8 range."""
    return struct.pack("<iiiifiiii", 0, RAM_BASE + mult_at, RAM_BASE + shift_at, 1, 0.0, -3, -128, 127, 0)


def requant_apply_cycles(runtime: Path, rng) -> float:
    """Cycles per output of mcu_requant_apply called once per output (two outputs per channel)."""
    code, functions = compile_c(APPLY, "cortex-m0plus", [runtime])

    def run(n):
        mult, shift = rng.integers(1 << 30, 1 << 31, CHANNELS), rng.integers(6, 11, CHANNELS)
        acc = rng.integers(-40000, 40000, n)
        ram = bytearray(4096)
        ram[0:36] = _rq_struct(64, 64 + 4 * CHANNELS)
        ram[64:64 + 8 * CHANNELS] = mult.astype(np.int32).tobytes() + shift.astype(np.int32).tobytes()
        ram[1024:1024 + 4 * n] = acc.astype(np.int32).tobytes()
        sim, _ = call_c(code, functions["b_apply"], "cortex-m0plus", [RAM_BASE, RAM_BASE + 1024, RAM_BASE + 3072, n],
                        bytes(ram))
        return sim.cycles
    return (run(128) - run(64)) / 64


def fused_cycles(runtime: Path, k: int, rng, table: bool = False) -> float:
    """Cycles of mcu_conv2d_s8_gemm_v6m (table: mcu_conv2d_s8_gemm_t_v6m) for one pixel pair against CHANNELS
    channels of k taps."""
    code, functions = compile_c(FUSED_TABLE if table else FUSED, "cortex-m0plus", [runtime, runtime / "kernels"])
    at = {"rq": 0, "args": 64, "mult": 128, "shift": 128 + 4 * CHANNELS, "kbias": 128 + 8 * CHANNELS}
    at["w"] = at["kbias"] + 4 * CHANNELS
    at["c0"] = at["w"] + CHANNELS * k
    at["c1"] = at["c0"] + k
    at["y0"] = at["c1"] + k + 4
    at["y1"] = at["y0"] + CHANNELS
    addr = {name: RAM_BASE + off for name, off in at.items()}
    at["t"] = (at["y1"] + CHANNELS + 4) & ~3
    addr["t"] = RAM_BASE + at["t"]
    ram = bytearray(at["t"] + 16 * CHANNELS)
    ram[0:36] = _rq_struct(at["mult"], at["shift"])
    # the rqt field is past the end of the struct in trees without the table variant, which ignore it
    ram[64:104] = struct.pack("<IIiIIiIIII", addr["c0"], addr["c1"], k, addr["w"], addr["kbias"], CHANNELS,
                              addr["y0"], addr["y1"], addr["rq"], 0)
    arrays = {"mult": rng.integers(1 << 30, 1 << 31, CHANNELS).astype(np.int32),
              "shift": rng.integers(6, 11, CHANNELS).astype(np.int32),
              "kbias": rng.integers(-3000, 3000, CHANNELS).astype(np.int32),
              "w": rng.integers(-128, 128, CHANNELS * k).astype(np.int8),
              "c0": rng.integers(-128, 128, 2 * k).astype(np.int8)}
    for name, array in arrays.items():
        ram[at[name]:at[name] + array.nbytes] = array.tobytes()
    if table:
        _, after = call_c(code, functions["b_table"], "cortex-m0plus", [addr["args"], addr["t"]], bytes(ram))
        ram = bytearray(after)
    sim, _ = call_c(code, functions["b_gemm_t" if table else "b_gemm"], "cortex-m0plus", [addr["args"]], bytes(ram))
    return sim.cycles


def main() -> None:
    """Print the table rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="checkout whose runtime_c to measure")
    runtime = parser.parse_args().tree / "runtime_c"
    rng = np.random.default_rng(0)
    print(f"mcu_requant_apply per output (one call each): {requant_apply_cycles(runtime, rng):.1f} cycles")
    if "mcu_conv2d_s8_gemm_v6m" not in (runtime / "kernels" / "conv2d_s8_gemm_v6m.c").read_text():
        return
    variants = [False] + (["mcu_conv2d_s8_rq_table" in (runtime / "kernels" / "conv2d_s8_gemm.h").read_text()] * 1)
    for table in sorted(set(variants)):
        name = "fused GEMM" + (" with the per-call table" if table else "")
        base = fused_cycles(runtime, 0, rng, table)
        print(f"{name}, k = 0 (requantization, accumulator set-up, stores, loop) per output: "
              f"{base / (2 * CHANNELS):.1f} cycles")
        for k in (8, 16, 27, 40, 64):
            cycles = fused_cycles(runtime, k, rng, table)
            print(f"{name}, k = {k}, {CHANNELS} channels, 2 pixels: {cycles / (2 * CHANNELS * k):.2f} cycles/MAC")


if __name__ == "__main__":
    main()
