"""The stack bound's call-graph analysis (mcucomp/target/callgraph.py) on small programs: GCC's frames, a naked
function's frame read from its code, calls through a pointer, recursion; and the generated run
function's frame against GCC's own figure. A missing toolchain fails these tests."""

from __future__ import annotations

import subprocess

import pytest

import mcucomp
from mcucomp.boards import compiler_flags, load_board
from mcucomp.errors import McucompError
from mcucomp.target.build import TARGET_CFLAGS
from mcucomp.target.callgraph import (StackGraph, disassembled_functions, merge,
                                      read_callgraph_info)
from shared_models import shared_model

SOURCE = r"""
#include <stdint.h>
typedef int (*op_fn)(int);
__attribute__((noinline)) int leaf(int x) { volatile int a[10]; a[x & 7] = x; return a[3]; }
__attribute__((noinline)) int wide(int x) { volatile int a[100]; a[x & 63] = x; return a[5]; }
__attribute__((naked, noinline)) int pusher(int x __attribute__((unused)))
{
    __asm__(".syntax unified\n\tpush {r4, r5, r6, r7, lr}\n\tsub sp, sp, #64\n\tvpush {d8-d9}\n\t"
            "vpop {d8-d9}\n\tadd sp, sp, #64\n\tpop {r4, r5, r6, r7, pc}");
}
__attribute__((noinline)) int through(op_fn f, int x) { volatile int a[4]; a[x & 3] = f(x); return a[1] + 1; }
int entry(int path, int x) { return path == 0 ? leaf(x) + pusher(x) : path == 1 ? wide(x) : through(leaf, x); }
int main(void) { return entry(0, 1); }
void _exit(int code) { for (;;) { (void)code; } }
"""


def build(tmp_path, source: str = SOURCE):
    """The merged call graph of `source` linked for the Cortex-M4."""
    (tmp_path / "t.c").write_text(source)
    flags = [*compiler_flags(load_board("nucleo-l4r5zi")), *TARGET_CFLAGS, "-fcallgraph-info=su"]
    subprocess.run(["arm-none-eabi-gcc", *flags, "-c", "t.c", "-o", "t.o"], cwd=tmp_path, check=True)
    subprocess.run(["arm-none-eabi-gcc", *flags, "t.o", "-nostartfiles", "--specs=nano.specs",
                    "-Wl,--entry=main", "-o", "t.elf"], cwd=tmp_path, check=True)
    return merge(disassembled_functions(tmp_path / "t.elf"), read_callgraph_info(tmp_path / "t.ci"))


def test_frames_from_gcc_and_from_a_naked_functions_code(tmp_path):
    graph = build(tmp_path)
    assert graph["pusher"].frame == 20 + 64 + 16  # push of five registers, sub sp, vpush of two d registers
    assert graph["wide"].frame >= 400 and graph["leaf"].frame >= 40
    depths = StackGraph(graph)
    assert depths.depth("entry") == graph["entry"].frame + max(depths.depth(f) for f in ("wide", "pusher", "through"))


def test_a_call_through_a_pointer_is_bounded_by_the_deepest_function_without_one(tmp_path):
    graph = build(tmp_path)
    assert graph["through"].indirect
    depths = StackGraph(graph)
    assert depths.depth("through") >= graph["through"].frame + depths.depth("wide")


def test_recursion_is_refused_unless_bounded(tmp_path):
    graph = build(tmp_path, "int down(int n) { volatile int a[4]; a[0] = n; return n ? down(n - 1) + a[0] : 0; }\n"
                            "int main(void) { return down(3); }\nvoid _exit(int c) { for (;;) { (void)c; } }\n")
    with pytest.raises(McucompError, match="recursion down -> down"):
        StackGraph(graph).depth("main")
    assert StackGraph(graph, recursion={"down": 4}).depth("down") == 4 * graph["down"].frame


@pytest.mark.parametrize("board, npu", [("nucleo-l4r5zi", "off"), ("nucleo-g0b1re", "off"),
                                        ("corstone-300", "off"), ("corstone-300", "max")])
def test_run_frame_bound_holds_gccs_frame(tmp_path, board, npu):
    """report.json's run_frame_bytes (from the emitted program) is at least GCC's frame of <name>_run, and an NPU
    build's region calls' pointer arrays count."""
    report = mcucomp.compile_model(shared_model("mlperf_tiny/kws_dscnn_qdq.onnx"), tmp_path, name="m", board=board,
                                   npu_placement=npu).report
    flags = [*compiler_flags(load_board(board)), *TARGET_CFLAGS, "-fcallgraph-info=su"]
    subprocess.run(["arm-none-eabi-gcc", *flags, "-I", str(tmp_path), "-c", "m.c", "-o", "m.o"], cwd=tmp_path,
                   check=True)
    frame = read_callgraph_info(tmp_path / "m.ci")["m_run"].frame
    assert frame <= report["run_frame_bytes"] <= frame + 64, (frame, report["run_frame_bytes"])
