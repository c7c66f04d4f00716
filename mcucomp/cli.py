"""The `mcucomp` command line: compile, show, analyze, verify, boards, build-target, profile and quantize."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path

from emit_c.escape import visible_escape

from .estimate_quality import CALIBRATED, EXTRAPOLATED, OUTSIDE_MARK, marked
from .errors import McucompError, ModelError, OptionError, OutputError, VerifyError
from .frontend.loader import parse_shape_option, require_regular_file
from .report.tables import display_text
from .version import __version__

#: Exit status for unexpected exceptions (BSD sysexits EX_SOFTWARE).
EXIT_INTERNAL = 70
#: Random inputs `verify` compares without --inputs or --data.
DEFAULT_VERIFY_INPUTS = 10
#: The onnxruntime configuration verify compares with (mcucomp/verify.py: one graph for every comparison).
ORT_AS_WRITTEN = "CPUExecutionProvider, graph optimizations off: the model as written"


#: Line breaks and tabs in messages, shown as their usual escapes.
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: str) -> str:
    """text as one line for the terminal: line breaks as \\n, other control, bidi and unprintable characters (from
    names in the model) as visible \\xNN / \\uNNNN escapes."""
    return "".join(c if c.isprintable() or c == " " else _NAMED_ESCAPES.get(c) or visible_escape(c) for c in text)


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are OptionErrors (one line, exit code 1) like every other bad input."""

    def error(self, message: str):
        """Raise instead of printing usage and exiting 2 (2 means 'unsupported model')."""
        raise OptionError(f"{message}. See `{self.prog} --help`.")


def _shapes(items: list[str] | None) -> dict[str, list[int]]:
    """The --shape options as {input name: dims}; naming one input twice is an error."""
    shapes: dict[str, list[int]] = {}
    for item in items or []:
        name, dims = parse_shape_option(item)
        if name in shapes:
            raise OptionError(f"--shape names input '{name}' twice: give each input's shape once.")
        shapes[name] = dims
    return shapes


def _constants(items: list[str] | None) -> dict:
    """The --const NAME=FILE.npy options as {input name: array}."""
    import numpy as np

    constants = {}
    for item in items or []:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise OptionError(f"--const '{item}' must look like NAME=FILE.npy.")
        require_regular_file(path, f"--const {name}: file", OptionError)
        try:
            constants[name] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise OptionError(f"--const {name}: cannot read '{path}' as a .npy array ({exc}).") from None
    return constants


def _options(args: argparse.Namespace) -> dict:
    """The keyword options for compile_model/lower_model that were given on the command line."""
    options = {key: getattr(args, key) for key in ("requant", "float_mac", "io", "io_dtype", "io_layout",
                                                      "arena_region", "weights_region", "npu", "npu_placement")
               if getattr(args, key, None) is not None}
    if getattr(args, "const", None):
        options["constants"] = _constants(args.const)
    if getattr(args, "no_fit_check", False):
        options["fit_check"] = False
    if getattr(args, "force", False):
        options["force"] = True
    return options


def _add_out_args(p: argparse.ArgumentParser, required: bool, help_text: str) -> None:
    """-o OUTDIR and --force, for the commands that write into an output directory."""
    p.add_argument("-o", "--out", required=required, metavar="OUTDIR", help=help_text)
    p.add_argument("--force", action="store_true",
                   help="overwrite files in OUTDIR that mcucomp did not write (or that were edited since) where the "
                        "compile writes files of the same names; without it such a compile exits 1 and writes "
                        "nothing")


def _add_lowering_args(p: argparse.ArgumentParser) -> None:
    """Options that change the lowered graph."""
    p.add_argument("model", help="the .onnx file")
    p.add_argument("--shape", action="append", metavar="IN=DIMS",
                   help="fix a graph input's shape, e.g. input_1=1x49x10 (repeat for several inputs)")
    p.add_argument("--const", action="append", metavar="IN=FILE.npy",
                   help="bind a graph input to a constant value at compile time (needed for inputs that decide "
                        "shapes, such as Reshape's shape); repeatable")
    p.add_argument("--requant", choices=("float", "fixed"),
                   help="int8 requantization: 'float' multiplies by a float32 scale and rounds half to even "
                        "(onnxruntime's integer kernels; default on cores with an FPU), 'fixed' by a Q31 integer "
                        "multiplier and shift in TFLite's arithmetic (default on cores without an FPU)")
    p.add_argument("--float-mac", dest="float_mac", choices=("fused", "separate"),
                   help="float dot products (conv, GEMM, RNN gates): 'fused' rounds each multiply-add once (fmaf, "
                        "VFMA; default on the Cortex-M7, M55 and M85, where it issues every cycle), 'separate' "
                        "rounds the product and the sum (VMUL + VADD; default elsewhere, 2 cycles against VFMA's 3 "
                        "on the Cortex-M4 and M33). The host build computes the same form")
    p.add_argument("--io-dtype", dest="io_dtype", choices=("float", "int8"),
                   help="'int8' drops a QDQ model's leading QuantizeLinear and trailing DequantizeLinear: the "
                        "firmware feeds and reads the quantized tensors (scale and zero point in the header); "
                        "'float' keeps the model's I/O types (default)")
    p.add_argument("--io-layout", dest="io_layout", choices=("nchw", "nhwc"),
                   help="'nhwc' makes 3-D and 4-D graph inputs and outputs channels-last (N, H, W, C; N, W, C), as "
                        "camera and microphone data arrive; 'nchw' keeps the ONNX order (default). The header "
                        "comments each I/O's layout")


