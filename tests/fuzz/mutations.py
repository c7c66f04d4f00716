"""Seeded mutations of real ONNX models: byte-level (bit flips, truncation, splices) and structural (protobuf-level).

Every mutator takes a `random.Random` and returns a description of what it did; structural ones edit a ModelProto in
place, byte-level ones map bytes to bytes. Same seed, same mutation."""

from __future__ import annotations

import random

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

#: Names that must never reach generated C or an error message unescaped.
HOSTILE_NAMES = ("*/ int evil; /*", "a\nb", "nul\0byte", "caf\u00e9_\u65e5\u672c", "line\u2028sep", "../../etc/x",
                 "#define X 1", "??/", "\"quoted\"", "back\\slash", "x" * 3000, " ", "1leading_digit", "int",
                 "tab\tbed", "\x7f\x01ctl")
EXTREME_INTS = (0, -1, -2, 1, 2, 3, 7, 255, 2**31 - 1, 2**31, -2**31, 2**40, -2**62, 2**62)
#: Floats at the edges: zeros, negative, NaN, infinities, subnormals (1e-45, 1e-39), the smallest normal float32, a
#: dead channel's scale, the largest float32, one that overflows float32, and an ordinary one.
EXTREME_FLOATS = (0.0, -0.0, -1.0, float("nan"), float("inf"), float("-inf"), 1e-45, 1e-39, 1.2e-38, 1e-13, 3.4e38,
                  1e300, 2.0)
ELEM_TYPES = (TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8, TensorProto.INT16, TensorProto.INT32,
              TensorProto.INT64, TensorProto.BOOL, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.STRING,
              TensorProto.BFLOAT16, TensorProto.UINT64, TensorProto.COMPLEX64, 0, 99)
KNOWN_ATTRS = ("group", "axis", "strides", "pads", "kernel_shape", "dilations", "auto_pad", "perm", "alpha",
               "keepdims", "axes", "ceil_mode", "count_include_pad", "transB", "to", "blocksize", "mode")
OPSETS = (0, 1, 6, 7, 9, 10, 12, 13, 17, 21, 28, 29, 99, -1, 2**40)
UNKNOWN_OPS = ("FancyOp", "", "Conv2D", "conv", "Loop", "If", "NonMaxSuppression", "StringNormalizer", "Scan")
DOMAINS = ("com.example", "com.microsoft", "ai.onnx.ml", "ai.onnx", "", "x" * 200)


# ---------------------------------------------------------------------------------------------------- byte level
def flip_bits(rng: random.Random, raw: bytes) -> tuple[bytes, str]:
    """Flip 1 to 16 random bits."""
    data = bytearray(raw)
    count = rng.randint(1, 16)
    for _ in range(count):
        pos = rng.randrange(len(data))
        data[pos] ^= 1 << rng.randrange(8)
    return bytes(data), f"flip {count} bits"


def truncate(rng: random.Random, raw: bytes) -> tuple[bytes, str]:
    """Cut the file at a random length."""
    cut = rng.randrange(len(raw))
    return raw[:cut], f"truncate to {cut} of {len(raw)} bytes"


def splice(rng: random.Random, raw: bytes, other: bytes) -> tuple[bytes, str]:
    """Replace a random span by a random span of another model file."""
    a, b = sorted(rng.randrange(len(raw)) for _ in range(2))
    c = rng.randrange(len(other))
    d = min(len(other), c + rng.randint(1, 4096))
    return raw[:a] + other[c:d] + raw[b:], f"splice [{a}:{b}] <- other[{c}:{d}]"


def overwrite_bytes(rng: random.Random, raw: bytes) -> tuple[bytes, str]:
    """Overwrite a short random span with random bytes (often a varint or a length prefix)."""
    data = bytearray(raw)
    pos = rng.randrange(len(data))
    n = rng.randint(1, 8)
    data[pos:pos + n] = bytes(rng.randrange(256) for _ in range(n))
    return bytes(data), f"overwrite {n} bytes at {pos}"


def duplicate_span(rng: random.Random, raw: bytes) -> tuple[bytes, str]:
    """Repeat a random span in place (repeated protobuf fields, broken lengths)."""
    a = rng.randrange(len(raw))
    b = min(len(raw), a + rng.randint(1, 512))
    return raw[:b] + raw[a:b] + raw[b:], f"duplicate [{a}:{b}]"


BYTE_MUTATIONS = (flip_bits, truncate, overwrite_bytes, duplicate_span)


# ---------------------------------------------------------------------------------------------------- structural
def _tensor_names(m: onnx.ModelProto) -> list[str]:
    """Every tensor name the graph mentions."""
    g = m.graph
    names = {i.name for i in g.input} | {o.name for o in g.output} | {t.name for t in g.initializer}
    names |= {n for node in g.node for n in list(node.input) + list(node.output) if n}
    return sorted(names)


