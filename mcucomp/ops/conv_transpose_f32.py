"""Float32 ConvTranspose (1-D, 2-D, 3-D): strides, dilations, groups, pads, auto_pad, output_padding, output_shape."""

from __future__ import annotations

from ..ir import Graph, Node
from ._window import depth_fields, rank_1_to_3, set_window, text_attr, window_geom
from .base import KernelCall, KernelOp, all_float32, numel, shape


def begin_end_pads(node: Node, g: Graph, kernel: list[int], strides: list[int], dil: list[int]) -> list[int]:
    """ONNX ConvTranspose pads as [begin..., end...]: explicit, or split from the total that output_shape (or
    auto_pad SAME_*, whose output is input * stride) implies, the odd unit at the end for SAME_UPPER and at the
    begin otherwise (the ONNX spec and reference)."""
    rank = len(kernel)
    mode = text_attr(node.attrs.get("auto_pad"), "NOTSET")
    out_shape = node.attrs.get("output_shape")
    if mode == "VALID":
        return [0] * 2 * rank
    if mode == "NOTSET" and not out_shape:
        return list(node.attrs.get("pads") or [0] * 2 * rank)
    in_sizes = shape(g, node.inputs[0])[2:]
    out_sizes = list(out_shape)[-rank:] if out_shape else [i * s for i, s in zip(in_sizes, strides)]
    out_pad = list(node.attrs.get("output_padding") or [0] * rank)
    total = [s * (i - 1) + op + (k - 1) * d + 1 - o
             for s, i, op, k, d, o in zip(strides, in_sizes, out_pad, kernel, dil, out_sizes)]
    if mode == "SAME_UPPER":
        return [t // 2 for t in total] + [t - t // 2 for t in total]
    return [t - t // 2 for t in total] + [t // 2 for t in total]


class ConvTransposeF32(KernelOp):
    """ConvTranspose on float32 NCW/NCHW/NCDHW tensors; weights and bias may be runtime tensors."""

    name = "conv_transpose_f32"
    uses_float_mac = True
    onnx_ops = ("ConvTranspose",)
    constraints = (all_float32, rank_1_to_3)

    def lower(self, node: Node, g: Graph) -> None:
        """Canonical window attrs with the begin pads that place each output (the output shape is the IR's)."""
        rank = len(shape(g, node.inputs[0])) - 2
        kernel = list(node.attrs.get("kernel_shape") or shape(g, node.inputs[1])[2:])
        strides = list(node.attrs.get("strides") or [1] * rank)
        dil = list(node.attrs.get("dilations") or [1] * rank)
        set_window(node, kernel, strides, dil, begin_end_pads(node, g, kernel, strides, dil))
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_conv_transpose_f32(params, x, w, bias|NULL, y)."""
        bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        return KernelCall(self.name, [("g", window_geom(node, g, group=node.attrs.get("group", 1))),
                                      *depth_fields(node, g)],
                          [node.inputs[0], node.inputs[1], bias, node.outputs[0]])

    def macs(self, node: Node, g: Graph) -> int:
        """Input elements times the kernel volume times the output channels of one group."""
        w = shape(g, node.inputs[1])
        return g.tensors[node.inputs[0]].size * w[1] * numel(w[2:])


OP = ConvTransposeF32()