def _add_compile_args(p: argparse.ArgumentParser) -> None:
    """Options of compile that verify shares."""
    _add_lowering_args(p)
    p.add_argument("--name", help="C symbol prefix and file stem (default: from the model file name)")
    p.add_argument("--board", help="board id or board .toml (default: nucleo-l4r5zi)")
    p.add_argument("--npu", metavar="CONFIG",
                   help="Ethos-U config the NPU regions are compiled for, e.g. ethos-u55-256 (overrides the board's "
                        "[npu] table; on a board without one, adds it); `mcucomp boards` lists each board's")
    p.add_argument("--npu-placement", choices=("auto", "max", "off"),
                   help="on a board with an NPU: 'auto' (default) puts a layer on the NPU when the estimates say it "
                        "is faster there, 'max' every layer the NPU supports, 'off' none")
    p.add_argument("--io", choices=("arena", "caller"),
                   help="'arena': inputs/outputs live in the arena (default); 'caller': in the caller's buffers")
    p.add_argument("--arena-region", metavar="NAME",
                   help="board memory region for the arena, e.g. dtcm (default: the fastest RAM region with room)")
    p.add_argument("--weights-region", metavar="NAME",
                   help="board memory region for the weights, e.g. qspi (default: the fastest flash with room)")
    p.add_argument("--no-fit-check", action="store_true",
                   help="write the C even when the model does not fit the board's RAM or flash")
    p.add_argument("--quantize", metavar="CALIB.npz",
                   help="quantize the float model to int8 first (as `mcucomp quantize` does) with these calibration "
                        "samples (.npz keyed by input name, or a directory of .npy files); the quantized model is "
                        "written beside the C as <name>_int8.onnx")
    _add_quantize_options(p)


def _add_quantize_options(p: argparse.ArgumentParser) -> None:
    """The quantization options `quantize` and `--quantize` share."""
    from .quantize import METHODS

    p.add_argument("--method", choices=tuple(METHODS),
                   help="calibration method: 'minmax' (default) takes each tensor's observed range, 'entropy' and "
                        "'percentile' clip outliers")
    p.add_argument("--per-tensor", action="store_true",
                   help="one weight scale per tensor instead of one per output channel")
    p.add_argument("--calib-samples", type=int, metavar="N",
                   help="calibrate on the first N samples only (default: all)")
    p.add_argument("--keep-float", nargs="+", action="extend", metavar="NODE",
                   help="leave these nodes in float (mixed precision); `verify --reference` lists the layers that "
                        "lose most")


def _quantize_options(args: argparse.Namespace):
    """The QuantizeOptions of the command line."""
    from .quantize import QuantizeOptions

    return QuantizeOptions(args.method or "minmax", args.per_tensor, args.calib_samples,
                           tuple(args.keep_float or ()))


@contextlib.contextmanager
def _quantized_input(args: argparse.Namespace):
    """With --quantize: quantize args.model into a temporary <name>_int8.onnx that args.model then names, kept for
    the command's duration (args.float_model: the float model; args.quantized: (file name, QuantizedModel))."""
    calib = getattr(args, "quantize", None)
    if calib is None:
        given = [opt for opt, value in (("--method", getattr(args, "method", None)),
                                        ("--per-tensor", getattr(args, "per_tensor", False)),
                                        ("--calib-samples", getattr(args, "calib_samples", None)),
                                        ("--keep-float", getattr(args, "keep_float", None))) if value]
        if given and args.command != "quantize":
            verb = "apply" if len(given) > 1 else "applies"
            raise OptionError(f"{', '.join(given)} only {verb} with --quantize CALIB.npz (quantize the float model "
                              "first): add it, or drop the option.")
        yield
        return
    from .pipeline import default_name
    from .quantize import quantize_model

    require_regular_file(args.model, "Model file", ModelError)
    args.name = args.name or default_name(args.model)
    quantized = quantize_model(args.model, calib, _quantize_options(args), progress=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="mcucomp-quantized-") as tmp:
        file_name = f"{args.name}_int8.onnx"
        (Path(tmp) / file_name).write_bytes(quantized.data)
        args.float_model, args.model = args.model, str(Path(tmp) / file_name)
        args.quantized = (file_name, quantized)
        yield


