"""The simulator executes exactly what QEMU executes: same instruction count (QEMU single-step trace) and the same
outputs.bin bytes, on the same ELF with the same inputs, over the whole program (reset to SYS_EXIT)."""

import subprocess

import numpy as np

import mcucomp
from cli_models import two_conv_model
from mcucomp.boards import load_board
from mcucomp.perf.elf import read_elf
from mcucomp.perf.sim import Simulator
from mcucomp.target.build import build_firmware, require_tool
from mcucomp.target.memory_map import QEMU_MEMORY, qemu_memory_map

MACHINE = "mps2-an386"


def test_instruction_count_equals_qemu_single_step_trace(tmp_path):
    """QEMU 7.2 with -singlestep logs one 'Trace' line per executed instruction (-d exec,nochain: every TB, one
    instruction each); the simulator counts the instructions of every block it executes."""
    mcucomp.compile_model(two_conv_model(), tmp_path / "m", name="m", board="nucleo-l4r5zi")
    fw = build_firmware(tmp_path / "m", tmp_path / "fw", load_board("nucleo-l4r5zi"), qemu_memory_map(MACHINE), 4096)
    inputs = np.random.default_rng(0).standard_normal((3, 1, 1, 8, 8)).astype(np.float32).tobytes()
    (tmp_path / "inputs.bin").write_bytes(inputs)
    subprocess.run([require_tool("qemu-system-arm"), "-M", MACHINE, "-nographic", "-monitor", "none", "-serial",
                    "none", "-semihosting-config", "enable=on,target=native", "-singlestep", "-d", "exec,nochain",
                    "-D", str(tmp_path / "trace.log"), "-kernel", str(fw.elf)], cwd=tmp_path, check=True, timeout=120)
    with open(tmp_path / "trace.log", errors="replace") as log:
        qemu_count = sum(1 for line in log if line.startswith("Trace"))

    elf = read_elf(fw.elf)
    sim = Simulator("cortex-m4", [(base, size) for _, base, size in QEMU_MEMORY[MACHINE]])
    sim.semihosting.files["inputs.bin"] = bytearray(inputs)
    sim.load_elf(elf)
    sim.boot(elf, QEMU_MEMORY[MACHINE][0][1], timeout_s=60)
    assert sim.error is None and sim.semihosting.exit_status == 0, (sim.error, sim.semihosting.console)
    assert qemu_count > 100_000
    assert sim.instructions == qemu_count
    assert bytes(sim.semihosting.files["outputs.bin"]) == (tmp_path / "outputs.bin").read_bytes()
