"""Print docs/SUPPORTED_NPU_OPS.md as generated from mcucomp/npu/constraints.py; --update rewrites the file.

    python bench/npu_ops_doc.py            # print
    python bench/npu_ops_doc.py --update   # rewrite docs/SUPPORTED_NPU_OPS.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mcucomp.npu.constraints import supported_ops_markdown  # noqa: E402

DOC = REPO / "docs" / "SUPPORTED_NPU_OPS.md"


def main(argv=None) -> int:
    """Print or rewrite the generated document."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update", action="store_true", help="rewrite docs/SUPPORTED_NPU_OPS.md")
    args = parser.parse_args(argv)
    text = supported_ops_markdown()
    if args.update:
        DOC.write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
