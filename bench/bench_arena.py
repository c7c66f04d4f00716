"""Planned arena of every test model: the int8 zoo (tests/int8_models.py, int8 I/O as its tests plan it, and its
float originals), the cycle bench models (tests/perf/cycle_models.py, VWW-style 96x96 included) and the shared
MLPerf Tiny KWS/IC files (defaults and int8 I/O), on the M4 board (16-byte alignment).

The models are written once into a directory so that another checkout plans the very same files:

    python bench/bench_arena.py --build /tmp/arena_models      # with this checkout's test builders
    python bench/bench_arena.py /tmp/arena_models               # arenas with the mcucomp on PYTHONPATH
    python bench/bench_arena.py /tmp/arena_models --compare OLD.json MID.json   # the BENCHMARKS table
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import onnx

TESTS = Path(__file__).resolve().parents[1] / "tests"
BOARD = "nucleo-l4r5zi"


def build(directory: Path) -> None:
    """Write every test model into directory as NAME.onnx, with NAME.json holding its plan options."""
    sys.path[:0] = [str(TESTS), str(TESTS / "perf")]
    from cycle_models import CYCLE_MODELS
    from int8_models import SHARED_INT8, ZOO, quantize_qdq

    directory.mkdir(parents=True, exist_ok=True)

    def write(name: str, model, options: dict) -> None:
        onnx.save(model if isinstance(model, onnx.ModelProto) else onnx.load(model), directory / f"{name}.onnx")
        (directory / f"{name}.json").write_text(json.dumps(options))

    for name, builder in sorted(ZOO.items()):
        quantize_qdq(builder(), directory / f"zoo_{name}.onnx", activations="uint8" if name.endswith("_u8") else "int8")
        (directory / f"zoo_{name}.json").write_text(json.dumps({"io_dtype": "int8"}))
        if not name.endswith("_u8"):
            write(f"zoo_{name}_f32", builder(), {})
    for name, builder in sorted(CYCLE_MODELS.items()):
        write(f"bench_{name}", builder(), {})
    for name in SHARED_INT8:
        write(f"shared_{name}_int8io", CYCLE_MODELS[name](), {"io_dtype": "int8"})


def arenas(directory: Path) -> dict[str, int | str]:
    """Planned arena bytes of every model in directory, with the mcucomp on the import path ("refused" for a model
    that checkout does not compile)."""
    from mcucomp.errors import McucompError
    from mcucomp.pipeline import plan_model

    sizes: dict[str, int | str] = {}
    for path in sorted(directory.glob("*.onnx")):
        if path.with_suffix(".json").is_file():
            try:
                sizes[path.stem] = plan_model(str(path), name="m", board=BOARD,
                                              **json.loads(path.with_suffix(".json").read_text())
                                              ).report["arena_bytes"]
            except McucompError:
                sizes[path.stem] = "refused"
    return sizes


def main() -> None:
    """Build, measure, or print the comparison table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--build", action="store_true", help="write the models into DIRECTORY")
    parser.add_argument("--compare", nargs="+", type=Path, metavar="JSON",
                        help="earlier arenas (this script's output) to print beside this checkout's")
    args = parser.parse_args()
    if args.build:
        build(args.directory)
        return
    current = arenas(args.directory)
    if not args.compare:
        print(json.dumps(current, indent=1))
        return
    earlier = [json.loads(path.read_text()) for path in args.compare]
    print("| model | " + " | ".join(path.stem for path in args.compare) + " | this checkout |")
    print("|---|" + "---:|" * (len(earlier) + 1))
    for name, size in current.items():
        cells = [e.get(name, "-") for e in earlier] + [size]
        print(f"| {name} | " + " | ".join(f"{c:,}" if isinstance(c, int) else c for c in cells) + " |")


if __name__ == "__main__":
    main()
