"""Model and board text never becomes C code: hostile node, tensor, graph, doc-string, file and board names.

The property tests put generated hostile names (comment terminators, newlines with preprocessor directives,
backslash-newline splices, trigraphs, NUL/CR/bidi controls, quotes, C keywords and reserved or generated
identifiers, colliding names, very long names) on two small real models (float conv+relu+gemm, int8 QDQ add+conv),
compile them, build the C with strict flags and check that (1) no injected marker reaches the preprocessed code
outside string literals, (2) no injected symbol is defined, (3) no host file is included, and (4) the outputs are
bit-identical to the same model with plain names (which itself is checked against onnxruntime).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import tempfile
import unicodedata
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import jinja2
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

import mcucomp
import mcucomp.boards
import mcucomp.host
from emit_c.escape import UnescapedTextError, c_comment_text, c_environment, c_string_literal
from emit_c.identifiers import C_KEYWORDS, C_STANDARD_NAMES, CPP_KEYWORDS, io_identifiers
from mcucomp.cli import main as cli_main
from mcucomp.errors import OptionError

from cli_models import REPO, run_cli, save

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
#: Injected text that would be code if it escaped its comment or string; its markers must never be code.
MARKER = re.compile(r"\bPWNED_\d+\b|\bINJECTED\b")
#: String and character literal tokens of preprocessed C (markers inside them are data, not code).
LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=True)

# --------------------------------------------------------------------------------------------------- strategies

PIECES = [
    "*/", "/*", "//", "\\\n", "\\", "\n", "\r", "\r\n", "\t", "\x00", "\x1b[31m", "\x7f", "\x85", "??/", "??=",
    "??(", "??'", "?", '"', "'", "%", "%s%n", "#", "#define X 1", "\n#define int float\n", "<script>alert(1)</script>",
    "&amp;", "é", "中文", "\U0001F600", "\ufeff", "\u2028", "\u00a0", "a", "A", "0", "_", ".", ":", "-", " ",
    *(chr(c) for c in range(0x202A, 0x202F)), *(chr(c) for c in range(0x2066, 0x206A)),
]
WHOLE = ["int", "class", "uint8_t", "NULL", "M_ARENA_SIZE", "m_run", "m_p0", "m_conv2d_f32", "M_RT_MAX_RANK", "arena",
         "arena_u8", "main", "memcpy", "NAN", "INFINITY", "errno", "bool", "true", "__x", "_X", "ARENA", "linux",
         "a", "A", "a:", "a.", "a-", "a_", "1x", "_1x", "x" * 300, "x" * 299 + "y"]
MARKERS = st.one_of(
    st.integers(0, 99).map(lambda n: f"*/ int PWNED_{n} = 1; /*"),
    st.integers(0, 99).map(lambda n: f"\\\nint PWNED_{n} = 2;\n"),
    st.integers(0, 99).map(lambda n: f'"; int PWNED_{n} = 3; char *s = "'),
    st.just("\n#error INJECTED\n"),
    st.just('\n#include "/etc/hostname"\n'),
    st.just("??/\n#error INJECTED\n"),
)
HOSTILE = st.one_of(
    st.sampled_from(WHOLE),
    st.lists(st.one_of(st.sampled_from(PIECES), MARKERS, st.text(max_size=6)), min_size=1, max_size=6)
    .map("".join).filter(bool),
)


def _names(count: int):
    """count distinct hostile names."""
    return st.lists(HOSTILE, min_size=count, max_size=count, unique=True)


# -------------------------------------------------------------------------------------------------------- models

def _float_model() -> onnx.ModelProto:
    """a, b [1,2,6,6] → Add → Conv 3x3 (3 ch) → Relu (output r) → Flatten → Gemm (5) → y."""
    rng = np.random.default_rng(11)
    inits = {"w": rng.standard_normal((3, 2, 3, 3)), "bias": rng.standard_normal(3),
             "W": rng.standard_normal((5, 108)) * 0.1, "B": rng.standard_normal(5)}
    nodes = [helper.make_node("Add", ["a", "b"], ["s"], name="add"),
             helper.make_node("Conv", ["s", "w", "bias"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("Flatten", ["r"], ["f"], name="flatten"),
             helper.make_node("Gemm", ["f", "W", "B"], ["y"], name="gemm", transB=1)]
    graph = helper.make_graph(
        nodes, "float",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 2, 6, 6]) for n in ("a", "b")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5]),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 3, 6, 6])],
        [numpy_helper.from_array(v.astype(np.float32), k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _qdq_model() -> onnx.ModelProto:
    """int8 QDQ: a, b float [1,2,4,4] → Q/DQ → Add → Q/DQ → Conv 3x3 (3 ch, int8 weights, int32 bias) → Q/DQ
    → y."""
    rng = np.random.default_rng(12)
    inits = {"sa": np.float32(0.02), "za": np.int8(3), "sb": np.float32(0.03), "zb": np.int8(-5),
             "ss": np.float32(0.04), "zs": np.int8(1), "wq": rng.integers(-127, 128, (3, 2, 3, 3)).astype(np.int8),
             "sw": np.float32(0.01), "zw": np.int8(0), "bq": rng.integers(-500, 500, 3).astype(np.int32),
             "sbias": np.float32(0.04 * 0.01), "zbias": np.int32(0), "sy": np.float32(0.05), "zy": np.int8(-2)}
    nodes = [
        helper.make_node("QuantizeLinear", ["a", "sa", "za"], ["aq"], name="qa"),
        helper.make_node("DequantizeLinear", ["aq", "sa", "za"], ["ad"], name="dqa"),
        helper.make_node("QuantizeLinear", ["b", "sb", "zb"], ["bq8"], name="qb"),
        helper.make_node("DequantizeLinear", ["bq8", "sb", "zb"], ["bd"], name="dqb"),
        helper.make_node("Add", ["ad", "bd"], ["s"], name="add"),
        helper.make_node("QuantizeLinear", ["s", "ss", "zs"], ["sq"], name="qs"),
        helper.make_node("DequantizeLinear", ["sq", "ss", "zs"], ["sd"], name="dqs"),
        helper.make_node("DequantizeLinear", ["wq", "sw", "zw"], ["wd"], name="dqw"),
        helper.make_node("DequantizeLinear", ["bq", "sbias", "zbias"], ["bd32"], name="dqbias"),
        helper.make_node("Conv", ["sd", "wd", "bd32"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("QuantizeLinear", ["c", "sy", "zy"], ["cq"], name="qy"),
        helper.make_node("DequantizeLinear", ["cq", "sy", "zy"], ["y"], name="dqy"),
    ]
    graph = helper.make_graph(
        nodes, "qdq",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 2, 4, 4]) for n in ("a", "b")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 4, 4])],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


MODELS = {"float": _float_model, "qdq": _qdq_model}


def _tensor_names(model: onnx.ModelProto) -> list[str]:
    """Every tensor name of the graph: inputs, initializers, node outputs."""
    g = model.graph
    names = [v.name for v in g.input] + [i.name for i in g.initializer] + [o for n in g.node for o in n.output]
    return list(dict.fromkeys(names))


def _feeds(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    """Seeded float feeds for the graph inputs (values within the int8 ranges of the QDQ model)."""
    rng = np.random.default_rng(5)
    return {v.name: rng.uniform(-2, 2, [d.dim_value for d in v.type.tensor_type.shape.dim]).astype(np.float32)
            for v in model.graph.input}


def _rename(model: onnx.ModelProto, names: list[str], doc: str) -> tuple[onnx.ModelProto, dict[str, str]]:
    """A copy with every tensor and node renamed from `names` (tensors first) and doc strings set to `doc`."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    tensors = _tensor_names(m)
    mapping = dict(zip(tensors, names))
    g = m.graph
    for k, node in enumerate(g.node):
        node.input[:] = [mapping.get(i, i) for i in node.input]
        node.output[:] = [mapping[o] for o in node.output]
        node.name = names[len(tensors) + k]
        node.doc_string = doc
    for init in g.initializer:
        init.name = mapping[init.name]
    for vi in list(g.input) + list(g.output):
        vi.name = mapping[vi.name]
        vi.doc_string = doc
    g.name, g.doc_string, m.doc_string, m.producer_name = doc or "g", doc, doc, doc
    return m, mapping


