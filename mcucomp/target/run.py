"""Run a test firmware under qemu-system-arm: inputs.bin in, outputs.bin out, through semihosting."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from .build import require_tool

#: Exit statuses of the firmware (firmware/fw_semihost.h); QEMU passes them through SYS_EXIT_EXTENDED.
EXIT_MEANINGS = {10: "semihosting I/O error", 11: "the model's run function returned an error",
                 12: "processor fault (HardFault or similar)"}


@dataclass
class QemuRun:
    """What one emulator run produced."""

    status: str            # "ok", "crash" or "timeout"
    exit_code: int | None
    outputs: bytes
    console: str
    command: list[str]


def run_firmware(elf: Path, machine: str, inputs: bytes, work_dir: Path, timeout_s: float) -> QemuRun:
    """Boot elf on machine with inputs.bin in work_dir; return the status, outputs.bin and the console text."""
    qemu = require_tool("qemu-system-arm")
    work_dir.mkdir(parents=True, exist_ok=True)
    (work_dir / "inputs.bin").write_bytes(inputs)
    out_file = work_dir / "outputs.bin"
    out_file.unlink(missing_ok=True)
    command = [qemu, "-M", machine, "-nographic", "-monitor", "none", "-serial", "none",
               "-semihosting-config", "enable=on,target=native", "-kernel", str(elf.resolve())]
    try:
        proc = subprocess.run(command, cwd=work_dir, capture_output=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        console = (exc.stdout or b"").decode(errors="replace")
        return QemuRun("timeout", None, b"", console, command)
    outputs = out_file.read_bytes() if out_file.exists() else b""
    console = (proc.stdout + proc.stderr).decode(errors="replace")
    return QemuRun("ok" if proc.returncode == 0 else "crash", proc.returncode, outputs, console, command)
