"""onnxruntime (CPU EP, x86-64) facts the default `--requant onnx` mode reproduces.

How MLAS computes the float convolutions and GEMMs of the QDQ groups onnxruntime does not fuse (lower_qdq has the
fusion rules): which kernel, hence which summation order, each output gets, and how the K dimension is blocked. Both
depend on onnxruntime's intra-op thread count (2 on our reference machines), through MLAS's per-thread split.
Derived from onnxruntime 1.31 / MLAS sources and checked bit for bit against onnxruntime (tests/kernels).
"""

from __future__ import annotations

MLAS_SGEMM_THREAD_COMPLEXITY = 64 * 1024
MLAS_MAXIMUM_THREAD_COUNT = 16
ORT_THREADS = 2


def sgemm_strides(count_n: int, count_k: int) -> tuple[int, int]:
    """MLAS's (StrideN, StrideK) for a GEMM slice of count_n columns: both start at 128 and trade off."""
    stride_n, stride_k = 128, 128
    if count_n >= count_k:
        while stride_k // 2 >= count_k:
            stride_n, stride_k = stride_n * 2, stride_k // 2
    else:
        while stride_n > 16 and stride_n // 2 >= count_n:
            stride_k, stride_n = stride_k * 2, stride_n // 2
    return stride_n, stride_k


def sgemm_kblock(count_n: int, count_k: int) -> int:
    """The K block of a conv segment: MlasConvOperation's stride, split again by MlasSgemmOperation's rule.

    Both strides are powers of two, so the blocks stay uniform."""
    stride_n, stride_k = sgemm_strides(count_n, count_k)
    return min(stride_k, sgemm_strides(min(stride_n, count_n), min(stride_k, count_k))[1])


def _partition(index: int, count: int, total: int) -> tuple[int, int]:
    """MlasPartitionWork: start and size of part `index` of `total` items split `count` ways."""
    per, extra = divmod(total, count)
    if index < extra:
        return index * (per + 1), per + 1
    return extra * (per + 1) + (index - extra) * per, per


#: Summation orders of one output of an MLAS float GEMM (MCU_MLAS_* in runtime_c/kernels/mlas_dot.h).
ORDER_FMA = 0  # SGEMM kernel: per K block an FMA chain from 0, blocks added in turn
ORDER_M1 = 1  # MlasSgemmKernelM1Avx (one filter per group): products of 4 taps summed, then added to the total
ORDER_M1_TRANSB = 2  # MlasSgemmKernelM1TransposeBAvx: 8 lanes over K, reduced by a tree that depends on the pixel


def _gemm_thread_segments(filters: int, pixels: int, k: int, threads: int) -> list[tuple[int, int]]:
    """MlasGemm's split of a [filters x pixels] product over threads: N in 16-column blocks when N > M."""
    tt = min(int(filters * pixels * k / MLAS_SGEMM_THREAD_COMPLEXITY) + 1, threads)
    if pixels <= filters:
        return [(0, pixels)]
    blocks = (pixels + 15) // 16
    tt = min(tt, blocks)
    segs = []
    for t in range(tt):
        s, c = _partition(t, tt, blocks)
        segs.append((s * 16, min(pixels, s * 16 + c * 16)))
    return segs


def _conv_thread_segments(filters: int, pixels: int, k: int, threads: int) -> list[tuple[int, int]]:
    """MlasConvPrepare's thread stride over output pixels (ExpandThenGemmSegmented, one image and one group)."""
    comp = float(filters) * pixels * k
    tt = min(int(comp / MLAS_SGEMM_THREAD_COMPLEXITY) + 1, MLAS_MAXIMUM_THREAD_COUNT, threads)
    stride = -(-pixels // tt)
    if tt > 1:
        stride = (stride + 15) & ~15
        if stride >= pixels:
            tt = 1
        elif stride * (tt - 1) >= pixels:
            tt -= 1
    if tt == 1 or stride >= pixels:
        return [(0, pixels)]
    return [(s, min(s + stride, pixels)) for s in range(0, pixels, stride)]


def float_conv_plan(batch: int, group: int, filters: int, cin_g: int, in_hw, kernel, strides, dilations, pads,
                    out_hw, threads: int = ORT_THREADS) -> tuple[int, list[tuple[int, int]]]:
    """How MLAS runs one float Conv (2-D view, 1-D as H = 1): the summation order and, per output-pixel segment,
    (end pixel, K block).

    Mirrors MlasConvPrepare/MlasConv: stride 1 without pads is a direct GEMM on the input for pointwise kernels and
    for one-channel groups whose kernel spans the input width (B transposed) or its height with width 1; more
    filters than pixels expand the whole image; otherwise segments of output pixels, split over threads only for
    one image and one group (several images or groups run one whole GEMM each). One filter per group takes MLAS's
    M=1 kernels, whose order does not depend on the blocking."""
    pixels = out_hw[0] * out_hw[1]
    k = cin_g * kernel[0] * kernel[1]
    whole = batch > 1 or group > 1
    unit = list(strides) == [1, 1] and list(pads) == [0, 0, 0, 0]
    direct = None
    if unit and k == cin_g:
        direct = "n"
    elif unit and cin_g == 1 and list(dilations) == [1, 1]:
        if kernel[1] == in_hw[1]:
            direct = "t"
        elif kernel[0] == in_hw[0] and kernel[1] == 1:
            direct = "n"
    if direct:
        segs = [(0, pixels)] if whole else _gemm_thread_segments(filters, pixels, k, threads)
        order = ORDER_FMA if filters > 1 else ORDER_M1_TRANSB if direct == "t" else ORDER_M1
        return order, [(n1, sgemm_strides(n1 - n0, k)[1]) for n0, n1 in segs]
    if filters == 1:
        return ORDER_M1, [(pixels, k)]
    if filters > pixels or whole:
        return ORDER_FMA, [(pixels, sgemm_kblock(pixels, k))]
    segs = _conv_thread_segments(filters, pixels, k, threads)
    return ORDER_FMA, [(n1, sgemm_kblock(n1 - n0, k)) for n0, n1 in segs]


def float_gemm_plan(m: int, n: int, k: int, threads: int = ORT_THREADS
                    ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """How MlasGemm splits a float [m x k] by [k x n] product over threads (MlasGemmBatch, one GEMM): the row
    segments (end row, rows of that thread: one row takes the M=1 kernel) and column segments (end column, K block).

    Only one dimension is split: N in 16-column blocks when N > M, else M."""
    if n > m:
        cols = _gemm_thread_segments(m, n, k, threads)
        return [(m, m)], [(n1, sgemm_strides(n1 - n0, k)[1]) for n0, n1 in cols]
    tt = min(int(float(m) * n * k / MLAS_SGEMM_THREAD_COMPLEXITY) + 1, threads, m)
    rows = [_partition(t, tt, m) for t in range(tt)]
    return [(s + c, c) for s, c in rows], [(n, sgemm_strides(n, k)[1])]
