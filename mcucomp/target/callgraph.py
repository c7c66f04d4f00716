"""Worst-case stack depth of linked Cortex-M code: GCC's call graphs (-fcallgraph-info=su: each C function's frame
and callees) joined with the linked image's disassembly, which gives the frames GCC does not know (naked functions,
whose frame -fstack-usage reports as 0; assembly and library routines such as memcpy or libgcc's soft float) and
their calls.

A function's depth is its frame plus its deepest callee's depth. A frame read from code is the sum of every stack
decrement in the function's body (push, vpush, stmdb sp!, str [sp, #-n]!, sub sp), so it is an upper bound however
its branches run. A call through a pointer is bounded by the deepest function of the image that leads to none.
Recursion has no bound unless the caller gives one (a function's most frames on the stack at once); the analysis
refuses it otherwise, naming the cycle.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import McucompError
from .build import require_tool

#: GCC's node for a call through a pointer in a -fcallgraph-info graph.
INDIRECT = "__indirect_call"
_NODE = re.compile(r'^node: \{ title: "([^"]*)" label: "([^"]*)"')
_EDGE = re.compile(r'^edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"')
_FRAME = re.compile(r"\\n(\d+) bytes \(([a-z,]+)\)$")
#: A clone's suffix in the symbol table (`f.constprop.0`); GCC's graph names it without the number.
_CLONE_NUMBER = re.compile(r"(\.(?:constprop|isra|part|cold|lto_priv)(?:\.\d+)?)+$")


@dataclass
class Function:
    """One function of a call graph: its frame in bytes (None: not known from this source) and what it calls."""

    frame: int | None = None
    calls: set[str] = field(default_factory=set)
    indirect: bool = False          # calls through a pointer
    dynamic: bool = False           # GCC: its frame depends on run-time values (alloca, variable-length arrays)
    register_decrement: bool = False  # its code moves sp down by a register's value


def base_name(symbol: str) -> str:
    """A function's name without its clone suffixes: `f.constprop.0` and `f.constprop` are both `f`."""
    return _CLONE_NUMBER.sub("", symbol)


def read_callgraph_info(ci: Path) -> dict[str, Function]:
    """The functions a -fcallgraph-info=su file defines (by base name), with their frames and callees."""
    names: dict[str, str] = {}
    graph: dict[str, Function] = {}
    for line in ci.read_text().splitlines():
        node, edge = _NODE.match(line), _EDGE.match(line)
        if node:
            title, label = node.groups()
            frame = _FRAME.search(label)
            names[title] = INDIRECT if title == INDIRECT else base_name(label.split("\\n")[0] if frame else title)
            if frame:
                fn = graph.setdefault(names[title], Function())
                fn.frame = max(fn.frame or 0, int(frame.group(1)))
                fn.dynamic |= "dynamic" in frame.group(2) and "bounded" not in frame.group(2)
        elif edge:
            source, target = (names.get(t, base_name(t)) for t in edge.groups())
            fn = graph.setdefault(source, Function())
            if target == INDIRECT:
                fn.indirect = True
            else:
                fn.calls.add(target)
    return graph


_REGS = re.compile(r"\{([^}]*)\}")
_IMM = re.compile(r"#(-?\d+)")
_TARGET = re.compile(r"^[0-9a-f]+ <([^>+]+)>$")


def _register_count(operands: str) -> int:
    """Registers in a list such as `{r4, r5, lr}` or `{d8-d15}`."""
    count = 0
    for item in _REGS.search(operands).group(1).split(","):
        ends = re.fullmatch(r"[a-z]+(\d+)-[a-z]+(\d+)", item.strip())
        count += int(ends.group(2)) - int(ends.group(1)) + 1 if ends else 1
    return count


def stack_decrement(mnemonic: str, operands: str) -> int | None:
    """Bytes one instruction moves the stack pointer down (0 for most); None when a register holds the amount."""
    op = mnemonic.split(".")[0]
    if op == "push" or (op in ("stmdb", "stmfd") and operands.startswith("sp!")):
        return 4 * _register_count(operands)
    if op == "vpush" or (op == "vstmdb" and operands.startswith("sp!")):
        width = 8 if _REGS.search(operands).group(1).strip().startswith("d") else 4
        return width * _register_count(operands)
    if op.startswith("str") and re.search(r"\[sp, #-\d+\]!", operands):
        return int(_IMM.search(operands.split("[sp,")[1]).group(1)) * -1
    if op in ("sub", "subw") and re.match(r"sp, (sp, )?", operands):
        imm = _IMM.search(operands)
        return int(imm.group(1)) if imm else None
    return 0


#: Instructions whose first operand is a register they read, not one they write.
_READS_FIRST = ("str", "strb", "strh", "strd", "cmp", "cmn", "tst", "teq", "stm", "stmia", "stmdb", "vstr", "bx",
                "blx", "cbz", "cbnz")
_REGISTER = re.compile(r"^(r\d+|sl|fp|ip|lr)$")


