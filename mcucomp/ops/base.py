"""What every kernel op provides: lowering constraints, the C call, MACs, scratch and in-place rules."""

from __future__ import annotations

import abc

from dataclasses import dataclass

from ..ir import Graph, Node
from ._call import ArrayRef, KernelCall  # noqa: F401 (the ops take the call types from here with KernelOp)
from ._cost import element_terms


@dataclass(frozen=True)
class OverlapMargin:
    """Output 0 may be placed over input 0 when floor <= offset(out) - offset(in) <= margin (bytes; memplan.Overlap)."""

    margin: int
    floor: int | None = None


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
    #: Code paths that run another path's loops and so share its fitted cycle coefficients (path -> that path).
    cost_families: dict = {}
    #: The registry op whose C function this op calls and whose fitted cycle coefficients its code paths use (empty:
    #: its own); the estimator and the coverage test (tests/perf/test_estimate_coverage.py) look it up there.
    cost_kernel: str = ""
    #: The code paths `cost_terms` can name, each of which the calibration set must exercise on every core that
    #: runs the op (tests/perf/test_estimate_coverage.py); empty: the op runs no code of its own (a view, or a
    #: call of `cost_kernel`'s C).
    cost_paths: tuple[str, ...] = ("default",)
    #: Declared code paths that no lowering gives a node (path -> why), so that no calibration model can run them:
    #: the coverage test leaves them out, and an estimate of such a node falls back to the generic element model.
    unlowered_paths: dict = {}
    #: Only boards with this accelerator (a board's `npu` table) run the op: the cores that take it are those of
    #: such boards, not every core the estimator is fitted for (empty: any board, any core).
    needs_npu: str = ""
    #: True when the kernel's float dot products multiply-accumulate with MCU_F32_MAC (runtime_c/mcu_rt.h), so the
    #: compile's float_mac form decides their rounding (report.json float_mac.layers).
    uses_float_mac: bool = False

    def lower(self, node: Node, g: Graph) -> None:
        """Rewrite an ONNX node's attributes into this kernel's canonical form (in place)."""
        node.op = self.name

    @abc.abstractmethod
    def call(self, node: Node, g: Graph) -> KernelCall:
        """The C call for a lowered node."""

    def macs(self, node: Node, g: Graph) -> int:
        """Multiply-accumulates per inference."""
        return 0

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """The code path the C takes for this node and its loop counts, the cycle estimator's terms (default: one
        call, the input and output elements; kernels whose loops differ count them in their own file)."""
        return "default", element_terms(node, g)

    def aliases_input(self, node: Node, g: Graph) -> bool:
        """True when the output is a view of input 0 and needs no kernel call."""
        return False

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """How output 0 may overlap input 0 once input 0 dies at this node, proven from the C loop; None: not at all."""
        return None

    def scratch_optional(self, node: Node, g: Graph) -> bool:
        """True when the node's scratch only buys speed: setting node.attrs["scratch"] = False selects a variant
        without one (memory.choose_scratch decides, from the planned arena, before anything reads the calls)."""
        return False

    def channels_last(self, node: Node, g: Graph) -> bool:
        """True when this node can run on channels-last tensors (the layout pass then sets attrs["layout"] = "nhwc",
        stores its activations as N, spatial..., C, and the call reads that layout)."""
        return False


def failed_constraints(op: KernelOp, node: Node, g: Graph) -> list[str]:
    """The messages of every constraint the node breaks."""
    return [" ".join(c.__doc__.split()) for c in op.constraints if not c(node, g)]


def shape(g: Graph, name: str) -> tuple[int, ...]:
    """Shape of a tensor by name, in its stored order."""
    return g.tensors[name].shape


def onnx_shape(g: Graph, name: str) -> tuple[int, ...]:
    """Shape of a tensor by name in ONNX order (N, C, spatial...), also when it is stored channels-last."""
    return g.tensors[name].onnx_shape


def as4d(dims: tuple[int, ...]) -> tuple[int, int, int, int]:
    """View an N,C[,H[,W]] shape as N,C,H,W (1-D spatial becomes H=1)."""
    dims = tuple(dims)
    if len(dims) == 3:
        return (dims[0], dims[1], 1, dims[2])
    if len(dims) == 2:
        return (dims[0], dims[1], 1, 1)
    return dims  # type: ignore[return-value]


def all_float32(node: Node, g: Graph) -> bool:
    """Every input and output must be float32 (int8 arrives through QDQ or QOperator lowering)."""
    names = [i for i in node.inputs if i] + node.outputs
    return all(g.tensors[n].dtype == "float32" for n in names)


MAX_RANK = 6  # MCU_MAX_RANK in runtime_c/mcu_rt.h

#: IR dtype → the MCU_DT_* code (ONNX TensorProto numbering) of kernels that take a `dtype` param.
DTYPE_CODES = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7, "bool": 9,
               "float64": 11, "uint32": 12, "uint64": 13}


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
