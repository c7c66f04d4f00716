"""Arm semihosting served from Python with in-memory files, for the calls the test firmware makes
(mcucomp/target/firmware/fw_semihost.c): SYS_OPEN, SYS_CLOSE, SYS_WRITE0, SYS_WRITE, SYS_READ, SYS_FLEN,
SYS_EXIT and SYS_EXIT_EXTENDED (Arm "Semihosting for AArch32 and AArch64", version 3.0, section 6)."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

SYS_OPEN, SYS_CLOSE, SYS_WRITE0, SYS_WRITE, SYS_READ, SYS_FLEN = 0x01, 0x02, 0x04, 0x05, 0x06, 0x0C
SYS_EXIT, SYS_EXIT_EXTENDED = 0x18, 0x20
ADP_STOPPED_APPLICATION_EXIT = 0x20026


class SemihostingError(Exception):
    """The firmware made a semihosting call the simulator does not serve."""


@dataclass
class _Handle:
    """An open in-memory file and its read position."""

    name: str
    data: bytearray
    pos: int = 0


@dataclass
class Semihosting:
    """In-memory files (name -> bytes), the console text and the exit status once the firmware exits."""

    files: dict[str, bytearray] = field(default_factory=dict)
    console: list[str] = field(default_factory=list)
    exit_status: int | None = None
    _handles: dict[int, _Handle] = field(default_factory=dict)

    def call(self, op: int, arg: int, read, write) -> int:
        """Serve one call; read(addr, n) / write(addr, data) access guest memory. Returns the new r0."""
        words = lambda n: struct.unpack(f"<{n}I", read(arg, 4 * n))  # noqa: E731
        if op == SYS_OPEN:
            path_ptr, mode, length = words(3)
            name = read(path_ptr, length).decode(errors="replace")
            writing = mode >= 4
            if writing:
                self.files[name] = bytearray() if mode < 8 else self.files.get(name, bytearray())
            elif name not in self.files:
                return 0xFFFF_FFFF
            handle = len(self._handles) + 1
            self._handles[handle] = _Handle(name, self.files[name])
            return handle
        if op == SYS_CLOSE:
            return 0 if self._handles.pop(words(1)[0], None) is not None else 0xFFFF_FFFF
        if op == SYS_WRITE0:
            text = bytearray()
            while (byte := read(arg + len(text), 1)) != b"\0":
                text += byte
            self.console.append(text.decode(errors="replace"))
            return 0
        if op in (SYS_WRITE, SYS_READ, SYS_FLEN):
            handle = self._handles.get(words(1)[0])
            if handle is None:
                return 0xFFFF_FFFF
            if op == SYS_FLEN:
                return len(handle.data)
            _, buf, n = words(3)
            if op == SYS_WRITE:
                handle.data += read(buf, n)
                return 0
            chunk = bytes(handle.data[handle.pos:handle.pos + n])
            handle.pos += len(chunk)
            write(buf, chunk)
            return n - len(chunk)
        if op == SYS_EXIT_EXTENDED:
            reason, status = words(2)
            self.exit_status = status if reason == ADP_STOPPED_APPLICATION_EXIT else 0x100 | (reason & 0xFF)
            return 0
        if op == SYS_EXIT:
            self.exit_status = 0 if arg == ADP_STOPPED_APPLICATION_EXIT else 1
            return 0
        raise SemihostingError(f"semihosting operation 0x{op:02X} is not served by the simulator")
