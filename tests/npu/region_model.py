"""A lowered model whose only layer is one NPU region: a whole MLPerf Tiny TFLite file compiled by Vela (for tests
of the generated C, the firmware and the driver stand-in, independent of the partition pass)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from mcucomp.boards import load_board
from mcucomp.ir import Graph, Node
from mcucomp.ir.graph import Quant, Tensor
from mcucomp.npu.config import make_config, npu_config
from mcucomp.npu.vela import compile_region
from mcucomp.pipeline import LoweredModel, plan_lowered, write_planned
from shared_models import shared_model


@lru_cache(maxsize=None)
def vela_region(tflite: str, accelerator: str, system_config: str | None = None, memory_mode: str | None = None):
    """Vela's raw output of ../shared/models/mlperf_tiny/<tflite> for one config (cached per test session)."""
    cfg = make_config(accelerator, system_config, memory_mode)
    return cfg, compile_region(shared_model(f"mlperf_tiny/{tflite}").read_bytes(), cfg)


def _tensor(name: str, io) -> Tensor:
    """The IR tensor of a region input/output, shaped as Vela's (leading 1s dropped)."""
    dims = tuple(io.shape)
    while len(dims) > 2 and dims[0] == 1:
        dims = dims[1:]
    quant = Quant(np.array([io.scale], np.float32), np.array([io.zero_point], np.int32))
    return Tensor(name, dims, io.dtype, quant)


def region_lowered(cfg, region, name: str = "npu_model", io: str = "arena") -> LoweredModel:
    """A LoweredModel of graph input(s) → one ethosu_region node → graph output(s) (io: the --io option)."""
    ins = [f"in{i}" for i in range(len(region.inputs))]
    outs = [f"out{i}" for i in range(len(region.outputs))]
    tensors = {n: _tensor(n, io) for n, io in zip(ins + outs, region.inputs + region.outputs)}
    node = Node("npu_region_0", "ethosu_region", ins, outs,
                {"region": region, "layers": [("whole model", "TFLite")], "config": cfg})
    g = Graph(tensors, [node], ins, outs, name=name)
    return LoweredModel(g, [node], "0" * 64, {"requant": "fixed", "io": io, "io_dtype": "float", "npu": cfg})


def write_region_model(out_dir, tflite: str = "kws_ref_model.tflite", board: str = "corstone-300",
                       npu: str | None = None, system_config: str | None = None, memory_mode: str | None = None,
                       name: str = "npu_model") -> dict:
    """Compile the region model's C into out_dir for board (and --npu npu); returns report.json's dict."""
    board_info = load_board(board)
    base = npu_config(board_info, npu)
    cfg, region = vela_region(tflite, base.accelerator, system_config or base.system_config,
                              memory_mode or base.memory_mode)
    planned = plan_lowered(region_lowered(cfg, region, name), name, board_info, tflite, "test model")
    return write_planned(planned, out_dir).report
