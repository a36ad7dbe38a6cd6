"""The disputes store: a seat's claim that something went wrong at one seq of its game, and the
operator's settlement of it, kept beside the log in one Redis hash under the game's hash tag
(keys.disputes). A dispute is no move: it never enters the log, whose history it questions, and
it never changes the game. It never logs a reason or a note (a reason may name the seat's cards).

The hash: dispute id -> the dispute as JSON ({"id", "seat", "seq", "reason", "raised_ms",
"command"}), written once; `settled:<id>` -> {"note", "settled_ms"}, written once (HSETNX), so a
dispute is settled once and stays settled. A dispute raised with a command id (the API's
Idempotency-Key, a mail's Message-ID) takes its id from it: sent again, it is the same dispute.
keys.DISPUTED names the games with a dispute still open (a superset, like events/index.py's sets:
added before the dispute, removed after the game's last open one is settled).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from typing import TYPE_CHECKING, Any

import attrs

import core
from events import keys

if TYPE_CHECKING:
    from events.commands import Games
    from events.store import Store

MAX_REASON_CHARS = 500
MAX_NOTE_CHARS = 2000
MAX_PER_SEAT = 20  # disputes one seat may raise in a game, settled ones included
SETTLED = "settled:"

# Raise one dispute: answered {0, old} for an id already there (the same command sent again),
# {2, ""} when the seat has raised its allowance, else {1, new}.
_RAISE = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then return {0, old} end
local seat, mine = tonumber(ARGV[3]), 0
for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(name, 1, 8) ~= 'settled:' then
    local dispute = cjson.decode(redis.call('HGET', KEYS[1], name))
    if dispute.seat == seat then mine = mine + 1 end
  end
end
if mine >= tonumber(ARGV[4]) then return {2, ''} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return {1, ARGV[2]}
"""


class BadDispute(core.IllegalMove):
    """A dispute (or a settlement) refused: one line naming what is wrong; nothing was written."""


@attrs.frozen
class Dispute:
    id: str
    seat: int
    seq: int
    reason: str
    raised_ms: int
    command: str | None = None  # the command id it was raised with, if any
    note: str | None = None  # the operator's words, once settled
    settled_ms: int | None = None

    @property
    def open(self) -> bool:
        return self.settled_ms is None

    def to_json(self) -> dict[str, Any]:
        shown = attrs.asdict(self)
        shown.pop("command")
        return {**shown, "status": "open" if self.open else "settled"}


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def one_line(text: Any, what: str, most: int) -> str:
    """`text` as one line of printable characters, 1 to `most` of them; BadDispute otherwise."""
    if not isinstance(text, str):
        raise BadDispute(f"the {what} is text")
    line = " ".join(text.split())
    if not line:
        raise BadDispute(f"the {what} is empty: say what is wrong" if what == "reason" else f"the {what} is empty")
    if len(line) > most:
        raise BadDispute(f"the {what} is {len(line)} characters: at most {most}")
    if not line.isprintable():
        raise BadDispute(f"the {what} holds a character that is not printable")
    return line


def dispute_id(seat: int, command_id: str | None) -> str:
    if command_id is None:
        return secrets.token_hex(5)
    return hashlib.sha256(f"{seat}:{command_id}".encode()).hexdigest()[:10]


