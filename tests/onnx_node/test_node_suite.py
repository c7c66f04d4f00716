"""Every ONNX backend node test keeps its committed outcome; those in expected_pass.txt must pass, none may crash."""

from __future__ import annotations

import pytest

from . import status_file
from .runner import all_cases, run_case

RECORDED = status_file.read()
PASSING = status_file.expected_pass()
CRASH_MARKERS = ("compiler crashed", "generated C crashed", "timeout", "host build/run failed")


@pytest.mark.parametrize("name", sorted(all_cases()))
def test_node(name, tmp_path):
    result = run_case(all_cases()[name], str(tmp_path))
    assert not result.reason.startswith(CRASH_MARKERS), f"{name} crashed: {result.reason}"
    if name in PASSING:
        assert result.status == "pass", f"{name} is in expected_pass.txt but is {result.status}: {result.reason}"
    else:
        recorded = RECORDED.get(name, ("missing", ""))[0]
        assert result.status == recorded, (
            f"{name} is now {result.status} ({result.reason}) but status.tsv records {recorded}: run "
            "`python bench/onnx_node_suite.py --update` and commit status.tsv, expected_pass.txt and SUPPORTED_OPS.md")
