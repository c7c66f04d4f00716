"""`mcucomp profile`: build the test firmware with layer markers, run it on the cycle simulator, check its outputs
against the host build bit for bit, and attribute cycles and instructions to the layers.

Cycle figures are simulated from the Arm manuals' instruction timings (mcucomp/perf/timing/<core>.toml). Two
figures come from the same run: zero-wait (every memory access at 0 wait states) and board memory (plus the flash
wait states of the board file behind the data cache of flash_cache.toml; see memory.py).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from ..boards import load_board
from ..errors import OptionError, VerifyError
from ..host import load
from ..target.build import build_firmware
from ..target.memory_map import board_memory_map
from ..target.run import EXIT_MEANINGS
from ..target.verify import QEMU_STACK_MARGIN, count_mismatches
from ..verify import random_feeds
from . import memory
from .elf import read_elf
from .sim import Simulator

MARKER_FILES = ("fw_profile.h", "fw_profile.c")
TIMEOUT_S = 600.0


@dataclass
class LayerProfile:
    """One layer call's figures per inference (averaged over the inputs)."""

    call_index: int
    name: str
    op: str
    macs: int
    instructions: int
    cycles: int                 # board memory
    cycles_zero_wait: int
    estimated_cycles: int | None = None            # the estimator's figure for `estimated_memory`
    estimated_cycles_zero_wait: int | None = None
    estimate_quality: str | None = None  # estimate.estimate_quality of the estimated figures


@dataclass
class ProfileResult:
    """What `mcucomp profile` measured; cycles are per inference."""

    model: str
    board: str
    core: str
    clock_hz: int
    inputs: int
    seed: int
    total_cycles: int           # board memory, the whole <name>_run call
    total_cycles_zero_wait: int
    total_instructions: int
    layers: list[LayerProfile]
    outputs_match_host: bool
    mismatching: dict[str, int] = field(default_factory=dict)
    estimated_total_cycles: int | None = None
    estimated_total_cycles_zero_wait: int | None = None
    estimated_memory: str | None = None        # "board" or "zero-wait": what estimated_cycles includes
    timing_source: str = ""
    approximate: bool = False
    memory_model: str = ""
    untimed_instructions: dict[str, int] = field(default_factory=dict)
    simulated_instructions: int = 0     # whole firmware run, boot and I/O included
    simulation_seconds: float = 0.0     # wall time of the simulated run alone
    wall_seconds: float = 0.0           # the whole call: host build, firmware build, simulation

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return asdict(self)

    def measured_for_estimate(self, item) -> int:
        """The measured figure the estimate of item (the result or a LayerProfile) is comparable with."""
        zero_wait = self.estimated_memory != "board"
        if isinstance(item, ProfileResult):
            return item.total_cycles_zero_wait if zero_wait else item.total_cycles
        return item.cycles_zero_wait if zero_wait else item.cycles


class _LayerCounter:
    """Per-layer and per-run accumulation driven by the marker functions' entries."""

    def __init__(self, sim: Simulator, layers: int, on_inference=None, on_layer=None):
        self.sim = sim
        self.on_layer = on_layer
        self.totals = np.zeros((layers, 3))          # cycles, instructions, stalls
        self.calls = np.zeros(layers, dtype=np.int64)
        self.run_totals = np.zeros(3)
        self.inferences = 0
        self.on_inference = on_inference
        self._layer_start = None
        self._run_start = None

    def _now(self) -> np.ndarray:
        """The simulator's (cycles, instructions, stalls) now."""
        c = self.sim.counters
        return np.array([c[0], c[1], c[2]], dtype=np.float64)

    def begin(self) -> None:
        """fw_profile_begin(i) entered: remember i and the counters."""
        self._layer_start = (self.sim.reg("r0"), self._now())

    def end(self) -> None:
        """fw_profile_end(i) entered: add the counters since BEGIN(i) to layer i."""
        index = self.sim.reg("r0")
        if self._layer_start is None or self._layer_start[0] != index:
            self.sim._stop(self.sim.reg("pc"), f"layer marker END({index}) without BEGIN({index})")
            return
        self.totals[index] += self._now() - self._layer_start[1]
        self.calls[index] += 1
        self._layer_start = None
        if self.on_layer is not None:
            self.on_layer(self.inferences + 1, index)

    def run_begin(self) -> None:
        """<name>_run entered."""
        self._run_start = self._now()

    def run_end(self) -> None:
        """<name>_run returned: one inference done."""
        if self._run_start is None:
            return
        self.run_totals += self._now() - self._run_start
        self._run_start = None
        self.inferences += 1
        if self.on_inference is not None:
            self.on_inference(self.inferences)


