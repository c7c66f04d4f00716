"""Per-core instruction timing tables (mcucomp/perf/timing/<core>.toml) and the static cost of a basic block.

A block's cost is the sum of its instructions' table cycles, with the core's load pipelining applied between
neighbouring instructions of the block (and, by the simulator, across a block boundary the emulator made on the
straight line: its blocks end at 1 KB pages). What depends on the run is left to the simulator: the extra cycles when
the block's last instruction leaves the straight line (`taken_extra`), divide early termination and flash waits.

Cores whose table gives floating-point classes a result `latency` (the Cortex-M7) also get operand interlocks: an
instruction that reads an FP register issues no earlier than its producer's issue + latency (`accumulate_latency`
when it reads the register as a multiply-accumulate's accumulator), and a class with `after_mac_gap` issues no
earlier than gap + 1 cycles after the last multiply-accumulate (a class with `cycles_after_mac` costs that much
inside the window instead: it cannot dual-issue there). Inside a block the stalls are part of its static
cycles; across blocks (a loop's back edge) the block records what it reads first, its `cycles_after_mac` instructions
before its first MAC and what is still in flight at its end (FpTiming), and the simulator adds the stall when the
block starts.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import capstone
from capstone import arm_const

from ..errors import McucompError

_PC = arm_const.ARM_REG_PC
_FIELDS = ("cycles", "kind", "per_register", "registers_per_cycle", "taken_extra", "pc_extra", "core_transfer_cycles",
           "min_cycles", "max_cycles", "latency", "accumulate_latency", "accumulates", "after_mac_gap",
           "cycles_after_mac", "double_cycles", "source")


@dataclass
class InsnClass:
    """One row of a timing table: cycles and how they vary (see the table headers)."""

    name: str
    cycles: float
    source: str
    kind: str = "plain"
    per_register: float = 0
    registers_per_cycle: int = 0           # multiple: cycles + ceil(N / registers_per_cycle) instead of per_register
    taken_extra: float = 0
    pc_extra: float | None = None
    core_transfer_cycles: float | None = None
    min_cycles: int = 0
    max_cycles: int = 0
    latency: float = 0                     # FP result ready this many cycles after issue; 0: not modelled
    accumulate_latency: float | None = None  # ... when read as a multiply-accumulate's accumulator
    accumulates: bool = False              # a multiply-accumulate: reads its destination as the accumulator
    after_mac_gap: float = 0               # issues no earlier than gap + 1 cycles after a multiply-accumulate
    cycles_after_mac: float | None = None  # its cycles when it issues within that window (it cannot pair)
    double_cycles: float | None = None     # VLDR/VSTR of a D register (two words, not pipelined)


@dataclass
class CoreTiming:
    """A core's table: instruction name -> class, and the core-wide rules."""

    core: str
    manual: str
    approximate: bool
    pipelined_loads: bool
    misaligned_target_extra: float
    pc_write_extra: float
    classes: dict[str, InsnClass] = field(default_factory=dict)
    by_insn: dict[str, InsnClass] = field(default_factory=dict)

    @property
    def fp_interlocks(self) -> bool:
        """Whether the table models FP result latencies (operand interlocks)."""
        return any(c.latency for c in self.classes.values())


def _read_table(core: str) -> dict:
    """The raw TOML of one core, merged over the table it inherits from (same-named classes override fields)."""
    path = resources.files("mcucomp.perf").joinpath("timing", f"{core}.toml")
    if not path.is_file():
        known = sorted(p.name[:-5] for p in resources.files("mcucomp.perf").joinpath("timing").iterdir()
                       if p.name.endswith(".toml"))
        raise McucompError(f"No cycle table for core '{core}' (mcucomp/perf/timing/{core}.toml). Cores with a table: "
                           f"{', '.join(known)}.")
    data = tomllib.loads(path.read_text())
    parent_name = data.pop("inherit", None)
    if parent_name is None:
        return data
    parent = _read_table(parent_name)
    classes = {c["name"]: dict(c) for c in parent.get("class", [])}
    for c in data.pop("class", []):
        merged = {**classes.get(c["name"], {}), **{k: v for k, v in c.items() if k != "insns" or v}}
        classes[c["name"]] = merged
    return {**parent, **data, "class": list(classes.values())}


