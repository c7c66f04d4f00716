"""Flash bound of every int8 model the tests compile: the constant data is at most 5% above its int8
parameters, counted as
- conv2d_s8 / fc_s8 / conv_transpose_s8: int8 weights, one int32 bias per output channel, and the requantization per channel (or per
  tensor): a float32 scale in `float` mode, an int32 multiplier and an int32 shift in `fixed` mode;
- lut8: 256 bytes per distinct table (a per-layer parameter: layers with identical tables share one array);
- softmax_s8: its exp table (a per-layer parameter, 256 entries of at most 4 bytes);
- avgpool_s8: its one requantization (a float32 scale, or an int32 multiplier and shift);
- QuantizeLinear / DequantizeLinear at float graph I/O: their scale and zero point;
- data movement (resize, concat, ...): its geometry tables as they are (index and size tables, which grow with the
  activations' shape, not with the weights).
Anything else (float weights of a layer left in float, tables of other kernels, duplicated arrays) is overshoot.
The message gives the actual bytes and the bound per kind."""

from __future__ import annotations

import hashlib
from collections import Counter

import numpy as np
import pytest

from mcucomp.ops.base import ArrayRef
from mcucomp.pipeline import kernel_calls, plan_model

from int8_models import ALL_INT8, int8_model_path

#: Allowed overshoot over the int8 bound.
SLACK = 1.05
#: Data-movement kernels whose constant data is geometry (counted as it is).
GEOMETRY = ("resize", "concat", "split", "slice", "gather", "pad", "transpose", "copy")


def _kind(op: str) -> str:
    """The parameter kind of a kernel op's constant data."""
    return {"conv2d_s8": "conv/fc", "fc_s8": "conv/fc", "conv_transpose_s8": "conv/fc", "lut8": "lut8 tables", "softmax_s8": "softmax tables",
            "quantize_linear": "Q/DQ parameters", "dequantize_linear": "Q/DQ parameters"}.get(op, f"{op} constants")


def _refs(value) -> list[str]:
    """Every ArrayRef key inside a (nested) params value."""
    if isinstance(value, ArrayRef):
        return [value.key]
    if isinstance(value, (list, tuple)):
        return [k for v in value for k in _refs(v)]
    return []


def _bound(node, g, mode: str, tables: set) -> int:
    """The int8 bound of one layer's constant data (see the module docstring)."""
    if node.op in ("conv2d_s8", "fc_s8", "conv_transpose_s8"):
        w = g.tensors[node.inputs[1]].shape
        c_out = w[1] * node.attrs.get("group", 1) if node.op == "conv_transpose_s8" else w[0]
        rq = np.asarray(node.attrs["rq"].scale).size
        return g.tensors[node.inputs[1]].size + 4 * c_out + rq * (8 if mode == "fixed" else 4)
    if node.op == "lut8":
        digest = hashlib.sha256(np.asarray(node.attrs["table"], np.int64).tobytes()).hexdigest()
        new = digest not in tables
        tables.add(digest)
        return 256 * new
    if node.op == "softmax_s8":
        return 256 * 4
    if node.op == "avgpool_s8":
        return 8 if mode == "fixed" else 4
    if node.op in ("quantize_linear", "dequantize_linear"):
        return sum(g.tensors[i].nbytes for i in node.inputs[1:] if i)
    return 0


@pytest.mark.parametrize("requant", ["float", "fixed"])
@pytest.mark.parametrize("model", ALL_INT8)
def test_flash_within_five_percent_of_int8_parameters(model, requant, tmp_path_factory):
    path = int8_model_path(model, tmp_path_factory.getbasetemp())
    planned = plan_model(path, name="m", requant=requant)
    g, order = planned.graph, planned.order
    calls = kernel_calls(g, order)
    actual, bound, seen, tables = Counter(), Counter(), set(), set()
    for node in order:
        kind = _kind(node.op)
        bound[kind] += _bound(node, g, requant, tables)
        before = actual[kind]
        call = calls.get(node.name)
        if call is None:  # a view: no call, no constant data
            continue
        # the arrays codegen emits for this call: constant tensor arguments and params, and the call's own arrays
        # (codegen keys the two apart and emits each key once)
        tensors = {i for i in list(call.args) + _refs(call.params) if isinstance(i, str) and i and i in g.tensors
                   and g.tensors[i].is_const and i not in call.arrays}
        for key in sorted({("tensor", t) for t in tensors} | {("call", k) for k in call.arrays}):
            if key in seen:
                continue
            seen.add(key)
            actual[kind] += call.arrays[key[1]].nbytes if key[0] == "call" else g.tensors[key[1]].nbytes
        if node.op in GEOMETRY:
            bound[kind] += actual[kind] - before
    flash = planned.report["flash_bytes"]
    assert sum(actual.values()) == flash, f"{model}: attributed {sum(actual.values())} B of {flash} B of flash"
    total = sum(bound.values())
    detail = "; ".join(f"{k}: {actual[k]:,} B vs bound {bound[k]:,} B ({actual[k] - bound[k]:+,} B)"
                       for k in sorted(set(actual) | set(bound)))
    assert flash <= SLACK * total, (f"{model} ({requant}): flash {flash:,} B is {flash / total - 1:+.1%} over the int8 "
                                    f"bound {total:,} B (allowed +5%): {detail}")
    if model == "autoencoder":
        assert flash <= 280 * 1024, f"AD flash {flash:,} B above 280 KB"
