"""Rewrite ONNX nodes into equivalent ones the passes already lower (run after constant folding).

- ReduceMean of a 4-D float32 tensor over axes {2, 3} (PyTorch's exporter writes AdaptiveAvgPool2d(1) and
  `x.mean((2, 3))` this way) → GlobalAveragePool, followed by Flatten when keepdims=0. Quantized groups
  (DQ → ReduceMean → Q) are left alone: onnxruntime runs them in float, not as a QLinearGlobalAveragePool.
"""

from __future__ import annotations

import onnx
from onnx import helper, numpy_helper


def _float_rank(proto: onnx.ModelProto, name: str) -> int | None:
    """The rank of a float32 tensor, or None when it is not float32 or shape inference did not record it."""
    g = proto.graph
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        ttype = vi.type.tensor_type
        if vi.name == name and ttype.elem_type == onnx.TensorProto.FLOAT and ttype.HasField("shape"):
            return len(ttype.shape.dim)
    return None


def _reduce_axes(node: onnx.NodeProto, consts: dict) -> list[int] | None:
    """ReduceMean's axes from the attribute (opset < 18) or a constant second input; None when unknown."""
    if len(node.input) > 1 and node.input[1]:
        return None if node.input[1] not in consts else [int(a) for a in consts[node.input[1]].reshape(-1)]
    attr = next((a for a in node.attribute if a.name == "axes"), None)
    return None if attr is None else list(attr.ints)


def reduce_mean_to_pool(proto: onnx.ModelProto) -> bool:
    """Replace every spatial ReduceMean of a 4-D float32 tensor with GlobalAveragePool [+ Flatten]; True if any."""
    g = proto.graph
    consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    nodes, changed = [], False
    for node in g.node:
        axes = _reduce_axes(node, consts) if node.op_type == "ReduceMean" and node.domain in ("", "ai.onnx") else None
        rank = _float_rank(proto, node.input[0]) if axes is not None else None
        if rank != 4 or sorted(a % 4 for a in axes) != [2, 3]:
            nodes.append(node)
            continue
        keepdims = next((a.i for a in node.attribute if a.name == "keepdims"), 1)
        out = node.output[0]
        pooled = out if keepdims else f"{out}_pooled"
        nodes.append(helper.make_node("GlobalAveragePool", [node.input[0]], [pooled], name=node.name))
        if not keepdims:
            nodes.append(helper.make_node("Flatten", [pooled], [out], name=f"{node.name}_flatten", axis=1))
        changed = True
    if changed:
        del g.node[:]
        g.node.extend(nodes)
    return changed
