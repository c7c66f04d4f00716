"""The instruction-level Cortex-M cycle simulator: Unicorn executes, Capstone decodes, the core's timing table
(mcucomp/perf/timing/<core>.toml) prices every basic block once, and Python adds the run-dependent parts.

Per executed block, one UC_HOOK_BLOCK callback adds the block's static cycles and instruction count, plus the
block-end extra cycles (branch refill) when the block did not fall through into this one. Divide instructions get a
per-instruction hook (their time depends on the operands), data reads from flash regions with wait states get a
memory hook through the board's data cache model (mcucomp/perf/memory.py), and BKPT 0xAB is served as semihosting
(mcucomp/perf/semihost.py). Counters: cycles at zero wait states, flash stall cycles, instructions.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Callable

from unicorn import (UC_ARCH_ARM, UC_HOOK_BLOCK, UC_HOOK_CODE, UC_HOOK_INTR, UC_HOOK_MEM_READ, UC_MODE_MCLASS,
                     UC_MODE_THUMB, Uc, UcError)
from unicorn import arm_const as uca

from ..errors import McucompError
from .elf import Elf
from .memory import DataCache, FlashRegion
from .semihost import Semihosting, SemihostingError
from .timing import block_cost, divide_cycles, load_timing, new_disassembler

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
#: Indices into Simulator.counters.
CYCLES, INSTRUCTIONS, STALLS = 0, 1, 2


@dataclass
class RunError:
    """Why a run stopped abnormally."""

    pc: int
    message: str


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
        self.counters = [0.0, 0, 0]       # cycles (zero wait), instructions, flash stall cycles
        self._flow = [0, 0.0]             # fall-through address of the last block, its taken_extra
        self._blocks: dict[int, tuple] = {}
        self.block_info: dict[int, object] = {}
        self.actions: dict[int, Callable[[], None]] = {}
        self.untimed: dict[str, int] = {}
        self.error: RunError | None = None
        self._divide_hooked: set[int] = set()
        self.uc.hook_add(UC_HOOK_BLOCK, self._block_hook())
        self.uc.hook_add(UC_HOOK_INTR, self._on_interrupt)
        for region in self.flash:
            self.uc.hook_add(UC_HOOK_MEM_READ, self._flash_hook(region), begin=region.base,
                             end=region.base + region.size - 1)

    # -- loading -------------------------------------------------------------------------------------------------
    def load_elf(self, elf: Elf) -> None:
        """Write the ELF's loadable segments at their load addresses and hook its divide instructions."""
        for seg in elf.segments:
            if seg.data:
                self.uc.mem_write(seg.paddr, seg.data)
                self._hook_divides(seg.paddr, seg.data)

    def load_code(self, address: int, code: bytes) -> None:
        """Write raw Thumb code (micro-benchmarks) and hook its divide instructions."""
        self.uc.mem_write(address, code)
        self._hook_divides(address, code)

    def _hook_divides(self, address: int, code: bytes) -> None:
        """A per-instruction hook on each SDIV/UDIV found by a linear sweep (data decoded as a divide is harmless:
        its hook never fires)."""
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
    def _decode(self, address: int, size: int) -> tuple:
        """Price the block at address once: (cycles, instructions, taken_extra, fall_through, misaligned, action)."""
        code = bytes(self.uc.mem_read(address, size))
        insns = list(self.md.disasm(code, address))
        cost = block_cost(self.timing, insns, address, size)
        for name in cost.untimed:
            self.untimed[name] = self.untimed.get(name, 0) + 1
        self.block_info[address] = cost
        action = self.actions.get(address)
        cycles, extra = (0.0, 0.0) if action is not None else (cost.cycles, cost.taken_extra)
        return (cycles, cost.instructions, extra, cost.fall_through, cost.misaligned_entry, action, size)

    def _block_hook(self):
        """The per-block callback (kept small: it runs millions of times)."""
        blocks, counters, flow, decode = self._blocks, self.counters, self._flow, self._decode

        def on_block(uc, address, size, _):
            cost = blocks.get(address)
            if cost is None or cost[6] != size:
                cost = blocks[address] = decode(address, size)
            if address != flow[0]:
                counters[0] += flow[1] + cost[4]
            counters[0] += cost[0]
            counters[1] += cost[1]
            flow[0] = cost[3]
            flow[1] = cost[2]
            if cost[5] is not None:
                cost[5]()
        return on_block

    def _divide_hook(self, cls, dividend_reg: int, divisor_reg: int, signed: bool):
        """Replace the divide's static placeholder cycles by its operand-dependent count."""
        counters = self.counters

        def on_divide(uc, address, size, _):
            counters[0] += divide_cycles(cls, uc.reg_read(dividend_reg), uc.reg_read(divisor_reg), signed) - cls.cycles
        return on_divide

    def _flash_hook(self, region: FlashRegion):
        """Stall cycles for a data read from a flash region: wait_states per read that misses the data cache."""
        counters, ws = self.counters, region.wait_states
        if self.cache is None:
            def on_read(uc, access, address, size, value, _):
                counters[2] += ws
            return on_read
        shift = self.cache.line_bytes.bit_length() - 1
        capacity = self.cache.lines
        lru: list[int] = []     # most recent last

        def on_cached_read(uc, access, address, size, value, _):
            line = address >> shift
            if lru and lru[-1] == line:
                return
            if line in lru:
                lru.remove(line)
            else:
                counters[2] += ws
                if len(lru) == capacity:
                    del lru[0]
            lru.append(line)
        return on_cached_read

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

    def _stop(self, pc: int, message: str) -> None:
        """Record an abnormal end and stop emulation."""
        self.error = RunError(pc, message)
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
        self._flow[0] = entry & ~1
        try:
            self.uc.emu_start(entry | 1, until, timeout=int(timeout_s * 1e6))
        except UcError as exc:
            self.error = RunError(self.uc.reg_read(uca.UC_ARM_REG_PC), f"emulation stopped: {exc}")
        if self.uc.reg_read(uca.UC_ARM_REG_PC) & ~1 != self._flow[0]:
            self.counters[CYCLES] += self._flow[1]   # the last block branched away (e.g. to `until`)
        self._flow[1] = 0.0

    def boot(self, elf: Elf, vector_table: int, timeout_s: float = 0) -> None:
        """Run firmware from reset: SP and PC from the vector table at vector_table."""
        sp, reset = struct.unpack("<II", bytes(self.uc.mem_read(vector_table, 8)))
        self.run(reset, sp, timeout_s=timeout_s)

    @property
    def cycles(self) -> float:
        """Cycles so far at zero wait states."""
        return self.counters[CYCLES]

    @property
    def instructions(self) -> int:
        """Instructions executed so far."""
        return self.counters[INSTRUCTIONS]

    @property
    def stall_cycles(self) -> int:
        """Flash wait-state cycles so far."""
        return self.counters[STALLS]


def _unicorn_reg(name: str) -> int:
    """Unicorn's id of a register Capstone names ('r0', 'sl', 'ip', 'sp', ...)."""
    return getattr(uca, f"UC_ARM_REG_{name.upper()}")
