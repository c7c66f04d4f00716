"""The orchestrator: plan_model strings the stages together (ONNX → IR → passes → schedule → memory plan → C
program and report dict); compile_model writes the C files, report.json, memory.svg and report.html; verify_model
and profile_model compile, then hand the output to verify and to the profiler. No stage imports this module
(docs/ARCHITECTURE.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, TextIO

from emit_c import Program, write_program

from . import outdir
from .boards import load_board
from .codegen import build_program
from .errors import OptionError
from .fit import check_fit, estimate_fit
from .frontend import load_onnx
from .ir import Graph, Node, build_graph
from .memory import MemoryLayout, choose_scratch, plan_memory
from .npu.config import NpuConfig, npu_config
from .npu.files import region_details, region_files
from .npu.report import layer_placement, placement_report
from .ops import REGISTRY, KernelCall
from .passes import run_passes
from .perf.calibration import calibration_models
from .perf.estimate import estimate_layers, estimate_model, runtime_files
from .report.build import build_report, float_layers
from .report.html import REPORT_HTML, render_report_html
from .report.svg import MEMORY_SVG, render_memory_svg
from .schedule import schedule
from .verify import VerifyResult, check_run_options, data_arrays, verify_compiled
from .version import __version__

DEFAULT_OPTIONS = {"requant": "float", "float_mac": "fused", "io": "arena", "io_dtype": "float",
                   "io_layout": "nchw", "npu_placement": "auto"}
ALLOWED = {"requant": ("float", "fixed"), "float_mac": ("fused", "separate"), "io": ("arena", "caller"),
           "io_dtype": ("float", "int8"), "io_layout": ("nchw", "nhwc"), "npu_placement": ("auto", "max", "off")}
#: Cores whose FPU issues a fused multiply-add every cycle (Cortex-M7: VFMA pipelined beside a load; Cortex-M55 and
#: M85: the FPU's multiply-accumulate pipe). Elsewhere VFMA takes 3 cycles against 1 + 1 for VMUL and VADD
#: (Cortex-M4 TRM Table 7-1; the M33 keeps those timings), and without an FPU fmaf is a long library call.
FUSED_MAC_CORES = ("cortex-m7", "cortex-m55", "cortex-m85")
#: Options the passes read that are not command-line strings (kept out of the generated header's option line).
PASS_CONTEXT = ("npu", "board", "cpu_cycles")


def default_requant(board: dict) -> str:
    """The requantization a board's core runs best: `float` (float32 scale) with an FPU, `fixed` (Q31 multiplier
    and shift, integer only) without one, where a float multiply is a library call."""
    return "fixed" if board["fpu"] == "none" else "float"


def default_float_mac(board: dict) -> str:
    """The float multiply-accumulate form a board's core runs fastest: `fused` (fmaf, one rounding) where VFMA
    issues every cycle, `separate` (a multiply then an add, two roundings) elsewhere."""
    return "fused" if board["core"] in FUSED_MAC_CORES else "separate"


@dataclass
class CompileResult:
    """What compile_model returns: the report dict (as written to report.json) and the output directory."""

    report: dict
    out_dir: Path


def _check_name(name: str) -> None:
    """Reject model names that cannot prefix C symbols."""
    if not re.fullmatch(r"[a-z][a-z0-9_]{0,31}", name):
        raise OptionError(
            f"Model name '{name}' cannot prefix C symbols: use 1-32 lowercase letters, digits or '_', "
            "starting with a letter (e.g. --name kws)."
        )


def check_options(options: dict) -> dict:
    """Validate the keyword options (requant, io, io_dtype, io_layout); fill defaults."""
    merged = dict(DEFAULT_OPTIONS)
    for key, value in options.items():
        if key not in ALLOWED:
            raise OptionError(f"Unknown option '{key}'; known options: {', '.join(sorted(ALLOWED))}.")
        if value not in ALLOWED[key]:
            raise OptionError(f"Option {key}='{value}' is not one of: {', '.join(ALLOWED[key])}.")
        merged[key] = value
    return merged


def default_name(model) -> str:
    """Model name from the file name: lowercase, non-identifier characters replaced by '_'."""
    stem = Path(os.fspath(model)).stem if not hasattr(model, "graph") else "model"
    name = re.sub(r"[^a-z0-9_]", "_", stem.lower())
    return name if name[:1].isalpha() else "m_" + name


class LoweredModel(NamedTuple):
    """The graph after all passes, its execution order, the model file's SHA-256 and the checked options."""

    graph: Graph
    order: list[Node]
    sha256: str
    options: dict


