"""The package's import graph, read statically (every `import` and `from ... import` in gtkit/, at module
level or inside a function, found with `ast`), keeps the layering docs/architecture.md describes:

- no import cycle anywhere in gtkit: a cycle is a module that cannot be read without the other;
- the layers (`LAYERS`) import only from their own layer or the ones below: foundations, format, core,
  pipelines, the tools above the pipelines, the CLI; a pipeline imports no other pipeline;
- the pure modules import nothing from gtkit, and nothing in gtkit draws from a global random state;
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
    """gtkit's modules; in an installed wheel, not the data folders shipped inside it (`gtkit/_data`: families'
    generators are data, found by path, never imported by name)."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if p.relative_to(PACKAGE).parts[0] != "_data"}


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


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_cycles_are_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# Bottom to top. A module belongs to the most specific area that holds it. `gtkit` itself counts as a foundation:
# statically it holds only `__version__`; its front door names its targets as strings, loaded on first use.
LAYERS = [
    ("foundations", ("gtkit.errors", "gtkit.files", "gtkit.paths", "gtkit.rng",
                     "gtkit.geometry", "gtkit.typed", "gtkit.workers", "gtkit.pdf", "gtkit.schema")),
    ("format", ("gtkit.format",)),
    ("core", ("gtkit.check", "gtkit.corrections", "gtkit.scoring", "gtkit.views")),
    ("pipelines", ("gtkit.synth", "gtkit.degrade", "gtkit.consensus")),
    ("tools", ("gtkit.review", "gtkit.dataset", "gtkit.builder", "gtkit.pipelines", "gtkit.demo", "gtkit.testing")),
    ("cli", ("gtkit.cli", "gtkit.__main__")),
]
PURE = ("gtkit.scoring.normalize", "gtkit.scoring.pairing", "gtkit.geometry", "gtkit.rng", "gtkit.errors")


def layer_of(module: str) -> int:
    if module == "gtkit":
        return 0
    found = [(len(area), rank) for rank, (_, areas) in enumerate(LAYERS) for area in areas if in_area(module, area)]
    assert found, f"{module} is in no layer: add its area to LAYERS"
    return max(found)[1]


def test_every_module_imports_only_its_layer_or_below():
    graph = import_graph()
    upward = sorted((m, t) for m, targets in graph.items() for t in targets
                    if layer_of(t) > layer_of(m))
    assert upward == []


def test_a_pipeline_imports_no_other_pipeline():
    pipelines = LAYERS[3][1]
    graph = import_graph()
    crossing = sorted((m, t) for m, targets in graph.items() for t in targets
                      if in_area(m, *pipelines) and in_area(t, *pipelines) and m.split(".")[1] != t.split(".")[1])
    assert crossing == []


def test_pure_modules_import_nothing_from_gtkit():
    graph = import_graph()
    assert {m: sorted(graph[m]) for m in PURE if graph[m]} == {}


def test_no_global_random_state():
    """Randomness comes from `numpy.random.Generator` objects passed in (gtkit.rng): no module seeds or draws
    from numpy's legacy global state or the stdlib's `random` module."""
    legacy = {"seed", "rand", "randn", "randint", "random", "choice", "shuffle", "permutation", "normal",
              "uniform", "random_sample", "get_state", "set_state"}
    found = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                found += [(name, "imports random") for m in mods if m == "random"]
            elif isinstance(node, ast.Attribute) and node.attr in legacy:
                inner = node.value
                if isinstance(inner, ast.Attribute) and inner.attr == "random" and \
                        isinstance(inner.value, ast.Name) and inner.value.id in ("np", "numpy"):
                    found.append((name, f"np.random.{node.attr}"))
    assert found == []


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


MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60


def test_modules_and_functions_stay_small():
    """A newcomer reads a module in one sitting and a function on one screen: no module over 450 lines, no
    function over 60."""
    too_long = []
    for name, path in modules().items():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > MAX_MODULE_LINES:
            too_long.append((name, text.count("\n")))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append((f"{name}.{node.name}", length))
    assert too_long == []
