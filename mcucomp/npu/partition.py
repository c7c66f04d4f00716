"""Cost-aware CPU/NPU partition of a lowered graph: which layers become Ethos-U regions.

1. Constraints (mcucomp/npu/constraints.py) mark each layer NPU-capable or give the reason it stays on the CPU.
2. Candidate regions are maximal runs of NPU-capable layers that are consecutive in the graph's topological
   order (a contiguous run is convex: no path leaves it and comes back).
3. `max` makes every candidate a region. `auto` splits each candidate by dynamic programming over its layers:
   a layer costs its estimated CPU cycles (by the cost function the pass is handed: CpuCycles) on the CPU, or its
   Vela-estimated NPU cycles (Vela compiling that layer alone) on the NPU; every region adds ENTRY_CYCLES and the
   copies of its inputs and outputs (COPY_CYCLES_PER_BYTE). CPU and NPU cycles are compared as time (each at its
   own clock), never added into one cycle count. The chosen regions are then compiled for real, and the estimated
   total of the result is compared with all-NPU (`max`) and all-CPU: `auto` keeps the best of the three, so it is
   never estimated slower than either.
4. Each region is replaced by one `ethosu_region` node (attrs: region, layers, config, tflite, estimates); every
   CPU layer gets attrs["placement_reason"].

The partition runs after the layout pass: a region's tensors keep the layouts that pass gave them (no conversion is
added or removed for a region). Inside a region every image is one NHWC TFLite tensor, so channels-last tensors cross
its boundary as they are, channels-first ones through a TRANSPOSE in the .tflite, and the layout pass's own
conversions (transposes and free reshapes) between NPU layers join the region as no-ops.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from mcucomp.ir import Graph, Node
from mcucomp.estimate_quality import CALIBRATED, marked
from mcucomp.ops import REGISTRY
from mcucomp.ops._layout import NHWC
from mcucomp.ops.ethosu_region import MAX_IO

from .constraints import npu_refusal
from .tflite_writer import write_region
from .vela import NpuCompileError, compile_region

#: CPU cycles of one region call besides the copies: ethosu_invoke_v3 reserves the driver, writes the base
#: address and command stream registers, starts the NPU, sleeps until its interrupt and checks the status.
#: Arm publishes no figure; ~400 instructions of driver code plus interrupt entry and exit and cache
#: maintenance hooks on an M55 is the order of 1,000-2,000 cycles. 2,000 is the stated, conservative choice.
ENTRY_CYCLES = 2000

#: CPU cycles per byte copied between mcucomp's tensors and Vela's scratch: a word copy (LDR + STR, pipelined)
#: moves 4 bytes in about 2 cycles.
COPY_CYCLES_PER_BYTE = 0.5

#: The core whose fitted CPU cycle estimate stands in when the board's core has none (the Cortex-M55: mcucomp's
#: int8 kernels use no Helium instructions, and the M55's scalar DSP pipeline is closest to the M4's of the cores
#: fitted).
FALLBACK_CORE = "cortex-m4"

#: A CPU cost function: (graph, layers, board) -> per layer name, an estimate with `cycles_zero_wait` and its
#: `quality`; empty when the board's core has no estimate (mcucomp.perf.estimate.estimate_layers, handed to the
#: pass as options["cpu_cycles"]).
CpuCycles = Callable[[Graph, list, dict], dict]


@dataclass
class Region:
    """One NPU region: its layers (graph order), subgraph I/O tensor names, TFLite bytes and Vela's output."""

    nodes: list
    inputs: list
    outputs: list
    tflite: bytes = b""
    vela: object = None


@dataclass
class Partition:
    """The decision: regions, the reason for every CPU layer, and the estimates it was taken on."""

    regions: list = field(default_factory=list)
    reasons: dict = field(default_factory=dict)
    cpu_cycles: dict = field(default_factory=dict)
    cpu_quality: dict = field(default_factory=dict)  # estimate_quality of each cpu_cycles figure
    npu_layer_cycles: dict = field(default_factory=dict)
    estimates: dict = field(default_factory=dict)
    cpu_core: str = ""


def _is_view(node: Node, g: Graph) -> bool:
    """True for layers that run no code on the CPU (reshape-like aliases)."""
    return REGISTRY[node.op].aliases_input(node, g)