def _compile_options(args: argparse.Namespace) -> dict:
    """_options plus, with --quantize, the quantized model as an extra output file named in report.json."""
    options = _options(args)
    if getattr(args, "quantized", None) is not None:
        file_name, quantized = args.quantized
        options["extra_files"] = {file_name: quantized.data}
        options["report_extra"] = {"quantization": {"file": file_name, **quantized.info}}
    return options


def _percent_over(value: int, bound: int) -> str:
    """How far value is above (negative: below) bound, as a signed percentage."""
    return f"{100.0 * (value - bound) / bound:+.1f}%" if bound else "n/a"


def _overlap_bound(report: dict) -> str:
    """'; with in-place overlaps N B, +x%' when overlap permissions put the lower bound below the live set."""
    bound = report["overlap_lower_bound_bytes"]
    if bound == report["live_lower_bound_bytes"]:
        return ""
    return f"; with in-place overlaps {bound:,} B, {_percent_over(report['arena_bytes'], bound)}"


def _compile_summary(report: dict, out_dir) -> list[str]:
    """The lines compile prints: where, files, arena vs. lower bound, flash, MACs."""
    return [
        f"compiled '{report['name']}' for {report['board']} into {out_dir}",
        f"  files: {' '.join(report['files'])}",
        f"  arena: {report['arena_bytes']:,} B (live-set lower bound {report['live_lower_bound_bytes']:,} B, "
        f"{_percent_over(report['arena_bytes'], report['live_lower_bound_bytes'])}{_overlap_bound(report)})",
        f"  flash: {report['flash_bytes']:,} B of constant data",
        f"  regions: arena in {report['fit']['arena_region']} ({report['fit']['arena_region_why']}); weights in "
        f"{report['fit']['weights_region']} ({report['fit']['weights_region_why']})",
        f"  MACs:  {report['macs']:,}",
    ] + _float_mac_lines(report) + _int8_lines(report)


def _float_mac_lines(report: dict) -> list[str]:
    """For models with float dot products: the multiply-accumulate form the C computes, and why."""
    if not report["float_mac"]["layers"]:
        return []
    form = report["float_mac"]
    what = "fused multiply-add, one rounding" if form["form"] == "fused" else "multiply then add, two roundings"
    return [f"  float MAC: {form['form']} ({what}; {form['why']})"]


def _int8_lines(report: dict) -> list[str]:
    """For int8 models: the requantization mode and why, and the layers that run in float."""
    if not any(layer["op"] in ("conv2d_s8", "fc_s8", "add_s8", "avgpool_s8", "softmax_s8", "lut8", "mul_s8")
               for layer in report["layers"]):
        return []
    lines = [f"  requant: {report['requant']['mode']} ({report['requant']['why']})"]
    for row in report.get("float_layers", []):
        lines.append(f"  float layer: {display_text(row['layer'])} ({row['op']}): {row['why']}")
    return lines


def cmd_compile(args: argparse.Namespace) -> int:
    """mcucomp compile: write the C files and report.json, print the summary."""
    from .pipeline import compile_model

    result = compile_model(args.model, args.out, name=args.name, board=args.board, shapes=_shapes(args.shape),
                           **_compile_options(args))
    print("\n".join(_compile_summary(result.report, result.out_dir)))
    if "quantization" in result.report:
        print(f"  quantized: {result.report['quantization']['file']} (from {args.float_model}, "
              f"{result.report['quantization']['calibration_samples']} calibration samples)")
    elif _is_float_model(result.report):
        print("\n".join(_int8_guidance(args, result.report)))
    if result.report.get("npu_placement"):
        from .report.analyze import npu_placement_lines

        print("\n".join(npu_placement_lines(result.report)))
    return 0


#: Lowered ops that make a model "float" for the int8 guidance: float32 layers with multiply-accumulates.
_FLOAT_MAC_OPS = ("conv2d_f32", "gemm_f32", "conv_transpose_f32", "rnn_f32", "attention_f32", "causal_conv_f32")


def _is_float_model(report: dict) -> bool:
    """True for a float32 model with convolutions or matrix products (no int8 layer): one quantization speeds up."""
    ops = {layer["op"] for layer in report["layers"]}
    return bool(ops & set(_FLOAT_MAC_OPS)) and "quantize_linear" not in ops and not report.get("float_layers")


