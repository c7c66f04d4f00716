"""The `mcucomp` command line: compile, show, analyze, verify, boards and build-target."""

from __future__ import annotations

import argparse
import os
import sys

from . import __version__
from .errors import McucompError, OptionError, VerifyError
from .frontend.loader import parse_shape_option
from .report.tables import display_text

#: Exit status for unexpected exceptions (BSD sysexits EX_SOFTWARE).
EXIT_INTERNAL = 70


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
        try:
            constants[name] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise OptionError(f"--const {name}: cannot read '{path}' as a .npy array ({exc}).") from None
    return constants


def _options(args: argparse.Namespace) -> dict:
    """The keyword options for compile_model/lower_model that were given on the command line."""
    options = {key: getattr(args, key) for key in ("requant", "io") if getattr(args, key, None) is not None}
    if getattr(args, "const", None):
        options["constants"] = _constants(args.const)
    if getattr(args, "no_fit_check", False):
        options["fit_check"] = False
    return options


def _add_lowering_args(p: argparse.ArgumentParser) -> None:
    """Options that change the lowered graph."""
    p.add_argument("model", help="the .onnx file")
    p.add_argument("--shape", action="append", metavar="IN=DIMS",
                   help="fix a graph input's shape, e.g. input_1=1x49x10 (repeat for several inputs)")
    p.add_argument("--const", action="append", metavar="IN=FILE.npy",
                   help="bind a graph input to a constant value at compile time (needed for inputs that decide "
                        "shapes, such as Reshape's shape); repeatable")
    p.add_argument("--requant", choices=("onnx", "fixed"),
                   help="int8 requantization: 'onnx' reproduces onnxruntime exactly (default), "
                        "'fixed' uses integer multiplier and shift")


def _add_compile_args(p: argparse.ArgumentParser) -> None:
    """Options of compile that verify shares."""
    _add_lowering_args(p)
    p.add_argument("--name", help="C symbol prefix and file stem (default: from the model file name)")
    p.add_argument("--board", help="board id or board .toml (default: nucleo-l4r5zi)")
    p.add_argument("--io", choices=("arena", "caller"),
                   help="'arena': inputs/outputs live in the arena (default); 'caller': in the caller's buffers")
    p.add_argument("--no-fit-check", action="store_true",
                   help="write the C even when the model does not fit the board's RAM or flash")


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
        f"  MACs:  {report['macs']:,}",
    ]


def cmd_compile(args: argparse.Namespace) -> int:
    """mcucomp compile: write the C files and report.json, print the summary."""
    from .pipeline import compile_model

    result = compile_model(args.model, args.out, name=args.name, board=args.board, shapes=_shapes(args.shape),
                           **_options(args))
    print("\n".join(_compile_summary(result.report, result.out_dir)))
    return 0


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
    print(format_json(report) if args.json else format_csv(report) if args.csv else format_text(report))
    if fit_check:
        check_fit(report, planned.board, report["fit"])
    return 0