@lru_cache(maxsize=None)
def load_timing(core: str) -> CoreTiming:
    """The timing table of `core` (e.g. 'cortex-m4'), with inheritance resolved."""
    data = _read_table(core)
    timing = CoreTiming(data["core"], data["manual"], data["approximate"], data["pipelined_loads"],
                        data["misaligned_target_extra"], data["pc_write_extra"])
    for c in data["class"]:
        cls = InsnClass(c["name"], **{k: c[k] for k in _FIELDS if k in c})
        timing.classes[cls.name] = cls
        for insn in c["insns"]:
            timing.by_insn[insn] = cls
    return timing


def new_disassembler() -> capstone.Cs:
    """A Capstone decoder for M-profile Thumb with operand details."""
    md = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)
    md.detail = True
    return md


@dataclass
class FpTiming:
    """What a block's FP interlocks need from the blocks before it and leave to the blocks after it (registers as
    bit n = Sn; times in cycles)."""

    reads: dict[int, tuple[float, bool]]        # register -> (issue offset of its first read, read as accumulator)
    in_flight: dict[int, tuple[float, float]]   # register written -> (ready for any use, ready as accumulator),
                                                # relative to the block's end
    gap_at: float | None                        # issue offset of the first after_mac_gap instruction before any MAC
    mac_at: float | None                        # the last MAC's issue, relative to the block's end
    mac_gap: float                              # the core's after_mac_gap
    window_costs: list[tuple[float, float]]     # (issue offset, extra cycles) of the cycles_after_mac instructions
                                                # before any MAC: their extra when an earlier block's MAC is recent


@dataclass
class BlockCost:
    """Static facts about one basic block (decoded once, cached by address)."""

    cycles: float              # executed straight through, last instruction not taken
    instructions: int
    taken_extra: float         # added when the next block does not start at fall_through
    fall_through: int
    misaligned_entry: float    # added to the previous block's taken_extra when this block is a branch target
    divides: list[int]         # addresses of divide instructions (their exact cost is set per execution)
    untimed: list[str]         # instruction names with no table entry (costed 1 cycle)
    head_pipelines: bool       # the first instruction is a load or store that pipelines after a load
    head_reads: int            # its registers read (reg_mask)
    tail_load: bool            # the last instruction is a single load
    tail_writes: int           # its registers written (reg_mask)
    fp: FpTiming | None = None  # cores with FP interlocks, blocks that touch FP registers


def reg_mask(regs) -> int:
    """Capstone register ids as a 64-bit mask (id % 64: ids that share a bit only make a dependency seem real)."""
    mask = 0
    for r in regs:
        mask |= 1 << (r % 64)
    return mask


def _register_count(insn) -> int:
    """N of LDM/STM/PUSH/POP/VLDM/...: registers in the list (double registers count twice)."""
    regs = [op.reg for op in insn.operands if op.type == arm_const.ARM_OP_REG]
    if insn.insn_name() not in ("push", "pop", "vpush", "vpop"):
        regs = regs[1:]  # the base register
    return sum(2 if arm_const.ARM_REG_D0 <= r <= arm_const.ARM_REG_D31 else 1 for r in regs)


_FP_LOADS = ("vldr", "vldmia", "vldmdb", "vpop")
MAX_WINDOW_COSTS = 4   # mc_fp.window_at in hooks.h
_FP_STORES = ("vstr", "vstmia", "vstmdb", "vpush")