def _node(rng: random.Random, m: onnx.ModelProto) -> onnx.NodeProto | None:
    """A random node, or None for an empty graph."""
    return rng.choice(m.graph.node) if len(m.graph.node) else None


def drop_node(rng, m):
    """Remove a node (its outputs become dangling)."""
    if not m.graph.node:
        return "no node"
    k = rng.randrange(len(m.graph.node))
    name = m.graph.node[k].name
    del m.graph.node[k]
    return f"drop node {k} {name!r}"


def duplicate_node(rng, m):
    """Insert a copy of a node (two producers of one name)."""
    node = _node(rng, m)
    if node is None:
        return "no node"
    copy = onnx.NodeProto()
    copy.CopyFrom(node)
    m.graph.node.insert(rng.randrange(len(m.graph.node) + 1), copy)
    return f"duplicate node {node.name!r}"


def swap_nodes(rng, m):
    """Swap two nodes (not topologically sorted any more)."""
    if len(m.graph.node) < 2:
        return "too few nodes"
    a, b = rng.sample(range(len(m.graph.node)), 2)
    na, nb = onnx.NodeProto(), onnx.NodeProto()
    na.CopyFrom(m.graph.node[a])
    nb.CopyFrom(m.graph.node[b])
    m.graph.node[a].CopyFrom(nb)
    m.graph.node[b].CopyFrom(na)
    return f"swap nodes {a} and {b}"


def rewire_input(rng, m):
    """Point a node input at another tensor (wrong shapes, dtypes, or a later node's output: a cycle)."""
    node = _node(rng, m)
    if node is None or not node.input:
        return "no input"
    k = rng.randrange(len(node.input))
    new = rng.choice(_tensor_names(m) + ["", "nonexistent"])
    node.input[k] = new
    return f"node {node.name!r} input {k} -> {new!r}"


def make_cycle(rng, m):
    """Feed a node with the output of itself or a later node."""
    nodes = m.graph.node
    if not nodes:
        return "no node"
    a = rng.randrange(len(nodes))
    b = rng.randrange(a, len(nodes))
    if not nodes[a].input or not nodes[b].output:
        return "no edge"
    nodes[a].input[0] = nodes[b].output[0]
    return f"cycle: node {a} input 0 <- node {b} output 0"


def _dims_of(rng, m) -> tuple[onnx.ValueInfoProto | None, str]:
    """A random graph input, output or value_info with a tensor type."""
    pool = [v for v in list(m.graph.input) + list(m.graph.output) + list(m.graph.value_info)
            if v.type.HasField("tensor_type")]
    return (rng.choice(pool), "value") if pool else (None, "")


def change_dims(rng, m):
    """Set dims of a graph input/output to extreme values (zero, negative, huge, symbolic) or change the rank."""
    vi, _ = _dims_of(rng, m)
    if vi is None:
        return "no value info"
    shape = vi.type.tensor_type.shape
    choice = rng.randrange(4)
    if choice == 0 and len(shape.dim):
        d = shape.dim[rng.randrange(len(shape.dim))]
        value = rng.choice(EXTREME_INTS)
        d.Clear()
        d.dim_value = value
        return f"{vi.name!r} dim -> {value}"
    if choice == 1 and len(shape.dim):
        d = shape.dim[rng.randrange(len(shape.dim))]
        d.Clear()
        d.dim_param = rng.choice(["N", "", "x" * 100, "*/"])
        return f"{vi.name!r} dim -> symbolic {d.dim_param!r}"
    if choice == 2:
        shape.dim.add().dim_value = rng.choice((1, 2, 0, 2**33))
        return f"{vi.name!r} rank +1"
    if len(shape.dim):
        del shape.dim[rng.randrange(len(shape.dim))]
        return f"{vi.name!r} rank -1"
    vi.type.tensor_type.ClearField("shape")
    return f"{vi.name!r} shape cleared"


def change_dtype(rng, m):
    """Change the element type of a graph input/output (or an initializer's declared type)."""
    if rng.random() < 0.3 and len(m.graph.initializer):
        t = rng.choice(m.graph.initializer)
        t.data_type = rng.choice(ELEM_TYPES)
        return f"initializer {t.name!r} data_type -> {t.data_type}"
    vi, _ = _dims_of(rng, m)
    if vi is None:
        return "no value info"
    vi.type.tensor_type.elem_type = rng.choice(ELEM_TYPES)
    return f"{vi.name!r} elem_type -> {vi.type.tensor_type.elem_type}"


