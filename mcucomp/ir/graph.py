"""The graph IR data types."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

DTYPE_BYTES = {
    "float32": 4, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2,
    "int32": 4, "uint32": 4, "int64": 8, "uint64": 8, "bool": 1, "float64": 8,
}


@dataclass
class Quant:
    """Affine quantization: real = (q - zero_point) * scale, per tensor (axis None) or per `axis`."""

    scale: np.ndarray
    zero_point: np.ndarray
    axis: int | None = None

    @property
    def per_tensor(self) -> bool:
        """True when a single scale and zero point apply to the whole tensor."""
        return self.scale.size == 1

    def same_as(self, other: "Quant | None") -> bool:
        """True when both describe the same mapping bit for bit."""
        return (
            other is not None
            and self.scale.shape == other.scale.shape
            and np.array_equal(self.scale.view(np.uint32), other.scale.view(np.uint32))
            and np.array_equal(self.zero_point, other.zero_point)
        )

    def to_json(self) -> dict:
        """Scale and zero point as plain numbers (or lists when per axis)."""
        if self.per_tensor:
            return {"scale": float(self.scale.reshape(-1)[0]), "zero_point": int(self.zero_point.reshape(-1)[0])}
        return {"scale": self.scale.tolist(), "zero_point": self.zero_point.tolist(), "axis": self.axis}


@dataclass
class Tensor:
    """A value in the graph: an activation (data None) or a constant."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    quant: Quant | None = None
    data: np.ndarray | None = None
    #: "" when `shape` is in ONNX order; "nhwc" when the layout pass moved the channel dim (ONNX dim 1) last, and
    #: `shape` is the stored order (N, spatial..., C).
    layout: str = ""

    @property
    def onnx_shape(self) -> tuple[int, ...]:
        """The shape in ONNX order (N, C, spatial...), whatever the stored layout."""
        if self.layout == "nhwc":
            return (self.shape[0], self.shape[-1], *self.shape[1:-1])
        return self.shape

    @property
    def is_const(self) -> bool:
        """True for constants (weights, biases, folded values)."""
        return self.data is not None

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        """Storage size in bytes."""
        return self.size * DTYPE_BYTES[self.dtype]


@dataclass
class Node:
    """An operation: `op` is an ONNX op before lowering and a kernel op after."""

    name: str
    op: str
    inputs: list[str]
    outputs: list[str]
    attrs: dict = field(default_factory=dict)
    domain: str = ""


@dataclass
class Graph:
    """Tensors by name, nodes in order, and the graph's input and output names."""

    tensors: dict[str, Tensor]
    nodes: list[Node]
    inputs: list[str]
    outputs: list[str]
    name: str = "model"

    def producer(self, name: str) -> Node | None:
        """The node that writes `name`, if any."""
        for node in self.nodes:
            if name in node.outputs:
                return node
        return None

    def consumers(self, name: str) -> list[Node]:
        """The nodes that read `name`."""
        return [n for n in self.nodes if name in n.inputs]

    def const(self, name: str) -> np.ndarray | None:
        """The constant data of `name`, or None (also for the empty optional-input name)."""
        if not name:
            return None
        t = self.tensors.get(name)
        return None if t is None else t.data

    def add_const(self, name: str, data: np.ndarray, quant: Quant | None = None) -> str:
        """Add a constant tensor under a fresh name derived from `name`; return the name used."""
        unique, k = name, 0
        while unique in self.tensors:
            k += 1
            unique = f"{name}_{k}"
        data = np.ascontiguousarray(data)
        self.tensors[unique] = Tensor(unique, tuple(data.shape), str(data.dtype), quant, data)
        return unique

    def remove_unused(self) -> None:
        """Drop tensors no node, input or output refers to."""
        used = set(self.inputs) | set(self.outputs)
        for node in self.nodes:
            used.update(node.inputs)
            used.update(node.outputs)
        self.tensors = {k: v for k, v in self.tensors.items() if k in used}

    def rename_uses(self, old: str, new: str) -> None:
        """Make every reader of `old` (and the graph outputs) read `new` instead."""
        for node in self.nodes:
            node.inputs = [new if i == old else i for i in node.inputs]
        self.outputs = [new if o == old else o for o in self.outputs]
