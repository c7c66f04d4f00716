"""mcucomp: compile ONNX models to self-contained C for Arm Cortex-M."""

__version__ = "0.1.0"

from .pipeline import CompileResult, compile_model  # noqa: E402

__all__ = ["compile_model", "CompileResult", "__version__"]
