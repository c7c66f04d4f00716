"""mcucomp's version: printed by `--version`, in every generated file's header and in report.json."""

__version__ = "0.1.0"
