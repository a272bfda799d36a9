"""The package's import graph, read statically (every `import` and `from ... import` in gtkit/, at module
level or inside a function, found with `ast`), keeps the layering docs/architecture.md describes:

- no import cycle among the scoring and view modules (`gtkit.scoring`, `gtkit.views`) and the modules they
  import: a cycle there is a module that cannot be read without the other;
- the views import nothing from the pipelines, the orchestration, the CLI or the scoring run; of the scoring
  modules only the run (`gtkit.scoring.run`, `score_path`) imports a view;
- the scoring modules import no pipeline, no orchestration and no CLI.

Imports under `if TYPE_CHECKING:` are left out: they are never executed, so they make no cycle at run time.
An import names the most specific gtkit module it reaches (`from gtkit.scoring import engine` is
`gtkit.scoring.engine`; `from gtkit.format import Bundle` is `gtkit.format`, its `__init__`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import gtkit

PACKAGE = Path(gtkit.__file__).resolve().parent
PIPELINES = ("gtkit.synth", "gtkit.degrade", "gtkit.consensus", "gtkit.builder", "gtkit.review", "gtkit.dataset",
             "gtkit.cli", "gtkit.demo")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The ids of the statements under an `if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else None
            if name == "TYPE_CHECKING":
                skipped.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skipped


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The gtkit modules one module imports, at any depth of its code."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skipped = _type_checking_nodes(tree)
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target:
                    out.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if not source.startswith("gtkit"):
                continue
            for alias in node.names:
                if f"{source}.{alias.name}" in known:  # a submodule imported by name
                    out.add(f"{source}.{alias.name}")
                elif source in known:
                    out.add(source)
    out.discard(name)
    return out


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def in_area(module: str, *areas: str) -> bool:
    return any(module == a or module.startswith(a + ".") for a in areas)


def test_the_graph_is_read():
    graph = import_graph()
    assert "gtkit.views.score_html" in graph["gtkit.scoring.run"]  # a function-level import
    assert "gtkit.scoring.engine" in graph["gtkit.views.score_html"]
    assert "gtkit.scoring.engine" not in graph["gtkit.scoring.report"]  # under TYPE_CHECKING only


def test_no_import_cycle_through_scoring_or_views():
    """Restricted to the cycles that hold a scoring or view module: other areas are other people's work
    (see the report of the change that added this test for the cycles found there at the time)."""
    mine = [c for c in cycles(import_graph()) if any(in_area(m, "gtkit.scoring", "gtkit.views") for m in c)]
    assert not mine, f"import cycles through gtkit.scoring or gtkit.views: {mine}"


def test_views_import_no_pipeline_and_not_the_scoring_run():
    graph = import_graph()
    bad = {v: sorted(t for t in targets if in_area(t, *PIPELINES, "gtkit.scoring.run"))
           for v, targets in graph.items() if in_area(v, "gtkit.views")}
    assert not {v: t for v, t in bad.items() if t}


def test_only_the_scoring_run_imports_a_view():
    graph = import_graph()
    importers = sorted(m for m, targets in graph.items()
                       if in_area(m, "gtkit.scoring") and any(in_area(t, "gtkit.views") for t in targets))
    assert importers == ["gtkit.scoring.run"]


def test_scoring_imports_no_pipeline():
    graph = import_graph()
    bad = {m: sorted(t for t in targets if in_area(t, *PIPELINES))
           for m, targets in graph.items() if in_area(m, "gtkit.scoring")}
    assert not {m: t for m, t in bad.items() if t}
