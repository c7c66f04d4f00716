"""What every kernel op provides: lowering constraints, the C call, MACs, scratch and in-place rules."""

from __future__ import annotations

import abc

from dataclasses import dataclass, field

import numpy as np

from ..ir import Graph, Node


@dataclass(frozen=True)
class ArrayRef:
    """A params field that points at a constant array: a tensor name, or a key of KernelCall.arrays."""

    key: str


@dataclass
class KernelCall:
    """One C kernel call: function and params struct name, struct fields, and tensor arguments in order."""

    func: str
    params: list[tuple[str, object]]
    args: list[str]
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    scratch_bytes: int = 0


class KernelOp(abc.ABC):
    """Base of the one-file-per-op registry entries in mcucomp/ops/."""

    #: IR op name after lowering; also the C function suffix and the runtime file stem.
    name: str = ""
    #: runtime_c/kernels files (without extension) the call needs besides its own.
    depends: tuple[str, ...] = ()
    #: ONNX ops this kernel runs directly when its constraints hold (empty: reached only by lowering).
    onnx_ops: tuple[str, ...] = ()
    #: Constraint functions (node, graph) -> bool; each docstring is the message shown when it fails.
    constraints: tuple = ()

    def lower(self, node: Node, g: Graph) -> None:
        """Rewrite an ONNX node's attributes into this kernel's canonical form (in place)."""
        node.op = self.name

    @abc.abstractmethod
    def call(self, node: Node, g: Graph) -> KernelCall:
        """The C call for a lowered node."""

    def macs(self, node: Node, g: Graph) -> int:
        """Multiply-accumulates per inference."""
        return 0

    def aliases_input(self, node: Node, g: Graph) -> bool:
        """True when the output is a view of input 0 and needs no kernel call."""
        return False


def failed_constraints(op: KernelOp, node: Node, g: Graph) -> list[str]:
    """The messages of every constraint the node breaks."""
    return [" ".join(c.__doc__.split()) for c in op.constraints if not c(node, g)]


def shape(g: Graph, name: str) -> tuple[int, ...]:
    """Shape of a tensor by name."""
    return g.tensors[name].shape


def as4d(dims: tuple[int, ...]) -> tuple[int, int, int, int]:
    """View an N,C[,H[,W]] shape as N,C,H,W (1-D spatial becomes H=1)."""
    dims = tuple(dims)
    if len(dims) == 3:
        return (dims[0], dims[1], 1, dims[2])
    if len(dims) == 2:
        return (dims[0], dims[1], 1, 1)
    return dims  # type: ignore[return-value]


def pads_2d(node: Node, rank: int) -> list[int]:
    """ONNX pads → [top, left, bottom, right] for 1-D or 2-D spatial ops (auto_pad resolved upstream)."""
    pads = list(node.attrs.get("pads", [0] * (2 * rank)))
    if rank == 1:
        return [0, pads[0], 0, pads[1]]
    return [pads[0], pads[1], pads[2], pads[3]]


def spatial_2d(values, rank: int, default: int) -> list[int]:
    """1-D or 2-D spatial attribute (kernel, strides, dilations) as [h, w]."""
    values = list(values) if values is not None else [default] * rank
    return [1, values[0]] if rank == 1 else [values[0], values[1]]


