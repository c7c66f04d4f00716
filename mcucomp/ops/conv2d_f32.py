"""Float32 convolution (1-D, 2-D, 3-D), the paths of PATHS, each its own runtime file and cost-terms module in
_conv2d_f32/: pointwise and im2col (register-blocked GEMM over compile-time packed weights), depthwise (sliding 3x3
rows, clipped windows otherwise; cost paths depthwise3x3 and depthwise), general (other groups, 3-D data, runtime
weights of non-depthwise convs); pads and a fused clamp on every path.

Weights and bias may be runtime tensors (graph inputs), not only initializers: depthwise convs then keep their path
(it reads the weights in ONNX order), the others take the general path."""

from __future__ import annotations

import math

from ..ir import Graph, Node
from ._conv2d_f32.depthwise import depthwise, depthwise_terms
from ._conv2d_f32.gemm import bound_tests, packed_weights, padded_bias
from ._conv2d_f32.general import general_terms
from ._conv2d_f32.im2col import im2col_scratch, im2col_terms, reads_in_place, window_offsets
from ._conv2d_f32.pointwise import pointwise_scratch, pointwise_terms
from ._overlap import conv_overlap, pointwise
from ._cost import params_dict, window
from ._window import canonical_nd, depth_fields, is_3d, rank_1_to_3, window_geom
from .base import ArrayRef, KernelCall, KernelOp, OverlapMargin, all_float32, shape

#: The paths, each runtime_c/kernels/conv2d_f32_<path>.c (function mcu_conv2d_f32_<path>).
PATHS = ("pointwise", "im2col", "depthwise", "general")


def constant_weights(node: Node, g: Graph) -> bool:
    """Weights, and the bias when there is one, are initializers (the GEMM paths pack them at compile time)."""
    bias = node.inputs[2] if len(node.inputs) > 2 else ""
    return g.const(node.inputs[1]) is not None and (not bias or g.const(bias) is not None)


def conv_path(node: Node, g: Graph) -> str:
    """The path a conv takes: depthwise (1-D or 2-D, one input channel per group); pointwise (1x1, stride 1,
    unpadded, group 1, batch 1: the input planes are the GEMM operand) and im2col (other 1-D and 2-D convs of group
    1), both with constant weights; general for the rest (3-D, other groups, runtime weights)."""
    if depthwise(node, g):
        return "depthwise"
    if is_3d(node, g) or node.attrs.get("group", 1) != 1 or not constant_weights(node, g):
        return "general"
    return "pointwise" if pointwise(node, g) else "im2col"


class Conv2dF32(KernelOp):
    """Conv on float32 tensors."""

    name = "conv2d_f32"
    uses_float_mac = True
    cost_paths = ("pointwise", "im2col", "depthwise3x3", "depthwise", "general")
    onnx_ops = ("Conv",)
    constraints = (all_float32, rank_1_to_3)

    def lower(self, node: Node, g: Graph) -> None:
        """Canonical window attributes and an unbounded activation range."""
        canonical_nd(node, g, list(shape(g, node.inputs[1])[2:]))
        node.attrs.setdefault("act_min", -math.inf)
        node.attrs.setdefault("act_max", math.inf)
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_conv2d_f32_<path>, the path's own file: general and depthwise (params, x, w, bias|NULL, y); the GEMM paths
        (params, x, y, scratch) with the packed weights and bias (im2col: also the window's offsets) in the params
        and one block's columns as scratch."""
        path = conv_path(node, g)
        geom = window_geom(node, g, group=node.attrs.get("group", 1))
        fields = [("g", geom), *depth_fields(node, g), ("act_min", float(node.attrs["act_min"])),
                  ("act_max", float(node.attrs["act_max"]))]
        bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        if path in ("general", "depthwise"):
            return KernelCall(f"{self.name}_{path}", fields + [("w", "NULL"), ("bias", "NULL"), ("taps", "NULL")],
                              [node.inputs[0], node.inputs[1], bias, node.outputs[0]])
        c = dict(geom)
        arrays = {f"{node.name}_wpack": packed_weights(g.const(node.inputs[1])),
                  f"{node.name}_bias": padded_bias(None if bias is None else g.const(bias), c["c_out"])}
        taps = "NULL"
        if path == "im2col" and reads_in_place(c):
            arrays[f"{node.name}_taps"], taps = window_offsets(c), ArrayRef(f"{node.name}_taps")
        scratch = pointwise_scratch(c["c_in"]) if path == "pointwise" else im2col_scratch(c)
        return KernelCall(f"{self.name}_{path}",
                          fields + [("w", ArrayRef(f"{node.name}_wpack")), ("bias", ArrayRef(f"{node.name}_bias")),
                                    ("taps", taps)],
                          [node.inputs[0], node.outputs[0]], arrays, scratch)

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """Exactly in place on the pointwise path (block by block through the scratch); the window margin on the
        depthwise path and of a grouped conv on the general path (plane by plane, row by row, see
        mcucomp/ops/_overlap.py); otherwise none."""
        path = conv_path(node, g)
        if path == "pointwise":
            return OverlapMargin(0, floor=0)
        if path == "depthwise":
            return conv_overlap(node, g)
        return conv_overlap(node, g) if path == "general" and not is_3d(node, g) and not pointwise(node, g) else None

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """The path's loops: pointwise and im2col, see _conv2d_f32/pointwise.py and im2col.py (a gather per block of
        pixels, then the micro-kernel blocks); depthwise, see _conv2d_f32/depthwise.py (its sliding 3x3 rows and
        clipped windows); general, per output every kernel plane, row and tap."""
        path = conv_path(node, g)
        p = params_dict(self.call(node, g))
        if path == "depthwise":
            return depthwise_terms(p["g"])
        bounds = bound_tests(p["act_min"], p["act_max"])
        if path == "pointwise":
            return path, pointwise_terms(p["g"], bounds)
        if path == "im2col":
            return path, im2col_terms(p["g"], bounds)
        return path, general_terms(p["g"], window(p["g"], p), p["k_d"])

    def macs(self, node: Node, g: Graph) -> int:
        """Output elements times the kernel volume of one group."""
        w = shape(g, node.inputs[1])
        out = g.tensors[node.outputs[0]].size
        k = 1
        for d in w[1:]:
            k *= d
        return out * k


OP = Conv2dF32()
