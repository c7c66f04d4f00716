"""Make tests/kernels/helpers.py importable as `helpers`, and tests/ (target_boards) too."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
