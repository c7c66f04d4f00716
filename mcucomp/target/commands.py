"""Command-line handlers for `mcucomp boards`, `mcucomp build-target` and `mcucomp verify --on-target`."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from ..boards import describe_boards, format_board_table
from ..errors import VerifyError
from .verify import build_target, verify_on_target


def cmd_boards(args: argparse.Namespace) -> int:
    """mcucomp boards: list the bundled boards."""
    print(format_board_table(describe_boards()))
    return 0


def format_build_target(result: dict) -> list[str]:
    """ELF sections next to the predicted flash and RAM."""
    s = result["sections"]
    return [f"built {result['elf']} for {result['board']} (arena: {result['arena']}; weights: "
            f"{result['weights_region']})",
            "  " + "  ".join(f"{name} {size:,} B" for name, size in s.items()),
            f"  flash: ELF {result['flash_bytes']:,} B, predicted {result['predicted_flash_bytes']:,} B "
            f"({result['flash_error_percent']:+.1f}%)",
            f"  RAM:   ELF {result['ram_bytes']:,} B, predicted {result['predicted_ram_bytes']:,} B "
            f"({result['ram_error_percent']:+.1f}%)"] + (
        ["  NPU: linked with mcucomp's driver stand-in (checks, no NPU results), not Arm's ethos-u-core-driver: "
         "a test firmware"] if result.get("npu_standin") else [])


def cmd_build_target(args: argparse.Namespace, compile_fn) -> int:
    """mcucomp build-target: compile, then cross-compile with the test firmware and report the sizes."""
    compile_fn(args)
    print("\n".join(format_build_target(build_target(Path(args.out), args.board))))
    return 0


def format_on_target(result) -> list[str]:
    """The on-target verification table."""
    source = f"from {result.data}" if result.data is not None else f"seed {result.seed}"
    rows = [f"on-target verify on {result.board} ({result.machine}): {result.inputs} inputs ({source}), "
            f"QEMU {result.status}, arena at {result.arena}",
            f"  {'output':<24} {'inputs':>6} {'differing':>9}"]
    rows += [f"  {name:<24} {result.inputs:>6} {bad:>9}" for name, bad in result.mismatching.items()]
    if result.npu_replay_bytes is not None:
        rows.append(f"  NPU regions: the driver stand-in's checks passed on every call (COP1 payload, 16-byte "
                    f"alignment, region sizes, NPU config); QEMU has no Ethos-U, so it wrote the host reference's "
                    f"region outputs ({result.npu_replay_bytes:,} B) and the CPU layers after them ran on the target")
    if result.stack_high_water is not None:
        rows.append(f"  stack: high-water {result.stack_high_water} B, estimated {result.stack_estimate} B")
    return rows


def run_on_target(args: argparse.Namespace, compile_fn) -> None:
    """After the host verify: the same seeded inputs (or --data samples) under QEMU, outputs bit-equal to the host's or VerifyError.

    Without -o the host verify's directory is gone, so compile_fn(args) writes the same C again into a temporary one.
    """
    with tempfile.TemporaryDirectory(prefix="mcucomp-target-") as tmp:
        if args.out is None:
            args.out = tmp
            compile_fn(args)
        result = verify_on_target(Path(args.out), args.board, args.inputs, args.seed, data=args.data)
        print("\n".join(format_on_target(result)))
    if not result.ok:
        raise VerifyError(f"On-target run on {result.board} ({result.machine}) failed: QEMU {result.status}; "
                          f"{result.detail}; differing outputs: {result.mismatching}. The firmware is the same C "
                          "as the host build, so a difference points at target-dependent arithmetic in a kernel.")
