"""Pattern helpers shared by the QOperator and QDQ lowering passes."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node, Quant, Tensor
from ..quant import QRANGE


def single_consumer(g: Graph, name: str) -> Node | None:
    """The only node reading `name` (and `name` is not a graph output), else None."""
    readers = g.consumers(name)
    if len(readers) != 1 or name in g.outputs:
        return None
    return readers[0]


def const_quant(g: Graph, scale_name: str, zp_name: str | None, axis: int | None = None) -> Quant | None:
    """A Quant from constant scale / zero-point inputs, or None when either is not constant."""
    scale = g.const(scale_name)
    if scale is None:
        return None
    zp = g.const(zp_name) if zp_name else np.zeros(np.shape(scale), np.int32)
    if zp is None:
        return None
    return Quant(np.asarray(scale, np.float32), np.asarray(zp).astype(np.int32),
                 axis if np.size(scale) > 1 else None)


def dq_source(g: Graph, name: str) -> tuple[str, Quant, Node] | None:
    """If `name` is made by a DequantizeLinear with constant params: (quantized tensor, its Quant, the DQ node)."""
    node = g.producer(name)
    if node is None or node.op != "DequantizeLinear" or node.domain:
        return None
    q = const_quant(g, node.inputs[1], node.inputs[2] if len(node.inputs) > 2 else None, node.attrs.get("axis", 1))
    if q is None:
        return None
    return node.inputs[0], q, node


def q_sink(g: Graph, name: str) -> tuple[str, Quant, Node] | None:
    """If `name`'s only reader is a QuantizeLinear with constant per-tensor params: (output, Quant, Q node)."""
    node = single_consumer(g, name)
    if node is None or node.op != "QuantizeLinear" or node.domain:
        return None
    q = const_quant(g, node.inputs[1], node.inputs[2] if len(node.inputs) > 2 else None)
    if q is None or not q.per_tensor:
        return None
    return node.outputs[0], q, node


def out_range(g: Graph, name: str) -> tuple[int, int]:
    """The representable range of a quantized tensor's dtype."""
    return QRANGE[g.tensors[name].dtype]


def set_quant(g: Graph, name: str, q: Quant) -> None:
    """Record quantization parameters on a tensor (for show, report and later passes)."""
    g.tensors[name].quant = q


def zp_array(g: Graph, name: str | None, size: int) -> np.ndarray | None:
    """Per-channel int32 zero points from a constant input; None when absent or all zero."""
    if not name:
        return None
    zp = np.asarray(g.const(name)).astype(np.int32).reshape(-1)
    if not zp.any():
        return None
    return np.broadcast_to(zp, (size,)).astype(np.int32).copy()


def int8_weights(g: Graph, name: str, zp: np.ndarray | None) -> tuple[str, np.ndarray | None]:
    """Constant 8-bit weights as int8 (the kernels' type): uint8 codes and zero points shifted by -128."""
    data = g.const(name)
    if data.dtype != np.uint8:
        return name, zp
    shifted = (data.astype(np.int16) - 128).astype(np.int8)
    zp = np.zeros(data.shape[0], np.int32) if zp is None else np.asarray(zp, np.int32)
    return g.add_const(f"{name}_s8", shifted), zp - 128


#: Zero-point attributes of the 8-bit kernels: by input index, and for the output ("rq" = the Requant's fields).
KERNEL_ZP_ATTRS = {
    "conv2d_s8": ({0: ("x_zp",)}, "rq"),
    "conv_transpose_s8": ({0: ("x_zp",)}, "rq"),
    "fc_s8": ({0: ("x_zp",)}, "rq"),
    "avgpool_s8": ({0: ("x_zp",)}, ("y_zp", "qmin", "qmax")),
    "softmax_s8": ({0: ("x_zp",)}, ("y_zp", "qmin", "qmax")),
    "add_s8": ({0: ("a_zp",), 1: ("b_zp",)}, ("y_zp", "qmin", "qmax")),
    "mul_s8": ({0: ("a_zp",), 1: ("b_zp",)}, ("y_zp", "qmin", "qmax")),
    "lut8": ({0: ("x_lo",)}, ("y_shift",)),
}
#: Ops that pass 8-bit codes through unchanged (a uint8 tensor and their outputs change type together): the
#: reshapes, and the data movement that commutes with shifting every code by -128 (a max, a copy, a gather, a
#: linear Resize of codes, which interpolates around the tensor's zero point, shifted alike; a constant Pad's value
#: code is shifted with its data).
PASS_THROUGH = ("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Concat", "Where", "MaxPool", "Transpose", "Slice",
                "Gather", "Expand", "Tile", "DepthToSpace", "SpaceToDepth", "Resize", "Pad", "Split")