def resolve_auto_pad(node: Node, in_hw: list[int], kernel: list[int], strides: list[int], dil: list[int]) -> list[int]:
    """Explicit [t, l, b, r] pads for ONNX auto_pad SAME_UPPER/SAME_LOWER/VALID/NOTSET."""
    mode = node.attrs.get("auto_pad", b"NOTSET")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if mode in ("NOTSET", ""):
        return None
    if mode == "VALID":
        return [0, 0, 0, 0]
    pads_begin, pads_end = [], []
    for size, k, s, d in zip(in_hw, kernel, strides, dil):
        out = -(-size // s)
        total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
        small, big = total // 2, total - total // 2
        pads_begin.append(small if mode == "SAME_UPPER" else big)
        pads_end.append(big if mode == "SAME_UPPER" else small)
    return [pads_begin[0], pads_begin[1], pads_end[0], pads_end[1]]


def canonical_window(node: Node, g: Graph, kernel_hw: list[int]) -> None:
    """Store kernel, strides, dilations and explicit pads as 2-D lists on a conv or pool node."""
    x_shape = shape(g, node.inputs[0])
    rank = len(x_shape) - 2
    strides = spatial_2d(node.attrs.get("strides"), rank, 1)
    dil = spatial_2d(node.attrs.get("dilations"), rank, 1)
    in_hw = list(as4d(x_shape)[2:])
    pads = resolve_auto_pad(node, in_hw, kernel_hw, strides, dil)
    node.attrs.update(
        kernel=kernel_hw, strides=strides, dilations=dil, pads=pads if pads is not None else pads_2d(node, rank)
    )


def conv_geom(node: Node, g: Graph, c_out: int | None = None, group: int = 1) -> list[tuple[str, object]]:
    """The mcu_conv_geom initializer for a node with canonical window attributes."""
    n, c, h, w = as4d(shape(g, node.inputs[0]))
    _, oc, oh, ow = as4d(shape(g, node.outputs[0]))
    a = node.attrs
    return [
        ("n", n), ("c_in", c), ("h_in", h), ("w_in", w),
        ("c_out", oc if c_out is None else c_out), ("h_out", oh), ("w_out", ow),
        ("k_h", a["kernel"][0]), ("k_w", a["kernel"][1]),
        ("stride_h", a["strides"][0]), ("stride_w", a["strides"][1]),
        ("dil_h", a["dilations"][0]), ("dil_w", a["dilations"][1]),
        ("pad_t", a["pads"][0]), ("pad_l", a["pads"][1]), ("group", group),
    ]


def rank_is_3_or_4(node: Node, g: Graph) -> bool:
    """Only 1-D and 2-D spatial data (rank-3 or rank-4 input) is supported."""
    return len(shape(g, node.inputs[0])) in (3, 4)


def all_float32(node: Node, g: Graph) -> bool:
    """Every input and output must be float32 (int8 arrives through QDQ or QOperator lowering)."""
    names = [i for i in node.inputs if i] + node.outputs
    return all(g.tensors[n].dtype == "float32" for n in names)


MAX_RANK = 6  # MCU_MAX_RANK in runtime_c/mcu_rt.h


def numel(dims) -> int:
    """Number of elements of a shape."""
    n = 1
    for d in dims:
        n *= int(d)
    return n


def contiguous_strides(dims) -> list[int]:
    """Row-major element strides of a shape."""
    strides, step = [], 1
    for d in reversed(list(dims)):
        strides.append(step)
        step *= int(d)
    return strides[::-1]


def broadcast_strides(in_dims, out_dims) -> list[int]:
    """Element strides of an input read under numpy broadcasting into out_dims (0 along broadcast dims)."""
    in_dims = [1] * (len(out_dims) - len(in_dims)) + list(in_dims)
    return [0 if d == 1 and o != 1 else s for d, o, s in zip(in_dims, out_dims, contiguous_strides(in_dims))]


def collapse_dims(dims, *stride_lists) -> tuple[list[int], list[list[int]]]:
    """Drop size-1 dims and merge neighbours that every stride list walks contiguously; fewer loop levels."""
    kept = [(d, [s[i] for s in stride_lists]) for i, d in enumerate(dims) if d != 1]
    out_dims: list[int] = []
    out_strides: list[list[int]] = []
    for d, st in kept:
        if out_dims and all(prev == cur * d for prev, cur in zip(out_strides[-1], st)):
            out_dims[-1] *= d
            out_strides[-1] = st
        else:
            out_dims.append(d)
            out_strides.append(st)
    return out_dims, [[st[k] for st in out_strides] for k in range(len(stride_lists))]


def bcast_struct(dims, a_strides, b_strides) -> list[tuple[str, object]]:
    """The mcu_bcast initializer (dims and strides padded to MAX_RANK)."""
    pad = [0] * (MAX_RANK - len(dims))
    return [("rank", len(dims)), ("dims", list(dims) + pad), ("a_strides", list(a_strides) + pad),
            ("b_strides", list(b_strides) + pad)]


class UnaryF32Op(KernelOp):
    """An element-wise float32 function y = f(x): the call passes the element count."""

    constraints = (all_float32,)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_<name>(params{count}, x, y)."""
        return KernelCall(self.name, [("count", g.tensors[node.outputs[0]].size)], [node.inputs[0], node.outputs[0]])


def broadcast_params(g: Graph, node: Node) -> list[tuple[str, object]]:
    """mcu_bcast initializer for a two-input element-wise node (inputs 0 and 1 broadcast to output 0)."""
    out = shape(g, node.outputs[0])
    a_st = broadcast_strides(shape(g, node.inputs[0]), out)
    b_st = broadcast_strides(shape(g, node.inputs[1]), out)
    dims, (a_st, b_st) = collapse_dims(out, a_st, b_st)
    if not dims:
        dims, a_st, b_st = [1], [0], [0]
    return bcast_struct(dims, a_st, b_st)


def canonical_pool_window(node: Node, g: Graph) -> None:
    """Canonical window attributes for a pooling node; Global* pools use one window over the whole image."""
    if node.op.startswith("Global"):
        _, _, h, w = as4d(shape(g, node.inputs[0]))
        node.attrs.update(kernel=[h, w], strides=[1, 1], dilations=[1, 1], pads=[0, 0, 0, 0])
        return
    rank = len(shape(g, node.inputs[0])) - 2
    canonical_window(node, g, spatial_2d(node.attrs["kernel_shape"], rank, 1))


def quant_axis_view(node: Node, g: Graph, data_name: str) -> list[tuple[str, object]]:
    """[outer, channels, inner] of a (De)QuantizeLinear tensor: channels is the axis length when per axis, else 1."""
    dims = shape(g, data_name)
    scale = g.const(node.inputs[1])
    if scale.size == 1:
        return [("outer", 1), ("channels", 1), ("inner", numel(dims))]
    axis = node.attrs.get("axis", 1) % len(dims)
    return [("outer", numel(dims[:axis])), ("channels", dims[axis]), ("inner", numel(dims[axis + 1:]))]


def quant_params_constant(node: Node, g: Graph) -> bool:
    """Scale (input 1) and zero point (input 2, optional) must be constant initializers, without block_size."""
    zp_ok = len(node.inputs) < 3 or not node.inputs[2] or g.const(node.inputs[2]) is not None
    return g.const(node.inputs[1]) is not None and zp_ok and not node.attrs.get("block_size", 0)


def quant_arrays(node: Node, g: Graph) -> tuple[list[tuple[str, object]], dict[str, np.ndarray]]:
    """params fields scale/zero_point pointing at float32 and int32 constant arrays, and those arrays."""
    scale = g.const(node.inputs[1]).astype(np.float32).reshape(-1)
    zp_name = node.inputs[2] if len(node.inputs) > 2 else ""
    zp = g.const(zp_name).astype(np.int32).reshape(-1) if zp_name else np.zeros(scale.size, np.int32)
    keys = (f"{node.name}_scale", f"{node.name}_zero_point")
    return [("scale", ArrayRef(keys[0])), ("zero_point", ArrayRef(keys[1]))], {keys[0]: scale, keys[1]: zp}
