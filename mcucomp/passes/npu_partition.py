"""On a board with an Ethos-U: replace the layers the NPU runs by ethosu_region nodes (mcucomp/npu/partition.py).

Runs after lowering (every node is a kernel op) and before dead-code elimination. A no-op without an NPU config
(options["npu"] None); with --npu-placement off every layer stays on the CPU with that reason. The CPU side of the
decision is costed by options["cpu_cycles"] on options["board"], the cost function the pipeline hands the passes.
"""

from __future__ import annotations

from ..ir import Graph
from ..npu.partition import apply, decide
from . import eliminate_dead_code


def run(g: Graph, options: dict) -> Graph:
    """Partition the lowered graph for options["npu"] by options["npu_placement"] (auto, max or off)."""
    cfg = options.get("npu")
    if cfg is None:
        return g
    g = eliminate_dead_code.run(g, options)  # dead dequantize nodes would split regions and add region outputs
    part = decide(g, cfg, options.get("npu_placement", "auto"), options.get("board"), options.get("cpu_cycles"))
    return apply(g, part, cfg)
