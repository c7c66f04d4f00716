"""Overlap margins (memplan.Overlap's terms) derived from how a kernel's C loop reads input 0 and writes output 0.

Every margin here rests on the kernel reading and writing through pointers the C compiler must assume may alias:
the same element type on both sides, or 8-bit (character type) loads or stores. With int32 loads and float
stores, say, strict aliasing would let the compiler move a load below a store that overwrites it.
"""

from __future__ import annotations

import numpy as np

from ..ir import DTYPE_BYTES, Graph, Node
from ._window import window_geom
from .base import OverlapMargin, as4d, shape

#: Element types whose loads and stores C lets alias anything (character types).
CHAR_TYPES = ("int8", "uint8")


def elementwise_margin(count: int, in_bytes: int, out_bytes: int) -> int:
    """Margin of a loop that, for i = 0 .. count-1, reads x[i] and then writes y[i] (x and y of those element sizes).

    Once y[k] is written, only x[k+1 ..] is read again, so bytes 0 .. (k+1)*in_bytes - 1 of x are dead while the
    last byte of y[k] is (k+1)*out_bytes - 1: the margin must be <= (k+1)*(in_bytes - out_bytes) for every k that
    still has reads after it (k <= count-2). The tightest k is 0 when narrowing or equal, count-2 when widening.
    A single element has no later read: any shift is safe, and a shift past x's end overlaps nothing.
    """
    if count <= 1:
        return in_bytes
    return min(in_bytes - out_bytes, (count - 1) * (in_bytes - out_bytes))


def elementwise(node: Node, g: Graph) -> OverlapMargin | None:
    """For kernels that read x[i] and then write y[i] in one ascending pass: the margin, when input 0 is not broadcast.

    A broadcast input 0 is read at repeating indices, so it may not be overwritten.
    """
    x, y = g.tensors[node.inputs[0]], g.tensors[node.outputs[0]]
    if x.shape != y.shape:
        return None
    if x.dtype != y.dtype and not (x.dtype in CHAR_TYPES or y.dtype in CHAR_TYPES):
        return None
    return OverlapMargin(elementwise_margin(y.size, DTYPE_BYTES[x.dtype], DTYPE_BYTES[y.dtype]))