def disassembled_functions(elf: Path) -> dict[str, Function]:
    """Every function of a linked image (by base name): the sum of its stack decrements and its direct calls (BL,
    and B to another function's start: a tail call). A BLX through a register last loaded from the literal pool
    calls one of the functions whose addresses the function loads from there (`(lone ? f : g)(&a)` compiled for
    ARMv6-M); any other BLX through a register is a call through a pointer."""
    objdump = require_tool("arm-none-eabi-objdump")
    table = subprocess.run([objdump, "-t", str(elf)], capture_output=True, text=True, check=True).stdout
    starts = {int(line.split()[0], 16): line.split()[-1] for line in table.splitlines() if " F " in line}
    functions = set(starts.values())
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    graph: dict[str, Function] = {}
    words: dict[int, int] = {}
    literals: dict[str, set[int]] = {}      # function -> addresses of the literal words it loads
    literal_calls: set[str] = set()         # functions that BLX a register loaded from a literal word
    current: Function | None = None
    name = ""
    from_literal: set[str] = set()
    for line in out.splitlines():
        header = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if header:
            name = header.group(1)
            current = graph.setdefault(base_name(name), Function(frame=0)) if name in functions else None
            from_literal = set()
            continue
        parts = line.split("\t")
        if len(parts) < 2 or not parts[0].strip().endswith(":"):
            continue
        mnemonic, operands = parts[1].strip(), "\t".join(parts[2:]).strip()
        if mnemonic == ".word":
            words[int(parts[0].strip()[:-1], 16)] = int(operands, 16)
            continue
        if current is None:
            continue
        comment = operands.partition("@")[2]
        operands = operands.split(";")[0].split("@")[0].strip()
        decrement = stack_decrement(mnemonic, operands)
        if decrement is None:
            current.register_decrement = True
        else:
            current.frame += decrement
        op = mnemonic.split(".")[0]
        target = _TARGET.match(operands)
        first = operands.split(",")[0].strip()
        if op == "bl" or (op == "b" and target and target.group(1) != name):
            if target and target.group(1) in functions:
                current.calls.add(base_name(target.group(1)))
        elif op == "blx" and not target:
            if first in from_literal:
                literal_calls.add(name)
            else:
                current.indirect = True
        elif op == "ldr" and "[pc" in operands and re.search(r"\(([0-9a-f]+) <", comment):
            from_literal.add(first)
            literals.setdefault(name, set()).add(int(re.search(r"\(([0-9a-f]+) <", comment).group(1), 16))
        elif op.startswith(("ldm", "pop")) and "{" in operands:
            from_literal -= {r.strip() for r in _REGS.search(operands).group(1).split(",")}
        elif _REGISTER.match(first) and op not in _READS_FIRST:
            from_literal.discard(first)
    for caller in literal_calls:
        callees = {starts.get(words.get(a, 0) & ~1) for a in literals.get(caller, ())} - {None}
        graph[base_name(caller)].calls |= {base_name(c) for c in callees}
        graph[base_name(caller)].indirect |= not callees
    return graph


def merge(code: dict[str, Function], *callgraphs: dict[str, Function]) -> dict[str, Function]:
    """One graph from a linked image's code (disassembled_functions) and GCC's call graphs: per function the
    largest frame known and every callee any source names. Whether a function calls through a pointer is the
    code's word where it has the function (a call GCC saw through a pointer may be resolved in the image)."""
    merged: dict[str, Function] = {}
    for graph in (code, *callgraphs):
        for name, fn in graph.items():
            into = merged.setdefault(name, Function())
            if fn.frame is not None:
                into.frame = max(into.frame or 0, fn.frame)
            into.calls |= fn.calls
            into.indirect |= fn.indirect and (graph is code or name not in code)
            into.dynamic |= fn.dynamic
            into.register_decrement |= fn.register_decrement
    return merged


class StackGraph:
    """Depths of a merged call graph; `recursion` gives a function that calls itself the most frames of it ever on
    the stack at once."""

    def __init__(self, graph: dict[str, Function], recursion: dict[str, int] | None = None):
        self.graph, self.recursion = graph, recursion or {}
        self._depth: dict[str, int] = {}
        self._pointer_bound: int | None = None

    def frame(self, name: str) -> int:
        """A function's frame; an unknown function (resolved outside the image, e.g. the NPU driver) counts 0."""
        fn = self.graph.get(name)
        if fn is not None and (fn.dynamic or fn.register_decrement):
            raise McucompError(f"function '{name}' has a frame whose size depends on run-time values (alloca, a "
                               "variable-length array, or sp moved by a register): its stack cannot be bounded.")
        return 0 if fn is None or fn.frame is None else fn.frame

    def pointer_call_bound(self) -> int:
        """What a call through a pointer may add: the deepest function that leads to no such call."""
        if self._pointer_bound is None:
            pointer_callers = {n for n in self.graph if any(self.graph[r].indirect
                                                            for r in reachable(self.graph, [n]) if r in self.graph)}
            self._pointer_bound = max((self.depth(n) for n in self.graph
                                       if n not in pointer_callers), default=0)
        return self._pointer_bound

    def depth(self, name: str, chain: tuple[str, ...] = ()) -> int:
        """Bytes of stack a call of `name` may use, its own frame included."""
        if name in chain:
            cycle = " -> ".join(chain[chain.index(name):] + (name,))
            raise McucompError(f"recursion {cycle}: its stack depth has no static bound.")
        if name not in self._depth:
            fn = self.graph.get(name, Function())
            frames = self.recursion.get(name, 1) if name in fn.calls else 1
            callees = [self.depth(c, chain + (name,)) for c in sorted(fn.calls)
                       if c != name or frames == 1]
            if fn.indirect:
                callees.append(self.pointer_call_bound())
            self._depth[name] = frames * self.frame(name) + max(callees, default=0)
        return self._depth[name]


def reachable(graph: dict[str, Function], roots) -> set[str]:
    """The roots and every function they call, directly or not."""
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += graph.get(name, Function()).calls
    return seen
