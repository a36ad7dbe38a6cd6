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
from replays.log import Log

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


def mid_game(log: Log, seat: int) -> int:
    """The seq of a mid-game turn of `seat`: the first from the middle of the log on (else the last
    before it) at which the seat is to move with a choice (one legal move the shell plays for it)."""
    middle = len(log.events) // 2
    for at in [*range(middle, len(log.events)), *range(middle - 1, 0, -1)]:
        table = log.table(at)
        if table.outcome is None and seat in table.to_act and len(table.view(seat)["legal_moves"]) > 1:
            return at
    raise ValueError(f"{log.source}: seat {seat} never has a turn with a choice")


def texts_a_seat_reads(path: Path, seat: int, at: int | None = None) -> dict[str, list[str]]:
    """Everything person-facing that one seat of a golden game reads, named: at its end, or as the
    table stood after event `at` (its turn mail then, while the game runs)."""
    log = archive.read(path)
    table = log.table(at)
    name = Names(NAMES[: log.started.players], viewer=seat, bots=frozenset(table.bots))
    story = [line["text"] for line in turn_report.story(table, seat, name)]
    view = view_lines(table.view(seat), log.game_id, table.bots, name=name, options=dict(table.started.options))[1:]  # [0]: "as Ann (seat 0)", the reader's own
    envelopes = log.envelopes[: table.seq]  # table.seq: the seq its next event will have
    mail = notify.compose(table, envelopes, log.game_id, seat, "end" if table.outcome else "turn", name=name)
    page = render_page(table.view(seat), game_id=log.game_id, options=dict(table.started.options), names=name.names,
                       bots=sorted(table.bots), report=mail["payload"]["report"], story=[{"seq": 0, "text": t} for t in story],
                       base_path="/play/t", static="/static", csrf="c")
    page = page[page.index("<main>") : page.index('<details class="notation">')]
    return {"story": story, "view": view, "mail": mail["text"].splitlines()[1:], "subject": [mail["subject"]], "page": re.sub(r"<[^>]+>", " ", page).splitlines()}


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_no_player_facing_text_names_a_named_seat_by_number(path: Path) -> None:
    log = archive.read(path)
    for seat in range(log.started.players):
        own = f", as {NAMES[seat]} (seat {seat})"  # the view's first line: which seat the reader holds
        for at in (mid_game(log, seat), None):
            found = {(where, line) for where, lines in texts_a_seat_reads(path, seat, at).items() for line in lines
                     if SEAT_NUMBER.search(line.replace(own, ""))}
            assert found == set(), (at, sorted(found)[:5])


def test_the_audit_names_the_seats_and_credits_system_events_to_the_game() -> None:
    from replays.audit import audit

    path = next(p for p in GOLDEN if p.parent.name == "holly-oak")
    log = archive.read(path)
    text, _report = audit(log, name=Names(NAMES[: log.started.players]))
    rows = [line for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    assert rows[0].split(" | ")[2] == "the game" and any(" | Ann | `play " in row for row in rows)
    assert not any(SEAT_NUMBER.search(row) for row in rows)
    assert "| system |" not in audit(log)[0] and "| seat 0 | `play " in audit(log)[0]  # a file alone: by number