def _table(rows: list[list[str]]) -> list[str]:
    """Left-aligned columns separated by two spaces (cells shown with display_text: names may hold ESC, bidi)."""
    rows = [[display_text(cell) for cell in row] for row in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def _verify_lines(result) -> list[str]:
    """The verify table, the accuracy contract and the bisect findings."""
    from .verify import FLOAT_ULP_BOUND

    rows = [["output", "dtype", "inputs", "mismatching", "max abs diff", "max ULP"]]
    for o in result.outputs:
        rows.append([o.name, o.dtype, str(o.compared), str(o.mismatching), f"{o.max_abs_diff:.6g}",
                     f"{o.max_ulp:.3g}"])
    lines = [f"verify '{result.report['name']}': {result.inputs} random inputs (seed {result.seed}) "
             "against onnxruntime (CPUExecutionProvider, default options)"]
    lines += _table(rows)
    lines.append(f"bound: integer outputs identical; float outputs |c - ort| <= {FLOAT_ULP_BOUND} ulp(max|ort|) per "
                 "tensor (max ULP is in those units; for integers it is the max difference in LSB)")
    if result.layers is not None:
        lines.append(f"bisect on input #{result.bisect_input}: {len(result.layers)} intermediate tensors compared, "
                     f"{len(result.skipped_tensors)} not exposed by onnxruntime")
        lines += _table([["step", "layer", "op", "tensor", "differing", "max abs diff"]] + [
            [str(d.step), d.layer, d.op, d.tensor, f"{d.diff.mismatched}/{d.diff.elements}",
             f"{d.diff.max_abs_diff:.6g}"] for d in result.layers])
    return lines


def _mismatch_message(result) -> str:
    """One paragraph naming the mismatching outputs and, when known, the first differing layer."""
    parts = [f"output '{o.name}' differs on {o.mismatching} of {o.compared} inputs (first: input #"
             f"{o.first_bad_input}, max abs diff {o.max_abs_diff:.6g})" for o in result.outputs if o.mismatching]
    text = "The generated C disagrees with onnxruntime: " + "; ".join(parts) + "."
    bad = result.first_bad_layer
    if bad is not None:
        text += (f" The first differing layer is step {bad.step} '{bad.layer}' ({bad.op}): tensor '{bad.tensor}' "
                 f"has {bad.diff.mismatched} of {bad.diff.elements} elements out of bound, max diff "
                 f"{bad.diff.max_abs_diff:.6g}.")
    elif result.layers is not None:
        text += " Every intermediate tensor onnxruntime exposes matches, so the last layer(s) differ."
    return text + " Please report this with the model and the command line."


def _compile_quietly(args: argparse.Namespace) -> None:
    """compile_model with the command line's options, printing nothing."""
    from .pipeline import compile_model

    compile_model(args.model, args.out, name=args.name, board=args.board, shapes=_shapes(args.shape),
                  **_options(args))


def cmd_verify(args: argparse.Namespace) -> int:
    """mcucomp verify: compile, run on the host and compare with onnxruntime."""
    from .verify import verify_model

    if args.inputs < 1:
        raise OptionError(f"--inputs {args.inputs}: give at least 1 input to compare.")
    result = verify_model(args.model, args.out, inputs=args.inputs, seed=args.seed, name=args.name, board=args.board,
                          shapes=_shapes(args.shape), bisect_always=args.bisect, progress=sys.stderr,
                          **_options(args))
    print("\n".join(_verify_lines(result)))
    if not result.ok:
        raise VerifyError(_mismatch_message(result))
    if args.on_target:
        from .target.commands import run_on_target

        run_on_target(args, _compile_quietly)
    print("OK")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with its three subcommands."""
    parser = _Parser(prog="mcucomp", description="Compile ONNX models to self-contained C for Arm Cortex-M.")
    parser.add_argument("--version", action="version", version=f"mcucomp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("compile", help="write C sources and report.json")
    _add_compile_args(p)
    p.add_argument("-o", "--out", required=True, metavar="OUTDIR", help="output directory")
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
    p.add_argument("-o", "--out", metavar="OUTDIR", help="keep the generated C here (default: a temporary dir)")
    p.add_argument("--inputs", type=int, default=10, metavar="N", help="random inputs to compare (default 10)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--bisect", action="store_true",
                   help="compare every intermediate tensor (done automatically on a mismatch)")
    p.add_argument("--on-target", action="store_true",
                   help="also run the firmware under qemu-system-arm for the board's core; outputs must equal the "
                        "host's bit for bit")
    p.set_defaults(func=cmd_verify)
    from .target.commands import cmd_boards, cmd_build_target

    p = sub.add_parser("boards", help="list the bundled boards")
    p.set_defaults(func=cmd_boards)
    p = sub.add_parser("build-target", help="compile, then cross-compile with arm-none-eabi-gcc and report sizes")
    _add_compile_args(p)
    p.add_argument("-o", "--out", required=True, metavar="OUTDIR", help="output directory")
    p.set_defaults(func=lambda a: cmd_build_target(a, _compile_quietly))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (McucompError.exit_code on user errors, 70 on a bug)."""
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except McucompError as exc:
        print(f"error: {display_text(exc.message, keep=chr(10))}", file=sys.stderr)  # names may hold ESC, bidi
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("MCUCOMP_DEBUG") == "1":
            raise
        print(f"internal error: mcucomp failed unexpectedly ({type(exc).__name__}: {display_text(str(exc))}). "
              "This is a bug in mcucomp, not in your input; please report it with the command line and the model "
              "(or a description of it). "
              "Run again with MCUCOMP_DEBUG=1 for the traceback.", file=sys.stderr)
        return EXIT_INTERNAL
