"""Disputes for the front ends: the operator's settlement told to every seat, the audit each seat
is sent, and the open disputes across games. Shared by the CLI, the console and the API, so each
does exactly the same; the rules of a dispute are events/disputes.py's. It writes the disputes
store and queues notifications (pbm.mail.notify sends them, named by workers.dispatch), nothing
else, and it never logs a reason or a note.
"""

from __future__ import annotations

from typing import Any

from events import disputes
from events.commands import Games
from events.disputes import BadDispute, Dispute, Disputes
from events.seats import Seats
from pbm import seating
from replays.audit import audit
from replays.log import from_store

__all__ = ["BadDispute", "Dispute", "Disputes", "audit_for", "open_disputes", "raise_dispute", "settle"]

raise_dispute = disputes.raise_dispute


def settle(games: Games, game_id: str, dispute_id: str, note: Any) -> tuple[Dispute, list[int]]:
    """Settle the dispute with the operator's `note`, then tell every seat (its audit for the
    dispute's seq, with the note) through its channel: (the dispute, the seats whose message was
    queued). Without a dispatcher (a command path that queues nothing) nobody is told."""
    from workers.dispatch import notify_work

    settled = disputes.settle(games, game_id, dispute_id, note)
    told = []
    if games.dispatch is not None:
        for seat in range(games.table(game_id).players):
            if games.dispatch.enqueue(notify_work(game_id, settled.seq, seat, "dispute", settled.id, key=settled.id)):
                told.append(seat)
    return settled, told


def audit_for(games: Games, game_id: str, seat: int | None, dispute: Dispute | None = None) -> str:
    """The audit report (Markdown) at the dispute's seq, as `seat` may read it (None: the
    referee's whole report), listing every dispute of the game and how each was settled. While
    the game runs a seat's copy holds only what that seat may see (replays.audit `reader`)."""
    log = from_store(games.store, game_id)
    table = log.table()
    name = seating.names(Seats(games.store.redis), game_id, table, seat)
    text, _report = audit(log, None if dispute is None else dispute.seq, name=name, disputes=Disputes(games.store).all(game_id), reader=seat)
    return text


def open_disputes(games: Games, game_id: str | None = None) -> list[tuple[str, Dispute]]:
    """(game id, dispute) for every open dispute, of one game or of all (keys.DISPUTED names the
    candidates; each is checked against its game's disputes), oldest first."""
    store = Disputes(games.store)
    found = []
    if game_id is not None:
        games.table(game_id)  # UnknownGame
    for candidate in [game_id] if game_id is not None else store.open_games():
        if games.store.info(candidate) is None:
            continue  # a game deleted since (its entry goes at the next `pbm reindex`)
        found += [(candidate, dispute) for dispute in store.all(candidate) if dispute.open]
    return sorted(found, key=lambda pair: (pair[1].raised_ms, pair[0], pair[1].id))
