"""mcucomp: compile ONNX models to self-contained C for Arm Cortex-M."""

from .pipeline import CompileResult, compile_model
from .version import __version__

__all__ = ["compile_model", "CompileResult", "__version__"]
