"""The import graph of mcucomp/, memplan/ and emit_c/ has no cycle and follows the import rules in
docs/ARCHITECTURE.md (the fenced toml block there): data flows one way through the stages, and services, libraries
and the foundation sit where the rules put them.

The graph is read from the source with `ast`: every import statement, at module level, inside functions and under
`if TYPE_CHECKING`, relative ones resolved against the importing module's package. An import names the deepest
module it reaches (`from mcucomp.ops import REGISTRY` → mcucomp.ops; `from . import layout` → the layout module).
Registries that load their members by name (importlib) add no edge.
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("mcucomp", "memplan", "emit_c")
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"


@dataclass(frozen=True)
class Edge:
    """One import: the importing module, the module imported and where the statement is."""

    source: str
    target: str
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} ({self.path}:{self.line})"


def module_files(root: Path, packages=PACKAGES) -> dict[str, tuple[Path, bool]]:
    """Dotted module name → (file, is a package's __init__) of every .py file under the packages."""
    modules = {}
    for top in packages:
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def _deepest(name: str, modules: dict) -> str | None:
    """The longest prefix of a dotted name that is one of `modules` (None: outside them)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_edges(root: Path, packages=PACKAGES) -> list[Edge]:
    """Every import between the modules of `packages` under root, each once per statement and target."""
    modules = module_files(root, packages)
    edges = []
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        rel = str(path.relative_to(root))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), rel)):
            targets = set()
            if isinstance(node, ast.Import):
                targets = {_deepest(alias.name, modules) for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                targets = {_deepest(f"{mod}.{alias.name}", modules) for alias in node.names}
            edges += [Edge(name, t, rel, node.lineno) for t in sorted(t for t in targets if t and t != name)]
    return edges


def find_cycles(edges: list[Edge]) -> list[list[Edge]]:
    """Cycles (each its edges in order): per strongly connected set of modules (Tarjan's algorithm), the shortest
    cycle through each of its modules, each cycle once."""
    graph: dict[str, list[Edge]] = {}
    for e in edges:
        graph.setdefault(e.source, []).append(e)
        graph.setdefault(e.target, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def connect(v: str) -> None:
        """Visit v and what it reaches; pop v's component once v is its root."""
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for e in graph[v]:
            if e.target not in index:
                connect(e.target)
                low[v] = min(low[v], low[e.target])
            elif e.target in on_stack:
                low[v] = min(low[v], index[e.target])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            connect(v)
    cycles: dict[frozenset, list[Edge]] = {}
    for component in components:
        for start in sorted(component):
            cycle = _cycle_through(graph, component, start)
            cycles.setdefault(frozenset((e.source, e.target) for e in cycle), cycle)
    return list(cycles.values())


def _cycle_through(graph: dict[str, list[Edge]], component: set[str], start: str) -> list[Edge]:
    """A shortest cycle through `start` inside its strongly connected set (breadth-first)."""
    paths = {start: []}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for e in graph[v]:
            if e.target == start:
                return paths[v] + [e]
            if e.target in component and e.target not in paths:
                paths[e.target] = paths[v] + [e]
                queue.append(e.target)
    raise AssertionError(f"no cycle through {start}")


def rules_block(text: str) -> dict:
    """The import rules: the one fenced toml block of docs/ARCHITECTURE.md with a [foundation] table."""
    blocks = [b for b in re.findall(r"^```toml\n(.*?)^```", text, re.S | re.M) if "[foundation]" in b]
    assert len(blocks) == 1, f"{ARCHITECTURE} must hold one ```toml block with the import rules, found {len(blocks)}"
    return tomllib.loads(blocks[0])


@dataclass(frozen=True)
class Group:
    """Where a module sits: kind (foundation, stage, library, service, orchestrator), name and stage rank."""

    kind: str
    name: str
    rank: int = -1  # stages: position in the data flow; libraries: the first stage that may use them


class Rules:
    """The import rules of docs/ARCHITECTURE.md, applied to modules and edges."""

    def __init__(self, rules: dict):
        stages = [s["name"] for s in rules["stage"]]
        self.stage_rank = {name: i for i, name in enumerate(stages)}
        self.entries: dict[str, Group] = {}
        self._add(rules["foundation"]["modules"], Group("foundation", "foundation"))
        self._add(rules["orchestrators"]["modules"], Group("orchestrator", "orchestrators"))
        for s in rules["stage"]:
            self._add(s["modules"], Group("stage", s["name"], self.stage_rank[s["name"]]))
        for lib in rules["library"]:
            self._add(lib["modules"], Group("library", lib["name"], self.stage_rank[lib["from_stage"]]))
        self.service_imports = {}
        for service in rules["service"]:
            self._add(service["modules"], Group("service", service["name"]))
            self.service_imports[service["name"]] = set(service["may_import"])
        names = set(self.stage_rank) | {lib["name"] for lib in rules["library"]}
        for service, allowed in self.service_imports.items():
            assert allowed <= names, f"service {service} may_import names no stage or library: {allowed - names}"
        self.library_rank = {lib["name"]: self.stage_rank[lib["from_stage"]] for lib in rules["library"]}

    def _add(self, patterns: list[str], group: Group) -> None:
        """Register module patterns ('a.b' that module, 'a.b.*' the package and everything in it)."""
        for pattern in patterns:
            assert pattern not in self.entries, f"{pattern} is listed twice in the import rules"
            self.entries[pattern] = group

    def matching(self, module: str) -> list[str]:
        """The patterns that match a module, most specific first."""
        hits = [p for p in self.entries
                if p == module or (p.endswith(".*") and (module == p[:-2] or module.startswith(p[:-1])))]
        return sorted(hits, key=lambda p: (-len(p.rstrip("*").rstrip(".")), p.endswith(".*")))

    def group(self, module: str) -> Group | None:
        """The group of the most specific pattern that matches the module (None: not placed)."""
        hits = self.matching(module)
        return self.entries[hits[0]] if hits else None

    def _highest_stage(self, service: str) -> int:
        """The latest stage a service may import (-1: none)."""
        allowed = self.service_imports[service]
        return max([self.stage_rank.get(n, self.library_rank.get(n, -1)) for n in allowed], default=-1)

    def violation(self, source: Group, target: Group) -> str | None:
        """Why an import from a module of `source` into one of `target` breaks the rules (None: it does not)."""
        if source.kind == "orchestrator":
            return None
        if target.kind == "orchestrator":
            return "only an orchestrator imports an orchestrator"
        if target.kind == "foundation" or source == target:
            return None
        if source.kind == "foundation":
            return f"the foundation imports only the foundation, not {target.kind} {target.name}"
        if source.kind == "library":
            return f"library {source.name} imports only itself, not {target.kind} {target.name}"
        if source.kind == "service":
            if target.name in self.service_imports[source.name]:
                return None
            return (f"service {source.name} may import the foundation, itself and "
                    f"{sorted(self.service_imports[source.name]) or 'nothing else'}, not {target.kind} {target.name}")
        # source is a stage
        if target.kind in ("stage", "library") and target.rank <= source.rank:
            return None
        if target.kind == "service" and self._highest_stage(target.name) <= source.rank:
            return None
        if target.kind == "service":
            return (f"stage {source.name} comes before a stage that service {target.name} imports "
                    f"({sorted(self.service_imports[target.name])})")
        return f"stage {source.name} imports the later {target.kind} {target.name}"


@pytest.fixture(scope="module")
def edges() -> list[Edge]:
    """The import graph of the repository."""
    return import_edges(ROOT)


@pytest.fixture(scope="module")
def rules() -> Rules:
    """The rules of docs/ARCHITECTURE.md."""
    return Rules(rules_block(ARCHITECTURE.read_text(encoding="utf-8")))


def test_no_import_cycle(edges):
    """No module reaches itself through imports, at module level or inside a function."""
    cycles = find_cycles(edges)
    assert not cycles, "import cycles:\n" + "\n".join(
        " -> ".join([c[0].source] + [e.target for e in c]) + "\n    " + "\n    ".join(map(str, c)) for c in cycles)


def test_rules_place_every_module_and_name_no_missing_one(rules):
    """Every module is in a group of the rules, and every entry of the rules names a module that exists."""
    modules = module_files(ROOT)
    unplaced = sorted(m for m in modules if rules.group(m) is None)
    assert not unplaced, (f"modules in no group of the import rules in {ARCHITECTURE.name} (add them to the ```toml "
                          f"block): {unplaced}")
    stale = sorted(p for p in rules.entries if not any(p in rules.matching(m) for m in modules))
    assert not stale, f"entries of the import rules that match no module: {stale}"


def test_imports_follow_the_stage_order(edges, rules):
    """No module imports a later stage, a service a stage before what that service imports, or an orchestrator."""
    broken = []
    for e in edges:
        why = rules.violation(rules.group(e.source), rules.group(e.target))
        if why is not None:
            broken.append(f"{e}: {why}")
    assert not broken, "imports against the rules of docs/ARCHITECTURE.md:\n" + "\n".join(broken)


def test_the_graph_sees_function_level_relative_and_type_checking_imports(tmp_path):
    """A cycle closed only by a function-level relative import or a TYPE_CHECKING import is found."""
    pkg = tmp_path / "mcucomp"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from .a import f\n")
    (pkg / "sub" / "a.py").write_text("from ..b import g\n\ndef f():\n    return g\n")
    (pkg / "b.py").write_text("def g():\n    from .sub import a\n    return a\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mcucomp import d\n")
    (pkg / "d.py").write_text("import mcucomp.c as c\n")
    found = find_cycles(import_edges(tmp_path, ("mcucomp",)))
    assert sorted(sorted({e.source for e in c}) for c in found) == [
        ["mcucomp.b", "mcucomp.sub.a"], ["mcucomp.c", "mcucomp.d"]]


def test_the_rules_refuse_a_later_stage_and_a_returning_orchestrator():
    """The checks can fail: a pass importing the report stage, a stage importing the pipeline, the foundation
    importing a stage and a stage importing a service that imports a later stage are each refused."""
    rules = Rules(rules_block(ARCHITECTURE.read_text(encoding="utf-8")))
    passes, report = rules.group("mcucomp.passes.layout"), rules.group("mcucomp.report.build")
    assert rules.violation(passes, report) is not None
    assert rules.violation(report, passes) is None
    assert rules.violation(report, rules.group("mcucomp.pipeline")) is not None
    assert rules.violation(rules.group("mcucomp.ops.base"), passes) is not None
    assert rules.violation(passes, rules.group("mcucomp.perf.estimate")) is not None
    assert rules.violation(passes, rules.group("mcucomp.npu.partition")) is None
