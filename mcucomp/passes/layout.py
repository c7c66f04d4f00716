"""Channels-last layout: run the nodes whose kernels can on N, spatial..., C tensors, converting only at the borders.

Every node whose kernel says `channels_last()` is True runs channels-last (attrs["layout"] = "nhwc"), except the
LAYOUT_FOLLOWERS: kernels as fast in either layout (pools, adds, concats, splits, element-wise tables, resizes,
strided copies, per-tensor (de)quantization), which join channels-last (one at a time, or a chain of followers
joined by tensors at once) only where that converts no more bytes and then adds no more conversion nodes (ties go
channels-last), so they never cost a transpose by themselves, and a conversion at a float graph I/O moves to the
8-bit side of its (De)QuantizeLinear. A 3-D or 4-D activation takes its producer's layout (a graph input the
`io_layout` option's); where a reader wants the other layout, one conversion per tensor and layout is inserted:
a reshape (a free view) when the channel count or the spatial size is 1, else a transpose of the tensor as it is
(int8 where the data is int8).
A Flatten/Reshape to (N, rest) read only by fc_s8 / gemm_f32 with constant weights takes a channels-last input as
it is: the weights' input rows are permuted at compile time instead. Graph outputs keep the `io_layout` option's
layout. Constants keep ONNX order (each kernel packs its weights in its own call()).
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node, Tensor
from ..ops import REGISTRY
from ..ops._layout import NHWC, is_image, to_nchw_perm, to_nhwc_perm

#: Kernels that run as fast in either layout: channels-last only where it saves conversions (see module doc).
LAYOUT_FOLLOWERS = ("avgpool_s8", "maxpool_f32", "add_s8", "mul_s8", "concat", "split", "lut8", "recode8", "clip",
                    "resize", "pad", "slice", "expand", "tile", "depth_to_space", "quantize_linear",
                    "dequantize_linear")

IO_LAYOUTS = {"nchw": "", "nhwc": NHWC}  # the io_layout option → Tensor.layout of image graph I/O
ANY = "any"  # a reader that takes either layout (a Flatten into a matrix product, see _absorbs_layout)


def _free(t: Tensor) -> bool:
    """True when both layouts store the same bytes: one channel, or one spatial position."""
    dims = t.onnx_shape
    return dims[1] == 1 or int(np.prod(dims[2:])) == 1


def _weight_axis(node: Node, g: Graph, x: str) -> int | None:
    """The axis of the constant weight of a matrix product reading `x` as its (N, K) input that runs over K;
    None when the node is not such a product."""
    if node.inputs[0] != x or node.inputs.count(x) != 1 or len(node.inputs) < 2 or g.const(node.inputs[1]) is None:
        return None
    w = g.const(node.inputs[1])
    if w.ndim != 2:
        return None
    if node.op == "fc_s8":
        return 1
    if node.op == "gemm_f32" and len(g.tensors[node.outputs[0]].shape) == 2:
        transposed = node.attrs["onnx_op"] == "Gemm" and node.attrs.get("transB", 0)
        if node.attrs["onnx_op"] == "Gemm" and node.attrs.get("transA", 0):
            return None
        return 1 if transposed else 0
    return None


def _absorbs_layout(node: Node, g: Graph) -> bool:
    """True for a reshape of an image to (N, rest) read only by matrix products whose weights can be permuted."""
    if node.op != "reshape":
        return False
    x, y = g.tensors[node.inputs[0]], g.tensors[node.outputs[0]]
    readers = g.consumers(y.name)
    return (is_image(x.shape) and len(y.shape) == 2 and y.shape[0] == x.shape[0] and y.name not in g.outputs
            and bool(readers) and all(_weight_axis(r, g, y.name) is not None for r in readers))


class _Plan:
    """Which nodes run channels-last, and the layout every image activation is stored in and read in."""

    def __init__(self, g: Graph, io_layout: str):
        self.g, self.io = g, io_layout
        self.producer = {o: n for n in g.nodes for o in n.outputs if o}
        self.readers: dict[str, list[Node]] = {}
        for n in g.nodes:
            for i in dict.fromkeys(n.inputs):
                if i and not g.tensors[i].is_const:
                    self.readers.setdefault(i, []).append(n)
        self.absorbers = {n.name for n in g.nodes if _absorbs_layout(n, g)}
        self.nhwc: set[str] = set()

    def stored(self, name: str) -> str:
        """The layout `name` is stored in: its producer's, or io_layout's for a graph input."""
        if not is_image(self.g.tensors[name].shape):
            return ""
        node = self.producer.get(name)
        if node is None:
            return self.io
        return NHWC if node.name in self.nhwc else ""

    def reads(self, reader: Node, name: str) -> str:
        """The layout `reader` reads image `name` in: ANY for an absorber, else the layout it runs in."""
        return ANY if reader.name in self.absorbers else NHWC if reader.name in self.nhwc else ""

    def wanted(self, name: str) -> set[str]:
        """The layouts `name`'s readers (and the graph output, when it is one) read it in; ANY for absorbers."""
        if not is_image(self.g.tensors[name].shape):
            return {""}
        out = {self.reads(r, name) for r in self.readers.get(name, [])}
        if name in self.g.outputs:
            out.add(self.io)
        return out

    def conversions(self, name: str) -> list[str]:
        """The layouts `name` must be converted to for its readers."""
        have = self.stored(name)
        return sorted(w for w in self.wanted(name) if w not in (have, ANY))

    def cost(self, nodes: list[Node]) -> tuple[int, int]:
        """Bytes copied by conversions (transposes, and free reshapes into a graph output, which own their bytes),
        then conversion nodes, on the tensors `nodes` read or write."""
        names = {n for node in nodes for n in node.inputs + node.outputs if n and not self.g.tensors[n].is_const}
        images = [self.g.tensors[n] for n in names if is_image(self.g.tensors[n].shape)]
        copied = sum(t.nbytes for t in images for to in self.conversions(t.name)
                     if not _free(t) or (t.name in self.g.outputs and to == self.io))
        return copied, sum(len(self.conversions(t.name)) for t in images)

    def chains(self, followers: list[Node]) -> list[list[Node]]:
        """The followers joined by tensors (one writes what another reads), as groups of two or more: a Split
        whose outputs meet again in a Concat converts more tensors than one conversion before or after them when
        only one of the two moves, so they are tried together."""
        group = {n.name: [n] for n in followers}
        for node in followers:
            for reader in (r for o in node.outputs if o for r in self.readers.get(o, []) if r.name in group):
                a, b = group[node.name], group[reader.name]
                if a is not b:
                    a.extend(b)
                    for member in b:
                        group[member.name] = a
        unique = {id(g): g for g in group.values()}
        return [g for g in unique.values() if len(g) > 1]

    def choose(self) -> None:
        """Every capable node channels-last; followers, one at a time or a joined chain at once, only where that
        converts no more bytes (to a fixpoint)."""
        capable = [n for n in self.g.nodes if n.op in REGISTRY and "_unsupported" not in n.attrs
                   and REGISTRY[n.op].channels_last(n, self.g)]
        self.nhwc = {n.name for n in capable if n.op not in LAYOUT_FOLLOWERS}
        followers = [n for n in capable if n.op in LAYOUT_FOLLOWERS]
        changed = True
        while changed:
            changed = False
            rest = [n for n in followers if n.name not in self.nhwc]
            for nodes in [[n] for n in rest] + self.chains(rest):
                names = {n.name for n in nodes}
                if names & self.nhwc:
                    continue
                before = self.cost(nodes)
                self.nhwc |= names
                if self.cost(nodes) > before:
                    self.nhwc -= names
                else:
                    changed = True


