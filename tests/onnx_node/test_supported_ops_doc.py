"""docs/SUPPORTED_OPS.md, status.tsv and expected_pass.txt agree with the code and with each other."""

from __future__ import annotations

from . import status_file
from .runner import all_cases
from .supported_ops import DOC, render


def test_status_covers_every_node_test():
    assert sorted(status_file.read()) == sorted(all_cases()), "status.tsv is stale: run bench/onnx_node_suite.py --update"


def test_expected_pass_matches_status():
    passing = {name for name, (status, _) in status_file.read().items() if status == "pass"}
    assert status_file.expected_pass() == passing


def test_supported_ops_doc_is_current():
    assert DOC.read_text() == render(), "docs/SUPPORTED_OPS.md is stale: run `python bench/onnx_node_suite.py --update`"