def _code_inputs(node: Node) -> list[str]:
    """The inputs whose codes a pass-through op passes on: every input of Concat, Where's two branches, else input 0."""
    return list(node.inputs) if node.op == "Concat" else list(node.inputs[1:3]) if node.op == "Where" \
        else list(node.inputs[:1])


def _code_outputs(node: Node) -> list[str]:
    """The outputs a pass-through op writes codes to: every output of Split, else output 0."""
    return [o for o in node.outputs if o] if node.op == "Split" else list(node.outputs[:1])


def _u8_component(g: Graph, start: str) -> set[str]:
    """The uint8 activations connected to `start` through pass-through ops."""
    seen, todo = {start}, [start]
    while todo:
        name = todo.pop()
        for node in g.consumers(name) + [n for n in (g.producer(name),) if n is not None]:
            if node.op not in PASS_THROUGH or node.domain:
                continue
            for other in _code_inputs(node) + _code_outputs(node):
                if other not in seen and g.tensors[other].dtype == "uint8" and not g.tensors[other].is_const:
                    seen.add(other)
                    todo.append(other)
    return seen


def _shift_zero_point_input(g: Graph, node: Node) -> None:
    """A QuantizeLinear/DequantizeLinear whose 8-bit side becomes int8: its zero point shifted by -128."""
    zp = g.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else np.zeros((), np.uint8)
    new = g.add_const(f"{node.name}_zp_s8", (np.asarray(zp).astype(np.int16) - 128).astype(np.int8))
    node.inputs = node.inputs[:2] + [new] + node.inputs[3:]


def _shift_kernel(node: Node, name: str) -> None:
    """Shift the zero-point attributes of the kernel's sides that read or write `name` by -128."""
    by_input, out_attrs = KERNEL_ZP_ATTRS[node.op]
    a = node.attrs
    for i, attrs in by_input.items():
        if i < len(node.inputs) and node.inputs[i] == name:
            for attr in attrs:
                a[attr] -= 128
    if name in node.outputs:
        if out_attrs == "rq":
            a["rq"].zp, a["rq"].qmin, a["rq"].qmax = a["rq"].zp - 128, a["rq"].qmin - 128, a["rq"].qmax - 128
        else:
            for attr in out_attrs:
                a[attr] -= 128


def _shift_ok(g: Graph, node: Node, names: set[str]) -> bool:
    """True when `node` can read/write the uint8 tensors `names` as int8 after a shift of its zero points."""
    if node.domain:
        return False
    if node.op in PASS_THROUGH:
        # a uint8 constant it passes on (a Concat operand) would keep its codes: no shift then
        return not any(g.tensors[i].is_const and g.tensors[i].dtype == "uint8" for i in _code_inputs(node) if i)
    if node.op in KERNEL_ZP_ATTRS:
        return True
    # (De)QuantizeLinear get a shifted constant zero point; a zero point computed at run time cannot be shifted
    zp_const = len(node.inputs) < 3 or not node.inputs[2] or g.const(node.inputs[2]) is not None
    if node.op == "QuantizeLinear":
        return zp_const and not names.intersection(node.inputs)
    if node.op == "DequantizeLinear":
        return zp_const and node.inputs[0] in names and not names.intersection(node.inputs[1:])
    return False


