"""conv2d_s8's paths as files: a model whose one conv takes a path links that path's runtime file and no other conv
path's (runtime_c/kernels/conv2d_s8_<path>.c), its C calls that path's function, and the report and `mcucomp show`
name the same path; the host build equals the integer reference. The loops of every path are compared on target in
test_conv2d_s8.py and the ARMv6-M assembly function by function in test_conv2d_s8_*_v6m.py."""

from __future__ import annotations

import numpy as np
import pytest

import mcucomp
from mcucomp.ops.conv2d_s8 import PATHS, conv_path
from mcucomp.pipeline import lower_model
from mcucomp.show import format_node

from conv2d_s8_cases import deny_scratch
from qmodels import ConvCase, QModel, add_qdq_conv, check_qmodel

#: One conv per path, and whether the memory planner may grant its optional scratch (denied: the group-1 convs take
#: the local or direct path, the stride-1 depthwise convs run in place).
PATH_CASES = {
    "pointwise": (ConvCase((1, 7, 6, 5), 11, (1, 1)), True),
    "im2col": (ConvCase((1, 16, 6, 7), 4, (3, 3), pads=[1, 1, 1, 1]), True),
    "local": (ConvCase((1, 6, 5, 5), 4, (2, 2), pads=[1, 1, 1, 1]), True),
    "direct": (ConvCase((1, 6, 5, 5), 3, (3, 3), pads=[1, 1, 1, 1], dilations=[1, 2]), False),
    "few_channels": (ConvCase((1, 3, 7, 7), 8, (3, 3), strides=[2, 2], pads=[0, 0, 1, 1]), True),
    "depthwise": (ConvCase((1, 6, 9, 8), 6, (3, 3), strides=[2, 2], pads=[1, 1, 0, 0], group=6), True),
    "depthwise_ring": (ConvCase((1, 8, 5, 9), 8, (3, 3), pads=[1, 1, 1, 1], group=8), False),
    "general": (ConvCase((1, 6, 6, 7), 9, (2, 3), group=3, dilations=[2, 1]), True),
}

#: The paths through the GEMM block (runtime_c/kernels/conv2d_s8_gemm.h).
GEMM_PATHS = ("pointwise", "im2col", "local", "direct", "few_channels")


def test_every_path_has_a_case():
    """The cases cover every path the lowering names."""
    assert set(PATH_CASES) == set(PATHS)


@pytest.mark.parametrize("path", sorted(PATH_CASES))
def test_model_links_only_its_path(tmp_path, path, monkeypatch):
    """The compile output holds conv2d_s8_<path>.c alone of the conv files, the C calls its function, the report's
    layer names that kernel and `show` the path; the host build equals the integer reference."""
    case, scratch = PATH_CASES[path]
    if not scratch:
        deny_scratch(monkeypatch)
    qm = QModel()
    add_qdq_conv(qm, "c", case, np.random.default_rng(3), "q")
    g, order = lower_model(qm.model())[:2]
    conv = next(node for node in order if node.op == "conv2d_s8")
    assert conv_path(conv, g) == path
    shown = format_node(0, conv, g).split()[2].removesuffix("/nhwc")
    assert shown.replace("depthwise3x3", "depthwise") == f"conv2d_s8.{path}"

    result = mcucomp.compile_model(qm.model(), tmp_path / "out", name="m")
    conv_files = {f for f in result.report["files"] if f.startswith("m_conv2d_s8")}
    # the GEMM paths also link the ARMv6-M GEMM's file (empty on other cores)
    gemm = {"m_conv2d_s8_gemm_v6m.c"} if path in GEMM_PATHS else set()
    assert {f for f in conv_files if f.endswith(".c")} == {f"m_conv2d_s8_{path}.c"} | gemm
    assert f"m_conv2d_s8_{path}.h" in conv_files
    layer = next(layer for layer in result.report["layers"] if layer["name"] == conv.name)
    assert layer["kernel"] == f"conv2d_s8_{path}"
    model_c = (tmp_path / "out" / "m.c").read_text()
    assert f"m_conv2d_s8_{path}(&" in model_c
    assert not any(f"m_conv2d_s8_{other}(&" in model_c for other in PATHS if other != path)
    check_qmodel(qm, tmp_path / "check", seeds=range(2))