def kernel_calls(g: Graph, nodes: list[Node]) -> dict[str, KernelCall]:
    """The C call of every node that is not an alias (a view with no call), by node name."""
    return {node.name: REGISTRY[node.op].call(node, g) for node in nodes
            if not REGISTRY[node.op].aliases_input(node, g)}


def scratch_sizes(calls: dict[str, KernelCall]) -> dict[str, int]:
    """Scratch bytes by node name, for the calls that ask for any."""
    return {n: c.scratch_bytes for n, c in calls.items() if c.scratch_bytes}


def lower_model(model, shapes: dict | None = None, constants: dict | None = None, alignment: int = 16,
                npu: NpuConfig | None = None, board: dict | None = None, **options) -> LoweredModel:
    """Load, lower and schedule a model (path or ModelProto) without planning memory or writing C.

    `npu` (the board's Ethos-U config, mcucomp.npu.config.npu_config) reaches the passes as options["npu"]; None on
    boards without an NPU. `board` (the loaded board) and the estimator's estimate_layers (options["cpu_cycles"])
    give the NPU partition its CPU cycle estimates.

    The order has the lowest peak of live bytes found, counting the kernels' scratch, the io option and sizes
    rounded up to `alignment` (the board's arena alignment), as plan_memory counts them; then the scratches that
    only buy speed are granted where they do not grow the arena (memory.choose_scratch).
    """
    opts = check_options(options)
    opts["npu"] = npu
    opts["board"] = board
    opts["cpu_cycles"] = estimate_layers
    proto, sha256 = load_onnx(model, shapes, constants)
    g = run_passes(build_graph(proto), opts)
    order = schedule(g, scratch_sizes(kernel_calls(g, g.nodes)), opts["io"] == "arena", alignment)
    choose_scratch(g, order, opts["io"] == "arena", alignment)
    return LoweredModel(g, order, sha256, opts)


@dataclass
class PlannedModel:
    """Everything compile writes, computed without writing: lowered graph, order, memory plan, C program, report."""

    graph: Graph
    order: list[Node]
    layout: MemoryLayout
    program: Program
    report: dict
    board: dict


def npu_report(cfg: NpuConfig | None, order: list[Node], g: Graph, name: str) -> dict | None:
    """report.json's "npu": the Ethos-U config the build's command streams are compiled for and, per NPU region
    call, the sizes of Vela's raw output, its .tflite file and I/O places (null: no NPU)."""
    if cfg is None:
        return None
    regions = [{"layer": node.name, "command_stream_bytes": len(r.command_stream), "weights_bytes": len(r.weights),
                "scratch_bytes": r.scratch_bytes, "scratch_fast_bytes": r.scratch_fast_bytes,
                "npu_cycles_vela_estimated": r.npu_cycles, **region_details(g, node, name)}
               for node in order if node.op == "ethosu_region" for r in [node.attrs["region"]]]
    return {"accelerator": cfg.accelerator, "product": cfg.product, "macs_per_cycle": cfg.macs,
            "system_config": cfg.system_config, "memory_mode": cfg.memory_mode, "clock_hz": cfg.clock_hz,
            "label": cfg.label, "regions": regions}


