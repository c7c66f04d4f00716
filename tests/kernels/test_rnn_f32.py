"""rnn_f32 against onnxruntime: RNN, GRU (linear_before_reset 0 and 1) and LSTM (peepholes, input_forget); forward,
reverse and bidirectional; biases, initial states, sequence_lens; clip; non-default activations; every output.

Compared within RECURRENT_ULPS: onnxruntime's Sigmoid and Tanh are MLAS approximations, ours mcu_math.h's (each
within 2 ULPs of the true value), and the differences carry through the time steps in the state. Measured: at most
6 ULP(max|ref|) (LSTM Y_c with peepholes).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

import mcucomp
import mcucomp.host
from float_cases import assert_within_ulps, check_nodes_ulps
from helpers import infer_outputs, make_model, rand, run_both
from mcucomp.target.verify import verify_on_target
from target_boards import CORE_BOARDS

RECURRENT_ULPS = 8
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}

# (op, seq, batch, input, hidden, optional inputs, attrs)
CASES = [
    ("RNN", 4, 2, 3, 5, ("B",), dict()),
    ("RNN", 3, 3, 2, 4, ("B", "seq", "h0"), dict(direction="bidirectional", activations=["Relu", "Affine"],
                                                activation_alpha=[0.5], activation_beta=[0.25])),
    ("GRU", 5, 2, 3, 4, ("B",), dict(direction="reverse")),
    ("GRU", 3, 2, 4, 3, ("B", "seq", "h0"), dict(direction="bidirectional", linear_before_reset=1)),
    ("GRU", 4, 1, 2, 3, (), dict(clip=0.5, activations=["HardSigmoid", "Softsign"])),
    ("LSTM", 4, 2, 3, 5, ("B", "seq", "h0", "c0", "P"), dict()),
    ("LSTM", 3, 3, 2, 4, ("B", "h0", "c0"), dict(direction="bidirectional", input_forget=1)),
    ("LSTM", 5, 2, 3, 2, ("B", "P"), dict(direction="reverse", clip=1.5,
                                         activations=["LeakyRelu", "Tanh", "ScaledTanh"], activation_alpha=[0.1, 0.8],
                                         activation_beta=[1.2])),
]


def _case_nodes(rng, cases, layout: int = 0):
    """One node per case with every output, its graph inputs and feeds (X, initial_h and initial_c in `layout`)."""
    nodes, inputs, feeds = [], {}, {}
    for i, (op, seq, batch, size, hidden, extra, attrs) in enumerate(cases):
        dirs = 2 if attrs.get("direction") == "bidirectional" else 1
        gates = GATES[op]
        values = {"X": rand(rng, seq, batch, size), "W": rand(rng, dirs, gates * hidden, size) * 0.5,
                  "R": rand(rng, dirs, gates * hidden, hidden) * 0.5, "B": rand(rng, dirs, 2 * gates * hidden) * 0.5,
                  "seq": rng.integers(1, seq + 1, batch).astype(np.int32), "h0": rand(rng, dirs, batch, hidden),
                  "c0": rand(rng, dirs, batch, hidden), "P": rand(rng, dirs, 3 * hidden)}
        if layout:
            values.update(X=values["X"].transpose(1, 0, 2).copy(), h0=values["h0"].transpose(1, 0, 2).copy(),
                          c0=values["c0"].transpose(1, 0, 2).copy())
        order = ["X", "W", "R", "B", "seq", "h0", "c0", "P"]
        names = [f"{k}{i}" if k in ("X", "W", "R") or k in extra else "" for k in order]
        while not names[-1]:
            names.pop()
        for key, name in zip(order, names):
            if name:
                inputs[name], feeds[name] = (values[key].dtype, values[key].shape), values[key]
        outs = [f"Y{i}", f"Yh{i}"] + ([f"Yc{i}"] if op == "LSTM" else [])
        nodes.append(helper.make_node(op, names, outs, hidden_size=hidden, layout=layout, **attrs))
    return nodes, inputs, feeds


def test_rnn_cases(tmp_path):
    nodes, inputs, feeds = _case_nodes(np.random.default_rng(60), CASES)
    check_nodes_ulps(nodes, inputs, feeds, tmp_path, RECURRENT_ULPS, opset=14)


def test_rnn_batchwise_layout(tmp_path):
    """layout = 1 (onnxruntime lacks it): against onnxruntime on the same data in layout 0, transposed."""
    cases = [CASES[1], CASES[3], CASES[5], CASES[6]]
    nodes0, inputs0, feeds0 = _case_nodes(np.random.default_rng(61), cases)
    nodes1, inputs1, feeds1 = _case_nodes(np.random.default_rng(61), cases, layout=1)
    model = make_model(nodes1, inputs1, infer_outputs(nodes1, inputs1, None, 14), None, 14)
    mcucomp.compile_model(model, tmp_path, name="m")
    ours = mcucomp.host.load(tmp_path).run(feeds1)
    ref_model = make_model(nodes0, inputs0, infer_outputs(nodes0, inputs0, None, 14), None, 14)
    sess = ort.InferenceSession(ref_model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    for name, want in zip(names, sess.run(names, feeds0)):
        want = want.transpose(2, 0, 1, 3) if want.ndim == 4 else want.transpose(1, 0, 2)
        assert_within_ulps(ours[name], want, RECURRENT_ULPS, name)


# Constant W and R (the packed path): sizes with row-block tails (rows % 8, % 4), inputs and hidden sizes below and
# past the assembly loops' turns of 8 columns and their single-column tails, both GRU reset orders, both directions
PACKED_CASES = [
    ("GRU", 4, 2, 9, 5, ("B", "h0"), dict()),
    ("GRU", 3, 1, 17, 6, ("B",), dict(direction="bidirectional", linear_before_reset=1)),
    ("GRU", 3, 1, 3, 11, (), dict(direction="reverse", linear_before_reset=1)),
    ("LSTM", 3, 2, 8, 3, ("B", "P", "h0", "c0"), dict()),
    ("LSTM", 2, 1, 4, 9, ("B",), dict(direction="bidirectional", input_forget=1)),
    ("RNN", 3, 1, 12, 13, ("B",), dict()),
    ("RNN", 2, 2, 1, 1, ("B", "seq"), dict(direction="bidirectional")),
    ("GRU", 2, 1, 10, 16, ("B",), dict()),
]


def _packed_model(seed: int):
    """PACKED_CASES with W, R, B and P as initializers; the model and its feeds."""
    nodes, inputs, feeds = _case_nodes(np.random.default_rng(seed), PACKED_CASES)
    constants = {name: feeds.pop(name) for name in list(inputs) if name[0] in "WRBP"}
    for name in constants:
        del inputs[name]
    return make_model(nodes, inputs, infer_outputs(nodes, inputs, constants, 14), constants, 14), feeds


@pytest.mark.parametrize("form", ["fused", "separate"])
def test_packed_weights_against_ort(form, tmp_path):
    """Constant W and R take the packed matrix-vector loops: within RECURRENT_ULPS of onnxruntime in both forms, and
    bit for bit what the same model with W and R as runtime inputs (one dot per gate row) computes."""
    model, feeds = _packed_model(62)
    ours, ref = run_both(model, feeds, tmp_path / "packed", float_mac=form)
    assert "_wpack" in (tmp_path / "packed" / "m_weights.c").read_text()
    for name, want in ref.items():
        assert_within_ulps(ours[name], want, RECURRENT_ULPS, name)
    runtime = onnx.ModelProto()
    runtime.CopyFrom(model)
    moved = [t for t in runtime.graph.initializer if t.name[0] in "WR"]
    for t in moved:
        runtime.graph.initializer.remove(t)
        runtime.graph.input.append(helper.make_tensor_value_info(t.name, onnx.TensorProto.FLOAT, list(t.dims)))
    mcucomp.compile_model(runtime, tmp_path / "rows", name="m", float_mac=form)
    rows = mcucomp.host.load(tmp_path / "rows").run({**feeds, **{t.name: numpy_helper.to_array(t) for t in moved}})
    for name, value in ours.items():
        np.testing.assert_array_equal(rows[name], value, err_msg=name)


@pytest.mark.parametrize("form", ["fused", "separate"])
@pytest.mark.parametrize("board", CORE_BOARDS)
def test_packed_on_target_equal_host(board, form, tmp_path):
    """On each QEMU core, in both float forms (the assembly loops in the separate form on cores with an FPU), the
    packed GRU, LSTM and RNN equal the host build bit for bit."""
    model, _ = _packed_model(63)
    mcucomp.compile_model(model, tmp_path, name="m", board=board, float_mac=form)
    result = verify_on_target(tmp_path, board, inputs=4, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and all(v == 0 for v in result.mismatching.values()), result.mismatching