def region_io(g: Graph, nodes: list[Node]) -> tuple[list[str], list[str]]:
    """(inputs, outputs) of a set of layers: activations read but not written inside, in order of first use;
    tensors written inside and read outside or by the graph's outputs, in order of writing."""
    inside = {n.name for n in nodes}
    written = {o for n in nodes for o in n.outputs}
    inputs = []
    for n in nodes:
        for name in n.inputs:
            if name and name not in written and not g.tensors[name].is_const and name not in inputs:
                inputs.append(name)
    read_outside = set(g.outputs)
    for n in g.nodes:
        if n.name not in inside:
            read_outside.update(n.inputs)
    outputs = [o for n in nodes for o in n.outputs if o in read_outside]
    return inputs, outputs


def copy_bytes(g: Graph, inputs: list[str], outputs: list[str]) -> int:
    """Bytes of a region's inputs and outputs (copied in and out of Vela's scratch)."""
    return sum(g.tensors[n].nbytes for n in inputs + outputs)


def cpu_estimates(g: Graph, board: dict | None, cpu_cycles: CpuCycles | None
                  ) -> tuple[dict[str, int], dict[str, str], str]:
    """Estimated zero-wait CPU cycles per layer name (views: none), each figure's estimate_quality, and the core the
    estimate is for, by the cost function `cpu_cycles` (none without a board or a cost function)."""
    if board is None or cpu_cycles is None:
        return {}, {}, ""
    layers = cpu_cycles(g, g.nodes, board)
    core = board["core"]
    if not layers:
        core = FALLBACK_CORE
        layers = cpu_cycles(g, g.nodes, {**board, "core": core})
    return ({name: e.cycles_zero_wait for name, e in layers.items()}, {name: e.quality for name, e in layers.items()},
            core)


class _Compiler:
    """Writes and compiles regions with Vela, caching by layer names."""

    def __init__(self, g: Graph, cfg):
        self.g, self.cfg = g, cfg
        self.cache: dict[tuple, Region] = {}

    def region(self, nodes: list[Node]) -> Region:
        """The compiled region of `nodes` (NpuCompileError when Vela refuses it)."""
        key = tuple(n.name for n in nodes)
        if key not in self.cache:
            inputs, outputs = region_io(self.g, nodes)
            tflite = write_region(self.g, nodes, inputs, outputs)
            vela = compile_region(tflite, self.cfg, (inputs, outputs))
            self.cache[key] = Region(list(nodes), inputs, outputs, tflite, vela)
        return self.cache[key]


def ends_region(node: Node) -> bool:
    """True for a layer whose written output scale carries its requant divisor (tflite_writer.weight_scales): no
    other layer of its region may read that output, so the region ends with it."""
    rq = node.attrs.get("rq")
    return rq is not None and bool(rq.div)


def _runs(g: Graph, capable: set[str]) -> list[list[Node]]:
    """Maximal runs of NPU-capable layers consecutive in graph order, cut after layers that end a region, views
    trimmed from both ends."""
    runs = []
    for run in _runs_of([n for n in g.nodes if n.name in capable], g.nodes, g):
        current = []
        for node in run:
            current.append(node)
            if ends_region(node):
                runs += _trimmed(current, g)
                current = []
        runs += _trimmed(current, g)
    return runs


class _Costs:
    """Estimated time (seconds) of layers on the CPU and of regions on the NPU."""

    def __init__(self, g: Graph, cfg, cpu_cycles: dict, cpu_hz: int):
        self.g, self.cfg, self.cpu_cycles, self.cpu_hz = g, cfg, cpu_cycles, cpu_hz

    def cpu(self, nodes) -> float:
        """Seconds of these layers on the CPU."""
        return sum(self.cpu_cycles.get(n.name, 0) for n in nodes) / self.cpu_hz

    def call_overhead(self, region_nodes) -> float:
        """Seconds the CPU spends entering a region and copying its I/O."""
        inputs, outputs = region_io(self.g, region_nodes)
        return (ENTRY_CYCLES + COPY_CYCLES_PER_BYTE * copy_bytes(self.g, inputs, outputs)) / self.cpu_hz

    def npu(self, npu_cycles: int) -> float:
        """Seconds of Vela-estimated NPU cycles at the NPU clock."""
        return npu_cycles / self.cfg.clock_hz


def _split_run(run: list[Node], layer_npu: dict[str, int], costs: _Costs, g: Graph) -> list[list[Node]]:
    """The cheapest split of one run into CPU layers and regions (regions need a layer that is not a view)."""
    n = len(run)
    best = [0.0] + [float("inf")] * n
    choice: list[tuple[int, bool]] = [(0, False)] * (n + 1)
    for end in range(1, n + 1):
        cpu = best[end - 1] + costs.cpu([run[end - 1]])
        best[end], choice[end] = cpu, (end - 1, False)
        for start in range(end):
            seg = run[start:end]
            if all(_is_view(x, g) for x in seg) or any(ends_region(x) for x in seg[:-1]):
                continue
            t = best[start] + sum(costs.npu(layer_npu.get(x.name, 0)) for x in seg) + costs.call_overhead(seg)
            if t < best[end]:
                best[end], choice[end] = t, (start, True)
    regions, end = [], n
    while end > 0:
        start, on_npu = choice[end]
        if on_npu:
            regions.append(run[start:end])
        end = start
    return list(reversed(regions))


