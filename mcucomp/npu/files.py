"""What an NPU build writes besides the C: each region's .tflite (exactly the file handed to Vela) and the
report.json entries host verify needs to run that region through LiteRT."""

from __future__ import annotations

import hashlib

import numpy as np

from mcucomp.ir import Graph, Node

from .tflite_writer import boundary_shape


def region_tflite_name(model_name: str, node: Node) -> str:
    """The output file holding a region's TFLite subgraph: <name>_<region>.tflite."""
    return f"{model_name}_{node.name}.tflite"


def region_files(model_name: str, order: list[Node]) -> dict[str, bytes]:
    """Every region's .tflite by file name (regions made without one, e.g. by tests, write none)."""
    return {region_tflite_name(model_name, n): n.attrs["tflite"] for n in order
            if n.op == "ethosu_region" and n.attrs.get("tflite")}


def _io(g: Graph, name: str, io) -> dict:
    """One region input or output as host verify reads it: where it sits and how LiteRT shapes it."""
    t = g.tensors[name]
    return {"tensor": name, "region": io.region, "offset": io.offset, "bytes": t.nbytes, "dtype": t.dtype,
            "tflite_shape": list(boundary_shape(t))}


def region_details(g: Graph, node: Node, model_name: str) -> dict:
    """report.json details of one region: its .tflite, the command stream's SHA-256 (how the host stand-in of
    ethosu_invoke_v3 recognises it), its I/O and the layers it replaces."""
    region = node.attrs["region"]
    if not node.attrs.get("tflite"):
        return {}
    return {"tflite": region_tflite_name(model_name, node),
            "command_stream_sha256": hashlib.sha256(region.command_stream).hexdigest(),
            "inputs": [_io(g, n, io) for n, io in zip(node.inputs, region.inputs)],
            "outputs": [_io(g, n, io) for n, io in zip(node.outputs, region.outputs)],
            "layers": [{"name": n, "op": op} for n, op in node.attrs["layers"]]}


def read_io(memory: np.ndarray, spec: dict) -> np.ndarray:
    """A region input, read from the bytes of its base-address region, shaped for LiteRT."""
    raw = memory[spec["offset"]:spec["offset"] + spec["bytes"]]
    return raw.view(spec["dtype"]).reshape(spec["tflite_shape"])
