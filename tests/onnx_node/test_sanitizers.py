"""The generated C of every passing node test runs clean under AddressSanitizer and UndefinedBehaviorSanitizer.

The build is the generated sources plus a file-based driver (tests/onnx_node/runner.py), with an arena allocated at
exactly arena_bytes so any access past it is reported; outputs are compared as in the plain run.
"""

from __future__ import annotations

import pytest

from . import status_file
from .runner import all_cases, run_case


@pytest.mark.parametrize("name", sorted(status_file.expected_pass()))
def test_sanitized(name, tmp_path):
    result = run_case(all_cases()[name], str(tmp_path), sanitize=True)
    assert result.status == "pass", f"{name} under ASan/UBSan: {result.reason}"
