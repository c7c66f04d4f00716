"""Make the modules in tests/ (shared_models, int8_models, ...) and tests/npu/ importable from tests/npu."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
