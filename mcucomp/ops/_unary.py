"""Shared by the element-wise unary kernels that serve several ONNX ops through an op code and float parameters."""

from __future__ import annotations

from ..ir import Graph, Node
from ._overlap import elementwise
from .base import KernelCall, KernelOp, OverlapMargin, all_float32


def attr_str(node: Node, name: str, default: str) -> str:
    """A string attribute as str (the IR may keep ONNX strings as bytes)."""
    value = node.attrs.get(name, default)
    return value.decode() if isinstance(value, bytes) else str(value)


def _path(op_key: str) -> str:
    """The cost path of an op key: `Gelu:tanh` -> `gelu_tanh`."""
    return op_key.lower().replace(":", "_")


class CodedUnaryOp(KernelOp):
    """y = f(x) element-wise where f is chosen by an op code; its float parameters come from node attributes."""

    #: Names of the float fields of the C params struct, after `op` and `count`.
    param_names: tuple[str, ...] = ()
    #: Op key → (op code, one (ONNX attribute or None for a fixed value, default) per param_names entry).
    codes: dict[str, tuple[int, tuple]] = {}
    constraints = (all_float32,)

    def op_key(self, node: Node) -> str:
        """The key of `codes` for an ONNX node (its op type unless an attribute selects a variant)."""
        return node.op

    def lower(self, node: Node, g: Graph) -> None:
        """Store the op code and the float parameters (attributes or their ONNX defaults)."""
        code, specs = self.codes[self.op_key(node)]
        node.attrs["op_code"] = code
        node.attrs["params"] = [float(node.attrs.get(attr, default) if attr else default) for attr, default in specs]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_<name>(params{op, count, <param_names>}, x, y)."""
        params = [("op", node.attrs["op_code"]), ("count", g.tensors[node.outputs[0]].size)]
        params += list(zip(self.param_names, node.attrs["params"]))
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]])

    @property
    def cost_paths(self) -> tuple[str, ...]:
        """One path per function: the op keys in lower case (':' as '_')."""
        return tuple(dict.fromkeys(_path(key) for key in self.codes))

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """The function is the path (each has its own loop body); one call and the elements."""
        key = next(k for k, (code, _) in self.codes.items() if code == node.attrs["op_code"])
        return _path(key), {"calls": 1, "elements": g.tensors[node.outputs[0]].size}

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads x[i], then writes y[i]."""
        return elementwise(node, g)
