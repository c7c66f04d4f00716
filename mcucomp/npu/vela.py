"""Vela, in process: compile one NPU region (a TFLite flatbuffer) to Ethos-U raw output.

Vela 5.2's C++ core (``ethosu.regor``) is called directly, the way ``vela --output-format raw`` calls it, so no
subprocess runs and nothing is written to disk. Its console output (including the C++ core's, written straight to
file descriptors 1 and 2) is captured and only shown when the compile fails.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from dataclasses import dataclass, field

from mcucomp.errors import McucompError

# Base-address regions of Vela's raw output (ethos-u-core-driver numbering).
WEIGHTS_REGION = 0
SCRATCH_REGION = 1
SCRATCH_FAST_REGION = 2


class NpuCompileError(McucompError):
    """Vela could not compile an NPU region."""


@dataclass(frozen=True)
class VelaIO:
    """One input or output of a compiled region: where the command stream expects it and its quantisation."""

    name: str
    region: int
    offset: int
    shape: tuple
    dtype: str
    scale: float
    zero_point: int


@dataclass(frozen=True)
class VelaRegion:
    """Vela's raw output for one region: command stream, weights, scratch sizes, I/O placement, estimates."""

    command_stream: bytes
    weights: bytes
    scratch_bytes: int
    scratch_fast_bytes: int
    inputs: list
    outputs: list
    npu_cycles: int
    summary: dict = field(compare=False)
    config: str


_DTYPES = {1: "int8", 2: "int16", 4: "int32"}


def _vela_ini() -> str:
    """Path of the Arm system/memory configuration file shipped with Vela."""
    from ethosu.vela import architecture_features

    return os.path.join(architecture_features.CONFIG_FILES_PATH, "Arm", "vela.ini")


def _regor_arguments(cfg) -> tuple[str, str, str]:
    """(arch, system config text, compiler options text) as ``vela --output-format raw`` builds them."""
    from ethosu.vela import architecture_features
    from ethosu.vela.vela import get_compiler_config

    ini = _vela_ini()
    arch = architecture_features.ArchitectureFeatures(
        vela_config_files=[ini],
        system_config=cfg.system_config,
        memory_mode=cfg.memory_mode,
        accelerator_config=cfg.accelerator,
        max_blockdep=architecture_features.ArchitectureFeatures.MAX_BLOCKDEP,
        verbose_config=False,
        arena_cache_size=None,
    )
    with open(ini, encoding="utf-8") as f:
        ini_text = f.read()
    system_config = (
        f"[architecture]\nmacs={arch.num_macs_per_cycle}\ncores={arch.ncores}\n"
        f"[vela]\nsystem_config_name={arch.system_config}\nmemory_mode_name={arch.memory_mode}\n" + ini_text
    )
    options = get_compiler_config(
        False, False, False, False, "Performance", arch.arena_cache_size, False, False, False, False, False,
        False, False, "raw", False, False, False, False, False, "COP1", False, 16, "HillClimb", 10.0, "",
    )
    regor_arch = "".join(part.capitalize() for part in cfg.accelerator.split("-")[:-1])  # ethos-u55-128 → EthosU55
    return regor_arch, system_config, options


@contextlib.contextmanager
def _captured_console():
    """Capture Python-level and file-descriptor-level stdout/stderr; yields a function returning the text."""
    with tempfile.TemporaryFile(mode="w+b") as sink:
        saved = [os.dup(1), os.dup(2)]
        text = io.StringIO()
        try:
            for stream in (1, 2):
                os.dup2(sink.fileno(), stream)
            with contextlib.redirect_stdout(text), contextlib.redirect_stderr(text):
                yield lambda: text.getvalue() + _read_all(sink)
        finally:
            for stream, fd in zip((1, 2), saved):
                os.dup2(fd, stream)
                os.close(fd)


def _read_all(sink) -> str:
    """Everything written to the file so far, as text."""
    sink.flush()
    sink.seek(0)
    return sink.read().decode("utf-8", "replace")


def _io(tensor, name: str) -> VelaIO:
    """A VelaIO from one of regor's raw-model tensors."""
    scale = list(tensor.scale)
    zero_point = list(tensor.zero_point)
    return VelaIO(
        name=name,
        region=int(tensor.region),
        offset=int(tensor.address),
        shape=tuple(int(d) for d in tensor.shape),
        dtype=_DTYPES.get(int(tensor.element_size), f"{tensor.element_size}-byte"),
        scale=float(scale[0]) if scale else 0.0,
        zero_point=int(zero_point[0]) if zero_point else 0,
    )


def _summary(report) -> dict:
    """Vela's perf_report as plain data (the figures its own console summary prints)."""
    memories = {
        str(name): {"peak_bytes": int(m.peakUsage), "access_cycles": int(m.totalAccessCycles)}
        for name, m in report.memories.items()
    }
    return {
        "npu_cycles": int(report.npuCycles),
        "total_cycles": int(report.totalCycles),
        "cpu_cycles": int(report.cpuCycles),
        "npu_ops": int(report.npuOps),
        "cpu_ops": int(report.cpuOps),
        "macs": int(report.macCount),
        "original_weight_bytes": int(report.originalWeights),
        "encoded_weight_bytes": int(report.encodedWeights),
        "read_only_peak_bytes": int(report.readOnlyPeakUsage),
        "memories": memories,
    }


def compile_region(tflite: bytes, cfg, io_names: tuple[list, list] | None = None) -> VelaRegion:
    """Compile one NPU-only TFLite subgraph with Vela for ``cfg`` (an NpuConfig) and return its raw output."""
    from ethosu import regor

    arch, system_config, options = _regor_arguments(cfg)
    with _captured_console() as console:
        try:
            model = regor.compile(arch, bytes(tflite), "TFLITE", system_config, options=options, verbose=False)
        except Exception as exc:  # regor raises plain RuntimeError/ValueError for every refusal
            raise NpuCompileError(
                f"Vela 5.2 could not compile an NPU region for {cfg.accelerator}: {exc}. Vela said: "
                f"{console().strip()[-800:] or '(nothing)'}. Run with --npu-placement off to keep every layer on "
                "the CPU, and report the model if it should be supported."
            ) from None
    if not isinstance(model, regor.CompiledRawModel):
        raise NpuCompileError(
            f"Vela returned {type(model).__name__} instead of raw output for {cfg.accelerator}: the region still "
            "holds a CPU operator. This is a bug in mcucomp's partition; run with --npu-placement off meanwhile."
        )
    in_names, out_names = io_names or ([""] * len(model.inputs), [""] * len(model.outputs))
    report = model.perf_report
    return VelaRegion(
        command_stream=bytes(model.command_stream),
        weights=bytes(model.read_only.data),
        scratch_bytes=int(model.scratch.size),
        scratch_fast_bytes=int(model.scratch_fast.size),
        inputs=[_io(t, n) for t, n in zip(model.inputs, in_names)],
        outputs=[_io(t, n) for t, n in zip(model.outputs, out_names)],
        npu_cycles=int(report.totalCycles),
        summary=_summary(report),
        config=cfg.accelerator,
    )
