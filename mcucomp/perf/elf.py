"""A minimal reader for the little-endian ELF32 executables arm-none-eabi-gcc links: loadable segments and symbols."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from ..errors import McucompError

PT_LOAD = 1
SHT_SYMTAB = 2
STT_FUNC = 2


@dataclass
class Segment:
    """One PT_LOAD program header: where its bytes go (paddr = load address) and how much memory it spans."""

    vaddr: int
    paddr: int
    data: bytes
    memsz: int


@dataclass
class Elf:
    """The parts of an ELF file the simulator needs."""

    entry: int
    segments: list[Segment]
    symbols: dict[str, int]        # name -> address (Thumb bit cleared for functions)
    functions: dict[int, int]      # function address -> size in bytes


def read_elf(path: Path) -> Elf:
    """Parse path's program headers and symbol table; a clear error when it is not an ARM ELF32 executable."""
    blob = Path(path).read_bytes()
    if blob[:4] != b"\x7fELF" or blob[4] != 1 or blob[5] != 1:
        raise McucompError(f"{path} is not a little-endian ELF32 file; the simulator runs arm-none-eabi-gcc output.")
    (_, machine, _, entry, phoff, shoff, _, _, phentsize, phnum, shentsize, shnum, _) = struct.unpack_from(
        "<HHIIIIIHHHHHH", blob, 16)
    if machine != 40:
        raise McucompError(f"{path} is not an ARM executable (e_machine {machine}).")
    segments = []
    for i in range(phnum):
        p_type, offset, vaddr, paddr, filesz, memsz, _, _ = struct.unpack_from("<IIIIIIII", blob, phoff + i * phentsize)
        if p_type == PT_LOAD and memsz:
            segments.append(Segment(vaddr, paddr, blob[offset:offset + filesz], memsz))
    sections = [struct.unpack_from("<IIIIIIIIII", blob, shoff + i * shentsize) for i in range(shnum)]
    symbols: dict[str, int] = {}
    functions: dict[int, int] = {}
    for sh_name, sh_type, _, _, sh_offset, sh_size, sh_link, _, _, sh_entsize in sections:
        if sh_type != SHT_SYMTAB:
            continue
        strtab_offset = sections[sh_link][4]
        for off in range(sh_offset, sh_offset + sh_size, sh_entsize):
            st_name, st_value, st_size, st_info, _, _ = struct.unpack_from("<IIIBBH", blob, off)
            end = blob.index(b"\0", strtab_offset + st_name)
            name = blob[strtab_offset + st_name:end].decode(errors="replace")
            if not name:
                continue
            if st_info & 0xF == STT_FUNC:
                st_value &= ~1
                functions[st_value] = max(functions.get(st_value, 0), st_size)
            symbols.setdefault(name, st_value)
    return Elf(entry, segments, symbols, functions)
