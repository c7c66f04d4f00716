"""Locate ../shared/models next to the repository; fail loudly when it is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_MODELS = Path(__file__).resolve().parents[1].parent / "shared" / "models"


def shared_model(rel: str) -> Path:
    """Path of a shared test model, or a test failure naming where it was expected."""
    path = SHARED_MODELS / rel
    if not path.is_file():
        pytest.fail(f"shared test model {path} is missing: the repository must sit next to shared/ (../shared/models)")
    return path
