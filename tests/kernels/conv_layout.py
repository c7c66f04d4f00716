"""A test stand-in for the layout pass (mcucomp/passes/layout.py, not on this branch yet): every conv2d_s8 node
runs channels-last between two int8 transposes, so the kernel tests reach the NHWC C loops through whole models.

Use `channels_last_convs` as a context manager around compile_model / lower_model calls."""

from __future__ import annotations

import contextlib
from dataclasses import replace

from mcucomp import pipeline
from mcucomp.ir import Graph, Node
from mcucomp.ops import REGISTRY


def _nhwc(g: Graph, name: str, suffix: str) -> str:
    """A channels-last copy (new tensor) of activation `name`."""
    t = g.tensors[name]
    new = f"{name}{suffix}"
    g.tensors[new] = replace(t, name=new, shape=(t.shape[0], *t.shape[2:], t.shape[1]), layout="nhwc")
    return new


def to_channels_last(g: Graph) -> Graph:
    """Put every channels-last-capable conv2d_s8 node between transposes NCHW -> NHWC -> NCHW."""
    nodes = []
    for node in g.nodes:
        if node.op != "conv2d_s8" or not REGISTRY[node.op].channels_last(node, g):
            nodes.append(node)
            continue
        rank = len(g.tensors[node.inputs[0]].shape)
        to_last, to_first = [0, *range(2, rank), 1], [0, rank - 1, *range(1, rank - 1)]
        x, y = node.inputs[0], node.outputs[0]
        x_last, y_last = _nhwc(g, x, f"__{node.name}_in_nhwc"), _nhwc(g, y, "__nhwc")
        nodes.append(Node(f"{node.name}__to_nhwc", "transpose", [x], [x_last], {"perm": to_last}))
        node.inputs[0], node.outputs[0] = x_last, y_last
        node.attrs["layout"] = "nhwc"
        nodes.append(node)
        nodes.append(Node(f"{node.name}__to_nchw", "transpose", [y_last], [y], {"perm": to_first}))
    g.nodes = nodes
    return g


@contextlib.contextmanager
def channels_last_convs():
    """While active, the pipeline runs to_channels_last after the passes."""
    original = pipeline.run_passes

    def run(g, options):
        return to_channels_last(original(g, options))

    pipeline.run_passes = run
    try:
        yield
    finally:
        pipeline.run_passes = original
