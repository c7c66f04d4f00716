"""The committed outcome of every node test: tests/onnx_node/status.tsv and the pass list expected_pass.txt."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
STATUS = HERE / "status.tsv"
EXPECTED = HERE / "expected_pass.txt"


def read() -> dict[str, tuple[str, str]]:
    """name → (status, reason) from status.tsv."""
    table = {}
    for line in STATUS.read_text().splitlines()[1:]:
        name, status, reason = line.split("\t")
        table[name] = (status, reason)
    return table


def expected_pass() -> set[str]:
    """The names in expected_pass.txt."""
    return {line.strip() for line in EXPECTED.read_text().splitlines() if line.strip()}


def write(results) -> None:
    """Rewrite status.tsv and expected_pass.txt from a full run's results."""
    rows = ["name\tstatus\treason"] + [f"{r.name}\t{r.status}\t{r.reason}" for r in sorted(results, key=lambda r: r.name)]
    STATUS.write_text("\n".join(rows) + "\n")
    EXPECTED.write_text("".join(f"{r.name}\n" for r in sorted(results, key=lambda r: r.name) if r.status == "pass"))
