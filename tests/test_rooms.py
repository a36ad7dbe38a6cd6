"""The shell's rooms (pbm/__init__.py): no front end (pbm/cli, pbm/web, pbm/mail) imports another's
modules, and the pieces beside them import no front end. The one door between rooms: the CLI starts
the others, so it may import a name that a room's package exports (its __all__), never a module of
that room. Imports inside functions count too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PBM = Path(__file__).resolve().parent.parent / "pbm"
ROOMS = ("cli", "web", "mail")
ALIASES = {"__main__.py": "cli", "notify.py": "mail"}  # `python -m pbm`; the old job path of pbm.mail.notify


def room_of(path: Path) -> str | None:
    """The room a source file of pbm/ belongs to; None for the shared pieces."""
    parts = path.relative_to(PBM).parts
    return parts[0] if parts[0] in ROOMS else ALIASES.get(parts[0])


def exported(room: str) -> set[str]:
    """The names a room's package lists in __all__."""
    tree = ast.parse((PBM / room / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def imports(tree: ast.AST, package: str) -> list[tuple[str, str | None]]:
    """(module, name) for every import in a module: name is None for `import module`, else the
    name taken from it (which may be a submodule: `from pbm.mail import notify`)."""
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found += [(module, alias.name) for alias in node.names]
    return found


def crossings(source: str, own_room: str | None, package: str) -> list[str]:
    """The imports of one module that cross into a room it must not enter."""
    wrong = []
    for module, name in imports(ast.parse(source), package):
        target = f"{module}.{name}" if name else module
        parts = target.split(".")
        if parts[0] != "pbm" or len(parts) < 2 or parts[1] not in ROOMS or parts[1] == own_room:
            continue
        through_the_door = own_room == "cli" and module == f"pbm.{parts[1]}" and name in exported(parts[1])
        if not through_the_door:
            wrong.append(target)
    return wrong


SOURCES = sorted(PBM.rglob("*.py"))


def package_of(path: Path) -> str:
    return ".".join(("pbm",) + path.relative_to(PBM).parts[:-1])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PBM)))
def test_no_module_enters_another_front_end(path: Path) -> None:
    assert crossings(path.read_text(), room_of(path), package_of(path)) == []


def test_every_room_has_modules_and_says_what_it_must_not_import() -> None:
    for room in ROOMS:
        assert len(list((PBM / room).glob("*.py"))) >= 3
        docstring = ast.get_docstring(ast.parse((PBM / room / "__init__.py").read_text())) or ""
        assert "must not import" in docstring or "imports pbm.web's or pbm.mail's modules" in docstring, room


def test_the_check_catches_a_crossing() -> None:
    assert crossings("from pbm.web.api import seat_view\n", "mail", "pbm.mail") == ["pbm.web.api.seat_view"]
    assert crossings("def f():\n    import pbm.mail.outbox\n", "web", "pbm.web") == ["pbm.mail.outbox"]
    assert crossings("from pbm.mail import notify\n", None, "pbm") == ["pbm.mail.notify"]
    assert crossings("from ..mail import outbox\n", "web", "pbm.web") == ["pbm.mail.outbox"]
    # the CLI's door: an exported name, yes; a room's module, no
    assert crossings("from pbm.web import create_app\n", "cli", "pbm.cli") == []
    assert crossings("from pbm.web.app import create_app\n", "cli", "pbm.cli") == ["pbm.web.app.create_app"]
    assert crossings("from pbm.mail import outbox\n", "cli", "pbm.cli") == ["pbm.mail.outbox"]
    # a room's own modules and the shared pieces are free to use
    assert crossings("from pbm.mail import outbox\nfrom pbm import turn_report\n", "mail", "pbm.mail") == []


def test_notices_queued_under_the_old_job_path_still_resolve() -> None:
    from rq.utils import import_attribute

    from pbm.mail.notify import notify_seat
    from workers.dispatch import NOTIFY_FUNCTION

    assert import_attribute("pbm.notify.notify_seat") is notify_seat
    assert import_attribute(NOTIFY_FUNCTION) is notify_seat