def plan_model(model, name: str | None = None, board: str | None = None, shapes: dict | None = None,
               arena_region: str | None = None, weights_region: str | None = None, npu: str | None = None,
               **options) -> PlannedModel:
    """Lower, schedule and plan memory, build the C program and the report with its fit estimate; write nothing.

    arena_region/weights_region name the board memory regions the fit check puts the arena and the weights in
    (default: the fastest with room); npu names an Ethos-U config replacing the board's (`--npu`)."""
    name = default_name(model) if name is None else name
    _check_name(name)
    board_info = load_board(board)
    requant_given = "requant" in options
    npu_cfg = npu_config(board_info, npu)
    if npu_cfg is None and options.get("npu_placement") == "max":
        raise OptionError(f"--npu-placement max: board '{board_info['id']}' has no NPU. Add one with --npu CONFIG "
                          "(e.g. --npu ethos-u55-128), or choose a board with an [npu] table (corstone-300).")
    on_npu = npu_cfg is not None and options.get("npu_placement", "auto") != "off"
    options.setdefault("requant", "fixed" if on_npu else default_requant(board_info))
    mac_why = "--float-mac option" if "float_mac" in options else \
        f"default for {board_info['core']}: " + ("VFMA issues every cycle" if default_float_mac(board_info) == "fused"
                                               else "a multiply and an add are cheaper than a fused multiply-add")
    options.setdefault("float_mac", default_float_mac(board_info))
    lowered = lower_model(model, shapes, alignment=board_info["alignment"], npu=npu_cfg, board=board_info,
                          **options)
    source = os.path.basename(os.fspath(model)) if not hasattr(model, "graph") else "<ModelProto>"
    requant_why = "--requant option" if requant_given else \
        f"default with an NPU: the Ethos-U's integer arithmetic ({npu_cfg.accelerator})" if on_npu else \
        f"default for {board_info['core']}, {'no FPU' if board_info['fpu'] == 'none' else 'has an FPU'}"
    return plan_lowered(lowered, name, board_info, source, requant_why, arena_region, weights_region, mac_why)


def plan_lowered(lowered: LoweredModel, name: str, board_info: dict, source: str, requant_why: str,
                 arena_region: str | None = None, weights_region: str | None = None,
                 float_mac_why: str = "") -> PlannedModel:
    """plan_model after lowering: memory plan, C program and report of a lowered graph (source names the model
    file in the generated comments; options["npu"] is the NpuConfig or None)."""
    g, order, sha256, opts = lowered
    npu_cfg = opts.get("npu")
    opts = {k: v for k, v in opts.items() if k not in PASS_CONTEXT and (npu_cfg or k != "npu_placement")}
    opts.setdefault("float_mac", DEFAULT_OPTIONS["float_mac"])  # graphs lowered by hand (region tests) name none
    calls = kernel_calls(g, order)
    layout = plan_memory(g, order, scratch_sizes(calls), opts["io"] == "arena", board_info["alignment"])
    header = [
        f"Generated by mcucomp {__version__}. Do not edit.",
        f"model: {source}",
        f"model sha256: {sha256}",
        f"options: name={name} board={board_info['id']} " + " ".join(f"{k}={v}" for k, v in sorted(opts.items())),
    ] + ([f"npu: {npu_cfg.label}"] if npu_cfg else [])
    program = build_program(g, order, calls, layout, name, header)
    program.float_mac = opts["float_mac"]
    cycles = estimate_model(g, order, board_info)
    report = build_report(g, order, layout, program, calls, name, board_info, opts, sha256, cycles)
    report["npu"] = npu_report(npu_cfg, order, g, name)
    report["fit"] = estimate_fit(report, board_info, arena_region, weights_region)
    report["requant"] = {"mode": opts["requant"], "why": requant_why}
    report["float_mac"] = {"form": opts["float_mac"], "why": float_mac_why,
                           "layers": [node.name for node in order if REGISTRY[node.op].uses_float_mac]}
    report["float_layers"] = float_layers(g, order)
    report["npu_placement"] = placement_report(order, npu_cfg, opts.get("npu_placement", "auto"),
                                               board_info["clock_hz"])
    if npu_cfg is not None:
        for layer, node in zip(report["layers"], order):
            layer.update(layer_placement(node))
    return PlannedModel(g, order, layout, program, report, board_info)


def compile_model(model, out_dir, name: str | None = None, board: str | None = None, shapes: dict | None = None,
                  force: bool = False, **options) -> CompileResult:
    """Compile an ONNX model (path or ModelProto) to C in out_dir and return the report (force: overwrite files
    there that mcucomp did not write)."""
    fit_check = options.pop("fit_check", True)
    extra_files = options.pop("extra_files", None)
    report_extra = options.pop("report_extra", None)
    planned = plan_model(model, name, board, shapes, **options)
    planned.report.update(report_extra or {})
    return write_planned(planned, out_dir, fit_check, force, extra_files)