def _int8_guidance(args: argparse.Namespace, report: dict) -> list[str]:
    """For a float model: the estimated cycles of an int8 build beside the float build's, and how to quantize.

    Without an FPU, both figures and the command; with one, the speed-up in one line. The int8 figure comes from a
    copy quantized on random N(0, 1) samples, used for the estimate only and never written; figures outside the
    estimator's calibration are marked as analyze marks them, with both builds' estimate quality in a last line; []
    when onnxruntime, the estimator or that copy is unavailable. compile and analyze print the same lines."""
    import numpy as np

    from .ops._layout import as_onnx_order
    from .pipeline import plan_model
    from .quantize import MIN_SAMPLES, quantize_model

    floats = report["estimated_total_cycles"]
    if floats is None:
        return []
    rng = np.random.default_rng(0)
    synthetic = {s["name"]: np.stack([as_onnx_order(rng.standard_normal(s["shape"]), s.get("layout") or "")
                                      for _ in range(MIN_SAMPLES)]).astype(s["dtype"]) for s in report["inputs"]}
    try:
        with tempfile.TemporaryDirectory(prefix="mcucomp-estimate-") as tmp:
            path = Path(tmp) / "estimate_int8.onnx"
            path.write_bytes(quantize_model(args.model, synthetic, progress=None).data)
            options = {k: v for k, v in _options(args).items() if k not in ("fit_check", "io_dtype", "force")}
            int8 = plan_model(path, name=report["name"], board=args.board, shapes=_shapes(args.shape), **options)
    except (McucompError, RuntimeError, ValueError):  # advice only: no int8 copy or plan, no advice, never an error
        return []
    cycles = int8.report["estimated_total_cycles"]
    if cycles is None or cycles <= 0:
        return []
    core = report["cycle_estimate"]["core"]
    model = display_text(args.model)
    command = f"mcucomp compile {model} --quantize CALIB.npz -o OUTDIR"
    float_quality, int8_quality = (r["cycle_estimate"].get("estimate_quality", CALIBRATED)
                                   for r in (report, int8.report))
    qualities = [f"{what}: {quality}" for what, quality in (("float32", float_quality), ("int8", int8_quality))
                 if quality != CALIBRATED]
    caveat = [f"  ({OUTSIDE_MARK} marks estimates outside the calibration; {'; '.join(qualities)})"] * bool(qualities)
    ratio_quality = CALIBRATED if not qualities else EXTRAPOLATED
    if int8.board["fpu"] != "none":
        return [f"  int8: an int8 build would take about {marked(f'{floats / cycles:.1f}', ratio_quality)}x fewer "
                f"cycles on {core} (estimated); `{command}` quantizes with your samples"] + caveat
    return [f"  float32 on {core} (no FPU): {marked(f'{floats:,}', float_quality)} cycles per inference (estimated); "
            f"an int8 build: {marked(f'{cycles:,}', int8_quality)} (estimated from a copy quantized on random data, "
            f"{marked(f'{floats / cycles:.0f}', ratio_quality)}x fewer)",
            f"  quantize with representative samples: {command}",
            f"  (or `mcucomp quantize {model} --calib CALIB.npz`, then compile the _int8.onnx it writes)"] + caveat


def cmd_show(args: argparse.Namespace) -> int:
    """mcucomp show: print the lowered graph."""
    from .pipeline import lower_model
    from .show import format_graph

    lowered = lower_model(args.model, _shapes(args.shape), **_options(args))
    print("\n".join(format_graph(lowered.graph, lowered.order)))
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    """mcucomp analyze: plan memory and print the layer table (or JSON/CSV); then the fit check."""
    from .report.analyze import format_csv, format_json, format_text
    from .fit import check_fit
    from .pipeline import plan_model

    options = _options(args)
    fit_check = options.pop("fit_check", True)
    planned = plan_model(args.model, name=args.name, board=args.board, shapes=_shapes(args.shape), **options)
    report = planned.report
    report.update(_compile_options(args).get("report_extra", {}))
    print(format_json(report) if args.json else format_csv(report) if args.csv else format_text(report))
    if not (args.json or args.csv):
        guidance = _int8_guidance(args, report) if _is_float_model(report) else []
        for line in _float_mac_lines(report) + _int8_lines(report) + guidance:
            print(line.strip())
    if fit_check:
        check_fit(report, planned.board, report["fit"])
    return 0


