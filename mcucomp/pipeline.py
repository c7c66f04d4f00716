"""plan_model: ONNX → IR → passes → schedule → memory plan → C program and report dict; compile_model writes
the C files, report.json, memory.svg and report.html."""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from emit_c import Program, write_program

from . import __version__, outdir
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
from .perf.estimate import estimate_model
from .report.build import build_report
from .report.html import REPORT_HTML, render_report_html
from .report.svg import MEMORY_SVG, render_memory_svg
from .schedule import schedule

DEFAULT_OPTIONS = {"requant": "float", "io": "arena", "io_dtype": "float", "io_layout": "nchw",
                   "npu_placement": "auto"}
ALLOWED = {"requant": ("float", "fixed"), "io": ("arena", "caller"), "io_dtype": ("float", "int8"),
           "io_layout": ("nchw", "nhwc"), "npu_placement": ("auto", "max", "off")}
#: Options the passes read that are not command-line strings (kept out of the generated header's option line).
PASS_CONTEXT = ("npu", "board")


def default_requant(board: dict) -> str:
    """The requantization a board's core runs best: `float` (float32 scale) with an FPU, `fixed` (Q31 multiplier
    and shift, integer only) without one, where a float multiply is a library call."""
    return "fixed" if board["fpu"] == "none" else "float"


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
    boards without an NPU. `board` (the loaded board) gives the NPU partition its CPU cycle estimates.

    The order has the lowest peak of live bytes found, counting the kernels' scratch, the io option and sizes
    rounded up to `alignment` (the board's arena alignment), as plan_memory counts them; then the scratches that
    only buy speed are granted where they do not grow the arena (memory.choose_scratch).
    """
    opts = check_options(options)
    opts["npu"] = npu
    opts["board"] = board
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


def float_layers(g: Graph, order: list[Node]) -> list[dict]:
    """In an int8 model (one with int8 compute kernels), the layers that compute in float32, and why."""
    from .intref._checks import INT8_KERNELS, is_int8_model

    if not is_int8_model(order):
        return []
    quiet = set(INT8_KERNELS) | {"reshape", "copy", "recode8", "resize", "slice", "pad", "split", "gather",
                                 "ethosu_region"}
    rows = []
    for node in order:
        if node.op in quiet and "_float_why" not in node.attrs:  # the QDQ lowering marks a group it left in float
            if node.op == "avgpool_s8" and node.attrs.get("mode") == "float":
                rows.append({"layer": node.name, "op": node.op, "why": "windowed QLinearAveragePool divides in "
                             "float32 as onnxruntime does (--requant fixed sums and requantizes in integers)"})
            elif node.op == "softmax_s8" and node.attrs.get("mode") == "float":
                rows.append({"layer": node.name, "op": node.op, "why": "input and output types differ"})
            continue
        if node.op in ("quantize_linear", "dequantize_linear"):
            why = "float graph I/O (use --io-dtype int8 to feed and read the quantized tensors)" \
                if set(node.inputs[:1] + node.outputs) & (set(g.inputs) | set(g.outputs)) else \
                "a float op sits between DequantizeLinear and QuantizeLinear here"
        else:
            why = node.attrs.get("_float_why", "no int8 lowering for this op in a QDQ group")
        rows.append({"layer": node.name, "op": node.op, "why": why})
    return rows


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
    lowered = lower_model(model, shapes, alignment=board_info["alignment"], npu=npu_cfg, board=board_info,
                          **options)
    source = os.path.basename(os.fspath(model)) if not hasattr(model, "graph") else "<ModelProto>"
    requant_why = "--requant option" if requant_given else \
        f"default with an NPU: the Ethos-U's integer arithmetic ({npu_cfg.accelerator})" if on_npu else \
        f"default for {board_info['core']}, {'no FPU' if board_info['fpu'] == 'none' else 'has an FPU'}"
    return plan_lowered(lowered, name, board_info, source, requant_why, arena_region, weights_region)


def plan_lowered(lowered: LoweredModel, name: str, board_info: dict, source: str, requant_why: str,
                 arena_region: str | None = None, weights_region: str | None = None) -> PlannedModel:
    """plan_model after lowering: memory plan, C program and report of a lowered graph (source names the model
    file in the generated comments; options["npu"] is the NpuConfig or None)."""
    g, order, sha256, opts = lowered
    npu_cfg = opts.get("npu")
    opts = {k: v for k, v in opts.items() if k not in PASS_CONTEXT and (npu_cfg or k != "npu_placement")}
    calls = kernel_calls(g, order)
    layout = plan_memory(g, order, scratch_sizes(calls), opts["io"] == "arena", board_info["alignment"])
    header = [
        f"Generated by mcucomp {__version__}. Do not edit.",
        f"model: {source}",
        f"model sha256: {sha256}",
        f"options: name={name} board={board_info['id']} " + " ".join(f"{k}={v}" for k, v in sorted(opts.items())),
    ] + ([f"npu: {npu_cfg.label}"] if npu_cfg else [])
    program = build_program(g, order, calls, layout, name, header)
    cycles = estimate_model(g, order, board_info)
    report = build_report(g, order, layout, program, calls, name, board_info, opts, sha256, cycles)
    report["npu"] = npu_report(npu_cfg, order, g, name)
    report["fit"] = estimate_fit(report, board_info, arena_region, weights_region)
    report["requant"] = {"mode": opts["requant"], "why": requant_why}
    report["float_layers"] = float_layers(g, order)
    report["npu_placement"] = placement_report(order, npu_cfg, opts.get("npu_placement", "auto"),
                                               board_info["clock_hz"])
    if npu_cfg is not None:
        for layer, node in zip(report["layers"], order):
            layer.update(layer_placement(node))
    return PlannedModel(g, order, layout, program, report, board_info)


def compile_model(model, out_dir, name: str | None = None, board: str | None = None, shapes: dict | None = None,
                  **options) -> CompileResult:
    """Compile an ONNX model (path or ModelProto) to C in out_dir and return the report."""
    fit_check = options.pop("fit_check", True)
    extra_files = options.pop("extra_files", None)
    report_extra = options.pop("report_extra", None)
    planned = plan_model(model, name, board, shapes, **options)
    planned.report.update(report_extra or {})
    return write_planned(planned, out_dir, fit_check, extra_files)


def write_planned(planned: PlannedModel, out_dir, fit_check: bool = True,
                  extra_files: dict[str, bytes] | None = None) -> CompileResult:
    """Check the fit (unless fit_check is False), then write a planned model's files into out_dir, all or none;
    extra_files ({file name: content}, e.g. the quantized model the C came from) go with them."""
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
        report[outdir.MANIFEST_KEY] = outdir.file_hashes(staging)
        (staging / outdir.MANIFEST_FILE).write_text(json.dumps(report, indent=1))
        outdir.publish(staging, out_dir)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return CompileResult(report, out_dir.resolve())
