"""Fit check: predicted RAM (arena + I/O buffers + stack) and flash (weights + code) against the board's regions.

Code size and stack come from mcucomp/target/code_size.json, measured once per core with arm-none-eabi-gcc -O2
(bench/measure_code_size.py), so no toolchain is needed at compile time. The stack is a bound, not a guess: the
deepest call chain of each kernel path (mcucomp/target/callgraph.py), on top of the generated run function's frame
(report.json run_frame_bytes, from the emitted program) and the test firmware's own frames (docs/ARCHITECTURE.md,
"Stack bound"). Everything the firmware links is placed as its linker script does: .data/.bss/stack in the board's
ram_region, code in its flash_region, the arena and the weights in the regions choose_regions picks (asked for
with --arena-region/--weights-region, else the fastest with room).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from runtime_c import kernel_files

from .boards import region
from .errors import FitError, OptionError

#: Code and params-struct bytes the generated <name>_run spends per kernel call (calibrated on the shared models:
#: a call sequence of 5-8 instructions plus a 20-60 byte const params struct).
CALL_BYTES = 56
#: Stack Arm's Ethos-U driver (ethos-u-core-driver, src/ethosu_driver.c and ethosu_device_u55_u65.c at commit
#: e79714a, 2024-10-29) takes below the region kernel: ethosu_invoke_v3 (24 B) -> ethosu_invoke_async (40) ->
#: ethosu_dev_run_command_stream (32), deeper than its ethosu_wait (16 + 8) and ethosu_release_driver (16 + 24)
#: chains; arm-none-eabi-gcc 12.2 -O2 -fcallgraph-info=su for Cortex-M55 and Ethos-U55, logging off
#: (ETHOSU_LOG_ENABLE=0). The hooks it calls that the application defines (ethosu_flush_dcache,
#: ethosu_semaphore_take, ethosu_mutex_lock, ethosu_inference_begin ...) add their own frames; the driver's weak
#: defaults take none.
ETHOSU_DRIVER_STACK_BYTES = 96


@lru_cache(maxsize=1)
def code_size_table() -> dict:
    """The measured per-core table (mcucomp/target/code_size.json)."""
    return json.loads(resources.files("mcucomp.target").joinpath("code_size.json").read_text())


def _kernel_entries(report: dict, core: dict) -> tuple[dict, list[str]]:
    """Table entry per runtime C file the model links (kernels and the files they depend on); files missing from the
    table get the largest entry (listed)."""
    prefix = report["name"] + "_"
    model_files = {f"{report['name']}.c", f"{report['name']}_weights.c"}
    used = sorted(f[len(prefix):-2] for f in report.get("files", []) if f.endswith(".c") and f not in model_files)
    if not used:  # planned, not written yet: the layers' kernels and the runtime files they depend on
        from .ops import REGISTRY

        layers = [layer for layer in report["layers"] if not layer["alias"]]
        ops = {layer["op"] for layer in layers}
        kernels = {layer.get("kernel") or layer["op"] for layer in layers}
        stems = kernels | {dep for op in ops if op in REGISTRY for dep in REGISTRY[op].depends}
        used = sorted(rel[len("kernels/"):-2] for rel in kernel_files(sorted(stems)) if rel.endswith(".c"))
    largest = {k: max(e[k] for e in core["kernels"].values()) for k in ("code", "library", "stack")}
    missing = [op for op in used if op not in core["kernels"]]
    return {op: core["kernels"].get(op, largest) for op in used}, missing


#: Preference of memory kinds when mcucomp chooses a region: TCM before SRAM or on-chip flash before external
#: memory; within a kind, fewer wait states first, then the board's default region.
KIND_RANK = {"tcm": 0, "sram": 1, "flash": 1, "external": 2}
#: Parts of the RAM and flash use, by where the firmware puts them.
RAM_PARTS, FLASH_PARTS = ("arena", "io_buffers", "stack"), ("weights", "code")


def _is_ram(r: dict) -> bool:
    """Writable at run time: SRAM, TCM or external RAM."""
    return r["kind"] in ("sram", "tcm") or r.get("external_type") == "ram"


def _region_list(regions: list[dict]) -> str:
    """`dtcm (tcm, 128 KB), axi_sram (sram, 512 KB)`."""
    return ", ".join(f"{r['name']} ({r['kind']}, {r['size'] // 1024} KB)" for r in regions)


def _not_for_arena(r: dict) -> str | None:
    """Why the automatic choice passes over a RAM region for the arena, or None."""
    if r["base"] == 0:
        return "starts at address 0, where the arena's pointer would be NULL"
    if "itcm" in r["name"].lower():
        return "is the instruction TCM"
    return None


def _choose(what: str, option: str, asked: str | None, candidates: list[dict], default: str, board: dict,
            need) -> tuple[str, str]:
    """(region name, why) for the arena or the weights: the one asked for, else the fastest candidate with room.

    need(region name) is the bytes that region must hold if it is chosen (shared regions also hold the stack, the
    I/O buffers or the code)."""
    names = [r["name"] for r in candidates]
    if asked is not None:
        if asked not in {r["name"] for r in board["memory"]}:
            raise OptionError(f"{option} '{asked}': board '{board['id']}' has no such memory region. Its regions: "
                              f"{_region_list(board['memory'])}.")
        if asked not in names:
            raise OptionError(f"{option} '{asked}': the {what} cannot live in that region of board '{board['id']}'. "
                              f"Use one of: {_region_list(candidates)}.")
        if what == "arena" and region(board, asked)["base"] == 0:
            raise OptionError(f"{option} '{asked}': region '{asked}' starts at address 0, where the arena's pointer "
                              f"would be NULL. Use one of: {_region_list([r for r in candidates if r['base']])}.")
        return asked, f"chosen with {option}"
    if len(candidates) == 1 and candidates[0]["name"] == default:
        return default, f"the board's only {'RAM' if what == 'arena' else 'flash'} region"
    usable = [r for r in candidates if what != "arena" or _not_for_arena(r) is None]
    usable.sort(key=lambda r: (KIND_RANK[r["kind"]], r.get("wait_states", 0), r["name"] != default))
    for r in usable:
        if need(r["name"]) <= r["size"]:
            return r["name"], (f"fastest region with room: {r['kind']}, {r.get('wait_states', 0)} wait states; "
                               f"{option} NAME chooses another")
    return default, f"no region has room for it, so the board's default; {option} NAME chooses another"


def _npu_reachable(what: str, option: str, asked: str | None, candidates: list[dict], reachable: list[str] | None,
                   board: dict) -> list[dict]:
    """The candidates the board's NPU can read and write (all when reachable is None: no NPU region in the build,
    or a board whose [npu] table does not say); OptionError when `asked` is one the NPU cannot reach."""
    if reachable is None:
        return candidates
    if asked is not None and asked in {r["name"] for r in candidates} and asked not in reachable:
        raise OptionError(f"{option} '{asked}': the Ethos-U of board '{board['id']}' cannot reach that region, and "
                          f"it reads and writes the {what} (Vela's scratch and the region I/O live in the arena; "
                          f"the command streams and NPU weights are weights). Use one of: "
                          f"{', '.join(r['name'] for r in candidates if r['name'] in reachable)}.")
    return [r for r in candidates if r["name"] in reachable]


def choose_regions(board: dict, ram_parts: dict, flash_parts: dict, arena_region: str | None = None,
                   weights_region: str | None = None, npu_regions: list[str] | None = None) -> dict:
    """The arena's and the weights' regions with the reason for each (the asked ones, else the fastest with room);
    npu_regions (an NPU build on a board whose [npu] table lists them) limits both to what the NPU reaches."""
    ram_default, flash_default = board["ram_region"], board["flash_region"]
    shared_ram = ram_parts["io_buffers"] + ram_parts["stack"]
    rams = _npu_reachable("arena", "--arena-region", arena_region, [r for r in board["memory"] if _is_ram(r)],
                          npu_regions, board)
    arena, arena_why = _choose(
        "arena", "--arena-region", arena_region, rams, ram_default, board,
        lambda name: ram_parts["arena"] + (shared_ram if name == ram_default else 0))
    roms = [r for r in board["memory"]
            if r["kind"] == "flash" or r.get("external_type") == "flash" or r["name"] == flash_default]
    roms = _npu_reachable("weights", "--weights-region", weights_region, roms, npu_regions, board)
    weights, weights_why = _choose(
        "weights", "--weights-region", weights_region, roms, flash_default, board,
        lambda name: flash_parts["weights"] + (flash_parts["code"] if name == flash_default else 0))
    if npu_regions is not None:
        reach = f"; the NPU reaches only {', '.join(npu_regions)}"
        arena_why += reach if arena_region is None else ""
        weights_why += reach if weights_region is None else ""
    return {"arena_region": arena, "arena_region_why": arena_why,
            "weights_region": weights, "weights_region_why": weights_why}


def estimate_fit(report: dict, board: dict, arena_region: str | None = None,
                 weights_region: str | None = None) -> dict:
    """Predicted RAM and flash use of the model's test firmware on board: totals, parts, and the use of each region
    (the arena and the weights in the chosen regions, .data/.bss/stack in the board's RAM region, code in its
    flash region)."""
    core = code_size_table()["cores"][board["core"]]
    kernels, missing = _kernel_entries(report, core)
    calls = sum(1 for layer in report["layers"] if not layer["alias"])
    io_bytes = sum(_nbytes(io) for io in report["inputs"] + report["outputs"] if io.get("arena_offset") is None)
    stack = -(-stack_bound(report, core, kernels) // 8) * 8
    code = (core["firmware_flash"] + sum(e["code"] for e in kernels.values())
            + max((e["library"] for e in kernels.values()), default=0) + CALL_BYTES * calls)
    ram_parts = {"arena": max(report["arena_bytes"], 16), "io_buffers": io_bytes, "stack": stack}
    flash_parts = {"weights": report["weights_bytes"], "code": code}
    npu_build = bool(report.get("npu") and report["npu"]["regions"])
    npu_regions = board.get("npu", {}).get("regions") if npu_build else None
    chosen = choose_regions(board, ram_parts, flash_parts, arena_region, weights_region, npu_regions)
    where = {"arena": chosen["arena_region"], "io_buffers": board["ram_region"], "stack": board["ram_region"],
             "weights": chosen["weights_region"], "code": board["flash_region"]}
    regions: dict[str, dict] = {}
    for part, size in {**ram_parts, **flash_parts}.items():
        r = region(board, where[part])
        use = regions.setdefault(r["name"], {"memory": set(), "region": r["name"], "region_bytes": r["size"],
                                             "bytes": 0, "parts": {}})
        use["memory"].add("RAM" if part in RAM_PARTS else "flash")
        use["bytes"] += size
        use["parts"][part] = size
    for use in regions.values():
        use["memory"] = "+".join(sorted(use["memory"], key=["RAM", "flash"].index))
    return {
        "core": board["core"], **chosen,
        "ram_bytes": sum(ram_parts.values()), "ram_parts": ram_parts,
        "flash_bytes": sum(flash_parts.values()), "flash_parts": flash_parts,
        "regions": sorted(regions.values(), key=lambda u: (u["memory"] != "RAM", u["memory"])),
        "kernels_not_measured": missing,
        "note": "code and stack predicted from mcucomp/target/code_size.json (arm-none-eabi-gcc -O2 per core); "
                "stack = firmware frames + run frame + deepest kernel call chain (a bound); RAM excludes other "
                "application data",
    }


def layer_stack(layer: dict, kernels: dict) -> int:
    """Deepest stack one layer's kernel call may take: the deepest call chain of the runtime file it calls (a kernel
    path's own file, e.g. conv2d_s8_pointwise); an NPU region adds the Ethos-U driver's frames."""
    entry = kernels.get(layer.get("kernel") or layer["op"])
    if entry is None:  # no measured file of that name: the deepest kernel the model links
        return max((e["stack"] for e in kernels.values()), default=0)
    return entry["stack"] + (ETHOSU_DRIVER_STACK_BYTES if layer["op"] == "ethosu_region" else 0)


def stack_bound(report: dict, core: dict, kernels: dict) -> int:
    """Stack of the model's test firmware: the firmware's frames (reset handler and main), then the run function's
    frame and the deepest layer, or main's own calls between inferences when they go deeper."""
    deepest = max((layer_stack(layer, kernels) for layer in report["layers"] if not layer["alias"]), default=0)
    inference = core["firmware_stack"] + report["run_frame_bytes"] + deepest
    return max(inference, core["firmware_calls_stack"])