def _name_count(kind: str) -> int:
    """How many hostile names a model needs (tensors and nodes)."""
    model = MODELS[kind]()
    return len(_tensor_names(model)) + len(model.graph.node)


@lru_cache(maxsize=None)
def _reference(kind: str) -> dict[str, np.ndarray]:
    """mcucomp's outputs for the model with plain names, after checking them against onnxruntime."""
    model = MODELS[kind]()
    feeds = _feeds(model)
    with tempfile.TemporaryDirectory() as tmp:
        mcucomp.compile_model(model, Path(tmp) / "out", name="m")
        got = mcucomp.host.load(Path(tmp) / "out").run(feeds)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    for name, ref in want.items():
        step = 0.05 if kind == "qdq" else 0.0  # one output quantization step apart at most
        np.testing.assert_allclose(got[name], ref, rtol=1e-5, atol=step + 1e-5)
    return got


# ------------------------------------------------------------------------------------------------------- checks

def _assert_inert(out_dir: Path, cc: str = "gcc", flags: tuple[str, ...] = ()) -> None:
    """The model's C files compile with strict flags, read no host file, define no injected symbol, and keep every
    marker out of the preprocessed code (string literals aside)."""
    for src in ("m.c", "m_weights.c"):
        obj = out_dir / (src[:-2] + ".o")
        proc = subprocess.run([cc, *STRICT, *flags, "-H", "-save-temps=obj", "-c", src, "-o", obj.name],
                              cwd=out_dir, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "/etc/hostname" not in proc.stderr  # -H lists every header read
        code = LITERAL.sub('""', (out_dir / (src[:-2] + ".i")).read_text(errors="replace"))
        assert not MARKER.search(code), MARKER.search(code).group(0)
        nm = "arm-none-eabi-nm" if cc.startswith("arm") else "nm"
        symbols = subprocess.run([nm, obj.name], cwd=out_dir, capture_output=True, text=True, check=True).stdout
        assert not MARKER.search(symbols), symbols  # names with PWNED inside a sanitized identifier are fine


def _assert_io_shown(out_dir: Path, report: dict) -> None:
    """Each I/O's ONNX name appears escaped next to its C parameter in <name>.h; parameters are distinct, valid,
    not reserved, and distinct once upper-cased (the per-I/O macros)."""
    header = (out_dir / "m.h").read_text()
    c_names = [io["c_name"] for io in report["inputs"] + report["outputs"]]
    for io in report["inputs"] + report["outputs"]:
        assert f"'{c_comment_text(io['name'])}' (parameter {io['c_name']})" in header
        assert IDENT.fullmatch(io["c_name"]) and io["c_name"] not in C_KEYWORDS | CPP_KEYWORDS | C_STANDARD_NAMES
        assert not io["c_name"].startswith(("m_", "M_", "__")) and io["c_name"] not in ("arena", "arena_u8")
    assert len({c.upper() for c in c_names}) == len(c_names)


def _assert_printable(text: str) -> None:
    """Terminal text holds no control (apart from newline), format (bidi) or line-separator character."""
    bad = [ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")]
    assert not bad, bad[:5]


def _check_compiled(out_dir: Path, kind: str, mapping: dict[str, str], report: dict) -> None:
    """Inert C, I/O names shown, outputs equal to the plain-named model's, report pages well-formed."""
    _assert_inert(out_dir)
    _assert_io_shown(out_dir, report)
    plain = MODELS[kind]()
    feeds = {mapping[k]: v for k, v in _feeds(plain).items()}
    got = mcucomp.host.load(out_dir).run(feeds)
    for name, ref in _reference(kind).items():
        np.testing.assert_array_equal(got[mapping[name]], ref)
    ET.fromstring((out_dir / "memory.svg").read_text(encoding="utf-8"))  # well-formed XML: no raw control chars
    html = (out_dir / "report.html").read_text(encoding="utf-8")
    assert "<script>" not in html
    _assert_printable(html)


# ------------------------------------------------------------------------------------------------ property tests

@pytest.mark.parametrize("kind", sorted(MODELS))
def test_hostile_names_never_become_code(kind):
    """Python API: any names on the float and QDQ models give inert C with unchanged outputs."""

    @SETTINGS
    @given(names=_names(_name_count(kind)), doc=HOSTILE)
    def check(names, doc):
        model, mapping = _rename(MODELS[kind](), names, doc)
        with tempfile.TemporaryDirectory() as tmp:
            result = mcucomp.compile_model(model, Path(tmp) / "out", name="m")
            _check_compiled(result.out_dir, kind, mapping, result.report)

    check()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(names=_names(_name_count("float")), doc=HOSTILE, stem=HOSTILE)
def test_hostile_names_and_file_name_through_the_cli(names, doc, stem):
    """The command line (compile, show, analyze) with hostile names and a hostile model file name."""
    model, mapping = _rename(_float_model(), names, doc)
    stem = stem.replace("/", "").replace("\x00", "")[:60] or "x"
    with tempfile.TemporaryDirectory() as tmp:
        path = save(model, Path(tmp) / f"{stem}.onnx")
        out = Path(tmp) / "out"
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert cli_main(["compile", str(path), "-o", str(out), "--name", "m"]) == 0
            assert cli_main(["show", str(path)]) == 0
            assert cli_main(["analyze", str(path), "--name", "m"]) == 0
        _assert_printable(buf.getvalue().replace(str(path), "").replace(str(out), ""))
        assert f" * model: {c_comment_text(path.name)}\n" in (out / "m.c").read_text()
        _check_compiled(out, "float", mapping, json.loads((out / "report.json").read_text()))


# ------------------------------------------------------------------------------------------- deterministic cases

#: Every listed bad case, in one name (plus each on its own below).
BAD_CASES = {
    "comment end": "x */ int PWNED_1 = 1; /*",
    "comment open": "a /* b",
    "line comment": "// c",
    "splice": "d \\\nint PWNED_2 = 2;",
    "trailing backslash": "e\\",
    "include": '\n#include "/etc/hostname"\n',
    "error": "\n#error INJECTED\n",
    "trigraph backslash": "??/\nint PWNED_3 = 3;",
    "trigraph hash": "??=error INJECTED",
    "nul": "f\x00g",
    "cr": "h\rint PWNED_4 = 4;",
    "bidi": "\u202e\u2066i\u2069\u202c",
    "quotes": "\"'; int PWNED_5 = 5; //",
    "percent": "%s%n",
    "non-ascii": "é中\U0001F600",
    "keyword": "int",
    "type": "uint8_t",
    "null": "NULL",
    "model macro": "M_ARENA_SIZE",
    "main": "main",
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_c_comment_text_case(case):
    text = c_comment_text(BAD_CASES[case])
    assert re.fullmatch(r"[ -~]*", text) and "*/" not in text and "/*" not in text and "??" not in text
    assert not text.endswith("?")  # none of the cases ends in '?'; a comment's closing ' */' follows anyway


def _compile_c(tmp_path: Path, source: str, flags=()) -> subprocess.CompletedProcess:
    """Compile one C file with the strict flags (and extra ones)."""
    (tmp_path / "t.c").write_text(source)
    return subprocess.run(["gcc", *STRICT, *flags, "-o", str(tmp_path / "t"), str(tmp_path / "t.c")],
                          capture_output=True, text=True)


@pytest.mark.parametrize("flags", [(), ("-trigraphs",), ("-std=gnu99",)])
def test_escaped_text_compiles_and_round_trips(tmp_path, flags):
    """Every case inside a comment and as a string literal compiles warning-free, defines nothing, and the
    literal holds exactly the UTF-8 bytes of the text."""
    texts = list(BAD_CASES.values()) + ["?" * 7 + "/", "\\\\\n", "x\x01" + "7" * 3, "\x7f9"]
    lines = ["#include <stdio.h>", "#include <string.h>"]
    for k, text in enumerate(texts):
        lines += [f"/* {c_comment_text(text)} */", f"/* {c_comment_text(text)}", f" * {c_comment_text(text)}",
                  " */", f"static const char s{k}[] = {c_string_literal(text)};"]
    lines.append("int main(void)\n{")
    for k in range(len(texts)):
        lines.append(f"    {{ size_t i; for (i = 0; i + 1 < sizeof s{k}; i++) "
                     f"printf(\"%02x\", (unsigned char)s{k}[i]); printf(\"\\n\"); }}")
    lines.append("    return 0;\n}\n")
    proc = _compile_c(tmp_path, "\n".join(lines), flags)
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:len(texts)] == [t.encode().hex() for t in texts]
    symbols = subprocess.run(["nm", str(tmp_path / "t")], capture_output=True, text=True, check=True).stdout
    assert "PWNED" not in symbols


def test_c_comment_text_keeps_readable_text():
    assert c_comment_text("conv1/Relu:0") == "conv1/Relu:0"
    assert c_comment_text("a*/b/*c??/d\\e\nf\u202e") == "a*\\/b/\\*c?\\?/d\\\\e\\x0Af\\u202E"
    assert c_string_literal('a"b\\c??/\n\x001') == '"a\\"b\\\\c\\?\\?/\\n\\0001"'


def test_templates_refuse_unescaped_text():
    env = c_environment(jinja2.DictLoader({"t": "/* {{ x }} */ {{ y }}", "ok": "/* {{ x | c_comment }} */"}))
    assert env.get_template("t").render(x="conv_1", y="(const float *)(arena_u8 + 16)")
    for risky in ("a */ b", "a\n#include <x>", "a\\", '"', "??=", "é"):
        with pytest.raises(UnescapedTextError):
            env.get_template("t").render(x=risky, y="0")
        assert "*/" not in env.get_template("ok").render(x=risky)[3:-3]


def test_io_identifiers_rename_reserved_and_colliding_names():
    names = ["int", "uint8_t", "NULL", "M_ARENA_SIZE", "m_run", "arena", "main", "__x", "_X", "ARENA", "rt_max",
             "a", "A", "y:0", "y_0", "memcpy", "linux", "x" * 70, "x" * 69 + "y", "9lives"]
    got = io_identifiers(names, "m")
    assert got == {
        "int": "int_", "uint8_t": "uint8_t_", "NULL": "NULL_", "M_ARENA_SIZE": "tM_ARENA_SIZE_", "m_run": "tm_run_",
        "arena": "arena_", "main": "main_", "__x": "t__x_", "_X": "t_X_", "ARENA": "ARENA_2", "rt_max": "trt_max_",
        "a": "a", "A": "A_", "y:0": "y_0_", "y_0": "y_0", "memcpy": "memcpy_", "linux": "linux_",
        "x" * 70: "x" * 63, "x" * 69 + "y": "x" * 58 + "_", "9lives": "_9lives",
    }
    assert io_identifiers(names, "m") == got  # deterministic


def test_reserved_io_names_compile_and_run(tmp_path):
    """A model whose inputs and outputs are all reserved or colliding names: renamed, strict C99 and GNU99 builds,
    a C++ parse of the header, correct outputs (each output is Relu of its input)."""
    names = ["int", "uint8_t", "NULL", "M_ARENA_SIZE", "m_run", "arena", "arena_u8", "main", "memcpy", "NAN",
             "errno", "bool", "__x", "_X", "ARENA", "linux", "unix", "a", "A", "y:0", "y_0", "M_RT_MAX", "m_p0",
             "arena_size", "I", "class", "new", "this"]
    ins, outs = names[:len(names) // 2 + 1], names[len(names) // 2 + 1:]
    outs += [f"{n}:out" for n in ins[len(outs):]]
    nodes = [helper.make_node("Relu", [i], [o], name=f"n{k}") for k, (i, o) in enumerate(zip(ins, outs))]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in ins],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    result = mcucomp.compile_model(model, tmp_path / "out", name="m")
    _assert_inert(result.out_dir)
    _assert_inert(result.out_dir, flags=("-std=gnu99",))
    _assert_io_shown(result.out_dir, result.report)
    cpp = subprocess.run(["g++", "-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", "-x", "c++",
                          str(result.out_dir / "m.h")], capture_output=True, text=True)
    assert cpp.returncode == 0, cpp.stderr  # the header is for C++ callers too
    feeds = {n: np.linspace(-1, 1, 4, dtype=np.float32) * (k + 1) for k, n in enumerate(ins)}
    got = mcucomp.host.load(result.out_dir).run(feeds)
    for i, o in zip(ins, outs):
        np.testing.assert_array_equal(got[o], np.maximum(feeds[i], 0))


def test_duplicate_node_names_get_distinct_calls(tmp_path):
    """ONNX allows two nodes with one name; each still gets its own call."""
    plain = _float_model()
    model, mapping = _rename(plain, _tensor_names(plain) + ["same"] * len(plain.graph.node), "")
    result = mcucomp.compile_model(model, tmp_path / "out", name="m")
    got = mcucomp.host.load(result.out_dir).run(_feeds(model))
    for name, ref in _reference("float").items():
        np.testing.assert_array_equal(got[mapping[name]], ref)


def test_cortex_m4_build_of_hostile_model(tmp_path):
    """arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb builds the model with every bad case in its names."""
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.fail("arm-none-eabi-gcc is not installed (apt-get install gcc-arm-none-eabi)")
    count = _name_count("qdq")
    cases = [BAD_CASES[k] for k in sorted(BAD_CASES)]
    names = [f"{cases[k % len(cases)]}{k}" for k in range(count)]
    model, mapping = _rename(_qdq_model(), names, "".join(cases))
    result = mcucomp.compile_model(model, tmp_path / "out", name="m")
    _assert_inert(result.out_dir, "arm-none-eabi-gcc", ("-mcpu=cortex-m4", "-mthumb"))
    _check_compiled(result.out_dir, "qdq", mapping, result.report)


def test_cli_subprocess_with_hostile_file_name(tmp_path):
    """`python -m mcucomp compile` of a model whose file name and tensor names carry the bad cases."""
    names = [f"{v}{k}" for k, v in enumerate(sorted(BAD_CASES.values()))][:_name_count("float")]
    model, mapping = _rename(_float_model(), names, BAD_CASES["include"])
    path = save(model, tmp_path / "x \\\n#error INJECTED\n??=error INJECTED \u202e.onnx")
    proc = run_cli("compile", path, "-o", tmp_path / "out", "--name", "m")
    assert proc.returncode == 0, proc.stderr
    _assert_printable(proc.stdout.replace(str(path), ""))
    out = tmp_path / "out"
    assert " * model: x \\\\\\x0A#error INJECTED\\x0A?\\?=error INJECTED \\u202E.onnx\n" in (out / "m.c").read_text()
    _check_compiled(out, "float", mapping, json.loads((out / "report.json").read_text()))


# ------------------------------------------------------------------------------------------------------- boards

def _board_text(**edits: str) -> str:
    """The default board's TOML with some top-level string fields replaced."""
    text = (REPO / "boards" / "nucleo-l4r5zi.toml").read_text()
    for key, value in edits.items():
        text = re.sub(rf'(?m)^{key} = ".*"$', lambda _: f"{key} = {json.dumps(value)}", text, count=1)
    return text


@pytest.mark.parametrize("field, value", [
    ("id", "x */ int PWNED_1 = 1; /*"), ("id", "a\nb"), ("id", "Nucleo"), ("id", "-x"), ("id", ""),
    ("id", "a" * 65), ("id", "é"), ("name", "Nucleo \u202e"), ("name", "a\x00b"), ("name", "x\ny"),
])
def test_board_with_hostile_text_is_refused(tmp_path, field, value):
    path = tmp_path / "board.toml"
    path.write_text(_board_text(**{field: value}))
    with pytest.raises(OptionError, match=f"Board file '{re.escape(str(path))}': field '{field}'"):
        mcucomp.boards.load_board(str(path))


def test_board_region_name_and_case_collision_are_refused(tmp_path):
    path = tmp_path / "board.toml"
    path.write_text(_board_text().replace('name = "flash"', 'name = "flash */"'))
    with pytest.raises(OptionError, match="field 'name'"):
        mcucomp.boards.load_board(str(path))
    path.write_text(_board_text().replace('name = "flash"', 'name = "SRAM"'))
    with pytest.raises(OptionError, match="appear more than once"):
        mcucomp.boards.load_board(str(path))


def test_cli_refuses_hostile_board_file(tmp_path):
    path = tmp_path / "evil.toml"
    path.write_text(_board_text(id='x */ int PWNED_1 = 1; /*'))
    model = save(_float_model(), tmp_path / "m.onnx")
    proc = run_cli("compile", model, "-o", tmp_path / "out", "--board", path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("error: ") and "field 'id'" in proc.stderr and str(path) in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()


def test_valid_custom_board_id_reaches_c_escaped(tmp_path):
    path = tmp_path / "my.board.toml"
    path.write_text(_board_text(id="my.board-1_a", name="My board (rev ?)"))
    result = mcucomp.compile_model(_float_model(), tmp_path / "out", name="m", board=str(path))
    assert "board=my.board-1_a " in (result.out_dir / "m.c").read_text()
    _assert_inert(result.out_dir)


def test_cli_errors_and_verify_table_show_names_escaped(tmp_path):
    """Error messages and the verify table print control and bidi characters in names as visible escapes."""
    plain = _float_model()
    evil = ["\x1b[2J\u202e" + n for n in _tensor_names(plain)] + [f"\x1b]0;x\x07{k}" for k in range(5)]
    model, _ = _rename(plain, evil, "doc")
    model.graph.node[2].op_type, model.graph.node[2].domain = "NoSuchOp", "com.example"
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    proc = run_cli("compile", save(model, tmp_path / "m.onnx"), "-o", tmp_path / "out")
    assert proc.returncode in (1, 2) and "NoSuchOp" in proc.stderr, proc.stderr
    _assert_printable(proc.stderr)
    assert "\\x1B]0;x\\x072" in proc.stderr
    good, _ = _rename(plain, evil, "doc")
    proc = run_cli("verify", save(good, tmp_path / "g.onnx"), "-o", tmp_path / "out", "--inputs", "1")
    assert proc.returncode == 0, proc.stderr
    _assert_printable(proc.stdout.replace(str(tmp_path), ""))
    assert "\\x1B[2J\\u202Ey" in proc.stdout