def _first_tap(out_len: int, in_len: int, kernel: int, stride: int, dilation: int, pad: int) -> np.ndarray:
    """Per output coordinate, the lowest input coordinate its window reads inside the input; -1 when none."""
    start = np.arange(out_len) * stride - pad
    first_k = np.maximum(0, -(-(-start) // dilation))  # smallest tap index with start + k * dilation >= 0
    first = start + first_k * dilation
    return np.where((first_k < kernel) & (first < in_len), first, -1)


def window_margin(node: Node, g: Graph, elem_bytes: int) -> int:
    """Margin of a kernel that computes plane by plane (n * c), each plane in row-major output order, where output
    (plane, oy, ox) reads only its window of the same input plane and is written after all its reads.

    Let I and O be the input and output plane sizes (elements), r(q) the lowest input index output q of a plane
    reads (row-major, within the plane; none for windows entirely in padding). When output q of plane c has been
    written, the lowest index read later is c*I + f(q), where f(q) = min(r(q') for q' > q in the plane, I + min r)
    (the second term: later planes read from (c+1)*I + min r on). Output q sits at c*O + q, so the kernel meets
    memplan's guarantee with margin m (elements) iff c*O + q + m < c*I + f(q) for every plane c and output q:
    m = min over c of c*(I - O), plus min over q of (f(q) - q), minus 1. Bytes: m times the element size.
    """
    geom = dict(window_geom(node, g))
    planes = geom["n"] * geom["c_in"]
    plane_in, plane_out = geom["h_in"] * geom["w_in"], geom["h_out"] * geom["w_out"]
    _, future = _plane_reads(geom)
    slack = int((future - np.arange(plane_out)).min())
    return (min(0, (planes - 1) * (plane_in - plane_out)) + slack - 1) * elem_bytes


def _plane_reads(geom: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per output position q of a plane (row-major): r(q), the lowest input position its window reads (int64 max
    when none), and f(q) = min(r(q') for q' > q, I + min r), the lowest position read after q (the second term:
    the next plane or image reads from its own min r on)."""
    rows = _first_tap(geom["h_out"], geom["h_in"], geom["k_h"], geom["stride_h"], geom["dil_h"], geom["pad_t"])
    cols = _first_tap(geom["w_out"], geom["w_in"], geom["k_w"], geom["stride_w"], geom["dil_w"], geom["pad_l"])
    plane_in = geom["h_in"] * geom["w_in"]
    reads = np.where((rows[:, None] >= 0) & (cols[None, :] >= 0), rows[:, None] * geom["w_in"] + cols[None, :],
                     np.iinfo(np.int64).max).reshape(-1).astype(np.int64)
    later = np.minimum.accumulate(reads[::-1])[::-1]  # later[q] = min r(q' >= q)
    next_plane = plane_in + min(int(reads.min()), plane_in)
    return reads, np.minimum(np.append(later[1:], next_plane), next_plane)


def window_margin_nhwc(node: Node, g: Graph, elem_bytes: int) -> int:
    """Margin of a channels-last window kernel that goes image by image, output pixels in row-major order and, for
    each pixel q, channels c = 0 .. C-1, writing output (q, c) after reading its window's taps of channel c.

    With r(q) and f(q) of _plane_reads (in pixels), output (q, c) sits at q*C + c and, once written, the lowest
    element read later is (r(q)*C + c + 1) (channel c+1 of the same window, when c < C-1) or f(q)*C (later pixels;
    the next image from I*C + min r*C on). So margin m (elements) is safe iff, for every q and c,
    q*C + c + m < r(q)*C + c + 1 (when C > 1) and q*C + c + m < f(q)*C, i.e. m <= (r(q) - q)*C and
    m <= (f(q) - q - 1)*C; over images, as in window_margin, add min(0, (N-1)*(I - O)*C).
    """
    geom = dict(window_geom(node, g))
    c = geom["c_in"]
    plane_in, plane_out = geom["h_in"] * geom["w_in"], geom["h_out"] * geom["w_out"]
    reads, future = _plane_reads(geom)
    q = np.arange(plane_out)
    slack = int((future - q).min() - 1) * c
    if c > 1:
        slack = min(slack, int((np.minimum(reads, future) - q).min()) * c)
    return (min(0, (geom["n"] - 1) * (plane_in - plane_out) * c) + slack) * elem_bytes


def same_planes(node: Node, g: Graph) -> bool:
    """True when output plane k (of n * c) is computed from input plane k alone: as many planes in as out."""
    n, c, _, _ = as4d(shape(g, node.inputs[0]))
    n_out, c_out, _, _ = as4d(shape(g, node.outputs[0]))
    return (n, c) == (n_out, c_out)


def pointwise(node: Node, g: Graph) -> bool:
    """True for a 1x1, stride-1, unpadded, ungrouped convolution of batch 1 (conv2d_f32's pointwise path).

    The kernel copies a block of pixels' c_in inputs to the scratch, then writes y[k][p] for every output channel k
    and every pixel p of the block. With y at x's address, y[k][p] lands on x[k][p] (plane size P = H*W on both
    sides), which is copied, or past x, and no write reaches a pixel after the block; batch 1 keeps output channels
    >= c_in from landing on a later batch's input. Shifted by any s != 0 with |s| < P, some y[k][p] lands on a
    pixel not read yet, hence floor = margin = 0.
    """
    a = node.attrs
    n = as4d(shape(g, node.inputs[0]))[0]
    return (n == 1 and a.get("group", 1) == 1 and list(a["kernel"]) == [1, 1] and list(a["strides"]) == [1, 1]
            and not any(a["pads"]))


def conv_overlap(node: Node, g: Graph) -> OverlapMargin | None:
    """Exactly in place for a pointwise conv; the window margin for a depthwise one (group = c_in = c_out)."""
    if pointwise(node, g):
        return OverlapMargin(0, floor=0)
    c_in = as4d(shape(g, node.inputs[0]))[1]
    if node.attrs.get("group", 1) == c_in and same_planes(node, g):
        return OverlapMargin(window_margin(node, g, DTYPE_BYTES[g.tensors[node.outputs[0]].dtype]))
    return None


def _last_tap(out_len: int, in_len: int, kernel: int, stride: int, dilation: int, pad: int) -> np.ndarray:
    """Per output coordinate, the highest input coordinate its window reads inside the input; -1 when none."""
    start = np.arange(out_len) * stride - pad
    last_k = np.minimum(kernel - 1, (in_len - 1 - start) // dilation)
    last = start + last_k * dilation
    return np.where((last_k >= 0) & (last >= 0), last, -1)


#: Stands for "no read" in the window index arrays below (above any pixel index).
NO_READ = np.iinfo(np.int64).max // 4


def _nhwc_window_starts(geom: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per output pixel of a channels-last conv (row-major over N, H_out, W_out): the lowest and the highest input
    pixel its window reads (row-major over N, H, W; NO_READ and -1 when the window lies wholly in the padding), and
    its window's first pixel (n, oy * stride_h - pad_t, ox * stride_w - pad_l) ignoring the padding."""
    axes = [(geom["h_out"], geom["h_in"], geom["k_h"], geom["stride_h"], geom["dil_h"], geom["pad_t"]),
            (geom["w_out"], geom["w_in"], geom["k_w"], geom["stride_w"], geom["dil_w"], geom["pad_l"])]
    (rows, cols), (rows_hi, cols_hi) = [_first_tap(*a) for a in axes], [_last_tap(*a) for a in axes]
    image = np.arange(geom["n"])[:, None, None] * geom["h_in"] * geom["w_in"]
    valid = ((rows[:, None] >= 0) & (cols[None, :] >= 0))[None]
    lowest = np.where(valid, (rows[:, None] * geom["w_in"] + cols[None, :])[None] + image, NO_READ)
    highest = np.where(valid, (rows_hi[:, None] * geom["w_in"] + cols_hi[None, :])[None] + image, -1)
    oy = np.arange(geom["h_out"]) * geom["stride_h"] - geom["pad_t"]
    ox = np.arange(geom["w_out"]) * geom["stride_w"] - geom["pad_l"]
    start = (oy[:, None] * geom["w_in"] + ox[None, :])[None] + image
    return (lowest.reshape(-1).astype(np.int64), highest.reshape(-1).astype(np.int64),
            start.reshape(-1).astype(np.int64))


def pixel_pairs(pixels: int, down: bool) -> tuple[np.ndarray, np.ndarray]:
    """The (q0, q1) pixel pairs of conv2d_s8's GEMM paths in the order they run: (0, 1), (2, 3), .. up, (P-2, P-1),
    (P-4, P-3), .. down; an odd count ends with a lone pixel (q0 == q1): the last one up, pixel 0 down."""
    q0 = np.arange(0, pixels, 2)
    q1 = np.minimum(q0 + 1, pixels - 1)
    return (pixels - 1 - q1, pixels - 1 - q0) if down else (q0, q1)


def descending(node: Node, g: Graph) -> bool:
    """conv2d_s8's pointwise, im2col and general paths run their output pixels from the last down when the output
    is at least as large as the input (then y may start above x), from the first up otherwise."""
    return g.tensors[node.outputs[0]].nbytes >= g.tensors[node.inputs[0]].nbytes


def pointwise_nhwc(node: Node, g: Graph) -> OverlapMargin:
    """conv2d_s8's pointwise path (1x1, unpadded, group 1, channels-last, int8): output pixel pairs (q0, q1) in the
    order of pixel_pairs, pixel q reading the I = c_in bytes of input pixel s(q) (its window start; s rises with q)
    for every output channel, and writing output bytes q*O .. q*O + O - 1 (O = c_out) while it still reads. Let
    d = offset(y) - offset(x).

    Down: while a pair writes, the reads still to come are its own inputs and those of lower pixels, the highest byte
    s(q1)*I + I - 1; its lowest write is q0*O + d. Safe iff d >= s(q1)*I + I - q0*O for every pair: the floor; above
    it any shift is safe (the margin is x's size: beyond it nothing overlaps).

    Up: the reads still to come start at the pair's own s(q0)*I; its highest write is q1*O + O - 1 + d. Safe iff
    d <= s(q0)*I - (q1 + 1)*O for every pair: the margin; any lower shift is safe.

    The DSP sweeps (conv2d_s8_pointwise.c mcu_conv2d_s8_pw_sweep) read a pair once, widened, before its first write,
    and then only its c_out % 4 channels' inputs again: their reads are a subset of the ones above, in the same pair
    order, so the same bounds hold.
    """
    geom = dict(window_geom(node, g))
    start = _nhwc_window_starts(geom)[2]
    c_in, c_out = geom["c_in"], geom["c_out"]
    q0, q1 = pixel_pairs(len(start), descending(node, g))
    if descending(node, g):
        return OverlapMargin(g.tensors[node.inputs[0]].nbytes, floor=int((start[q1] * c_in + c_in - q0 * c_out).max()))
    return OverlapMargin(int((start[q0] * c_in - (q1 + 1) * c_out).min()))


def depthwise_nhwc(node: Node, g: Graph) -> OverlapMargin:
    """conv2d_s8's depthwise path (channels-last, int8, C = c_in = c_out bytes per pixel; conv2d_s8_depthwise.c): output
    pixel pairs (q, q + 1) in row-major order (single pixels above DW_DEFER channels), within a pair channels
    ascending (four at a time on DSP cores), output (q, c) written after channel c of both windows is read, pixel
    q + 1's outputs all written after the pair; windows wholly in the padding read nothing.

    Pixel by pixel first: let r(q) be the lowest input pixel q's window reads. When (q, c) is written, the reads still
    to come are channels > c of q's window (bytes >= r(q)*C + c + 1; the four-channel block writes c..c+3 after
    reading them, same bound) and the windows of later pixels (bytes >= F(q)*C, F(q) = min r(q') over q' > q). Byte
    q*C + c + d (d = offset(y) - offset(x)) must stay below both: d <= (r(q) - q)*C and d <= F(q)*C - q*C - C for
    every q. The pairs need nothing more: (q, c) also precedes channels > c of window q + 1 (d <= (r(q + 1) - q)*C,
    implied by d <= F(q)*C - q*C - C), and q + 1's bytes, written once both windows are read, precede only later
    windows (d <= F(q + 1)*C - (q + 1)*C - C, the pixel-by-pixel bound of q + 1)."""
    geom = dict(window_geom(node, g))
    lowest = _nhwc_window_starts(geom)[0]
    c = geom["c_out"]
    q = np.arange(len(lowest))
    later = np.append(np.minimum.accumulate(lowest[::-1])[::-1][1:], NO_READ)
    bounds = np.concatenate([((lowest - q) * c)[lowest < NO_READ], (later * c - q * c - c)[later < NO_READ]])
    size = g.tensors[node.inputs[0]].nbytes
    return OverlapMargin(int(min(bounds.min(), size)) if len(bounds) else size)


def pixelwise_nhwc(node: Node, g: Graph, pairs: bool, gathered: bool) -> OverlapMargin:
    """conv2d_s8's general path (pixels one by one, up or down as `descending` says), direct path (the pairs of
    pixel_pairs) and im2col, local and few_channels paths (pairs, gathered: few_channels splits both windows into
    tap pairs on the stack before the pair's first write), channels-last, int8. All O = c_out bytes of a pixel pair
    (q0, q1; q0 = q1 for single pixels) are written while its windows are still read (every output channel re-reads
    them), or after (gathered: the windows are copied to the scratch first). Windows read input pixels lo(q) ..
    hi(q) only (I = c_in bytes each). d = offset(y) - offset(x).

    Up: when the pair writes, the reads still to come start at G*I, G = min lo(q') over q' >= q0, or over q' > q1
    when gathered; its highest write is (q1 + 1)*O - 1 + d, so d <= G*I - (q1 + 1)*O: the margin is the smallest
    bound (x's size when no read follows any write); any lower shift is safe.

    Down: the reads still to come end at H*I + I - 1, H = max hi(q') over q' <= q1, or over q' < q0 when gathered;
    the lowest write is q0*O + d, so d >= (H + 1)*I - q0*O: the floor is the largest bound; any higher shift is
    safe (margin: x's size).
    """
    geom = dict(window_geom(node, g))
    lowest, highest, _ = _nhwc_window_starts(geom)
    c_in, c_out, size = geom["c_in"], geom["c_out"], g.tensors[node.inputs[0]].nbytes
    down = descending(node, g)
    q0, q1 = pixel_pairs(len(lowest), down) if pairs else (np.arange(len(lowest)),) * 2
    if down:
        before = np.concatenate([[-1], np.maximum.accumulate(highest)])  # before[q] = max hi(q' < q)
        pending = before[q0] if gathered else before[q1 + 1]
        bounds = ((pending + 1) * c_in - q0 * c_out)[pending >= 0]
        return OverlapMargin(size, floor=int(bounds.max()) if len(bounds) else -size)
    after = np.append(np.minimum.accumulate(lowest[::-1])[::-1], NO_READ)  # after[q] = min lo(q' >= q)
    pending = after[q1 + 1] if gathered else after[q0]
    bounds = (pending * c_in - (q1 + 1) * c_out)[pending < NO_READ]
    return OverlapMargin(int(min(bounds.min(), size)) if len(bounds) else size)


def depthwise_ring() -> OverlapMargin:
    """conv2d_s8's in-place depthwise variant (conv2d_s8_depthwise_ring.c): exactly in place (y == x).
    It runs block b (channels 4b .. 4b + 3) over every pixel q before block b + 1 and writes (q, b) over x's bytes
    (q, b) only, after copying them to the ring; later reads of block b from pixels below the current one come from
    the ring (it holds the last DW_RING pixels, and windows reach at most pad_t * W + pad_l < DW_RING back), reads of
    pixels at or above it from x, untouched so far; blocks above b are untouched until their turn. Any shift d != 0
    lands a write on bytes of another block or pixel still to be read from x, hence floor = margin = 0."""
    return OverlapMargin(0, floor=0)


def conv_s8_overlap(node: Node, g: Graph, path: str) -> OverlapMargin:
    """conv2d_s8 by path, as proved above."""
    if path == "depthwise_ring":
        return depthwise_ring()
    if path == "pointwise":
        return pointwise_nhwc(node, g)
    if path == "depthwise":
        return depthwise_nhwc(node, g)
    return pixelwise_nhwc(node, g, pairs=path in ("im2col", "direct", "local", "few_channels"),
                          gathered=path in ("im2col", "local", "few_channels"))


def _ascending_units_margin(lowest_read: np.ndarray, highest_write: np.ndarray, size: int) -> int:
    """Margin of a loop whose units, in order, each read input bytes (the lowest of unit u: lowest_read[u]) and then
    write output bytes (the highest: highest_write[u]): when unit u writes, the reads still to come are those of the
    units after it, so byte w + d (d = offset(y) - offset(x)) stays below them all iff
    d <= min(lowest_read[u' > u]) - highest_write[u] - 1. The margin is the smallest such bound, x's size when no
    read follows any write; any lower shift is safe."""
    later = np.append(np.minimum.accumulate(lowest_read[::-1])[::-1][1:], NO_READ)
    bounds = (later - highest_write - 1)[later < NO_READ]
    return int(min(bounds.min(), size)) if len(bounds) else size


def byte_transpose_2d(params: dict, size: int) -> OverlapMargin | None:
    """mcu_transpose's 2-D byte walk (transpose.c mcu_transpose_2d_u8: a layout conversion of an 8-bit image), where
    output byte (r, c) of `rows` x `cols` is input byte offset + r*s0 + c*s1, written in ascending output order, each
    unit after its own reads: with 3 columns (RGB pixels) four rows at a time (three words in, three words out) where
    the planes are contiguous and word-aligned (at run time: the quads' alignment depends on the arena offsets), then
    two rows at a time (six reads, six writes), then a lone row; other widths byte by byte (read, write).
    _ascending_units_margin gives the margin of each order; the quads run when the alignment allows and are skipped
    otherwise, so the margin is the smaller of both orders'. Other walks copy rows with memcpy (undefined for an
    overlapping source and destination) or elements wider than a byte: None."""
    if params["elem_bytes"] != 1 or params["rank"] != 2 or params["strides"][1] == 1:
        return None
    (rows, cols), (s0, s1) = params["dims"][:2], params["strides"][:2]
    source = params["offset"] + np.arange(rows)[:, None] * s0 + np.arange(cols)[None, :] * s1
    if cols != 3:
        return OverlapMargin(_ascending_units_margin(source.reshape(-1), np.arange(rows * cols), size))

    def units_margin(quads: int) -> int:
        """The margin when the first `quads` units are four rows, then pairs of rows, then a lone row."""
        starts = np.concatenate([np.arange(quads) * 4, np.arange(4 * quads, rows, 2)])
        ends = np.minimum(np.append(starts[1:], rows), rows)
        lowest = np.minimum.reduceat(source.min(axis=1), starts)
        return _ascending_units_margin(lowest, ends * cols - 1, size)

    aligned = s0 == 1 and s1 % 4 == 0 and params["offset"] % 4 == 0
    return OverlapMargin(min(units_margin(0), units_margin(rows // 4) if aligned else size))
