"""Reads the move forms out of a seat's page (stdlib html.parser), for tests: which moves each form
can send, so a test can check that a page offers every legal move and no illegal one; and the
page's steps towards a move (links carrying the choices so far, ?card=18) and how many entries its
move panel lists."""

from __future__ import annotations

import itertools
import re
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlsplit

import attrs

PART = re.compile(r"part[1-9]")


@attrs.define
class Group:
    kind: str  # "one" (radios, a select), "some" (checkboxes), "number"
    values: list[str] = attrs.Factory(list)
    low: int = 0
    high: int = 0
    step: int = 1


@attrs.define
class Form:
    move: str = ""
    groups: dict[str, Group] = attrs.Factory(dict)
    hidden: dict[str, str] = attrs.Factory(dict)
    pick: tuple[int, int] | None = None  # a fieldset's data-pick, data-most: how many checkboxes may be ticked

    def every_move(self) -> list[str]:
        """Every text this form can send (checkboxes: as many as its fieldset says, else any)."""
        choices = []
        for name in sorted(self.groups, key=lambda n: int(n[4:])):
            group = self.groups[name]
            if group.kind == "number":
                choices.append([str(n) for n in range(group.low, group.high + 1, group.step)])
            elif group.kind == "one":
                choices.append(group.values)
            else:
                low, high = self.pick or (0, len(group.values))
                choices.append([" ".join(c) for k in range(low, min(high, len(group.values)) + 1) for c in itertools.combinations(group.values, k)])
        return [" ".join(word for word in (self.move, *words) if word) for words in itertools.product(*choices)]


class Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self.by_id: dict[str, Form] = {}
        self.current: Form | None = None
        self.select: Group | None = None
        self.unnamed: list[str] = []
        self.later: list = []  # controls with neither aria-label nor an id for a <label for>
        self.steps: list[dict[str, str]] = []  # the choices each step link leads to (not "choose again")
        self.panel_entries = 0  # links and buttons in the move panel (section.moves)
        self.in_panel = 0  # depth inside section.moves

    def handle_starttag(self, tag: str, attributes) -> None:
        a = {name: value or "" for name, value in attributes}
        classes = a.get("class", "").split()
        if tag == "section":
            self.in_panel += 1 if self.in_panel or "moves" in classes else 0
        if self.in_panel and tag in ("a", "button"):
            self.panel_entries += 1
        if tag == "a" and "step" in classes and "restart" not in classes:
            self.steps.append(dict(parse_qsl(urlsplit(a["href"]).query)))
        if tag == "fieldset" and "data-pick" in a and self.current is not None:
            self.current.pick = (int(a["data-pick"]), int(a["data-most"]))
        if tag == "form" and "move" in a.get("class", "").split():
            self.current = Form()
            self.forms.append(self.current)
            if a.get("id"):
                self.by_id[a["id"]] = self.current
        if tag not in ("input", "select", "option"):
            return
        kind = a.get("type", "text") if tag == "input" else tag
        if tag != "option" and kind != "hidden" and not a.get("aria-label") and not a.get("id"):
            self.unnamed.append(f"<{tag} {a}>")
        if a.get("form") and a["form"] not in self.by_id:  # a field before its form: wait for it
            self.later.append((tag, attributes))
            return
        form = self.by_id[a["form"]] if a.get("form") else self.current
        if form is None:
            return
        name, value = a.get("name", ""), a.get("value", "")
        if kind == "hidden":
            form.hidden[name] = value
            if name == "move":
                form.move = value
        elif tag == "option" and self.select is not None:
            self.select.values.append(value)
        elif PART.fullmatch(name):
            shape = {"radio": "one", "select": "one", "checkbox": "some", "number": "number"}[kind]
            group = form.groups.setdefault(name, Group(shape))
            if kind == "number":
                group.low, group.high, group.step = int(a["min"]), int(a["max"]), int(a.get("step", "1"))
            elif kind == "select":
                self.select = group
            else:
                group.values.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag == "section" and self.in_panel:
            self.in_panel -= 1
        if tag == "form":
            self.current = None
        if tag == "select":
            self.select = None


def parse(html: str) -> Parser:
    parser = Parser()
    parser.feed(html)
    parser.close()
    for tag, attributes in parser.later:
        parser.handle_starttag(tag, attributes)
    return parser


def walk(render, chosen: dict[str, str] | None = None) -> list[tuple[dict[str, str], Parser]]:
    """Every page the steps lead to from `chosen` on, each with its choices: `render(chosen)` draws
    the page at those choices; each step link it holds is followed once."""
    seen: dict[tuple, Parser] = {}
    todo = [chosen or {}]
    while todo:
        at = todo.pop()
        key = tuple(sorted(at.items()))
        if key in seen:
            continue
        seen[key] = page = parse(render(at))
        todo += page.steps
    return [(dict(key), page) for key, page in seen.items()]