def _extreme_attr(rng, name: str) -> onnx.AttributeProto:
    """An attribute called name with an extreme value of a random kind."""
    kind = rng.randrange(6)
    if kind == 0:
        return helper.make_attribute(name, rng.choice(EXTREME_INTS))
    if kind == 1:
        return helper.make_attribute(name, [rng.choice(EXTREME_INTS) for _ in range(rng.randint(1, 9))])
    if kind == 2:
        return helper.make_attribute(name, rng.choice(EXTREME_FLOATS))
    if kind == 3:
        return helper.make_attribute(name, rng.choice(["", "SAME_UPPER", "VALID", "NOTSET", "bogus", "*/\n"]))
    if kind == 4:
        return helper.make_attribute(name, [], attr_type=onnx.AttributeProto.INTS)
    return helper.make_attribute(name, [rng.choice(EXTREME_FLOATS) for _ in range(rng.randint(1, 4))])


def attribute_extreme(rng, m):
    """Set an existing or a known attribute of a node to an extreme value (or drop one)."""
    node = _node(rng, m)
    if node is None:
        return "no node"
    if node.attribute and rng.random() < 0.2:
        k = rng.randrange(len(node.attribute))
        name = node.attribute[k].name
        del node.attribute[k]
        return f"node {node.name!r} drop attribute {name}"
    try:
        schema_attrs = sorted(onnx.defs.get_schema(node.op_type, domain=node.domain).attributes)
    except Exception:  # no schema (unknown op or domain): only the generic names
        schema_attrs = []
    pool = [a.name for a in node.attribute] + schema_attrs
    name = rng.choice(pool) if pool and rng.random() < 0.9 else rng.choice(KNOWN_ATTRS)
    attr = _extreme_attr(rng, name)
    kept = [a for a in node.attribute if a.name != name]
    del node.attribute[:]
    node.attribute.extend(kept + [attr])
    return f"node {node.name!r} ({node.op_type}) {name} -> {helper.get_attribute_value(attr)!r}"[:300]


def initializer_size(rng, m):
    """Make an initializer's data disagree with its dims, or its dims extreme."""
    if not m.graph.initializer:
        return "no initializer"
    t = rng.choice(m.graph.initializer)
    choice = rng.randrange(4)
    if choice == 0 and t.raw_data:
        t.raw_data = t.raw_data[: rng.randrange(len(t.raw_data))]
        return f"initializer {t.name!r} raw_data truncated"
    if choice == 1 and t.raw_data:
        t.raw_data = t.raw_data + t.raw_data[: rng.randint(1, 64)]
        return f"initializer {t.name!r} raw_data extended"
    if choice == 2 and len(t.dims):
        k = rng.randrange(len(t.dims))
        t.dims[k] = rng.choice(EXTREME_INTS)
        return f"initializer {t.name!r} dim {k} -> {t.dims[k]}"
    t.dims.append(rng.choice((1, 2, 0)))
    return f"initializer {t.name!r} rank +1"


def bad_quant_params(rng, m):
    """Set a scale of a Q/DQ/QLinear node to 0, negative, NaN, Inf, subnormal, tiny or huge, or change a zero point's
    type."""
    inits = {t.name: t for t in m.graph.initializer}
    pairs = [(n, i) for n in m.graph.node if n.op_type.startswith(("Quantize", "Dequantize", "QLinear"))
             for i in n.input if i in inits]
    if not pairs:
        return "no quantization parameters"
    node, name = rng.choice(pairs)
    t = inits[name]
    arr = numpy_helper.to_array(t)
    if arr.dtype == np.float32:
        value = rng.choice(EXTREME_FLOATS)
        with np.errstate(over="ignore"):
            new = np.full(arr.shape, value, np.float32)
    else:
        value = rng.choice((-129, 128, 256, 300, -1, 2**20))
        new = np.full(arr.shape, value, rng.choice((np.int32, np.int64) if value > 2**15 else (np.int16, np.int32)))
    t.CopyFrom(numpy_helper.from_array(new, name))
    return f"node {node.name!r} ({node.op_type}) {name!r} -> {new.dtype} {value}"


def change_opset(rng, m):
    """Set the default domain's opset to another or absurd version, or import an unknown domain."""
    if rng.random() < 0.3:
        m.opset_import.add(domain=rng.choice(DOMAINS), version=rng.choice(OPSETS))
        return f"extra opset import {m.opset_import[-1].domain[:20]!r} v{m.opset_import[-1].version}"
    version = rng.choice(OPSETS)
    for imp in m.opset_import:
        if imp.domain in ("", "ai.onnx"):
            imp.version = version
    return f"opset -> {version}"


def unknown_op(rng, m):
    """Rename a node's op or move it into another domain."""
    node = _node(rng, m)
    if node is None:
        return "no node"
    if rng.random() < 0.5:
        node.op_type = rng.choice(UNKNOWN_OPS)
        return f"node {node.name!r} op -> {node.op_type!r}"
    node.domain = rng.choice(DOMAINS)
    return f"node {node.name!r} domain -> {node.domain[:20]!r}"


