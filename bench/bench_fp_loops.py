"""Float dot-product loops on the cycle simulator (zero wait states): what the FP timing tables make of GCC's code
for a plain dot product, four outputs at once (four accumulators) and a 4 x 4 register block, in both
multiply-accumulate forms (MCU_F32_MAC of runtime_c/mcu_rt.h: fused fmaf -> VFMA, or separate VMUL + VADD).

    python bench/bench_fp_loops.py [--n 256]

Compiled with the target flags (-O2 -ffp-contract=off) and -mfloat-abi=hard for the Cortex-M4 (fpv4-sp-d16),
Cortex-M33 and Cortex-M7 (fpv5-sp-d16); prints cycles per MAC of each loop. Needs arm-none-eabi-gcc.
"""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "perf"))
from microbench import RAM_BASE, call_c, compile_c  # noqa: E402

LOOPS = """#include "mcu_rt.h"
float b_dot(const float *x, const float *w, int32_t n)
{
    float acc = 0.0f;
    int32_t i;
    for (i = 0; i < n; ++i) {
        acc = MCU_F32_MAC(acc, x[i], w[i]);
    }
    return acc;
}
/* Four outputs (rows of w, n apart) against one input vector: four independent accumulators. */
void b_dot4(const float *x, const float *w, int32_t n, float *y)
{
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    const float *w1 = w + n, *w2 = w + 2 * n, *w3 = w + 3 * n;
    int32_t i;
    for (i = 0; i < n; ++i) {
        const float xi = x[i];
        a0 = MCU_F32_MAC(a0, xi, w[i]);
        a1 = MCU_F32_MAC(a1, xi, w1[i]);
        a2 = MCU_F32_MAC(a2, xi, w2[i]);
        a3 = MCU_F32_MAC(a3, xi, w3[i]);
    }
    y[0] = a0; y[1] = a1; y[2] = a2; y[3] = a3;
}
/* A 4 x 4 register block: 16 accumulators, x and w packed k-major (4 values per k each), 8 loads per 16 MACs. */
void b_block4x4(const float *x, const float *w, int32_t n, float *y)
{
    float c[16] = {0.0f};
    int32_t k, r, j;
    for (k = 0; k < n; ++k) {
        const float *xk = x + 4 * k, *wk = w + 4 * k;
        const float x0 = xk[0], x1 = xk[1], x2 = xk[2], x3 = xk[3];
        const float w0 = wk[0], w1 = wk[1], w2 = wk[2], w3 = wk[3];
        c[0] = MCU_F32_MAC(c[0], w0, x0); c[1] = MCU_F32_MAC(c[1], w0, x1);
        c[2] = MCU_F32_MAC(c[2], w0, x2); c[3] = MCU_F32_MAC(c[3], w0, x3);
        c[4] = MCU_F32_MAC(c[4], w1, x0); c[5] = MCU_F32_MAC(c[5], w1, x1);
        c[6] = MCU_F32_MAC(c[6], w1, x2); c[7] = MCU_F32_MAC(c[7], w1, x3);
        c[8] = MCU_F32_MAC(c[8], w2, x0); c[9] = MCU_F32_MAC(c[9], w2, x1);
        c[10] = MCU_F32_MAC(c[10], w2, x2); c[11] = MCU_F32_MAC(c[11], w2, x3);
        c[12] = MCU_F32_MAC(c[12], w3, x0); c[13] = MCU_F32_MAC(c[13], w3, x1);
        c[14] = MCU_F32_MAC(c[14], w3, x2); c[15] = MCU_F32_MAC(c[15], w3, x3);
    }
    for (r = 0; r < 4; ++r) {
        for (j = 0; j < 4; ++j) {
            y[4 * r + j] = c[4 * r + j];
        }
    }
}
"""

#: -mfpu and the hard-float ABI per core (the firmware's flags for these cores).
FLOAT_FLAGS = {"cortex-m4": ("-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"),
               "cortex-m33": ("-mfpu=fpv5-sp-d16", "-mfloat-abi=hard"),
               "cortex-m7": ("-mfpu=fpv5-sp-d16", "-mfloat-abi=hard")}


def cycles_per_mac(core: str, fused: bool, n: int) -> dict[str, float]:
    """Cycles per MAC of each loop, n taps (dot), n taps x 4 outputs (dot4), n steps x 16 (block4x4)."""
    flags = (*FLOAT_FLAGS[core], f"-DMCU_F32_FUSED={int(fused)}")
    code, functions = compile_c(LOOPS, core, [ROOT / "runtime_c"], flags)
    ram = struct.pack(f"<{9 * n}f", *[(i % 7) * 0.25 for i in range(9 * n)]) + bytes(64)
    x, w, y = RAM_BASE, RAM_BASE + 16 * n, RAM_BASE + 36 * n
    figures = {}
    for name, args, macs in (("dot", [x, w, n], n), ("dot4", [x, w, n, y], 4 * n),
                             ("block4x4", [x, w, n, y], 16 * n)):
        sim, _ = call_c(code, functions[f"b_{name}"], core, args, ram)
        figures[name] = sim.cycles / macs
    return figures


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=256, help="taps per output (default 256)")
    n = parser.parse_args().n
    print("| core | dot, separate / fused | dot4 (4 accumulators) | block4x4 (16 accumulators) |")
    print("|---|---|---|---|")
    for core in FLOAT_FLAGS:
        sep, fused = cycles_per_mac(core, False, n), cycles_per_mac(core, True, n)
        print(f"| {core} | " + " | ".join(f"{sep[k]:.2f} / {fused[k]:.2f}" for k in ("dot", "dot4", "block4x4")) + " |")

if __name__ == "__main__":
    main()
