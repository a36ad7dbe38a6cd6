"""The seat's report: from its latest move on, redacted for that seat; the whole story otherwise."""

from __future__ import annotations

import random

from events.commands import Games
from events.store import Store
from pbm import turn_report


def test_the_report_starts_at_the_seats_latest_move(games: Games, store: Store):
    game_id = games.create("holly-oak", 3, seed=5)
    chooser = random.Random(2)
    moved_at = {}
    for _ in range(10):
        table = games.table(game_id)
        seat = table.to_act[0]
        moved_at[seat] = games.submit(game_id, seat, chooser.choice(table.legal_moves(seat))).seq
    table, envelopes = games.table(game_id), store.read(game_id)
    for seat in range(3):
        assert turn_report.last_move_seq(envelopes, seat) == moved_at.get(seat)
        expected = [line for _seq, line in table.narrate(seat, start=moved_at.get(seat, 0))]
        report = turn_report.since_last_move(table, envelopes, seat)
        assert report == expected and report
    assert turn_report.story(table, 1) == [{"seq": s, "text": t} for s, t in table.narrate(1)]


def test_a_seat_that_has_not_moved_gets_the_whole_story(games: Games, store: Store):
    game_id = games.create("tranquility", 2, seed=9)
    table, envelopes = games.table(game_id), store.read(game_id)
    assert turn_report.last_move_seq(envelopes, 0) is None
    assert turn_report.since_last_move(table, envelopes, 0) == [line for _s, line in table.narrate(0)]
    assert turn_report.lines_between(table, 0, 1, 2) == [table.narrate(0)[1][1]]


def test_lines_after_a_table_are_the_lines_of_its_new_events(games: Games):
    game_id = games.create("holidays", 3, seed=4)
    chooser = random.Random(7)
    for _ in range(12):
        before = games.table(game_id)
        seat = before.to_act[0]
        games.submit(game_id, seat, chooser.choice(before.legal_moves(seat)))
        after = games.table(game_id)
        for reader in (None, 0, 1, 2):
            new = after.events[before.seq :]
            assert turn_report.lines_after(before, new, reader) == turn_report.lines_between(after, reader, before.seq, after.seq)