def _nbytes(io: dict) -> int:
    """Bytes of one graph input/output."""
    count = 1
    for d in io["shape"]:
        count *= d
    return count * {"float32": 4, "int8": 1, "uint8": 1, "int16": 2, "int32": 4, "int64": 8, "bool": 1}[io["dtype"]]


def _contributors(report: dict, fit: dict, parts: dict) -> list[tuple[str, int]]:
    """The three biggest single items among a region's parts: arena tensors, I/O buffers, the stack, each layer's
    constants, the code."""
    items = []
    if "arena" in parts:
        items += [(f"tensor '{t['name']}' in the arena", t["bytes"]) for t in report["tensors"] if not t.get("alias_of")]
    if "io_buffers" in parts:
        items += [(f"I/O buffer '{io['name']}'", _nbytes(io)) for io in report["inputs"] + report["outputs"]
                  if io.get("arena_offset") is None]
    if "stack" in parts:
        items.append(("stack (estimated)", fit["ram_parts"]["stack"]))
    if "weights" in parts:
        items += [(f"weights of layer '{layer['name']}' ({layer['op']})", layer["weight_bytes"])
                  for layer in report["layers"]]
    if "code" in parts:
        items.append(("code (runtime kernels and firmware, estimated)", fit["flash_parts"]["code"]))
    return sorted(items, key=lambda kv: -kv[1])[:3]


def check_fit(report: dict, board: dict, fit: dict) -> None:
    """Raise FitError naming the overflowing region, the numbers and the three largest contributors."""
    problems = []
    for use in fit["regions"]:
        need, have = use["bytes"], use["region_bytes"]
        if need <= have:
            continue
        parts = " + ".join(f"{k} {v:,} B" for k, v in use["parts"].items())
        top = "; ".join(f"{name} {size:,} B" for name, size in _contributors(report, fit, use["parts"]))
        problems.append(f"{use['memory']} region '{use['region']}' holds {have:,} B but the model needs {need:,} B "
                        f"({parts}): over by {need - have:,} B. Largest contributors: {top}.")
    if problems:
        raise FitError(f"Model '{report['name']}' does not fit board '{board['id']}': " + " ".join(problems)
                       + f" Pick a larger board with --board, another region with --arena-region or "
                       f"--weights-region (regions: {_region_list(board['memory'])}), shrink the model, or pass "
                       "--no-fit-check to write the C anyway.")