def _fresh(g: Graph, base: str) -> str:
    """A tensor and node name not used yet, derived from `base`."""
    used = set(g.tensors) | {n.name for n in g.nodes}
    name, k = base, 0
    while name in used:
        k += 1
        name = f"{base}_{k}"
    return name


def _convert(g: Graph, src: str, dst: str, to: str) -> Node:
    """The node that writes `src` (stored in the other layout) as `dst` stored in layout `to`."""
    t = g.tensors[src]
    rank = len(t.shape)
    g.tensors[dst] = Tensor(dst, t.onnx_shape, t.dtype, t.quant, layout="")
    if to == NHWC:
        g.tensors[dst].shape, g.tensors[dst].layout = (t.shape[0], *t.shape[2:], t.shape[1]), NHWC
    name = _fresh(g, f"{dst}_layout")
    if _free(t):
        return Node(name, "reshape", [src], [dst])
    return Node(name, "transpose", [src], [dst], {"perm": to_nhwc_perm(rank) if to == NHWC else to_nchw_perm(rank)})


def _permute_weights(g: Graph, flatten: Node) -> None:
    """The matrix products after `flatten` read its channels-last input's order: permute their weights' K axis."""
    _, c, *spatial = g.tensors[flatten.inputs[0]].onnx_shape
    pixels = int(np.prod(spatial))
    order = np.arange(c * pixels).reshape(c, pixels).T.reshape(-1)  # stored index s*C + c holds ONNX index c*S + s
    for reader in g.consumers(flatten.outputs[0]):
        axis = _weight_axis(reader, g, flatten.outputs[0])
        w = g.tensors[reader.inputs[1]]
        reader.inputs[1] = g.add_const(f"{w.name}_nhwc", np.take(w.data, order, axis=axis), w.quant)


