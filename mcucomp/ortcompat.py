"""onnxruntime (CPU EP, x86-64) facts the default `--requant onnx` mode reproduces.

Which QDQ node groups onnxruntime fuses into integer ops and which it runs in float, and how MLAS blocks the K
dimension of a float convolution (it depends on onnxruntime's intra-op thread count, 2 on our reference machines).
Derived from onnxruntime 1.31 sources and checked bit for bit on the MLPerf Tiny models.
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


def float_conv_segments(filters: int, pixels: int, k: int, pointwise_direct: bool,
                        threads: int = ORT_THREADS) -> list[tuple[int, int]]:
    """(end pixel, K block) per output-pixel segment of one group's float conv GEMM, as MLAS splits it."""
    if pointwise_direct:
        tt = min(int(filters * pixels * k / MLAS_SGEMM_THREAD_COMPLEXITY) + 1, threads)
        segs = [(0, pixels)]
        if pixels > filters:
            blocks = (pixels + 15) // 16
            tt = min(tt, blocks)
            segs = []
            for t in range(tt):
                s, c = _partition(t, tt, blocks)
                segs.append((s * 16, min(pixels, s * 16 + c * 16)))
        return [(n1, sgemm_kblock(n1 - n0, k)) for n0, n1 in segs]
    if filters > pixels:
        return [(pixels, sgemm_kblock(pixels, k))]
    comp = float(filters) * pixels * k
    tt = int(comp / MLAS_SGEMM_THREAD_COMPLEXITY) + 1 if comp < MLAS_SGEMM_THREAD_COMPLEXITY * MLAS_MAXIMUM_THREAD_COUNT \
        else MLAS_MAXIMUM_THREAD_COUNT
    tt = min(tt, threads)
    stride = -(-pixels // tt)
    if tt > 1:
        stride = (stride + 15) & ~15
        if stride >= pixels:
            tt = 1
        elif stride * (tt - 1) >= pixels:
            tt -= 1
    if tt == 1 or stride >= pixels:
        return [(pixels, sgemm_kblock(pixels, k))]
    return [(min(s + stride, pixels), sgemm_kblock(min(s + stride, pixels) - s, k)) for s in range(0, pixels, stride)]