def estimated_total(g: Graph, regions: list[Region], costs: _Costs) -> float:
    """Estimated seconds per inference of a placement: CPU layers + region calls on the CPU, regions on the NPU."""
    on_npu = {n.name for r in regions for n in r.nodes}
    cpu = costs.cpu([n for n in g.nodes if n.name not in on_npu])
    return cpu + sum(costs.call_overhead(r.nodes) + costs.npu(r.vela.npu_cycles) for r in regions)


def io_limited(nodes: list[Node], g: Graph) -> list[list[Node]]:
    """`nodes` cut into consecutive groups of at most MAX_IO inputs and MAX_IO outputs each (the region call's
    limit, ethosu_region.h), views trimmed from both ends; a layer that alone exceeds it stays in a group of its own
    (the region op then refuses it with a clear error)."""
    groups, current = [], []
    for node in nodes:
        inputs, outputs = region_io(g, current + [node])
        if current and (len(inputs) > MAX_IO or len(outputs) > MAX_IO):
            groups += _trimmed(current, g)
            current = []
        current.append(node)
    return groups + _trimmed(current, g)


def _compile_all(compiler: _Compiler, groups: list[list[Node]], reasons: dict) -> list[Region]:
    """Compile each group (cut to the region call's I/O limit). When Vela refuses a group, each of its layers is
    compiled alone: the layers Vela refuses alone stay on the CPU with Vela's message as the reason, and the rest is
    regrouped and compiled."""
    regions = []
    for nodes in [part for group in groups for part in io_limited(group, compiler.g)]:
        try:
            regions.append(compiler.region(nodes))
            continue
        except NpuCompileError as exc:
            if len(nodes) == 1:
                reasons[nodes[0].name] = f"Vela refused it: {exc.message}"
                continue
        refused = set()
        for node in nodes:
            if not _is_view(node, compiler.g):
                try:
                    compiler.region([node])
                except NpuCompileError as exc:
                    reasons[node.name] = f"Vela refused it: {exc.message}"
                    refused.add(node.name)
        if not refused:  # every layer compiles alone but not together: keep them apart
            regions += _compile_all(compiler, [[n] for n in nodes if not _is_view(n, compiler.g)], reasons)
            continue
        kept = [n for n in nodes if n.name not in refused]
        regions += _compile_all(compiler, _runs_of(kept, nodes, compiler.g), reasons)
    return regions


def _runs_of(kept: list[Node], nodes: list[Node], g: Graph) -> list[list[Node]]:
    """Runs of `kept` that are consecutive in `nodes`, views trimmed from both ends."""
    keep = {n.name for n in kept}
    runs, current = [], []
    for node in nodes + [None]:
        if node is not None and node.name in keep:
            current.append(node)
            continue
        runs += _trimmed(current, g)
        current = []
    return runs


def _trimmed(run: list[Node], g: Graph) -> list[list[Node]]:
    """[run] without views at either end, or [] when nothing but views is left."""
    while run and _is_view(run[0], g):
        run = run[1:]
    while run and _is_view(run[-1], g):
        run = run[:-1]
    return [run] if run else []


