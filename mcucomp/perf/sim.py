"""The instruction-level Cortex-M cycle simulator: Unicorn executes, Capstone decodes, the core's timing table
(mcucomp/perf/timing/<core>.toml) prices every basic block once, and Python adds the run-dependent parts.

Per executed block, one UC_HOOK_BLOCK callback adds the block's static cycles and instruction count, plus the
block-end extra cycles (branch refill) when the block did not fall through into this one, and on cores with FP
interlocks (timing.py) the cycles its first FP reads wait for results earlier blocks left in flight. Divide instructions get a
per-instruction hook (their time depends on the operands), data reads from flash regions with wait states get a
memory hook through the board's data cache model (mcucomp/perf/memory.py), and BKPT 0xAB is served as semihosting
(mcucomp/perf/semihost.py). Counters: cycles at zero wait states, flash stall cycles, instructions.

The block and flash-read callbacks are C (hooks.c, built with the host compiler once and cached, loaded with cffi)
because they run millions of times per inference; they call back into Python only for a block never seen before
(decode and price it) and for blocks with an action (layer markers).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import struct
import subprocess
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Callable

import capstone
import cffi
from capstone.arm_const import ARM_CC_AL, ARM_CC_INVALID
from unicorn import (UC_ARCH_ARM, UC_ERR_INSN_INVALID, UC_HOOK_BLOCK, UC_HOOK_CODE, UC_HOOK_INTR, UC_HOOK_MEM_READ,
                     UC_MODE_MCLASS, UC_MODE_THUMB, Uc, UcError)
from unicorn import arm_const as uca
from unicorn.unicorn_py3 import unicorn as _unicorn_binding

from ..errors import McucompError
from ..host import _cache_root
from .elf import Elf
from .memory import DataCache, FlashRegion
from .semihost import Semihosting, SemihostingError
from .timing import FpTiming, block_cost, divide_cycles, load_timing, new_disassembler

#: Unicorn's CPU model per core; Unicorn has no Cortex-M0+ (its M0 runs the same ARMv6-M code) nor Cortex-M55
#: (scalar Armv8-M code runs on its M33; Helium instructions fail).
UNICORN_CPU = {"cortex-m0plus": uca.UC_CPU_ARM_CORTEX_M0, "cortex-m4": uca.UC_CPU_ARM_CORTEX_M4,
               "cortex-m33": uca.UC_CPU_ARM_CORTEX_M33, "cortex-m7": uca.UC_CPU_ARM_CORTEX_M7,
               "cortex-m55": uca.UC_CPU_ARM_CORTEX_M33}
#: System control space (CPACR and friends): plain memory, so the startup code's FPU enable is harmless.
SYSTEM_SPACE = (0xE000_0000, 0x10_0000)
EXCP_BKPT = 7
BKPT_SEMIHOSTING = b"\xab\xbe"
PAGE = 0x1000
#: Slots of the block table (open addressing; more than 3/4 full falls back to decoding every time).
BLOCK_SLOTS = 1 << 16
XPSR_IT_MASK = 0x0600_FC00      # the IT block state, XPSR bits 26:25 and 15:10
MAX_STALE_IT_RESUMES = 1 << 16  # runs resumed after clearing a stale IT state (Simulator._clear_stale_it)
MAX_CACHE_WAYS = 16


@cache
def _hooks_library() -> tuple[cffi.FFI, object]:
    """hooks.c compiled into a shared library (cached by content) and loaded with cffi."""
    package = resources.files("mcucomp.perf")
    header, source = package.joinpath("hooks.h").read_text(), package.joinpath("hooks.c").read_text()
    key = hashlib.sha256((header + source).encode()).hexdigest()[:20]
    library = _cache_root().parent / "perf" / f"hooks-{key}.so"
    if not library.exists():
        library.parent.mkdir(parents=True, exist_ok=True)
        src_dir = library.parent / key
        src_dir.mkdir(exist_ok=True)
        (src_dir / "hooks.h").write_text(header)
        (src_dir / "hooks.c").write_text(source)
        tmp = library.with_suffix(f".{os.getpid()}.tmp")
        proc = subprocess.run([os.environ.get("CC", "cc"), "-std=c99", "-O2", "-fPIC", "-shared", "-o", str(tmp),
                               str(src_dir / "hooks.c")], capture_output=True, text=True)
        if proc.returncode != 0:
            raise McucompError(f"Building the simulator's hooks with the host C compiler failed: {proc.stderr[:2000]}")
        os.replace(tmp, library)
    ffi = cffi.FFI()
    ffi.cdef("\n".join(line for line in header.splitlines() if not line.startswith("#include")))
    return ffi, ffi.dlopen(str(library))


@dataclass
class RunError:
    """Why a run stopped abnormally."""

    pc: int
    message: str
    internal: bool = False     # a bug in the simulator, not in the firmware


@dataclass
class Simulator:
    """One Cortex-M core with its memory; load code, then run()."""

    core: str
    regions: list[tuple[int, int]]
    flash: list[FlashRegion] = field(default_factory=list)
    cache: DataCache | None = None
    semihosting: Semihosting = field(default_factory=Semihosting)

    def __post_init__(self):
        if self.core not in UNICORN_CPU:
            raise McucompError(f"The cycle simulator has no model of core '{self.core}'; it simulates "
                               f"{', '.join(UNICORN_CPU)}.")
        self.timing = load_timing(self.core)
        self.uc = Uc(UC_ARCH_ARM, UC_MODE_THUMB | UC_MODE_MCLASS)
        self.uc.ctl_set_cpu_model(UNICORN_CPU[self.core])
        for base, size in [*self.regions, SYSTEM_SPACE]:
            start, end = base & ~(PAGE - 1), (base + size + PAGE - 1) & ~(PAGE - 1)
            self.uc.mem_map(start, end - start)
        self.md = new_disassembler()
        self.actions: dict[int, Callable[[], None]] = {}
        self.untimed: dict[str, int] = {}
        self.error: RunError | None = None
        self._divide_hooked: set[int] = set()
        self._init_native_hooks()
        self.uc.hook_add(UC_HOOK_INTR, self._on_interrupt)

    def _init_native_hooks(self) -> None:
        """The C state (counters, block table, flash regions, data cache) and its two Unicorn hooks."""
        ffi, lib = self._ffi, self._lib = _hooks_library()
        state = self.state = ffi.new("mc_state *")
        self._keep = [ffi.new("mc_block[]", BLOCK_SLOTS)]
        state.slots, state.mask = self._keep[0], BLOCK_SLOTS - 1
        self._action_list: list[Callable[[], None]] = []
        self._fp_blocks: dict[tuple[int, int], object] = {}
        state.mac_at = -1e9
        self._decode_cb = ffi.callback("void(uint32_t, uint32_t, mc_block *)", self._decode, onerror=self._on_hook_error)
        self._action_cb = ffi.callback("void(int32_t)", lambda i: self._action_list[i](), onerror=self._on_hook_error)
        state.decode, state.action = self._decode_cb, self._action_cb
        if len(self.flash) > lib.MC_MAX_FLASH:
            raise McucompError(f"The simulator models at most {lib.MC_MAX_FLASH} flash regions with wait states.")
        for i, region in enumerate(self.flash):
            state.flash[i] = (region.base, region.base + region.size, region.wait_states)
        state.n_flash = len(self.flash)
        if self.cache is not None:
            ways = min(self.cache.ways, self.cache.lines)
            state.sets, state.ways = self.cache.lines // ways, ways
            state.line_shift = self.cache.line_bytes.bit_length() - 1
            self._keep += [ffi.new("uint32_t[]", self.cache.lines), ffi.new("uint64_t[]", self.cache.lines)]
            state.tags, state.stamps = self._keep[-2], self._keep[-1]
        user_data = int(ffi.cast("uintptr_t", state))
        self._native_handles = []
        hooks = [(UC_HOOK_BLOCK, lib.mc_block_hook, 1, 0)]
        hooks += [(UC_HOOK_MEM_READ, lib.mc_flash_read_hook, r.base, r.base + r.size - 1) for r in self.flash]
        for kind, function, begin, end in hooks:
            handle = ctypes.c_size_t()
            status = _unicorn_binding.uclib.uc_hook_add(self.uc._uch, ctypes.byref(handle), kind,
                                                        int(ffi.cast("uintptr_t", function)), user_data, begin, end)
            if status != 0:
                raise McucompError(f"Unicorn refused the simulator's hook (uc_err {status}).")
            self._native_handles.append(handle)

    def _on_hook_error(self, exc_type, exc, tb) -> None:
        """An exception inside a callback from C: stop the run and keep the message (a bug, reported as such)."""
        self._stop(self.reg("pc"), f"simulator callback failed: {exc_type.__name__}: {exc}", internal=True)

    # -- loading -------------------------------------------------------------------------------------------------
    def load_elf(self, elf: Elf) -> None:
        """Write the ELF's loadable segments at their load addresses and hook the divides in its functions."""
        for seg in elf.segments:
            if seg.data:
                self.uc.mem_write(seg.paddr, seg.data)
        for address, size in elf.functions.items():
            if size:
                self._hook_divides(address, bytes(self.uc.mem_read(address, size)))

    def load_code(self, address: int, code: bytes) -> None:
        """Write raw Thumb code (micro-benchmarks) and hook its divide instructions."""
        self.uc.mem_write(address, code)
        self._hook_divides(address, code)

    def _hook_divides(self, address: int, code: bytes) -> None:
        """A per-instruction hook on each SDIV/UDIV found by a linear sweep of code (a literal pool decoded as a
        divide is harmless: its hook never fires)."""
        cls = self.timing.by_insn.get("sdiv")
        if cls is None or cls.kind != "divide":
            return
        self.md.skipdata = True
        try:
            for insn in self.md.disasm(code, address):
                if insn.insn_name() in ("sdiv", "udiv") and insn.address not in self._divide_hooked:
                    self._divide_hooked.add(insn.address)
                    regs = [_unicorn_reg(self.md.reg_name(op.reg)) for op in insn.operands]
                    self.uc.hook_add(UC_HOOK_CODE, self._divide_hook(cls, regs[1], regs[2], insn.insn_name() == "sdiv"),
                                     begin=insn.address, end=insn.address)
        finally:
            self.md.skipdata = False

    # -- hooks ---------------------------------------------------------------------------------------------------
    def _decode(self, address: int, size: int, out) -> None:
        """Price the block at address once and fill the C table entry `out`."""
        code = bytes(self.uc.mem_read(address, size))
        insns = list(self.md.disasm(code, address))
        cost = block_cost(self.timing, insns, address, size)
        for name in cost.untimed:
            self.untimed[name] = self.untimed.get(name, 0) + 1
        action = self.actions.get(address)
        out.fp = self._fp_interlocks(address, size, cost.fp)
        out.instructions, out.fall, out.misaligned = cost.instructions, cost.fall_through, cost.misaligned_entry
        out.head_ls, out.head_reads = int(cost.head_pipelines), cost.head_reads
        out.tail_load, out.tail_writes = int(cost.tail_load), cost.tail_writes
        if action is None:
            out.action, out.cycles, out.taken_extra = -1, cost.cycles, cost.taken_extra
        else:   # marker blocks: their instructions count, their cycles do not
            self._action_list.append(action)
            out.action, out.cycles, out.taken_extra, out.fp = len(self._action_list) - 1, 0.0, 0.0, self._ffi.NULL

    def _fp_interlocks(self, address: int, size: int, fp: FpTiming | None):
        """The C copy of a block's FpTiming (kept alive, one per block), or NULL."""
        if fp is None:
            return self._ffi.NULL
        key = (address, size)
        if key not in self._fp_blocks:
            f = self._fp_blocks[key] = self._ffi.new("mc_fp *")
            for bit, (at, as_acc) in fp.reads.items():
                f.reads |= 1 << bit
                f.acc_reads |= int(as_acc) << bit
                f.read_at[bit] = at
            for bit, (ready, ready_acc) in fp.in_flight.items():
                f.writes |= 1 << bit
                f.ready[bit], f.ready_acc[bit] = ready, ready_acc
            f.gap_at = fp.gap_at if fp.gap_at is not None else -1.0
            f.has_mac, f.mac_at, f.mac_gap = fp.mac_at is not None, fp.mac_at or 0.0, fp.mac_gap
            f.n_window = len(fp.window_costs)
            for i, (at, extra) in enumerate(fp.window_costs):
                f.window_at[i], f.window_extra[i] = at, extra
        return self._fp_blocks[key]

    def _divide_hook(self, cls, dividend_reg: int, divisor_reg: int, signed: bool):
        """Replace the divide's static placeholder cycles by its operand-dependent count."""
        state = self.state

        def on_divide(uc, address, size, _):
            state.cycles += divide_cycles(cls, uc.reg_read(dividend_reg), uc.reg_read(divisor_reg), signed) - cls.cycles
        return on_divide

    def _on_interrupt(self, uc, intno, _):
        """BKPT 0xAB: serve semihosting and step over it; anything else stops the run as a fault."""
        pc = uc.reg_read(uca.UC_ARM_REG_PC)
        if intno == EXCP_BKPT and bytes(uc.mem_read(pc, 2)) == BKPT_SEMIHOSTING:
            read = lambda a, n: bytes(uc.mem_read(a, n))  # noqa: E731
            try:
                r0 = self.semihosting.call(uc.reg_read(uca.UC_ARM_REG_R0), uc.reg_read(uca.UC_ARM_REG_R1), read,
                                           uc.mem_write)
            except SemihostingError as exc:
                self._stop(pc, str(exc))
                return
            uc.reg_write(uca.UC_ARM_REG_R0, r0)
            uc.reg_write(uca.UC_ARM_REG_PC, (pc + 2) | 1)
            if self.semihosting.exit_status is not None:
                uc.emu_stop()
            return
        self._stop(pc, f"processor exception {intno} (fault, undefined or unsupported instruction)")

    def _stop(self, pc: int, message: str, internal: bool = False) -> None:
        """Record an abnormal end and stop emulation."""
        self.error = RunError(pc, message, internal)
        self.uc.emu_stop()

    # -- running -------------------------------------------------------------------------------------------------
    def reg(self, name: str) -> int:
        """A core register by name ('r0', 'sp', ...)."""
        return self.uc.reg_read(_unicorn_reg(name))

    def set_reg(self, name: str, value: int) -> None:
        """Set a core register by name."""
        self.uc.reg_write(_unicorn_reg(name), value)

    def run(self, entry: int, sp: int, until: int = 0xFFFF_FFFF, timeout_s: float = 0) -> None:
        """Execute from entry (Thumb) with stack pointer sp until `until`, an exit call, a fault or the timeout."""
        self.uc.reg_write(uca.UC_ARM_REG_SP, sp)
        self.state.fall = entry & ~1
        start = entry
        for _ in range(MAX_STALE_IT_RESUMES):
            try:
                self.uc.emu_start(start | 1, until, timeout=int(timeout_s * 1e6))
            except UcError as exc:
                start = self.uc.reg_read(uca.UC_ARM_REG_PC)
                if exc.errno == UC_ERR_INSN_INVALID and self._clear_stale_it(start):
                    continue
                self.error = RunError(start, f"emulation stopped: {exc}")
            break
        if self.uc.reg_read(uca.UC_ARM_REG_PC) & ~1 != self.state.fall:
            self.state.cycles += self.state.pending   # the last block branched away (e.g. to `until`)
        self.state.pending = 0.0

    def _clear_stale_it(self, pc: int) -> bool:
        """Unicorn's Armv8-M models can carry an IT block's state across the end of a translation block (seen when
        the block after it starts a 1 KB page), so the next instruction, a conditional branch that no IT block may
        hold, is refused as invalid. Clear that stale state and say whether the run may go on from pc."""
        xpsr = self.uc.reg_read(uca.UC_ARM_REG_XPSR)
        if not xpsr & XPSR_IT_MASK:
            return False
        insn = next(self.md.disasm(bytes(self.uc.mem_read(pc, 4)), pc, 1), None)
        no_it = insn is not None and (insn.mnemonic in ("cbz", "cbnz") or insn.mnemonic.startswith("it")
                                      or (insn.group(capstone.CS_GRP_JUMP) and insn.cc not in (ARM_CC_AL,
                                                                                                ARM_CC_INVALID)))
        if no_it:
            self.uc.reg_write(uca.UC_ARM_REG_XPSR, xpsr & ~XPSR_IT_MASK)
        return no_it

    def boot(self, elf: Elf, vector_table: int, timeout_s: float = 0) -> None:
        """Run firmware from reset: SP and PC from the vector table at vector_table."""
        sp, reset = struct.unpack("<II", bytes(self.uc.mem_read(vector_table, 8)))
        self.run(reset, sp, timeout_s=timeout_s)

    @property
    def counters(self) -> tuple[float, int, float]:
        """(cycles at zero wait states, instructions, flash wait-state cycles) so far."""
        s = self.state
        return s.cycles, s.instructions, s.stalls

    @property
    def cycles(self) -> float:
        """Cycles so far at zero wait states."""
        return self.state.cycles

    @property
    def instructions(self) -> int:
        """Instructions executed so far."""
        return self.state.instructions

    @property
    def stall_cycles(self) -> float:
        """Flash wait-state cycles so far."""
        return self.state.stalls


def _unicorn_reg(name: str) -> int:
    """Unicorn's id of a register Capstone names ('r0', 'sl', 'ip', 'sp', ...)."""
    return getattr(uca, f"UC_ARM_REG_{name.upper()}")