def _return_address(sim: Simulator, elf, caller: str, callee: str) -> int:
    """The address after the first `bl callee` in function `caller` (both ELF symbols)."""
    start, target = elf.symbols[caller], elf.symbols[callee]
    code = bytes(sim.uc.mem_read(start, elf.functions[start]))
    sim.md.skipdata = True
    try:
        for insn in sim.md.disasm(code, start):
            if insn.insn_name() == "bl" and insn.operands and insn.operands[0].imm == target:
                return insn.address + insn.size
    finally:
        sim.md.skipdata = False
    raise VerifyError(f"the profiling firmware's {caller}() does not call {callee}(); was it built by mcucomp?")


def _feeds(report: dict, inputs, seed: int) -> list[dict]:
    """The input sets: given, or `inputs` seeded random sets as verify makes them."""
    if isinstance(inputs, int):
        rng = np.random.default_rng(seed)
        return [random_feeds(report["inputs"], rng) for _ in range(inputs)]
    return list(inputs)


def _build(model_dir: Path, report: dict, board: dict) -> Path:
    """Link the profiling firmware (board memory map, layer markers) into model_dir/firmware-profile."""
    build_dir = model_dir / "firmware-profile"
    build_dir.mkdir(parents=True, exist_ok=True)
    for name in MARKER_FILES:
        (build_dir / name).write_text(resources.files("mcucomp.perf").joinpath("firmware", name).read_text())
    upper = report["name"].upper()
    defines = [f"-D{upper}_PROFILE_BEGIN(i)=fw_profile_begin(i)", f"-D{upper}_PROFILE_END(i)=fw_profile_end(i)",
               "-include", str(build_dir / "fw_profile.h")]
    stack = report["fit"]["ram_parts"]["stack"] + QEMU_STACK_MARGIN
    fw = build_firmware(model_dir, build_dir, board, board_memory_map(board), stack, defines,
                        extra_sources=[build_dir / "fw_profile.c"])
    return fw.elf


