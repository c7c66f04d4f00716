"""Every test model's planned arena stays at or below the best figure it has reached (bench/bench_arena.py prints
them, BENCHMARKS.md lists them beside the figures before the channels-last layout): a planner or kernel change that
grows one fails here. Planned only, on the M4 board (16-byte alignment)."""

from __future__ import annotations

import pytest

from mcucomp.pipeline import plan_model

from int8_models import SHARED_INT8, ZOO, quantize_qdq

#: Best arena bytes per zoo model (tests/int8_models.py), int8 I/O as the zoo tests plan it; *_f32: the float
#: originals (default options; float convs on the im2col path and RNNs count their scratch).
ZOO_ARENA = {
    "autoencoder": 768, "data_moves": 12_288, "decoder": 40_960, "decoder_u8": 40_960, "mobilenet_v2": 81_952,
    "pools_adds_concats": 1_184, "unet": 196_608, "unet_u8": 196_608,
    "autoencoder_f32": 3_072, "data_moves_f32": 49_152, "decoder_f32": 163_840, "mobilenet_v2_f32": 328_704,
    "pools_adds_concats_f32": 6_800, "unet_f32": 786_432,
}
#: Best arena bytes per cycle bench model (tests/perf/cycle_models.py; vww96_mbnet_int8 also in perf/test_vww96.py)
#: and per shared MLPerf Tiny file with int8 I/O.
BENCH_ARENA = {
    "ad_fc_int8": 768, "ic_f32": 198_944, "ic_resnet8_qdq": 33_328, "ic_resnet8_qop": 33_328,
    "kws_dscnn_qdq": 8_384, "kws_dscnn_qop": 8_384, "kws_f32": 34_656, "vww96_mbnet_int8": 46_080,
    "vww_mbnet_int8": 11_520, "ad_fc_qop": 2_560, "kws_gru_f32": 4_016, "kws_lstm_f32": 4_272,
    "zoo_autoencoder": 2_560, "zoo_data_moves": 16_384, "zoo_decoder": 40_960, "zoo_ic_f32_bn": 198_944,
    "zoo_kws_f32_bn": 34_656, "zoo_mobilenet_v2": 81_952, "zoo_pools_adds_concats": 1_728, "zoo_unet": 196_608,
    "pytorch_resnet8": 198_944, "pytorch_ds_cnn": 41_056, "pytorch_mobilenetv2_035": 442_496,
    "pytorch_har_cnn1d": 27_680, "pytorch_gru_kws": 6_064,
}
SHARED_INT8_IO_ARENA = {"ic_resnet8_qdq": 33_328, "ic_resnet8_qop": 33_328, "kws_dscnn_qdq": 8_384,
                        "kws_dscnn_qop": 8_384}
BOARD = "nucleo-l4r5zi"


def test_every_test_model_is_listed():
    """The tables cover the zoo, the bench models and the shared int8 files."""
    from cycle_models import CYCLE_MODELS

    assert set(ZOO_ARENA) == set(ZOO) | {f"{n}_f32" for n in ZOO if not n.endswith("_u8")}
    assert set(BENCH_ARENA) == set(CYCLE_MODELS) and set(SHARED_INT8_IO_ARENA) == set(SHARED_INT8)


@pytest.mark.parametrize("name", sorted(ZOO_ARENA))
def test_zoo_arena_at_most_its_best(name, tmp_path):
    """The zoo model's arena is at most its best figure."""
    if name.endswith("_f32"):
        report = plan_model(ZOO[name.removesuffix("_f32")](), name="m", board=BOARD).report
    else:
        path = quantize_qdq(ZOO[name](), tmp_path / "m.onnx", activations="uint8" if name.endswith("_u8") else "int8")
        report = plan_model(path, name="m", board=BOARD, io_dtype="int8").report
    assert report["arena_bytes"] <= ZOO_ARENA[name], (name, report["arena_bytes"])


@pytest.mark.parametrize("name", sorted(BENCH_ARENA))
def test_bench_arena_at_most_its_best(name):
    """The bench model's arena is at most its best figure."""
    from cycle_models import CYCLE_MODELS

    report = plan_model(CYCLE_MODELS[name](), name="m", board=BOARD).report
    assert report["arena_bytes"] <= BENCH_ARENA[name], (name, report["arena_bytes"])


@pytest.mark.parametrize("name", sorted(SHARED_INT8_IO_ARENA))
def test_shared_int8_io_arena_at_most_its_best(name):
    """The shared MLPerf Tiny file's arena with int8 I/O is at most its best figure."""
    from shared_models import shared_model

    report = plan_model(str(shared_model(f"mlperf_tiny/{name}.onnx")), name="m", board=BOARD, io_dtype="int8").report
    assert report["arena_bytes"] <= SHARED_INT8_IO_ARENA[name], (name, report["arena_bytes"])
