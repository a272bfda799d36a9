"""`gtkit.testing` is for tests and benchmarks: no product module imports it (docs/architecture.md).

Every module of the installed package outside `gtkit/testing/` is parsed, and every way it could reach
`gtkit.testing` is looked for: `import`, `from ... import` (relative ones resolved), `importlib.import_module`
and `__import__` calls, and module names kept as strings for a later import (`module` or `module:function`,
as `gtkit.check.PIPELINE_CHECKS` keeps them).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import gtkit

PACKAGE = Path(gtkit.__file__).resolve().parent
TESTING = "gtkit.testing"
MODULE_STRING = re.compile(r"[A-Za-z_][\w.]*(:[\w.]+)?")


def _resolve(name: str, package: str) -> str:
    """`name` as an absolute module name, `package` being the package a relative name starts from."""
    level = len(name) - len(name.lstrip("."))
    if not level:
        return name
    base = package.split(".")[: len(package.split(".")) - level + 1]
    return ".".join([*base, name[level:]] if name[level:] else base)


def imported_modules(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module name `source` (the module `module`) imports or keeps for a later import."""
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve("." * node.level + (node.module or ""), package) if node.level else node.module or ""
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            target = node.args[0].value
            if func in ("import_module", "__import__") and isinstance(target, str):
                given = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "package")]
                anchor = next((a.value for a in given if isinstance(a, ast.Constant)), None)
                names.add(_resolve(target, anchor if isinstance(anchor, str) else package))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_STRING.fullmatch(node.value):
            names.add(node.value.partition(":")[0])
    return names


def reaches_testing(names: set[str]) -> bool:
    return any(name == TESTING or name.startswith(TESTING + ".") for name in names)


def product_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.relative_to(PACKAGE).parts[0] != "testing")


@pytest.mark.parametrize("source, module", [
    ("import gtkit.testing.simulate", "gtkit.cli.main"),
    ("from gtkit.testing.simulate import simulate", "gtkit.cli.main"),
    ("from gtkit import testing", "gtkit.cli.main"),
    ("from ..testing import measure", "gtkit.consensus.run"),
    ("from .. import testing", "gtkit.consensus.run"),
    ("import importlib\nimportlib.import_module('gtkit.testing.measure')", "gtkit.check"),
    ("from importlib import import_module\nimport_module('.testing.simulate', 'gtkit')", "gtkit.check"),
    ("from importlib import import_module\nimport_module('..testing', package='gtkit.consensus')", "gtkit.check"),
    ("__import__('gtkit.testing')", "gtkit.check"),
    ("CHECKS = {'sim': 'gtkit.testing.simulate:check'}", "gtkit.check"),
])
def test_the_search_finds_every_way_in(source, module):
    assert reaches_testing(imported_modules(source, module))


@pytest.mark.parametrize("source, module", [
    ("from gtkit.consensus import run", "gtkit.cli.main"),
    ('"""Seeded ensembles live in `gtkit.testing`."""', "gtkit.consensus"),
    ("from . import testing_helpers", "gtkit.consensus.run"),
    ("import_module('gtkit.testingx')", "gtkit.check"),
])
def test_the_search_does_not_cry_wolf(source, module):
    assert not reaches_testing(imported_modules(source, module))


def test_no_product_module_imports_gtkit_testing():
    assert (PACKAGE / "testing" / "__init__.py").is_file()
    offenders = []
    for path in product_modules():
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        is_package = rel.name == "__init__"
        module = ".".join(rel.parts[:-1] if is_package else rel.parts)
        if reaches_testing(imported_modules(path.read_text(encoding="utf-8"), module, is_package)):
            offenders.append(str(path.relative_to(PACKAGE.parent)))
    assert not offenders, f"product modules import gtkit.testing (only tests and benchmarks may): {offenders}"