def write_planned(planned: PlannedModel, out_dir, fit_check: bool = True, force: bool = False,
                  extra_files: dict[str, bytes] | None = None) -> CompileResult:
    """Check the fit (unless fit_check is False), then write a planned model's files into out_dir, all or none
    (refusing to replace files mcucomp did not write there unless force); extra_files ({file name: content}, e.g.
    the quantized model the C came from) go with them."""
    report = planned.report
    if fit_check:
        check_fit(report, planned.board, report["fit"])
    out_dir = Path(out_dir)
    staging = outdir.stage(out_dir)
    try:
        files = write_program(planned.program, staging)
        for file_name, data in region_files(planned.program.name, planned.order).items():
            (staging / file_name).write_bytes(data)
            files.append(file_name)
        for file_name, data in (extra_files or {}).items():
            (staging / file_name).write_bytes(data)
            files.append(file_name)
        report["files"] = files + [MEMORY_SVG, REPORT_HTML, outdir.MANIFEST_FILE]
        svg = render_memory_svg(report)
        (staging / MEMORY_SVG).write_text(svg, encoding="utf-8")
        (staging / REPORT_HTML).write_text(render_report_html(report, svg), encoding="utf-8")
        (staging / outdir.MANIFEST_FILE).write_text(outdir.manifest_text(report, outdir.file_hashes(staging)),
                                                    encoding="utf-8")
        outdir.publish(staging, out_dir, force)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return CompileResult(report, out_dir.resolve())


def lower_compiled(model, out_dir, shapes: dict | None = None, constants: dict | None = None) -> LoweredModel:
    """`model` (a path) lowered again with the options its compile into out_dir recorded in report.json (requant,
    io, io_dtype, io_layout): the graph verify runs the integer reference on."""
    recorded = json.loads((Path(out_dir) / outdir.MANIFEST_FILE).read_text())["options"]
    opts = {k: recorded[k] for k in ("requant", "io", "io_dtype", "io_layout") if k in recorded}
    return lower_model(os.fspath(model), shapes, constants, **opts)


def verify_model(model, out_dir=None, inputs: int = 10, seed: int = 0, name: str | None = None,
                 board: str | None = None, shapes: dict | None = None, bisect_always: bool = False,
                 progress: TextIO | None = sys.stderr, data=None, data_name: str | None = None,
                 **options) -> VerifyResult:
    """Compile `model` (a path) to out_dir (a temporary directory when None), then run mcucomp.verify.verify_compiled
    on it with the model lowered as compiled (lower_compiled).

    `data`: an .npz path or a dict of arrays by ONNX name (see verify_compiled; data_name names a dict in messages);
    a path is read before compiling.
    """
    check_run_options(inputs, seed)
    constants = options.get("constants")
    if data is not None:
        data_name, data = data_arrays(data, data_name)

    def compile_and_verify(out) -> VerifyResult:
        """compile_model into `out`, then verify_compiled."""
        compile_model(model, out, name=name, board=board, shapes=shapes, **options)
        return verify_compiled(model, out, lower_compiled(model, out, shapes, constants), inputs, seed,
                               bisect_always, progress, constants, data, data_name)

    if out_dir is not None:
        return compile_and_verify(out_dir)
    with tempfile.TemporaryDirectory(prefix="mcucomp-verify-") as tmp:
        result = compile_and_verify(tmp)
    result.out_dir = None
    return result


def profile_model(model, board: dict | str | None = None, inputs: list[dict] | int = 1, seed: int = 0,
                  progress=None, **compile_options):
    """Compile `model` (path or ModelProto) into a temporary directory and profile it
    (mcucomp.perf.profile.profile_compiled, a ProfileResult)."""
    from .perf.profile import profile_compiled  # the simulator loads Unicorn and Capstone: only when profiling

    board_id = board["id"] if isinstance(board, dict) else board
    tmp = Path(tempfile.mkdtemp(prefix="mcucomp-profile-"))
    try:
        compile_model(model, tmp / "out", board=board_id, **compile_options)
        return profile_compiled(tmp / "out", board, inputs, seed, progress)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def calibration_runtime_files() -> list[str]:
    """The runtime_c files the cycle estimator's calibration models link (perf.estimate.runtime_files of their
    lowered graphs and kernel calls, each lowered with its compile options): the kernel sources in the
    coefficients' fingerprint."""
    lowered = (lower_model(model, **options) for _, model, options in calibration_models())
    return runtime_files((low.order, kernel_calls(low.graph, low.order)) for low in lowered)
