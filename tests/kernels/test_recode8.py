"""recode8: a uint8 graph input and output meeting the int8 kernels, every byte value through and back."""

from __future__ import annotations

import numpy as np

from qmodels import QModel, check_qmodel


def test_uint8_io_around_an_int8_kernel(tmp_path):
    """QLinearMatMul by a 1x1 identity weight with equal input and output quantization: y == x for all 256 codes
    (and for the random codes of each seed), through recode8 in and out."""
    qm = QModel(np.uint8)
    x = qm.raw_input("x", (256, 1), np.uint8)
    inputs = [x, qm.init("xs", np.float32(0.5)), qm.init("xz", np.uint8(131)), qm.init("w", np.array([[1]], np.uint8)),
              qm.init("ws", np.float32(1.0)), qm.init("wz", np.uint8(0)), qm.init("ys", np.float32(0.5)),
              qm.init("yz", np.uint8(131))]
    qm.node("QLinearMatMul", inputs, ["y"])
    qm.raw_output("y", (256, 1), np.uint8)
    ops = check_qmodel(qm, tmp_path, seeds=range(3))
    assert sorted(ops.values()) == ["fc_s8", "recode8", "recode8"]
    every = {"x": np.arange(256, dtype=np.uint8).reshape(256, 1)}
    import mcucomp.host

    assert np.array_equal(mcucomp.host.load(tmp_path, layer_hook=False).run(every)["y"], every["x"])
