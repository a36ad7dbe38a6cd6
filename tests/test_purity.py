"""core/ stays pure: no module under it imports I/O, clock, randomness or logging, or calls
open/print/input. Package data may be read once at import through importlib.resources."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parent.parent / "core"
FORBIDDEN_MODULES = {
    "asyncio", "datetime", "glob", "http", "io", "logging", "msgpack", "os", "pathlib", "random",
    "redis", "rq", "secrets", "shutil", "socket", "subprocess", "sys", "tempfile", "threading",
    "time", "urllib", "uuid", "warnings", "cattrs", "events", "workers", "replays", "pbm",
}
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval", "__import__", "breakpoint"}
SOURCES = sorted(CORE.rglob("*.py"))


def imported_roots(tree: ast.AST) -> set[str]:
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def called_names(tree: ast.AST) -> set[str]:
    return {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }


def test_core_has_sources() -> None:
    assert len(SOURCES) >= 5


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(CORE)))
def test_module_is_pure(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    assert not imported_roots(tree) & FORBIDDEN_MODULES
    assert not called_names(tree) & FORBIDDEN_CALLS


def test_the_check_catches_an_impure_module() -> None:
    tree = ast.parse("import os\nfrom time import time\nprint(open('x').read())\n")
    assert {"os", "time"} <= imported_roots(tree) & FORBIDDEN_MODULES
    assert {"print", "open"} <= called_names(tree) & FORBIDDEN_CALLS
