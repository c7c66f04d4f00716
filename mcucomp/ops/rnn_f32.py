"""Float32 RNN, GRU and LSTM: one kernel with a cell code (they share the time, direction and batch loops).

Every ONNX input may be a runtime tensor (sequence_lens too); directions forward, reverse and bidirectional;
layout 0 and 1; the activations attribute with ONNX's activation functions; clip; GRU's linear_before_reset and
LSTM's peepholes and input_forget.
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from ._window import text_attr
from ._cost import params_dict
from ._gemm_f32.packing import matvec_terms, pack_rows
from .base import ArrayRef, KernelCall, KernelOp, shape

#: ONNX op → (MCU_RNN_CELL_* code, gates, default activations of one direction).
CELLS = {"RNN": (0, 1, ("Tanh",)), "GRU": (1, 3, ("Sigmoid", "Tanh")), "LSTM": (2, 4, ("Sigmoid", "Tanh", "Tanh"))}

#: activation name (lower case) → (MCU_RNN_ACT_* code, takes alpha, takes beta, default alpha, default beta); alpha
#: and beta are consumed from activation_alpha/beta only by the activations that take them (onnxruntime's rule).
ACTIVATIONS = {
    "sigmoid": (0, False, False, 0.0, 0.0), "tanh": (1, False, False, 0.0, 0.0), "relu": (2, False, False, 0.0, 0.0),
    "affine": (3, True, True, 0.0, 0.0), "leakyrelu": (4, True, False, 0.01, 0.0),
    "thresholdedrelu": (5, True, False, 0.0, 0.0), "scaledtanh": (6, True, True, 0.0, 0.0),
    "hardsigmoid": (7, True, True, 0.2, 0.5), "elu": (8, True, False, 1.0, 0.0),
    "softsign": (9, False, False, 0.0, 0.0), "softplus": (10, False, False, 0.0, 0.0),
}

#: Input index of sequence_lens, the one int32 operand (every other input and output is float32).
SEQUENCE_LENS = 4


def _input(node: Node, k: int) -> str | None:
    """Name of optional input k, or None."""
    return node.inputs[k] if len(node.inputs) > k and node.inputs[k] else None


def _output(node: Node, k: int) -> str | None:
    """Name of optional output k (Y, Y_h, Y_c) of a lowered node, or None when absent or unused."""
    roles = node.attrs["output_roles"]
    return node.outputs[roles.index(k)] if k in roles else None


def _float32(node: Node, g: Graph) -> bool:
    """Every input and output must be float32, except sequence_lens (int32)."""
    names = [n for k, n in enumerate(node.inputs) if n and k != SEQUENCE_LENS] + [n for n in node.outputs if n]
    return all(g.tensors[n].dtype == "float32" for n in names)


def _cell(node: Node) -> str:
    """The ONNX op (RNN, GRU or LSTM), before and after lowering."""
    return node.attrs.get("cell", node.op)


def _directions(node: Node) -> int:
    """1, or 2 for direction=bidirectional."""
    return 2 if text_attr(node.attrs.get("direction"), "forward") == "bidirectional" else 1


def _activations(node: Node) -> list[str]:
    """The activation names of every direction (the attribute, or the cell's defaults), lower case."""
    defaults = CELLS[_cell(node)][2] * _directions(node)
    return [text_attr(a, "").lower() for a in node.attrs.get("activations") or defaults]


def _known_activations(node: Node, g: Graph) -> bool:
    """The activations attribute must name ONNX recurrent activation functions (Relu, Tanh, Sigmoid, Affine, LeakyRelu,
    ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus), as many as the cell needs per direction."""
    names = _activations(node)
    return len(names) == len(CELLS[_cell(node)][2]) * _directions(node) and all(a in ACTIVATIONS for a in names)


def _known_direction(node: Node, g: Graph) -> bool:
    """The direction attribute must be forward, reverse or bidirectional."""
    return text_attr(node.attrs.get("direction"), "forward") in ("forward", "reverse", "bidirectional")


def activation_params(node: Node) -> tuple[list[list[int]], list[list[float]], list[list[float]]]:
    """Per direction (padded to 2) and slot (padded to 3): activation codes, alphas and betas."""
    alphas = list(node.attrs.get("activation_alpha") or [])
    betas = list(node.attrs.get("activation_beta") or [])
    per_dir = len(CELLS[_cell(node)][2])
    codes, alpha, beta = [[0] * 3 for _ in range(2)], [[0.0] * 3 for _ in range(2)], [[0.0] * 3 for _ in range(2)]
    for i, name in enumerate(_activations(node)):
        code, takes_alpha, takes_beta, default_alpha, default_beta = ACTIVATIONS[name]
        d, k = divmod(i, per_dir)
        codes[d][k] = code
        alpha[d][k] = float(alphas.pop(0)) if takes_alpha and alphas else default_alpha
        beta[d][k] = float(betas.pop(0)) if takes_beta and betas else default_beta
    return codes, alpha, beta


def packed_weights(node: Node, g: Graph) -> tuple[np.ndarray, np.ndarray] | None:
    """Constant W and R packed per direction by pack_rows (a GRU's R as its z and r rows, then its h rows: the h
    gate's recurrent product runs apart), or None when either is a runtime tensor."""
    w, r = g.const(node.inputs[1]), g.const(node.inputs[2])
    if w is None or r is None:
        return None
    hidden = r.shape[2]
    split = 2 * hidden if _cell(node) == "GRU" else r.shape[1]
    r_parts = [pack_rows(part) for rd in r.astype(np.float32) for part in (rd[:split], rd[split:]) if len(part)]
    return np.concatenate([pack_rows(wd) for wd in w.astype(np.float32)]), np.concatenate(r_parts)


class RnnF32(KernelOp):
    """ONNX RNN, GRU and LSTM on float32 tensors."""

    name = "rnn_f32"
    uses_float_mac = True
    onnx_ops = ("GRU", "LSTM", "RNN")
    constraints = (_float32, _known_direction, _known_activations)
    #: per cell: constant W and R packed (one blocked matrix-vector product per gate part and step), or `_rows`
    #: (runtime W or R: one dot per gate row)
    cost_paths = tuple(cell.lower() + suffix for cell in CELLS for suffix in ("", "_rows"))

    def lower(self, node: Node, g: Graph) -> None:
        """Record the cell (the ONNX op) before the op becomes the kernel name; keep only the outputs in use, with
        their ONNX output indices in `output_roles`."""
        roles = [k for k, o in enumerate(node.outputs) if o and (o in g.outputs or g.consumers(o))]
        node.attrs.update(cell=node.op, output_roles=roles)
        node.outputs = [node.outputs[k] for k in roles]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_rnn_f32(params, x, w, r, b, seq_lens, initial_h, initial_c, p, y, y_h, y_c, scratch)."""
        a = node.attrs
        cell, n_gates, _ = CELLS[a["cell"]]
        dims = shape(g, node.inputs[0])
        layout = int(a.get("layout", 0))
        seq, batch = (dims[1], dims[0]) if layout else (dims[0], dims[1])
        hidden = int(a.get("hidden_size") or shape(g, node.inputs[2])[2])
        codes, alpha, beta = activation_params(node)
        params = [("cell", cell), ("seq", seq), ("batch", batch), ("input", dims[2]), ("hidden", hidden),
                  ("dirs", _directions(node)),
                  ("reverse_first", int(text_attr(a.get("direction"), "forward") == "reverse")), ("layout", layout),
                  ("act", codes), ("alpha", alpha), ("beta", beta), ("clip", float(a.get("clip", 0.0))),
                  ("linear_before_reset", int(a.get("linear_before_reset", 0))),
                  ("input_forget", int(a.get("input_forget", 0)))]
        packed = packed_weights(node, g)
        arrays = {}
        if packed is None:
            params += [("w_packed", "NULL"), ("r_packed", "NULL")]
            wr = [node.inputs[1], node.inputs[2]]
        else:
            # named after W and R (R's packing per cell), so that cells sharing them share the arrays
            keys = f"{node.inputs[1]}_wpack", f"{node.inputs[2]}_rpack_{a['cell'].lower()}"
            arrays = dict(zip(keys, packed))
            params += [("w_packed", ArrayRef(keys[0])), ("r_packed", ArrayRef(keys[1]))]
            wr = [None, None]
        inputs = [node.inputs[0]] + wr + [_input(node, k) for k in range(3, 8)]
        outputs = [_output(node, k) for k in range(3)]
        return KernelCall(self.name, params, inputs + outputs, arrays,
                          scratch_bytes=4 * (2 * batch + n_gates + 2) * hidden)

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per direction, time step and batch element (a step): the gate rows over the input, then the recurrent rows
        over the hidden state (a GRU's h rows apart) as mcu_matvec_f32 calls when W and R are packed (matvec_terms),
        else one dot product per row (`_rows` path: their MACs); per hidden unit the cell's activations and state
        updates (a fixed set per cell, so the path is the cell); per direction and batch element the state set up and
        copied out."""
        p = params_dict(self.call(node, g))
        cell = node.attrs["cell"]
        hs, n_gates = p["hidden"], CELLS[cell][1]
        steps = p["dirs"] * p["seq"] * p["batch"]
        rows = n_gates * hs
        terms = {"calls": 1, "states": p["dirs"] * p["batch"] * hs, "steps": steps, "units": steps * hs}
        if p["w_packed"] == "NULL":
            return cell.lower() + "_rows", {**terms, "dots": steps * 2 * rows,
                                            "macs": steps * rows * (p["input"] + hs)}
        parts = [(rows, p["input"]), (2 * hs, hs), (hs, hs)] if cell == "GRU" else [(rows, p["input"]), (rows, hs)]
        for part_rows, cols in parts:
            for name, value in matvec_terms(steps, part_rows, cols).items():
                terms[name] = terms.get(name, 0) + value
        return cell.lower(), terms

    def macs(self, node: Node, g: Graph) -> int:
        """Per step, direction and batch element: the gate rows times (input + hidden)."""
        _, n_gates, _ = CELLS[node.attrs["cell"]]
        w, r = shape(g, node.inputs[1]), shape(g, node.inputs[2])
        steps = g.tensors[node.inputs[0]].size // shape(g, node.inputs[0])[2]
        return steps * w[0] * n_gates * r[2] * (w[2] + r[2])


OP = RnnF32()
