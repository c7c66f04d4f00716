"""C generation from jinja2 templates: knows C programs (calls, constants, arena), not ONNX."""

from .program import ArrayConst, CallSite, IOSpec, NpuInfo, Program
from .writer import write_program

__all__ = ["ArrayConst", "CallSite", "IOSpec", "NpuInfo", "Program", "write_program"]
