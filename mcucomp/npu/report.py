"""The placement report of an NPU build: every original layer on the CPU or the NPU, why, and the estimates.

CPU figures are mcucomp's cycle estimate ("estimated (Cortex-M TRM timings)"), NPU figures are Vela's
("Vela-estimated"); they are kept in separate columns and only combined as time (each at its own clock) in the
estimated latency.
"""

from __future__ import annotations

from mcucomp.ir import Node
from mcucomp.estimate_quality import CALIBRATED, marked

CPU_LABEL = "estimated (Cortex-M TRM timings)"
NPU_LABEL = "Vela-estimated"
HEADER = ["layer", "op", "placement", "region", "CPU cycles (estimated)", "NPU cycles (Vela-estimated)", "reason"]


def _cycles(value) -> int | None:
    """An estimate as an int, None when there is none."""
    return None if value is None else int(value)


def placement_report(order: list[Node], cfg, mode: str, cpu_hz: int) -> dict | None:
    """report.json's "npu_placement" (None without an NPU): one row per original layer, then the totals."""
    if cfg is None:
        return None
    rows, cpu_total, call_total, npu_total, core = [], 0, 0, 0, ""
    for node in order:
        if node.op == "ethosu_region":
            est = node.attrs.get("estimates", {})
            core = est.get("cpu_core", core)
            npu_total += node.attrs["region"].npu_cycles
            call_total += est.get("call_cycles", 0)
            for name, op in node.attrs["layers"]:
                rows.append({"name": name, "op": op, "placement": "npu", "region": node.name,
                             "cpu_cycles_estimated": _cycles(est.get("layer_cpu_cycles", {}).get(name)),
                             "cpu_estimate_quality": est.get("layer_cpu_quality", {}).get(name),
                             "npu_cycles_vela_estimated": _cycles(est.get("layer_npu_cycles", {}).get(name))})
        else:
            est = node.attrs.get("cpu_estimate", {})
            core = est.get("core", core) or core
            cycles = _cycles(est.get("cycles"))
            cpu_total += cycles or 0
            rows.append({"name": node.name, "op": node.op, "placement": "cpu", "region": None,
                         "placement_reason": node.attrs.get("placement_reason", ""),
                         "cpu_cycles_estimated": cycles, "cpu_estimate_quality": est.get("quality"),
                         "npu_cycles_vela_estimated": None})
    seconds = (cpu_total + call_total) / cpu_hz + npu_total / cfg.clock_hz
    return {
        "mode": mode, "accelerator": cfg.accelerator,
        "layers": rows,
        "npu_layers": sum(r["placement"] == "npu" for r in rows),
        "cpu_layers": sum(r["placement"] == "cpu" for r in rows),
        "regions": sum(n.op == "ethosu_region" for n in order),
        "cpu_cycles_estimated": cpu_total, "cpu_label": f"{CPU_LABEL}, {core or 'no'} fit",
        "cpu_estimate_quality": _total_quality(rows),
        "region_call_cycles_estimated": call_total,
        "npu_cycles_vela_estimated": npu_total, "npu_label": NPU_LABEL,
        "cpu_hz": cpu_hz, "npu_hz": cfg.clock_hz,
        "estimated_latency_us": 1e6 * seconds,
    }


def _total_quality(rows: list[dict]) -> str:
    """The CPU total's estimate quality: CALIBRATED, or how many CPU layers' figures are not."""
    off = [r for r in rows if r["placement"] == "cpu" and r["cpu_estimate_quality"] not in (None, CALIBRATED)]
    return CALIBRATED if not off else f"{len(off)} CPU layer figure(s) outside the estimator's calibration"


def layer_placement(node: Node) -> dict:
    """The `placement` (and, on the CPU, `placement_reason`) fields of one scheduled layer on an NPU board."""
    if node.op == "ethosu_region":
        return {"placement": "npu", "npu_layers": [name for name, _ in node.attrs["layers"]]}
    return {"placement": "cpu", "placement_reason": node.attrs.get("placement_reason", "")}


def cycle_cell(value, quality: str | None = None) -> str:
    """A cycle count with thousands separators ('~' ahead when its estimate is not calibrated), '-' when there is
    none."""
    return "-" if value is None else marked(f"{value:,}", quality or CALIBRATED)


def totals_text(placement: dict) -> str:
    """The totals line: CPU and NPU cycles apart, each labelled, and the estimated latency."""
    p = placement
    return (f"{p['npu_layers']} layer(s) on the NPU in {p['regions']} region(s), {p['cpu_layers']} on the CPU "
            f"(--npu-placement {p['mode']}); CPU {cycle_cell(p['cpu_cycles_estimated'], p.get('cpu_estimate_quality'))} "
            f"cycles + "
            f"{p['region_call_cycles_estimated']:,} cycles of region calls ({p['cpu_label']}, "
            f"{p['cpu_hz'] / 1e6:g} MHz); NPU {p['npu_cycles_vela_estimated']:,} cycles ({p['npu_label']}, "
            f"{p['accelerator']} at {p['npu_hz'] / 1e6:g} MHz); estimated latency {p['estimated_latency_us']:,.1f} us")
