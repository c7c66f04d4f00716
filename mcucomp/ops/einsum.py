"""Einsum with one or two operands (matrix products, batched products, inner products, sums, transposes, diagonals,
traces; explicit or implicit output, ellipsis broadcasting) on float32, float64 and integer tensors. MatMul on
float64 and integer tensors runs here too, as the equivalent equation (float32 MatMul is gemm_f32's)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._walk import INT_DTYPES, dtype_code, walk_struct, walks_fit
from .base import KernelCall, KernelOp, contiguous_strides, shape


def _operand_labels(spec: str, rank: int, n_ell: int) -> list[str]:
    """One label per dim of an operand; the dims '...' covers get labels '...0'.. aligned to the right of n_ell."""
    if "..." not in spec:
        return list(spec)
    head, tail = spec.split("...")
    k = rank - len(head) - len(tail)
    return list(head) + [f"...{n_ell - k + i}" for i in range(k)] + list(tail)


def parse(text: str, shapes: list[tuple[int, ...]]) -> tuple[list[str], list[list[str]], dict[str, int]]:
    """(output labels, each operand's labels, size of every label) of an Einsum equation."""
    eq = text.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    specs = lhs.split(",")
    n_ell = max([len(sh) - len(s.replace("...", "")) for s, sh in zip(specs, shapes) if "..." in s] or [0])
    labels = [_operand_labels(s, len(sh), n_ell) for s, sh in zip(specs, shapes)]
    ell = [f"...{i}" for i in range(n_ell)]
    if arrow:
        out = _operand_labels(rhs, n_ell + len(rhs.replace("...", "")), n_ell) if "..." in rhs else list(rhs)
    else:
        letters = [lab for ls in labels for lab in ls if not lab.startswith("...")]
        out = ell + sorted(lab for lab in set(letters) if letters.count(lab) == 1)
    sizes: dict[str, int] = {}
    for ls, sh in zip(labels, shapes):
        for lab, d in zip(ls, sh):
            sizes[lab] = max(sizes.get(lab, 1), int(d))
    return out, labels, sizes


def equation(node: Node, g: Graph) -> str:
    """The node's equation: Einsum's attribute, or MatMul's numpy semantics (1-D operands promoted and dropped)."""
    if node.op != "MatMul":
        eq = node.attrs.get("equation", "")
        return eq.decode() if isinstance(eq, bytes) else eq
    a_1d, b_1d = (len(shape(g, n)) == 1 for n in node.inputs)
    a = "j" if a_1d else "...ij"
    b = "j" if b_1d else "...jk"
    out = "..." + ("" if a_1d else "i") + ("" if b_1d else "k")
    return f"{a},{b}->{out}"


def _walks(node: Node, g: Graph):
    """(dims, a strides, b strides) over the output labels and over the summed labels."""
    shapes = [shape(g, n) for n in node.inputs]
    out, labels, sizes = parse(equation(node, g), shapes)
    steps = []
    for ls, sh in zip(labels, shapes):
        st: dict[str, int] = {}
        for lab, d, s in zip(ls, sh, contiguous_strides(sh)):
            st[lab] = st.get(lab, 0) + (s if d == sizes[lab] else 0)  # a size-1 dim broadcasts
        steps.append(st)
    while len(steps) < 2:
        steps.append({})
    summed = list(dict.fromkeys(lab for ls in labels for lab in ls if lab not in out))

    def walk(labs):
        """The walk over the given labels."""
        return [sizes[lab] for lab in labs], *([st.get(lab, 0) for lab in labs] for st in steps)

    return walk(out), walk(summed)


def _one_or_two_operands(node: Node, g: Graph) -> bool:
    """Einsum with one or two operands only (split longer products into pairs)."""
    return len(node.inputs) in (1, 2)


def _dtype_supported(node: Node, g: Graph) -> bool:
    """The operands must be float32, float64 or an integer type."""
    return g.tensors[node.outputs[0]].dtype in ("float32", "float64", *INT_DTYPES)


def _matmul_not_float32(node: Node, g: Graph) -> bool:
    """MatMul runs on this kernel only for float64 and integer tensors (float32 MatMul is gemm_f32's)."""
    return node.op != "MatMul" or g.tensors[node.outputs[0]].dtype != "float32"


def _rank_fits(node: Node, g: Graph) -> bool:
    """The output labels and the summed labels must each merge into at most 6 dims."""
    return len(node.inputs) not in (1, 2) or walks_fit(*_walks(node, g))


class Einsum(KernelOp):
    """A generic strided sum of products: each output element sums over the labels the output drops."""

    name = "einsum"
    depends = ("strided",)
    onnx_ops = ("Einsum", "MatMul")
    constraints = (_one_or_two_operands, _matmul_not_float32, _dtype_supported, _rank_fits)

    def lower(self, node: Node, g: Graph) -> None:
        """Store the equation as str (MatMul's equivalent one for a MatMul)."""
        node.attrs["equation"] = equation(node, g)
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_einsum(params, a, b|NULL, y)."""
        outer, inner = _walks(node, g)
        params = [("dtype", dtype_code(g, node.outputs[0])), ("operands", len(node.inputs)),
                  ("outer", walk_struct(*outer)), ("inner", walk_struct(*inner))]
        b = node.inputs[1] if len(node.inputs) > 1 else None
        return KernelCall(self.name, params, [node.inputs[0], b, node.outputs[0]])

    def macs(self, node: Node, g: Graph) -> int:
        """Output elements times the number of summed terms each."""
        outer, inner = _walks(node, g)
        n = 1
        for d in outer[0] + inner[0]:
            n *= d
        return n


OP = Einsum()
