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
from .ops import REGISTRY, KernelCall
from .passes import run_passes
from .perf.estimate import estimate_model
from .report.build import build_report
from .report.html import REPORT_HTML, render_report_html
from .report.svg import MEMORY_SVG, render_memory_svg
from .schedule import schedule

DEFAULT_OPTIONS = {"requant": "float", "io": "arena", "io_dtype": "float", "io_layout": "nchw"}
ALLOWED = {"requant": ("float", "fixed"), "io": ("arena", "caller"), "io_dtype": ("float", "int8"),
           "io_layout": ("nchw", "nhwc")}


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
                **options) -> LoweredModel:
    """Load, lower and schedule a model (path or ModelProto) without planning memory or writing C.

    The order has the lowest peak of live bytes found, counting the kernels' scratch, the io option and sizes
    rounded up to `alignment` (the board's arena alignment), as plan_memory counts them; then the scratches that
    only buy speed are granted where they do not grow the arena (memory.choose_scratch).
    """
    opts = check_options(options)
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
    quiet = set(INT8_KERNELS) | {"reshape", "copy", "recode8", "resize", "slice", "pad", "split", "gather"}
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


def plan_model(model, name: str | None = None, board: str | None = None, shapes: dict | None = None,
               arena_region: str | None = None, weights_region: str | None = None, **options) -> PlannedModel:
    """Lower, schedule and plan memory, build the C program and the report with its fit estimate; write nothing.

    arena_region/weights_region name the board memory regions the fit check puts the arena and the weights in
    (default: the fastest with room)."""
    name = default_name(model) if name is None else name
    _check_name(name)
    board_info = load_board(board)
    requant_given = "requant" in options
    options.setdefault("requant", default_requant(board_info))
    g, order, sha256, opts = lower_model(model, shapes, alignment=board_info["alignment"], **options)
    calls = kernel_calls(g, order)
    layout = plan_memory(g, order, scratch_sizes(calls), opts["io"] == "arena", board_info["alignment"])
    header = [
        f"Generated by mcucomp {__version__}. Do not edit.",
        f"model: {os.path.basename(os.fspath(model)) if not hasattr(model, 'graph') else '<ModelProto>'}",
        f"model sha256: {sha256}",
        f"options: name={name} board={board_info['id']} " + " ".join(f"{k}={v}" for k, v in sorted(opts.items())),
    ]
    program = build_program(g, order, calls, layout, name, header)
    cycles = estimate_model(g, order, board_info)
    report = build_report(g, order, layout, program, calls, name, board_info, opts, sha256, cycles)
    report["fit"] = estimate_fit(report, board_info, arena_region, weights_region)
    report["requant"] = {"mode": opts["requant"], "why": "--requant option" if requant_given else
                         f"default for {board_info['core']}, {'no FPU' if board_info['fpu'] == 'none' else 'has an FPU'}"}
    report["float_layers"] = float_layers(g, order)
    return PlannedModel(g, order, layout, program, report, board_info)


def compile_model(model, out_dir, name: str | None = None, board: str | None = None, shapes: dict | None = None,
                  **options) -> CompileResult:
    """Compile an ONNX model (path or ModelProto) to C in out_dir and return the report."""
    fit_check = options.pop("fit_check", True)
    planned = plan_model(model, name, board, shapes, **options)
    report = planned.report
    if fit_check:
        check_fit(report, planned.board, report["fit"])
    out_dir = Path(out_dir)
    staging = outdir.stage(out_dir)
    try:
        files = write_program(planned.program, staging)
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