def duplicate_names(rng, m):
    """Give two tensors or two nodes the same name."""
    g = m.graph
    if rng.random() < 0.5 and len(g.node) >= 2:
        a, b = rng.sample(list(g.node), 2)
        b.name = a.name
        return f"node name {a.name!r} twice"
    names = _tensor_names(m)
    if len(names) < 2:
        return "too few names"
    old, new = rng.sample(names, 2)
    _rename_tensor(m, old, new)
    return f"tensor {old!r} renamed to existing {new!r}"


def _rename_tensor(m: onnx.ModelProto, old: str, new: str) -> None:
    """Rename a tensor everywhere it appears."""
    g = m.graph
    for node in g.node:
        for field in (node.input, node.output):
            for k, n in enumerate(field):
                if n == old:
                    field[k] = new
    for v in list(g.input) + list(g.output) + list(g.value_info) + list(g.initializer):
        if v.name == old:
            v.name = new


def hostile_names(rng, m):
    """Rename a tensor, a node or the graph to a hostile name (comment ends, newlines, NUL, non-ASCII, long)."""
    new = rng.choice(HOSTILE_NAMES)
    target = rng.randrange(4)
    if target == 0 and len(m.graph.node):
        rng.choice(m.graph.node).name = new
        return f"node name -> {new[:40]!r}"
    if target == 1:
        m.graph.name = new
        m.graph.doc_string = new
        return f"graph name/doc -> {new[:40]!r}"
    names = _tensor_names(m)
    if not names:
        return "no tensor"
    old = rng.choice(names)
    _rename_tensor(m, old, new)
    return f"tensor {old!r} -> {new[:40]!r}"


def empty_names(rng, m):
    """Set a node output, input, or a graph input/output name to ''."""
    node = _node(rng, m)
    if node is None:
        return "no node"
    if rng.random() < 0.5 and node.output:
        old = node.output[0]
        _rename_tensor(m, old, "")
        return f"tensor {old!r} -> ''"
    node.name = ""
    return "node name -> ''"


def graph_outputs(rng, m):
    """Remove all outputs, add an intermediate or an initializer as an output, or declare an output twice."""
    g = m.graph
    choice = rng.randrange(4)
    if choice == 0:
        del g.output[:]
        return "no graph outputs"
    if choice == 1 and g.initializer:
        t = rng.choice(g.initializer)
        g.output.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
        return f"initializer {t.name!r} as output"
    if choice == 2 and g.output:
        copy = onnx.ValueInfoProto()
        copy.CopyFrom(g.output[0])
        g.output.append(copy)
        return "output declared twice"
    node = _node(rng, m)
    if node is None or not node.output:
        return "no node"
    g.output.append(helper.make_tensor_value_info(node.output[0], TensorProto.FLOAT, None))
    return f"intermediate {node.output[0]!r} as output"


#: Mutators with weights: the ones that keep the graph well-formed get more turns, so that more cases get past
#: onnx.checker into mcucomp's own stages.
STRUCTURAL_MUTATIONS = ((drop_node, 1), (duplicate_node, 1), (swap_nodes, 1), (rewire_input, 2), (make_cycle, 1),
                        (change_dims, 3), (change_dtype, 2), (attribute_extreme, 6), (initializer_size, 2),
                        (bad_quant_params, 4), (change_opset, 2), (unknown_op, 2), (duplicate_names, 1),
                        (hostile_names, 5), (empty_names, 1), (graph_outputs, 2))


def shape_option(rng: random.Random, m: onnx.ModelProto) -> list[str]:
    """A --shape option for the model's first graph input: its own dims changed a little or to an extreme, or
    a malformed spelling."""
    inits = {t.name for t in m.graph.initializer}
    inputs = [i for i in m.graph.input if i.name not in inits]
    if not inputs:
        return []
    value = inputs[0]
    dims = [d.dim_value or 1 for d in value.type.tensor_type.shape.dim]
    choice = rng.randrange(5)
    if choice == 0 and dims:
        dims[rng.randrange(len(dims))] = rng.choice((1, 2, 3, 64, 4096, 2**31 - 1, 2**31, 0))
    elif choice == 1:
        dims = dims + [1] if rng.random() < 0.5 else dims[:-1]
    elif choice == 2 and dims:
        dims[rng.randrange(len(dims))] *= 2
    elif choice == 3:
        return ["--shape", rng.choice([f"{value.name}=", f"{value.name}=1x-1", "=1x2", f"{value.name}=\uff11x2",
                                       f"{value.name}=1x2x", f"nope={'x'.join(map(str, dims))}"])]
    return ["--shape", f"{value.name}={'x'.join(str(d) for d in dims)}"]
