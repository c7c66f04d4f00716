"""Turn the scheduled, planned IR into an emit_c Program (C expressions, constant arrays, calls)."""

from __future__ import annotations

import numpy as np

from emit_c import ArrayConst, CallSite, IOSpec, NpuInfo, Program
from emit_c.identifiers import io_identifiers, sanitize
from runtime_c import kernel_files

from .ir import Graph, Node
from .memory import MemoryLayout
from .ops import REGISTRY, KernelCall
from .ops.base import ArrayRef

C_TYPES = {
    "float32": "float", "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "uint16": "uint16_t",
    "int32": "int32_t", "uint32": "uint32_t", "int64": "int64_t", "uint64": "uint64_t", "bool": "uint8_t",
    "float64": "double",
}


class _Emitter:
    """Collects constant arrays and resolves tensor names to C expressions."""

    def __init__(self, g: Graph, layout: MemoryLayout, prefix: str, io_names: dict[str, str]):
        self.g, self.layout, self.prefix, self.io_names = g, layout, prefix, io_names
        self.arrays: list[ArrayConst] = []
        self.symbols: dict[tuple[str, str], str] = {}

    def array(self, key: str, data: np.ndarray, dtype: str, owner: str = "") -> str:
        """The symbol of a constant array, adding it on first use; `owner` "call" keeps the kernel calls' own arrays
        (KernelCall.arrays) apart from constant tensors of the same name."""
        if (owner, key) not in self.symbols:
            sym = f"{self.prefix}_c{len(self.arrays)}_{sanitize(key)[:40]}"
            data = np.ascontiguousarray(data)
            if dtype == "bool":
                data = data.astype(np.uint8)
            self.arrays.append(ArrayConst(sym, C_TYPES[dtype], data))
            self.symbols[(owner, key)] = sym
        return self.symbols[(owner, key)]

    def tensor(self, name: str | None, writable: bool) -> str:
        """C expression for a tensor argument."""
        if not name:
            return "NULL"
        t = self.g.tensors[name]
        ctype = C_TYPES[t.dtype]
        if t.is_const:
            return self.array(name, t.data, t.dtype)
        root = self.layout.roots.get(name, name)
        if root in self.layout.caller_owned:
            return self.io_names[root]
        qual = "" if writable else "const "
        return f"({qual}{ctype} *)(arena_u8 + {self.layout.offsets[root]})"

    def pointer_array(self, names: tuple[str, ...], writable: bool) -> str:
        """A tuple argument (any number of tensors of one role): a C99 compound literal array of their pointers."""
        qual = "" if writable else "const "
        return f"({qual}void *const[]){{{', '.join(self.tensor(n, writable) for n in names)}}}"

    def param(self, value, call: KernelCall):
        """Resolve ArrayRef values (recursively) to array symbols."""
        if isinstance(value, ArrayRef):
            if value.key in call.arrays:
                data = call.arrays[value.key]
                return self.array(value.key, data, str(data.dtype), owner="call")
            t = self.g.tensors[value.key]
            return self.array(value.key, t.data, t.dtype)
        if isinstance(value, list):
            return [(k, self.param(v, call)) if isinstance(k, str) else self.param((k, v), call)
                    for k, v in value] if value and isinstance(value[0], tuple) else [self.param(v, call) for v in value]
        return value


def build_program(g: Graph, order: list[Node], calls: dict[str, KernelCall], layout: MemoryLayout, prefix: str,
                  header: list[str]) -> Program:
    """Assemble the Program: I/O specs, calls in schedule order, constant arrays and runtime files."""
    io_names = io_identifiers(g.inputs + g.outputs, prefix)
    em = _Emitter(g, layout, prefix, io_names)
    runtime: list[str] = ["mcu_rt.h", "mcu_math.h"]  # mcu_math.h: header-only, used by float and int8 kernels
    sites = []
    for node in order:
        call = calls.get(node.name)
        if call is None:
            continue
        args = [em.pointer_array(a, a[0] in node.outputs) if isinstance(a, tuple) else em.tensor(a, a in node.outputs)
                for a in call.args]
        if call.scratch_bytes:
            args.append(f"(void *)(arena_u8 + {layout.offsets[layout.scratch[node.name]]})")
        params = [(k, em.param(v, call)) for k, v in call.params]
        sites.append(CallSite(call.func, params, args, f"{node.name}: {node.op}", call.returns_status))
        op = REGISTRY[node.op]
        runtime += [rel for rel in kernel_files((*op.depends, call.func)) if rel not in runtime]
    specs_in, specs_out, copies_in, copies_out = [], [], [], []
    for names, specs, copies in ((g.inputs, specs_in, copies_in), (g.outputs, specs_out, copies_out)):
        for name in names:
            t = g.tensors[name]
            root = layout.roots.get(name, name)
            off = None if root in layout.caller_owned else layout.offsets[root]
            q = t.quant.to_json() if t.quant is not None and t.quant.per_tensor else {}
            specs.append(IOSpec(io_names[name], name, C_TYPES[t.dtype], t.shape, q.get("scale"), q.get("zero_point"),
                                off, t.layout))
            if off is not None:
                copies.append((io_names[name], off, t.nbytes))
    return Program(prefix, header, specs_in, specs_out, em.arrays, sites, layout.arena_size, runtime,
                   copies_in, copies_out, npu_info(order))


def npu_info(order: list[Node]) -> NpuInfo | None:
    """The NPU config of the program's Ethos-U region calls (the partition compiles all for one config)."""
    regions = [node for node in order if node.op == "ethosu_region"]
    if not regions:
        return None
    cfg = regions[0].attrs["config"]
    return NpuInfo(cfg.accelerator, cfg.product, cfg.macs, cfg.label, len(regions))