def _fp_bits(regs) -> list[int]:
    """FP registers as bit numbers (Sn -> n, Dn -> 2n and 2n + 1)."""
    bits = []
    for r in regs:
        if arm_const.ARM_REG_S0 <= r <= arm_const.ARM_REG_S31:
            bits.append(r - arm_const.ARM_REG_S0)
        elif arm_const.ARM_REG_D0 <= r <= arm_const.ARM_REG_D15:
            bits += [2 * (r - arm_const.ARM_REG_D0), 2 * (r - arm_const.ARM_REG_D0) + 1]
    return bits


def _fp_access(insn, reads, writes) -> tuple[list[int], list[int]]:
    """FP registers (bits) the instruction reads and writes. Capstone lists neither VLDM's loaded registers as
    written nor VPUSH's as read, so FP loads and stores take them from the operands."""
    name = insn.insn_name()
    operands = [op.reg for op in insn.operands if op.type == arm_const.ARM_OP_REG]
    if name in _FP_LOADS:
        return [], _fp_bits(operands)
    if name in _FP_STORES:
        return _fp_bits(operands), []
    return _fp_bits(reads), _fp_bits(writes)


class _FpSchedule:
    """In-order FP operand interlocks over one block (see the module docstring)."""

    def __init__(self, mac_gap: float):
        self.ready: dict[int, tuple[float, float]] = {}
        self.reads: dict[int, tuple[float, bool]] = {}
        self.written: set[int] = set()
        self.gap_at: float | None = None
        self.mac_at: float | None = None
        self.mac_gap = mac_gap
        self.window_costs: list[tuple[float, float]] = []

    def stall(self, insn, cls: InsnClass, reads, writes, at: float) -> tuple[float, list[int]]:
        """Cycles the instruction waits when it would issue at `at`, and the FP registers it writes."""
        fp_reads, fp_writes = _fp_access(insn, reads, writes)
        accumulator = _fp_bits([insn.operands[0].reg]) if cls.accumulates else []
        start = at
        for bit in fp_reads:
            as_acc = bit in accumulator
            if bit not in self.written and bit not in self.reads:
                self.reads[bit] = (at, as_acc)
            if bit in self.ready:
                start = max(start, self.ready[bit][1 if as_acc else 0])
        if cls.after_mac_gap:
            if self.mac_at is None:
                if self.gap_at is None:
                    self.gap_at = at
            else:
                start = max(start, self.mac_at + 1 + cls.after_mac_gap)
        return start - at, fp_writes

    def in_mac_window(self, cls: InsnClass, at: float, cost: float) -> bool:
        """Whether an instruction issued at `at` falls in the core's window after this block's last MAC (before any,
        remember its offset and extra cycles for the simulator: an earlier block's MAC may be recent)."""
        if self.mac_at is None:
            if len(self.window_costs) < MAX_WINDOW_COSTS:
                self.window_costs.append((at, cls.cycles_after_mac - cost))
            return False
        return at < self.mac_at + 1 + self.mac_gap

    def issue(self, cls: InsnClass, at: float, cost: float, fp_writes: list[int]) -> None:
        """Record the results of an instruction issued at `at`."""
        done = at + max(cost, 1) - 1
        for bit in fp_writes:
            self.written.add(bit)
            latency = cls.latency or 1
            acc = cls.accumulate_latency if cls.accumulate_latency is not None else latency
            self.ready[bit] = (done + latency, done + acc)
        if cls.accumulates:
            self.mac_at = at

    def result(self, end: float) -> FpTiming | None:
        """The block's FpTiming, or None when it touches no FP register and issues no MAC."""
        if not self.reads and not self.written and self.gap_at is None and not self.window_costs:
            return None
        in_flight = {bit: (any_use - end, acc - end) for bit, (any_use, acc) in self.ready.items()}
        mac_at = self.mac_at - end if self.mac_at is not None else None
        return FpTiming(self.reads, in_flight, self.gap_at, mac_at, self.mac_gap, self.window_costs)


def _transfers_double(insn) -> bool:
    """VLDR/VSTR whose register is a D register (64 bits)."""
    return (insn.insn_name() in ("vldr", "vstr") and insn.operands[0].type == arm_const.ARM_OP_REG
            and arm_const.ARM_REG_D0 <= insn.operands[0].reg <= arm_const.ARM_REG_D31)