def _recode_boundary(g: Graph, name: str) -> str:
    """Give a uint8 graph input or output an int8 twin inside the graph, joined by a recode8 node; return it."""
    twin = f"{name}_s8"
    while twin in g.tensors:
        twin += "_"
    t = g.tensors[name]
    g.tensors[twin] = Tensor(twin, t.shape, "uint8", t.quant)
    for node in g.nodes:
        node.inputs = [twin if i == name else i for i in node.inputs]
        node.outputs = [twin if o == name else o for o in node.outputs]
    if name in g.inputs:
        g.nodes.insert(0, Node(f"{twin}_recode8", "recode8", [name], [twin]))
    else:
        g.nodes.append(Node(f"{twin}_recode8", "recode8", [twin], [name]))
    return twin


def to_int8_domain(g: Graph) -> None:
    """Run uint8 activations as int8: codes and zero points shifted by -128, which leaves every value and every
    result unchanged (the 8-bit kernels take int8 only). Whole groups of tensors connected through pass-through
    ops change together, when every node touching them can follow (int8 kernels, Q/DQ, pass-through ops); a uint8
    graph input or output among them stays uint8 behind a recode8 node. int8 kernels left on uint8 tensors are
    reported for check_supported."""
    done: set[str] = set()
    for name in list(g.tensors):
        t = g.tensors[name]
        if t.dtype != "uint8" or t.is_const or name in done:
            continue
        comp = _u8_component(g, name)
        done |= comp
        nodes = {id(n): n for c in comp for n in g.consumers(c) + [p for p in (g.producer(c),) if p is not None]}
        if (not all(_shift_ok(g, n, comp) for n in nodes.values())
                or not any(n.op in KERNEL_ZP_ATTRS for n in nodes.values())
                or comp & set(g.inputs) & set(g.outputs)):
            continue
        comp = {_recode_boundary(g, c) if c in g.inputs or c in g.outputs else c for c in comp}
        for n in nodes.values():
            if n.op in ("QuantizeLinear", "DequantizeLinear"):
                _shift_zero_point_input(g, n)
            elif n.op in KERNEL_ZP_ATTRS:
                for c in comp & (set(n.inputs) | set(n.outputs)):
                    _shift_kernel(n, c)
        for c in comp:
            g.tensors[c].dtype = "int8"
            if g.tensors[c].quant is not None:
                q = g.tensors[c].quant
                g.tensors[c].quant = Quant(q.scale, np.asarray(q.zero_point, np.int32) - 128, q.axis)
        for n in nodes.values():
            pad_value = n.inputs[2] if n.op == "Pad" and len(n.inputs) > 2 else ""
            if pad_value and n.inputs[0] in comp and g.tensors[pad_value].dtype == "uint8":
                n.inputs[2] = g.add_const(f"{pad_value}_s8", (g.const(pad_value).astype(np.int16) - 128).astype(np.int8))
    for node in g.nodes:
        for i, attrs in KERNEL_ZP_ATTRS.get(node.op, ({},))[0].items():
            name = node.inputs[i]
            if g.tensors[name].is_const and g.tensors[name].dtype == "uint8":
                for attr in attrs:
                    node.attrs[attr] -= 128
                node.inputs[i] = g.add_const(f"{name}_s8", (g.const(name).astype(np.int16) - 128).astype(np.int8))
    for node in g.nodes:
        if node.op in KERNEL_ZP_ATTRS:
            for name in [i for i in node.inputs if i] + node.outputs:
                if g.tensors[name].dtype == "uint8":
                    comp = _u8_component(g, name)
                    others = sorted({f"'{n.name}' ({n.op})" for c in comp for n in g.consumers(c) + [g.producer(c)]
                                     if n is not None and not _shift_ok(g, n, comp)})
                    node.attrs["_unsupported"] = [
                        f"the uint8 tensor '{name}' cannot run as int8, the only type of mcucomp's 8-bit kernels, "
                        f"because {', '.join(others) or 'a graph input that is also an output'} reads or writes it as "
                        "uint8: quantize the model with int8 activations, or put a DequantizeLinear/QuantizeLinear "
                        "pair between those nodes"]
                    break