def _table(rows: list[list[str]]) -> list[str]:
    """Left-aligned columns separated by two spaces (cells shown with display_text: names may hold ESC, bidi)."""
    rows = [[display_text(cell) for cell in row] for row in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def _verify_lines(result) -> list[str]:
    """The verify table, the accuracy contract, the int8 checks and the bisect findings."""
    from .intref._checks import LAYER_LSB_BOUND
    from .verify import FLOAT_ULP_BOUND

    header = ["output", "dtype", "inputs", "mismatching", "max abs diff", "max ULP"]
    rows = [[o.name, o.dtype, str(o.compared), str(o.mismatching), f"{o.max_abs_diff:.6g}", f"{o.max_ulp:.3g}"]
            for o in result.outputs + result.expected]
    where = (f"{result.inputs} sample{'s' * (result.inputs != 1)} from {result.data}" if result.data is not None
             else f"{result.inputs} random inputs (seed {result.seed})")
    against = ("the integer reference (mcucomp.intref), bit for bit" if result.against == "integer reference"
               else f"onnxruntime ({ORT_AS_WRITTEN})")
    lines = [f"verify '{result.report['name']}': {where} against {against}"]
    lines += _table([header] + rows[:len(result.outputs)])
    if result.expected:
        lines.append(f"against the expected outputs in {result.data}:")
        lines += _table([header] + rows[len(result.outputs):])
    if result.npu_regions:
        lines.append(f"NPU: {result.npu_regions} Ethos-U region(s) reference-checked (not NPU-verified: no Ethos-U "
                     f"simulator here): each of the {result.npu_invocations} region calls ran LiteRT's reference "
                     "kernels on the exact .tflite handed to Vela; CPU layers ran the generated C; the reference is "
                     "the all-CPU build's integer arithmetic (--requant fixed)")
    if result.against == "integer reference":
        lines.append("bound: every output identical to the integer reference")
    else:
        lines.append(f"bound: integer outputs identical; float outputs |c - ort| <= {FLOAT_ULP_BOUND} ulp(max|ort|) "
                     "per tensor (max ULP is in those units; for integers it is the max difference in LSB)")
    if result.reference_missing:
        lines.append("no integer reference for: " + ", ".join(result.reference_missing)
                     + " (outputs compared with onnxruntime instead)")
    if result.agreement is not None:
        rows = [["output", "equal to onnxruntime", "max |diff| LSB", "top-1 agree"]]
        for a in result.agreement:
            rows.append([a.name, f"{100 * a.share_equal:.2f}%" if a.elements else "n/a",
                         str(a.max_lsb) if a.elements else "n/a",
                         f"{a.top1_equal}/{a.top1_compared}" if a.top1_compared else "-"])
        lines.append(f"against onnxruntime ({ORT_AS_WRITTEN}), end to end:")
        lines += _table(rows)
        lines += _rewrite_lines(result.ort_rewrites)
    if result.layer_checks is not None:
        worst = max(result.layer_checks, key=lambda c: c.max_lsb, default=None)
        on = " and ".join(f"#{i}" for i in result.layer_check_inputs)
        first_diff = (" (the first whose outputs differ from onnxruntime's)" if len(result.layer_check_inputs) > 1
                      else "")
        lines.append(f"layer-local check (each int8 layer fed onnxruntime's inputs, bound {LAYER_LSB_BOUND} LSB) on "
                     f"input{'s' * (len(result.layer_check_inputs) > 1)} {on}{first_diff}: "
                     f"{len(result.layer_checks)} layers, {sum(not c.ok for c in result.layer_checks)} beyond, "
                     + (f"worst {worst.max_lsb} LSB at '{worst.layer}' ({worst.op})" if worst else "none compared")
                     + (f"; {len(result.layers_skipped)} not exposed by onnxruntime" if result.layers_skipped else ""))
        lines += _attribution_lines(result, worst)
        if result.layers is not None or result.first_bad_local is not None:
            lines += _table([["step", "layer", "op", "tensor", "differing", "max LSB"]] + [
                [str(c.step), c.layer, c.op, c.tensor, f"{c.differing}/{c.elements}", str(c.max_lsb)]
                for c in result.layer_checks])
    if result.layers is not None:
        lines.append(f"bisect on input #{result.bisect_input}: {len(result.layers)} intermediate tensors compared "
                     f"with {'the integer reference' if result.against == 'integer reference' else 'onnxruntime'}, "
                     f"{len(result.skipped_tensors)} not exposed")
        lines += _table([["step", "layer", "op", "tensor", "differing", "max abs diff"]] + [
            [str(d.step), d.layer, d.op, d.tensor, f"{d.diff.mismatched}/{d.diff.elements}",
             f"{d.diff.max_abs_diff:.6g}"] for d in result.layers])
    return lines


def _rewrite_lines(rewrites) -> list[str]:
    """Whether onnxruntime's default graph optimizations change its outputs against the model as written."""
    if not rewrites:
        return []
    changed = [r for r in rewrites if r.elements and r.equal < r.elements]
    if not changed:
        return ["onnxruntime with its default graph optimizations gives the same outputs as the model as written"]
    return [f"onnxruntime with its default graph optimizations differs from the model as written on output "
            f"'{r.name}': {100 * (1 - r.share_equal):.2f}% of values, max {r.max_lsb} LSB (its rewrites, e.g. "
            "QuantizeLinear/DequantizeLinear groups fused into QLinear kernels, compute otherwise: not a difference "
            "of the C)" for r in changed]


def _attribution_lines(result, worst) -> list[str]:
    """Where the end-to-end differences from onnxruntime come from, when every layer is within the bound."""
    if worst is None or result.first_bad_local is not None or result.agreement is None \
            or all(a.equal == a.elements for a in result.agreement):
        return []
    if worst.max_lsb == 0:
        return ["end to end: every int8 layer checked equals onnxruntime on those inputs, so the differences come "
                "from layers the check does not cover (float layers, or tensors onnxruntime does not expose)"]
    return [f"end to end: the differences from onnxruntime are the layers' rounding within the bound (worst "
            f"{worst.max_lsb} LSB at '{worst.layer}', {worst.op}) carried to the outputs by the layers after them"
            + ("; the C equals the integer reference bit for bit" if result.against == "integer reference"
               and all(o.mismatching == 0 for o in result.outputs) else "")]


def _differing(outputs) -> str:
    """'; '-joined descriptions of the outputs that mismatch ('' when none does)."""
    return "; ".join(f"output '{o.name}' differs on {o.mismatching} of {o.compared} inputs (first: input #"
                     f"{o.first_bad_input}, max abs diff {o.max_abs_diff:.6g})" for o in outputs if o.mismatching)


def _mismatch_message(result) -> str:
    """One paragraph naming the mismatching outputs and, when known, the first differing layer."""
    from .intref._checks import LAYER_LSB_BOUND

    if not _differing(result.outputs) and _differing(result.expected) and result.first_bad_local is None:
        return (f"The generated C disagrees with the expected outputs in {result.data}: {_differing(result.expected)}. "
                f"It matches {result.against} on the same samples, so the expected outputs come from another "
                "computation than this ONNX model (e.g. the framework before export, or other preprocessing).")
    parts = _differing(result.outputs)
    text = f"The generated C disagrees with {result.against}: {parts}." if parts else ""
    bad = result.first_bad_layer
    if bad is not None:
        text += (f" The first differing layer is step {bad.step} '{bad.layer}' ({bad.op}): tensor '{bad.tensor}' "
                 f"has {bad.diff.mismatched} of {bad.diff.elements} elements out of bound, max diff "
                 f"{bad.diff.max_abs_diff:.6g}.")
    elif parts and result.layers is not None:
        text += " Every intermediate tensor exposed matches, so the last layer(s) differ."
    local = result.first_bad_local
    if local is not None:
        text += (f" Layer-local check: layer '{local.layer}' ({local.op}, step {local.step}), fed onnxruntime's own "
                 f"inputs, is {local.max_lsb} LSB from onnxruntime's output '{local.tensor}' on {local.differing} of "
                 f"{local.elements} elements (bound {LAYER_LSB_BOUND} LSB).")
    return text.strip() + " Please report this with the model and the command line."


def _compile_quietly(args: argparse.Namespace) -> None:
    """compile_model with the command line's options, printing nothing."""
    from .pipeline import compile_model

    compile_model(args.model, args.out, name=args.name, board=args.board, shapes=_shapes(args.shape),
                  **_compile_options(args))


def cmd_verify(args: argparse.Namespace) -> int:
    """mcucomp verify: compile, run on the host and compare with onnxruntime."""
    from .pipeline import verify_model

    if args.inputs is not None and args.data is not None:
        raise OptionError("--inputs and --data both choose the inputs: give --data FILE.npz to use its samples, or "
                          "--inputs N for N random inputs.")
    args.inputs = DEFAULT_VERIFY_INPUTS if args.inputs is None else args.inputs
    reference = args.reference or getattr(args, "float_model", None)
    if reference is None and (args.json or args.labels):
        raise OptionError(f"{'--json' if args.json else '--labels'} reports the accuracy against a float model: "
                          "add --reference FLOAT.onnx (or --quantize CALIB.npz).")
    if reference is not None:
        require_regular_file(reference, "--reference model", OptionError)
    data, labels = args.data, None
    if args.labels is not None:
        data, labels = _split_labels(args.data, args.labels)
    with tempfile.TemporaryDirectory(prefix="mcucomp-verify-") as tmp:
        out = args.out if args.out is not None or reference is None else str(Path(tmp) / "out")
        result = verify_model(args.model, out, inputs=args.inputs, seed=args.seed, name=args.name,
                              board=args.board, shapes=_shapes(args.shape), bisect_always=args.bisect,
                              progress=sys.stderr, data=data, data_name=args.data, **_compile_options(args))
        if not args.json:
            print("\n".join(_verify_lines(result)))
        if not result.ok:
            raise VerifyError(_mismatch_message(result))
        if reference is not None:
            _report_accuracy(args, reference, result, data, labels)
    if args.on_target:
        from .target.commands import run_on_target

        run_on_target(args, _compile_quietly)
    if not args.json:
        print("OK")
    return 0


def _split_labels(data, key: str) -> tuple[dict, object]:
    """(the --data arrays without the labels, the labels array) for --labels KEY."""
    from .verify import read_npz

    if data is None:
        raise OptionError(f"--labels {key} names an array of --data: add --data FILE.npz holding the samples and "
                          "their labels.")
    arrays = read_npz(data)
    if key not in arrays:
        raise OptionError(f"--labels {key}: --data '{data}' has no array '{key}' (keys: {', '.join(sorted(arrays))}).")
    labels = arrays.pop(key)
    return arrays, labels


def _accuracy_lines(accuracy) -> list[str]:
    """The per-output accuracy table and the per-layer sensitivity table (worst first)."""
    def number(value, fmt):
        """value formatted, '-' for None (no figure), 'inf' for an exact match's SNR."""
        return "-" if value is None else format(value, fmt)

    rows = [["output", "samples", "cosine", "SNR dB", "RMSE", "max abs err", "top-1 agree"]]
    labelled = any(o.accuracy_reference is not None for o in accuracy.outputs)
    if labelled:
        rows[0] += ["accuracy ref", "accuracy C"]
    for o in accuracy.outputs:
        rows.append([o.name, str(o.samples), f"{o.cosine:.5f}", "inf" if o.snr_db is None else f"{o.snr_db:.1f}",
                     f"{o.rmse:.4g}", f"{o.max_abs_error:.4g}", number(o.top1_agreement, ".1%")]
                    + ([number(o.accuracy_reference, ".1%"), number(o.accuracy_c, ".1%")] if labelled else []))
    lines = [f"against the float reference {accuracy.reference} (onnxruntime, the model as written):"] + _table(rows)
    if accuracy.layers:
        lines.append(f"per-layer sensitivity: SNR of each quantized tensor against the float model's, under "
                     f"onnxruntime on {accuracy.layer_samples} samples, worst first (--keep-float NODE keeps a "
                     "layer in float):")
        lines += _table([["layer", "op", "tensor", "SNR dB"]] + [
            [layer.layer, layer.op, layer.tensor, "inf" if layer.snr_db is None else f"{layer.snr_db:.1f}"]
            for layer in accuracy.layers])
    return lines


def _report_accuracy(args: argparse.Namespace, reference: str, result, data, labels) -> None:
    """Compare the verified C with the float reference; print the tables (or JSON); record it in OUTDIR."""
    import numpy as np

    from .accuracy import check_labels, compare_with_reference, record_accuracy
    from .verify import data_feeds, random_feeds

    report = result.report
    if data is not None:
        feeds = data_feeds(data, report)
    else:
        rng = np.random.default_rng(args.seed)
        feeds = [random_feeds(report["inputs"], rng) for _ in range(args.inputs)]
    if labels is not None:
        labels = check_labels(labels, args.labels, len(feeds))
    quantized = args.model if _is_qdq(args.model) else None
    accuracy = compare_with_reference(result.out_dir, reference, feeds, labels, quantized)
    print(json.dumps(accuracy.to_json(), indent=1) if args.json else "\n".join(_accuracy_lines(accuracy)))
    if args.out is not None:
        record_accuracy(args.out, accuracy)


def _is_qdq(model: str) -> bool:
    """True when the ONNX model has QuantizeLinear nodes (a quantized model whose layers can be compared)."""
    import onnx

    return any(node.op_type == "QuantizeLinear" for node in onnx.load(model, load_external_data=False).graph.node)


def cmd_quantize(args: argparse.Namespace) -> int:
    """mcucomp quantize: quantize a float model with calibration samples and write the QDQ model."""
    from .quantize import check_destination, quantize_model, write_atomically

    if args.calib is None:
        raise OptionError("mcucomp quantize needs calibration data: give --calib CALIB.npz with representative "
                          "inputs (an .npz keyed by input name, samples along a leading axis). It never quantizes on "
                          "random data, whose ranges would not fit real inputs.")
    require_regular_file(args.model, "Model file", ModelError)
    shown = args.out or str(Path(args.model).with_name(Path(args.model).stem + "_int8.onnx"))
    out = check_destination(shown, args.model)
    quantized = quantize_model(args.model, args.calib, _quantize_options(args), progress=sys.stderr)
    try:
        write_atomically(quantized.data, out)
    except OSError as exc:
        raise OutputError(f"Cannot write '{out}' ({exc.strerror or type(exc).__name__}): choose a writable -o. "
                          "Nothing was written.") from None
    info = quantized.info
    print(f"quantized '{args.model}' into {shown}: QDQ, int8 activations (asymmetric), int8 weights "
          f"{info['weights']} (symmetric), int32 bias; {info['method']} calibration on {quantized.samples} samples"
          + (f"; kept in float: {', '.join(info['keep_float'])}" if info["keep_float"] else ""))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with its three subcommands."""
    parser = _Parser(prog="mcucomp", description="Compile ONNX models to self-contained C for Arm Cortex-M.")
    parser.add_argument("--version", action="version", version=f"mcucomp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("compile", help="write C sources and report.json")
    _add_compile_args(p)
    _add_out_args(p, True, "output directory")
    p.set_defaults(func=cmd_compile)
    p = sub.add_parser("show", help="print the lowered graph")
    _add_lowering_args(p)
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("analyze", help="print per-layer memory, the arena and the board fit; writes nothing")
    _add_compile_args(p)
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the report (report.json's content) as JSON")
    fmt.add_argument("--csv", action="store_true", help="print the per-layer table as CSV")
    p.set_defaults(func=cmd_analyze)
    p = sub.add_parser("verify", help="compile, run on the host and compare with onnxruntime")
    _add_compile_args(p)
    _add_out_args(p, False, "keep the generated C here (default: a temporary dir)")
    p.add_argument("--inputs", type=int, metavar="N",
                   help=f"random inputs to compare, 1 to 1,000,000 (default {DEFAULT_VERIFY_INPUTS})")
    p.add_argument("--data", metavar="FILE.npz",
                   help="compare on these samples instead of random inputs: keys are ONNX input names (an array of "
                        "exactly the input's shape is one sample, an extra leading axis holds N); arrays named "
                        "after outputs are expected outputs, compared with the C like onnxruntime's")
    p.add_argument("--seed", type=int, default=0, help="random seed, 0 to 2**32-1 (default 0)")
    p.add_argument("--bisect", action="store_true",
                   help="compare every intermediate tensor (done automatically on a mismatch)")
    p.add_argument("--on-target", action="store_true",
                   help="also run the firmware under qemu-system-arm for the board's core; outputs must equal the "
                        "host's bit for bit")
    p.add_argument("--reference", metavar="FLOAT.onnx",
                   help="also compare the C's outputs with this float model under onnxruntime (cosine, SNR, RMSE, max "
                        "abs error, top-1 agreement per output) and, for a quantized model, each quantized layer's "
                        "SNR against the float tensor; the default with --quantize is the float model")
    p.add_argument("--labels", metavar="KEY",
                   help="the --data array (one class index per sample) that gives the top-1 accuracy of the "
                        "reference and of the C")
    p.add_argument("--json", action="store_true",
                   help="print the accuracy against --reference as one JSON object instead of the tables")
    p.set_defaults(func=cmd_verify)
    p = sub.add_parser("quantize", help="quantize a float model to int8 (QDQ) with onnxruntime, calibrated on "
                                        "your samples")
    p.add_argument("model", help="the float .onnx file")
    p.add_argument("--calib", metavar="CALIB.npz",
                   help="calibration samples: an .npz keyed by input name with a leading sample axis (as `verify "
                        "--data` takes), or a directory of <input name>.npy files; required")
    p.add_argument("-o", "--out", metavar="MODEL_int8.onnx",
                   help="the quantized model (default: <model>_int8.onnx beside the float model)")
    _add_quantize_options(p)
    p.set_defaults(func=cmd_quantize)
    from .target.commands import cmd_boards, cmd_build_target

    p = sub.add_parser("boards", help="list the bundled boards")
    p.set_defaults(func=cmd_boards)
    p = sub.add_parser("build-target", help="compile, then cross-compile with arm-none-eabi-gcc and report sizes")
    _add_compile_args(p)
    _add_out_args(p, True, "output directory")
    p.set_defaults(func=lambda a: cmd_build_target(a, _compile_quietly))
    p = sub.add_parser("profile", help="per-layer cycles on the instruction-level Cortex-M simulator (simulated "
                                       "from Arm TRM instruction timings), with the estimator's figure beside them")
    _add_compile_args(p)
    _add_out_args(p, False, "keep the generated C and firmware here (default: a temporary dir)")
    p.add_argument("--inputs", type=int, default=1, metavar="N", help="random inputs to simulate (default 1)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the profile as JSON")
    fmt.add_argument("--csv", action="store_true", help="print the per-layer table as CSV")
    p.set_defaults(func=_cmd_profile)
    return parser


def _cmd_profile(args: argparse.Namespace) -> int:
    """mcucomp profile (mcucomp/perf/commands.py)."""
    from .perf.commands import cmd_profile

    return cmd_profile(args, _compile_quietly)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (McucompError.exit_code on user errors, 70 on a bug)."""
    try:
        args = build_parser().parse_args(argv)
        with _quantized_input(args):
            return args.func(args)
    except McucompError as exc:
        print(f"error: {one_line(exc.message)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("MCUCOMP_DEBUG") == "1":
            raise
        print(f"internal error: mcucomp failed unexpectedly ({type(exc).__name__}: {one_line(str(exc))}). "
              "This is a bug in mcucomp, "
              "not in your input; please report it with the command line and the model (or a description of it). "
              "Run again with MCUCOMP_DEBUG=1 for the traceback.", file=sys.stderr)
        return EXIT_INTERNAL