def _reroute(g: Graph, plan: _Plan, name: str, inserted: list) -> str:
    """Give every reader of `name` the tensor in the layout it reads, adding conversions; return the layout `name`
    is stored in (a graph output converted into io_layout is written under a new internal name first)."""
    have, src, provided = plan.stored(name), name, {}
    if name in g.outputs and name not in g.inputs and have != plan.io and is_image(g.tensors[name].shape):
        src = _fresh(g, f"{name}_{have or 'nchw'}")
        t = g.tensors[name]
        g.tensors[src] = Tensor(src, t.shape, t.dtype, t.quant)
        producer = plan.producer[name]
        producer.outputs = [src if o == name else o for o in producer.outputs]
        inserted.append((g.nodes.index(producer) + 1, src, name, plan.io))
        provided[plan.io] = name
    for to in plan.conversions(name):
        if to not in provided:
            provided[to] = _fresh(g, f"{name}_{to or 'nchw'}")
            g.tensors[provided[to]] = Tensor(provided[to], (), "")  # reserves the name; _convert fills it in
            producer = plan.producer.get(name)
            inserted.append((g.nodes.index(producer) + 1 if producer else 0, src, provided[to], to))
    for reader in plan.readers.get(name, []):
        want = plan.reads(reader, name) if is_image(g.tensors[name].shape) else have
        use = src if want in (have, ANY) else provided[want]
        reader.inputs = [use if i == name else i for i in reader.inputs]
    return have if src == name else plan.io, src, have


def run(g: Graph, options: dict) -> Graph:
    """Choose the layout of every node and image activation, then insert the conversions at the borders."""
    plan = _Plan(g, IO_LAYOUTS[options.get("io_layout", "nchw")])
    plan.choose()
    for node in g.nodes:
        if node.name in plan.nhwc:
            node.attrs["layout"] = NHWC
    inserted: list[tuple[int, str, str, str]] = []
    layouts = {}
    for name in list(g.inputs) + [o for n in list(g.nodes) for o in n.outputs if o]:
        layouts[name], src, layouts_src = _reroute(g, plan, name, inserted)
        layouts[src] = layouts_src
    for node in g.nodes:
        if node.name in plan.absorbers and layouts.get(node.inputs[0]) == NHWC and not _free(g.tensors[node.inputs[0]]):
            _permute_weights(g, node)
    for name, layout in layouts.items():
        t = g.tensors[name]
        if layout == NHWC and t.layout != NHWC:
            t.shape, t.layout = (t.shape[0], *t.shape[2:], t.shape[1]), NHWC
    for position, src, dst, to in sorted(inserted, key=lambda item: -item[0]):
        g.nodes.insert(position, _convert(g, src, dst, to))
    return g