def decide(g: Graph, cfg, placement: str, board: dict | None, cpu_cycles: CpuCycles | None) -> Partition:
    """The partition of `g` (lowered, graph order) for NPU config `cfg` and placement auto|max|off, CPU layers
    costed by `cpu_cycles` on `board`."""
    part = Partition()
    part.cpu_cycles, part.cpu_quality, core = cpu_estimates(g, board, cpu_cycles)
    cpu_hz = board["clock_hz"] if board else cfg.clock_hz
    costs = _Costs(g, cfg, part.cpu_cycles, cpu_hz)
    part.cpu_core = core
    if placement == "off":
        part.reasons = {n.name: "--npu-placement off" for n in g.nodes}
        return part
    for node in g.nodes:
        why = npu_refusal(node, g, cfg)
        if why is not None:
            part.reasons[node.name] = why
    capable = {n.name for n in g.nodes if n.name not in part.reasons}
    runs = _runs(g, capable)
    compiler = _Compiler(g, cfg)
    max_regions = _compile_all(compiler, runs, part.reasons)
    for node in g.nodes:
        if node.name not in part.reasons and _is_view(node, g) and not any(node in r.nodes for r in max_regions):
            part.reasons[node.name] = "a view (no code runs for it on the CPU) outside any NPU region"
    # Vela's per-layer estimate: each compute layer compiled alone (also reported for `max`).
    for region in max_regions:
        for node in region.nodes:
            if not _is_view(node, g):
                part.npu_layer_cycles[node.name] = compiler.region([node]).vela.npu_cycles
    chosen = max_regions
    totals = {"max": estimated_total(g, max_regions, costs), "cpu": estimated_total(g, [], costs)}
    if placement == "auto":
        groups = [seg for r in max_regions for seg in _split_run(r.nodes, part.npu_layer_cycles, costs, g)]
        auto_regions = _compile_all(compiler, groups, {})
        totals["auto"] = estimated_total(g, auto_regions, costs)
        best = min(("auto", auto_regions), ("max", max_regions), ("cpu", []), key=lambda c: totals[c[0]])
        chosen = best[1]
        on_npu = {n.name for r in chosen for n in r.nodes}
        for r in max_regions:
            for node in r.nodes:
                if node.name not in on_npu:
                    part.reasons[node.name] = _cheaper_on_cpu(node, g, part, costs, cfg, cpu_hz)
    part.regions = chosen
    part.cpu_core = core
    part.estimates = {"cpu_core": core, "cpu_hz": cpu_hz, "npu_hz": cfg.clock_hz,
                      "seconds": {k: v for k, v in totals.items()}, "entry_cycles": ENTRY_CYCLES,
                      "copy_cycles_per_byte": COPY_CYCLES_PER_BYTE}
    return part


def _cheaper_on_cpu(node: Node, g: Graph, part: Partition, costs: _Costs, cfg, cpu_hz: int) -> str:
    """The reason of an NPU-capable layer `auto` left on the CPU, with both figures."""
    if _is_view(node, g):
        return "a view (no code runs for it on the CPU) next to layers that are cheaper on the CPU"
    cpu = part.cpu_cycles.get(node.name, 0)
    npu = part.npu_layer_cycles.get(node.name, 0)
    entry = costs.call_overhead([node]) * cpu_hz
    cpu = marked(str(cpu), part.cpu_quality.get(node.name, CALIBRATED))
    return (f"cheaper on CPU: {cpu} CPU cycles (estimated) vs {npu} NPU cycles (Vela-estimated, "
            f"{npu / cfg.clock_hz * 1e6:.1f} us) + {entry:.0f} CPU cycles to enter the NPU and copy data")


def apply(g: Graph, part: Partition, cfg) -> Graph:
    """Replace each region's layers by one ethosu_region node; give every CPU layer its placement_reason."""
    first = {r.nodes[0].name: (i, r) for i, r in enumerate(part.regions)}
    members = {n.name for r in part.regions for n in r.nodes}
    taken = {n.name for n in g.nodes}
    nodes = []
    for node in g.nodes:
        if node.name in first:
            i, r = first[node.name]
            estimates = {"npu_cycles": r.vela.npu_cycles, "cpu_core": part.cpu_core,
                         "call_cycles": round(ENTRY_CYCLES + COPY_CYCLES_PER_BYTE * copy_bytes(g, r.inputs, r.outputs)),
                         "layer_npu_cycles": {n.name: part.npu_layer_cycles.get(n.name) for n in r.nodes},
                         "layer_cpu_cycles": {n.name: part.cpu_cycles.get(n.name) for n in r.nodes},
                         "layer_cpu_quality": {n.name: part.cpu_quality.get(n.name) for n in r.nodes}}
            name = f"npu_region_{i}"
            while name in taken:  # a model layer already has that name
                name += "_"
            region = Node(name, "ethosu_region", list(r.inputs), list(r.outputs),
                          {"region": r.vela, "layers": [(n.name, n.op) for n in r.nodes], "config": cfg,
                           "tflite": r.tflite, "estimates": estimates})
            if REGISTRY["ethosu_region"].channels_last(region, g):  # its tensors keep the layout pass's layouts
                region.attrs["layout"] = NHWC
            nodes.append(region)
        elif node.name not in members:
            node.attrs["placement_reason"] = part.reasons.get(node.name, "not placed on the NPU")
            node.attrs["cpu_estimate"] = {"cycles": part.cpu_cycles.get(node.name), "core": part.cpu_core,
                                          "quality": part.cpu_quality.get(node.name)}
            nodes.append(node)
    g.nodes = nodes
    g.remove_unused()
    return g
