"""conv2d_s8's depthwise paths (conv2d_s8_depthwise.c, conv2d_s8_depthwise_ring.c): the 3x3 edge cases of the
assembly's clamp and of the in-place variant's row limits on the host and on the DSP cores."""

from __future__ import annotations

import pytest

import mcucomp
from mcucomp.ops.conv2d_s8 import conv_path
from mcucomp.pipeline import lower_model
from mcucomp.target.verify import verify_on_target

from conv2d_s8_cases import deny_scratch, qdq_model
from qmodels import ConvCase, check_qmodel
from target_boards import DSP_BOARDS

#: Depthwise 3x3 with a fused Relu or Clip narrower than int8 (the assembly's bytewise clamp), and the widths at the
#: in-place variant's limits: rows of one and two pixels, the widest staged row (61 pixels; mcu_conv2d_s8_dw_ring_rows)
#: and 62 pixels (a lag of 63: still the pixel ring); stride 2 beside them.
DW_EDGE_CASES = [
    ConvCase((1, 8, 5, 9), 8, (3, 3), pads=[1, 1, 1, 1], group=8, act="relu", y_zp=-40),
    ConvCase((1, 16, 4, 7), 16, (3, 3), pads=[1, 1, 1, 1], group=16, act="clip"),
    ConvCase((2, 8, 3, 1), 8, (3, 3), pads=[1, 1, 1, 1], group=8, act="clip"),
    ConvCase((1, 4, 2, 2), 4, (3, 3), pads=[1, 1, 1, 1], group=4),
    ConvCase((1, 4, 3, 61), 4, (3, 3), pads=[1, 1, 1, 1], group=4, act="relu", y_zp=-40),
    ConvCase((1, 4, 2, 62), 4, (3, 3), pads=[1, 1, 1, 1], group=4),
    ConvCase((1, 16, 7, 11), 16, (3, 3), strides=[2, 2], pads=[1, 1, 1, 1], group=16, act="clip"),
]


@pytest.mark.parametrize("scratch", ["granted", "denied"])
def test_depthwise_edge_cases(tmp_path, scratch, monkeypatch):
    """The edge cases on the host against the integer reference and onnxruntime; denied its margin, every stride-1
    case runs in place (depthwise3x3_ring)."""
    if scratch == "denied":
        deny_scratch(monkeypatch)
    qm, _ = qdq_model("q", DW_EDGE_CASES)
    check_qmodel(qm, tmp_path)
    g, order = lower_model(qm.model())[:2]
    paths = [conv_path(n, g) for n in order if n.op == "conv2d_s8"]
    assert paths[-1] == "depthwise" and (scratch == "granted" or set(paths[:-1]) == {"depthwise_ring"}), paths


@pytest.mark.parametrize("scratch", ["granted", "denied"])
@pytest.mark.parametrize("board", DSP_BOARDS)
def test_depthwise_edge_cases_on_target_equal_host(tmp_path, board, scratch, monkeypatch):
    """On the DSP cores the edge cases' assembly (quads, or in place the staged rows and the pixel ring) equals the
    portable host build bit for bit, the clamp included."""
    if scratch == "denied":
        deny_scratch(monkeypatch)
    qm, _ = qdq_model("q", DW_EDGE_CASES)
    mcucomp.compile_model(qm.model(), tmp_path, name="m", board=board)
    result = verify_on_target(tmp_path, board, inputs=3, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and not any(result.mismatching.values()), result.mismatching