class Disputes:
    """Reads and writes a game's disputes (what a raise or a settlement checks: raise and settle)."""

    def __init__(self, store: Store) -> None:
        self.redis = store.redis
        self._raise = store.redis.register_script(_RAISE)

    def all(self, game_id: str) -> list[Dispute]:
        """Every dispute of the game, by the time it was raised."""
        raw = {name.decode(): json.loads(value) for name, value in self.redis.hgetall(keys.disputes(game_id)).items()}
        found = []
        for name, data in raw.items():
            if name.startswith(SETTLED):
                continue
            settled = raw.get(SETTLED + name, {})
            found.append(Dispute(**data, note=settled.get("note"), settled_ms=settled.get("settled_ms")))
        return sorted(found, key=lambda dispute: (dispute.raised_ms, dispute.id))

    def one(self, game_id: str, dispute_id: str) -> Dispute:
        for dispute in self.all(game_id):
            if dispute.id == dispute_id:
                return dispute
        raise BadDispute(f"no dispute {dispute_id[:20]!r} in game {game_id}")

    def open_games(self) -> list[str]:
        """The games keys.DISPUTED names (a superset: check each game's disputes)."""
        return [raw.decode() for raw in self.redis.zrange(keys.DISPUTED, 0, -1)]

    def write(self, game_id: str, dispute: Dispute, limit: int) -> tuple[Dispute, bool]:
        """The dispute stored, or the one stored before under its id: (dispute, duplicate)."""
        data = {"id": dispute.id, "seat": dispute.seat, "seq": dispute.seq, "reason": dispute.reason, "raised_ms": dispute.raised_ms, "command": dispute.command}
        self.redis.zadd(keys.DISPUTED, {game_id: dispute.raised_ms}, nx=True)  # before: the index names too many, never too few
        status, stored = self._raise(keys=[keys.disputes(game_id)], args=[dispute.id, json.dumps(data), dispute.seat, limit])
        if status == 2:
            self.forget_if_settled(game_id)
            raise BadDispute(f"seat {dispute.seat} has raised {limit} disputes in game {game_id}, as many as a seat may")
        if status == 0:
            self.forget_if_settled(game_id)  # the index entry added above names no open dispute
            return self.one(game_id, dispute.id), True
        return dispute, False

    def settle(self, game_id: str, dispute_id: str, note: str, at_ms: int) -> bool:
        """Mark it settled with the operator's `note`; False if it was settled already."""
        written = self.redis.hsetnx(keys.disputes(game_id), SETTLED + dispute_id, json.dumps({"note": note, "settled_ms": at_ms}))
        self.forget_if_settled(game_id)
        return bool(written)

    @staticmethod
    def listed(client: Any, game_id: str, disputes: Any) -> None:
        """Name the game in keys.DISPUTED if any of `disputes` is open: before the transaction that
        restores them (the index names too many, never too few), for the index lies in another slot
        of a Cluster than the game's keys, and a transaction keeps to one."""
        opened = [dispute.raised_ms for dispute in disputes if dispute.open]
        if opened:
            client.zadd(keys.DISPUTED, {game_id: min(opened)}, nx=True)

    @staticmethod
    def restore(pipe: Any, game_id: str, disputes: Any) -> None:
        """Queue on `pipe` (a transaction's, on the game's keys only) the writes that put `disputes`,
        read from a replay file, beside the game's log, each as it was raised and settled; one the
        game holds already (by its id) stays as it is, so an import adds and never loses a dispute.
        `listed` names the game in the index first."""
        for dispute in disputes:
            raised = {"id": dispute.id, "seat": dispute.seat, "seq": dispute.seq, "reason": dispute.reason, "raised_ms": dispute.raised_ms, "command": None}
            pipe.hsetnx(keys.disputes(game_id), dispute.id, json.dumps(raised))
            if not dispute.open:
                pipe.hsetnx(keys.disputes(game_id), SETTLED + dispute.id, json.dumps({"note": dispute.note, "settled_ms": dispute.settled_ms}))

    def forget_if_settled(self, game_id: str) -> None:
        """Take the game off keys.DISPUTED once none of its disputes is open."""
        if not any(dispute.open for dispute in self.all(game_id)):
            self.redis.zrem(keys.DISPUTED, game_id)


def raise_dispute(games: Games, game_id: str, seat: int, seq: Any, reason: Any, command_id: str | None = None) -> tuple[Dispute, bool]:
    """Seat `seat` disputes what happened at `seq` of `game_id`: (the dispute, whether it was
    raised before under this command id). BadDispute, and nothing written, for a seq the log does
    not hold yet, an empty or overlong reason, a command id used for another dispute, or a seat
    past its allowance."""
    table = games.table(game_id)
    table.check_seat(seat)
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise BadDispute(f"the seq is a whole number from 0 to {table.seq - 1}")
    if not 0 <= seq < table.seq:
        ahead = " (a running game's future cannot be disputed)" if seq >= table.seq and table.outcome is None else ""
        raise BadDispute(f"no seq {seq} in game {game_id}: its log holds seq 0 to {table.seq - 1}{ahead}")
    reason = one_line(reason, "reason", MAX_REASON_CHARS)
    dispute = Dispute(dispute_id(seat, command_id), seat, seq, reason, now_ms(), command_id)
    stored, duplicate = Disputes(games.store).write(game_id, dispute, MAX_PER_SEAT)
    if duplicate and (stored.seat, stored.seq, stored.reason, stored.command) != (seat, seq, reason, command_id):
        raise BadDispute("this command id was used for another dispute: nothing raised")
    return stored, duplicate


def settle(games: Games, game_id: str, dispute_id: str, note: Any) -> Dispute:
    """The operator settles a dispute with `note` (their words to every seat). BadDispute, and
    nothing written, for an unknown dispute, one settled before, or an empty or overlong note."""
    games.table(game_id)  # UnknownGame first
    store = Disputes(games.store)
    dispute = store.one(game_id, dispute_id)
    if not dispute.open:
        raise BadDispute(f"dispute {dispute_id} of game {game_id} was settled already: it is closed")
    note = one_line(note, "note", MAX_NOTE_CHARS)
    at = now_ms()
    if not store.settle(game_id, dispute_id, note, at):
        raise BadDispute(f"dispute {dispute_id} of game {game_id} was settled already: it is closed")
    return attrs.evolve(dispute, note=note, settled_ms=at)