def _is_core_transfer(insn) -> bool:
    """VMOV between core and FP registers (2 cycles on the M4) rather than between FP registers."""
    regs = [op.reg for op in insn.operands if op.type == arm_const.ARM_OP_REG]
    return any(arm_const.ARM_REG_R0 <= r <= arm_const.ARM_REG_R12 or r in (arm_const.ARM_REG_SP, arm_const.ARM_REG_LR)
               for r in regs)


def block_cost(timing: CoreTiming, insns: list, address: int, size: int) -> BlockCost:
    """The static cost of the decoded instructions `insns` that make up the block at address."""
    cycles = 0.0
    taken_extra = 0.0
    divides: list[int] = []
    untimed: list[str] = []
    previous_load_writes: set | None = None   # registers written by the previous single load, if it was one
    head_pipelines, head_reads = False, 0
    fp = (_FpSchedule(max(c.after_mac_gap for c in timing.classes.values())) if timing.fp_interlocks else None)
    for insn in insns:
        name = insn.insn_name()
        cls = timing.by_insn.get(name)
        if cls is None:
            untimed.append(name)
            cycles += 1
            previous_load_writes = None
            continue
        reads, writes = insn.regs_access()
        cost, kind = cls.cycles, cls.kind
        if cls.double_cycles is not None and _transfers_double(insn):
            cost, kind = cls.double_cycles, "plain"   # like LDRD/STRD: no load pipelining
        if insn is insns[0]:
            head_pipelines, head_reads = timing.pipelined_loads and kind in ("load", "store"), reg_mask(reads)
        extra = 0.0
        if cls.kind == "multiple" and cls.registers_per_cycle:
            cost += -(-_register_count(insn) // cls.registers_per_cycle)
        elif cls.kind == "multiple":
            cost += cls.per_register * _register_count(insn)
        elif cls.kind == "fp_move" and _is_core_transfer(insn):
            cost = cls.core_transfer_cycles
        elif cls.kind == "divide":
            divides.append(insn.address)
        elif cls.kind == "branch":
            extra = cls.taken_extra
        if kind in ("load", "store") and previous_load_writes is not None and timing.pipelined_loads \
                and not previous_load_writes.intersection(reads):
            cost -= 1
        if cls.kind != "branch" and _PC in writes:
            extra = cls.pc_extra if cls.pc_extra is not None else timing.pc_write_extra
        previous_load_writes = set(writes) if kind == "load" else None
        if fp is not None:
            wait, fp_writes = fp.stall(insn, cls, reads, writes, cycles)
            cycles += wait
            if cls.cycles_after_mac is not None and kind != "plain" and fp.in_mac_window(cls, cycles, cost):
                cost = cls.cycles_after_mac
            fp.issue(cls, cycles, cost, fp_writes)
        cycles += cost
        taken_extra = extra
    first = insns[0] if insns else None
    misaligned = (timing.misaligned_target_extra if first is not None and first.size == 4 and address % 4 == 2
                  else 0.0)
    tail_writes = reg_mask(previous_load_writes) if previous_load_writes is not None else 0
    return BlockCost(cycles, len(insns), taken_extra, address + size, misaligned, divides, untimed, head_pipelines,
                     head_reads, previous_load_writes is not None, tail_writes,
                     fp.result(cycles) if fp is not None else None)


def divide_cycles(cls: InsnClass, dividend: int, divisor: int, signed: bool) -> int:
    """Cycles of one SDIV/UDIV: the table's min..max range interpolated in the quotient's significant bits."""
    if signed:
        dividend = abs(dividend - (1 << 32) if dividend & 0x8000_0000 else dividend)
        divisor = abs(divisor - (1 << 32) if divisor & 0x8000_0000 else divisor)
    bits = (dividend // divisor).bit_length() if divisor else 0
    span = cls.max_cycles - cls.min_cycles
    return cls.min_cycles + -(-span * bits // 32)
