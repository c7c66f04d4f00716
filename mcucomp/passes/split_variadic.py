"""Split the variadic Max, Min, Sum and Mean into chains of two-input Max, Min, Add (and a final Div for Mean).

One input is an Identity (removed by the next pass). The chain folds left to right, ((x0 op x1) op x2) ..., each
link broadcasting its two operands, so the binary kernels serve every input count.
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node, Tensor

VARIADIC = {"Max": "Max", "Min": "Min", "Sum": "Add", "Mean": "Add"}


def _fresh(taken, base: str) -> str:
    """`base`, or `base_k` with the smallest k that is not in `taken`."""
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    return name


def _chain(g: Graph, node: Node, node_names: set) -> list[Node]:
    """The two-input nodes that compute `node`."""
    out = g.tensors[node.outputs[0]]
    links, acc = [], node.inputs[0]
    last = len(node.inputs) - 1
    for k, operand in enumerate(node.inputs[1:], start=1):
        if k == last and node.op != "Mean":
            dst = out.name
        else:
            dst = _fresh(g.tensors, f"{out.name}_{node.op.lower()}{k}")
            dims = np.broadcast_shapes(g.tensors[acc].shape, g.tensors[operand].shape)
            g.tensors[dst] = Tensor(dst, tuple(int(d) for d in dims), out.dtype)
        name = _fresh(node_names, f"{node.name}_{k}")
        node_names.add(name)
        links.append(Node(name, VARIADIC[node.op], [acc, operand], [dst], {}, node.domain))
        acc = dst
    if node.op == "Mean":
        count = g.add_const(f"{node.name}_count", np.array(len(node.inputs), dtype=out.dtype))
        name = _fresh(node_names, f"{node.name}_div")
        node_names.add(name)
        links.append(Node(name, "Div", [acc, count], [out.name], {}, node.domain))
    return links


def run(g: Graph, options: dict) -> Graph:
    """Replace every variadic node that is not already a two-input Max or Min by its chain."""
    node_names = {n.name for n in g.nodes}
    nodes: list[Node] = []
    for node in g.nodes:
        if node.op not in VARIADIC or node.domain not in ("", "ai.onnx"):
            nodes.append(node)
        elif len(node.inputs) == 1:
            node.op = "Identity"
            nodes.append(node)
        elif len(node.inputs) == 2 and VARIADIC[node.op] == node.op:
            nodes.append(node)
        else:
            nodes.extend(_chain(g, node, node_names))
    g.nodes = nodes
    return g