def profile_compiled(model_dir: Path, board: dict | str | None = None, inputs: list[dict] | int = 1, seed: int = 0,
                     progress=None) -> ProfileResult:
    """Profile a `mcucomp compile` output directory on the board's core (default: the board it was compiled for)."""
    started = time.monotonic()
    model_dir = Path(model_dir).resolve()
    report = json.loads((model_dir / "report.json").read_text())
    board = board if isinstance(board, dict) else load_board(board or report["board"])
    if board["mve"]:
        raise OptionError(f"Board {board['id']} builds with Helium (MVE), which the cycle simulator cannot execute "
                          "(Unicorn has no Armv8.1-M model). Profile on a board without MVE, e.g. --board "
                          "nucleo-u575zi (Cortex-M33), and use the estimator (`mcucomp analyze`) for this one.")
    host = load(model_dir, layer_hook=False)
    feeds = _feeds(report, inputs, seed)
    if not feeds:
        raise VerifyError("profile needs at least one input set.")
    expected = [host.run(f) for f in feeds]
    say = (lambda text: print(text, file=progress, flush=True)) if progress is not None else (lambda text: None)
    say(f"profile: building the firmware for {board['id']} ({board['core']})")
    elf = read_elf(_build(model_dir, report, board))
    sim = Simulator(board["core"], [(r["base"], r["size"]) for r in board["memory"]], memory.flash_regions(board),
                    memory.data_cache(board))
    sim.semihosting.files["inputs.bin"] = bytearray(
        b"".join(np.ascontiguousarray(f[s["name"]]).tobytes() for f in feeds for s in report["inputs"]))
    sim.load_elf(elf)
    calls = [layer for layer in report["layers"] if layer["call_index"] is not None]
    live = progress is not None and progress.isatty()   # a terminal also gets a per-layer line, rewritten in place

    def inference_done(n: int) -> None:
        """Progress after each inference."""
        text = f"profile: simulated inference {n}/{len(feeds)}"
        say(f"\r{text:<60}" if live else text)

    def layer_done(n: int, i: int) -> None:
        """Progress after each layer (terminal only)."""
        print(f"\rprofile: inference {n}/{len(feeds)}, layer {i + 1}/{len(calls)}", end="", file=progress, flush=True)

    counter = _LayerCounter(sim, len(calls), inference_done, layer_done if live else None)
    run_fn = elf.symbols[f"{report['name']}_run"]
    sim.actions.update({elf.symbols["fw_profile_begin"]: counter.begin, elf.symbols["fw_profile_end"]: counter.end,
                        run_fn: counter.run_begin,
                        _return_address(sim, elf, "main", f"{report['name']}_run"): counter.run_end})
    say(f"profile: simulating {len(feeds)} inference(s) on {board['core']} (Unicorn, {sim.timing.manual} timings)")
    flash_base = next(r["base"] for r in board["memory"] if r["name"] == board["flash_region"])
    sim_started = time.monotonic()
    sim.boot(elf, flash_base, timeout_s=TIMEOUT_S)
    sim_seconds = time.monotonic() - sim_started
    status = sim.semihosting.exit_status
    if sim.error is not None and sim.error.internal:
        raise RuntimeError(sim.error.message)
    if sim.error is not None or status != 0:
        what = (f"{sim.error.message} at pc 0x{sim.error.pc:08X}" if sim.error is not None
                else f"firmware exit {status} ({EXIT_MEANINGS.get(status, 'no exit')})")
        raise VerifyError(f"The profiling firmware for {board['id']} did not finish on the simulator: {what}. "
                          f"Console: {''.join(sim.semihosting.console).strip()[-400:] or '(empty)'}")
    compared = count_mismatches(report, expected, bytes(sim.semihosting.files.get("outputs.bin", b"")))
    if isinstance(compared, str) or counter.inferences != len(feeds) or any(counter.calls != len(feeds)):
        what = compared if isinstance(compared, str) else (f"{counter.inferences} of {len(feeds)} runs, layer calls "
                                                           f"{counter.calls.tolist()}")
        raise VerifyError(f"The profiling firmware's results are incomplete: {what}.")
    n = counter.inferences
    layers = []
    for layer, (cyc, ins, stall) in zip(calls, counter.totals):
        layers.append(LayerProfile(layer["call_index"], layer["name"], layer["op"], layer["macs"], round(ins / n),
                                   round((cyc + stall) / n), round(cyc / n), layer.get("estimated_cycles"),
                                   layer.get("estimated_cycles_zero_wait"), layer.get("estimate_quality")))
    cyc, ins, stall = counter.run_totals
    return ProfileResult(
        model=report["name"], board=board["id"], core=board["core"], clock_hz=board["clock_hz"], inputs=n, seed=seed,
        total_cycles=round((cyc + stall) / n), total_cycles_zero_wait=round(cyc / n), total_instructions=round(ins / n),
        layers=layers, outputs_match_host=not any(compared.values()), mismatching=compared,
        estimated_total_cycles=report.get("estimated_total_cycles"),
        estimated_total_cycles_zero_wait=report.get("estimated_total_cycles_zero_wait"),
        estimated_memory=(report.get("cycle_estimate") or {}).get("memory"), timing_source=sim.timing.manual,
        approximate=sim.timing.approximate, memory_model=memory.describe(board), untimed_instructions=sim.untimed,
        simulated_instructions=sim.instructions, simulation_seconds=sim_seconds,
        wall_seconds=time.monotonic() - started)
