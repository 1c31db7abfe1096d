"""The layers hold: the import-linter contracts of pyproject.toml pass, and no module dodges them
with an import inside a function (AppConfig.ready(), Django's place for late imports, excepted)."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["engine", "studio", "audit", "accounts", "tables", "bets", "incidents", "matches", "virtual", "integrity", "reports", "web"]


def test_the_import_contracts_are_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def inner_imports(path: Path) -> list[tuple[str, int]]:
    """(function, line) of every import statement inside a function, except in a ready() method."""
    found = []

    def visit(node, function=None):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, child.name)
            elif isinstance(child, ast.Import | ast.ImportFrom) and function not in (None, "ready"):
                found.append((function, child.lineno))
            else:
                visit(child, function)

    visit(ast.parse(path.read_text(), filename=str(path)))
    return found


def project_modules():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def test_no_import_hides_inside_a_function():
    inner = {(str(path.relative_to(ROOT)), function, line) for path in project_modules() for function, line in inner_imports(path)}
    assert inner == set(), sorted(inner)


@pytest.mark.parametrize("source, expected", [
    ("import os\n", []),
    ("def f():\n    import os\n", [("f", 2)]),
    ("class A:\n    def ready(self):\n        from . import x\n", []),
    ("class A:\n    def m(self):\n        if True:\n            from . import x\n", [("m", 4)]),
    ("async def g():\n    def h():\n        import json\n", [("h", 3)]),
])
def test_the_inner_import_finder_sees_them(tmp_path, source, expected):
    path = tmp_path / "module.py"
    path.write_text(source)
    assert inner_imports(path) == expected
