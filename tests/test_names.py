"""pbm/names.py and the texts it names: a person reads seats by their names ("you" for the reader,
"(bot)" after a bot, the number only where two names are alike), in every front end's text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbm import turn_report
from pbm.mail import notify
from pbm.names import Names
from pbm.view_text import view_lines
from pbm.web.render import render_page
from replays import archive

GOLDEN = sorted((Path(__file__).resolve().parent / "golden").glob("*/*" + archive.SUFFIX))
NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal")
SEAT_NUMBER = re.compile(r"\b[Ss]eat \d+\b")


def test_a_seat_reads_as_its_name_you_or_its_number_where_needed() -> None:
    name = Names(("Ann", "Bob", None, "Ann"), viewer=1, bots={2})
    assert [name(s) for s in range(4)] == ["Ann (seat 0)", "you", "seat 2 (bot)", "Ann (seat 3)"]
    assert Names(("Ann", "Bob"))(1) == "Bob"


@pytest.mark.parametrize(("line", "said"), [
    ("round 1: the cards are dealt, 15 to each seat; seat 1 holds 1Sp and leads", "round 1: the cards are dealt, 15 to each seat; you hold 1Sp and lead"),
    ("seat 1 won the trick with 7Su", "you won the trick with 7Su"),
    ("seat 0 and seat 1 cannot lead Spring: the lead passes to seat 2", "Ann and you cannot lead Spring: the lead passes to Cy"),
    ("it is not seat 1's turn (waiting for seat 0)", "it is not your turn (waiting for Ann)"),
    ("seat 1 flies the plane to Rome", "you fly the plane to Rome"),
    ("seat 1 cannot pay $19,900 and forfeits all their money ($10,000) to the bank", "you cannot pay $19,900 and forfeit all your money ($10,000) to the bank"),
    ("seat 1 passes", "you pass"),
    ("seat 1 is played by a bot (heuristic) now", "your seat is played by a bot (heuristic) now"),
    ("the game ends: seat 2 wins with 15 points", "the game ends: Cy wins with 15 points"),
])
def test_narration_is_named_and_agrees_with_you(line: str, said: str) -> None:
    assert Names(("Ann", "Bob", "Cy"), viewer=1).text(line) == said


def texts_a_seat_reads(path: Path, seat: int) -> dict[str, list[str]]:
    """Everything person-facing that one seat of a finished golden game reads, named."""
    log = archive.read(path)
    table = log.table()
    name = Names(NAMES[: log.started.players], viewer=seat, bots=frozenset(table.bots))
    story = [line["text"] for line in turn_report.story(table, seat, name)]
    view = view_lines(table.view(seat), log.game_id, table.bots, name=name)[1:]  # [0]: "as Ann (seat 0)", the reader's own
    mail = notify.compose(table, log.envelopes, log.game_id, seat, "end", name=name)
    page = render_page(table.view(seat), game_id=log.game_id, options=dict(table.started.options), names=name.names,
                       bots=sorted(table.bots), report=mail["payload"]["report"], story=[{"seq": 0, "text": t} for t in story],
                       base_path="/play/t", static="/static", csrf="c")
    page = page[page.index("<main>") : page.index('<details class="notation">')]
    return {"story": story, "view": view, "mail": mail["text"].splitlines()[1:], "subject": [mail["subject"]], "page": re.sub(r"<[^>]+>", " ", page).splitlines()}


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_no_player_facing_text_names_a_named_seat_by_number(path: Path) -> None:
    for seat in range(archive.read(path).started.players):
        own = f", as {NAMES[seat]} (seat {seat})"  # the view's first line: which seat the reader holds
        found = {(where, line) for where, lines in texts_a_seat_reads(path, seat).items() for line in lines
                 if SEAT_NUMBER.search(line.replace(own, ""))}
        assert found == set(), sorted(found)[:5]


def test_the_audit_names_the_seats_and_credits_system_events_to_the_game() -> None:
    from replays.audit import audit

    path = next(p for p in GOLDEN if p.parent.name == "holly-oak")
    log = archive.read(path)
    text, _report = audit(log, name=Names(NAMES[: log.started.players]))
    rows = [line for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    assert rows[0].split(" | ")[2] == "the game" and any(" | Ann | `play " in row for row in rows)
    assert not any(SEAT_NUMBER.search(row) for row in rows)
    assert "| system |" not in audit(log)[0] and "| seat 0 | `play " in audit(log)[0]  # a file alone: by number
