"""Models with ONNX local functions (what PyTorch's export_modules_as_functions and the dynamo exporter write),
compiled by the CLI in a fresh interpreter: no module the test process imported earlier (onnxscript loads
onnx.inliner) can hide a missing import there."""

from __future__ import annotations

import numpy as np
import onnx
from cli_models import run_cli, save
from onnx import TensorProto, helper, numpy_helper

from mcucomp.pipeline import lower_compiled
from mcucomp.verify import verify_compiled

FN_DOMAIN = "local.fn"


def _ref_node(op: str, inputs: list[str], outputs: list[str], attr: str, domain: str = "") -> onnx.NodeProto:
    """A node whose float attribute `attr` takes the value of the calling function's attribute of that name."""
    node = helper.make_node(op, inputs, outputs, domain=domain)
    node.attribute.append(helper.make_attribute_ref(attr, onnx.AttributeProto.FLOAT))
    return node


def nested_function_model() -> onnx.ModelProto:
    """x → block(alpha=0.2) → block(alpha=0.05) → y. The function `block` (Conv, then the function `act`) hands its
    attribute alpha on to `act` (2 · LeakyRelu(alpha)) by attribute reference: a function calling a function."""
    rng = np.random.default_rng(3)
    act = helper.make_function(
        FN_DOMAIN, "act", ["t"], ["u"],
        [_ref_node("LeakyRelu", ["t"], ["lr"], "alpha"),
         helper.make_node("Constant", [], ["two"], value=numpy_helper.from_array(np.array(2.0, np.float32))),
         helper.make_node("Mul", ["lr", "two"], ["u"])],
        opset_imports=[helper.make_opsetid("", 13)], attributes=["alpha"])
    block = helper.make_function(
        FN_DOMAIN, "block", ["x", "w"], ["y"],
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         _ref_node("act", ["c"], ["y"], "alpha", domain=FN_DOMAIN)],
        opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(FN_DOMAIN, 1)], attributes=["alpha"])
    weights = [numpy_helper.from_array((rng.standard_normal((4, c, 3, 3)) * 0.4).astype(np.float32), f"w{i}")
               for i, c in ((1, 2), (2, 4))]
    nodes = [helper.make_node("block", ["x", "w1"], ["h"], domain=FN_DOMAIN, name="block1", alpha=0.2),
             helper.make_node("block", ["h", "w2"], ["y"], domain=FN_DOMAIN, name="block2", alpha=0.05)]
    graph = helper.make_graph(nodes, "nested", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])], weights)
    return helper.make_model(graph, functions=[act, block],
                             opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(FN_DOMAIN, 1)])


def test_nested_local_functions_compile_from_a_fresh_interpreter(tmp_path):
    path = save(nested_function_model(), tmp_path / "nested.onnx")
    out = tmp_path / "out"
    proc = run_cli("compile", path, "-o", out, "--name", "nested")
    assert proc.returncode == 0, proc.stderr
    result = verify_compiled(path, out, lower_compiled(path, out), inputs=8, seed=5)
    assert result.ok, [(s.name, s.mismatching) for s in result.outputs]
