"""Bot players: given a table and a seat, choose a move text. Pure over the game contract: no I/O.

A bot never looks at what its seat may not see: `random` reads only the legal moves, `heuristic`
only the seat's view and legal moves, `ismcts` sees the state only through Game.determinize. Its
choice is reproducible from (game id, seq, seat): that triple seeds its generator (an `ismcts`
with a time budget is the exception: how far it gets depends on the machine).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping

import attrs

import core
from core import bounds
from core.table import Table, bot_seats  # noqa: F401 (workers and their tests read bot_seats here)

KINDS = ("random", "heuristic", "ismcts", "autopilot")
# The seat the clock hands over after timeouts in a row (events.clock.AUTOPILOT): played as the
# heuristic bot; its own name tells the command path that the seat's player may take it back by
# moving, where a seat the operator gave to a bot stays the bot's.
DEFAULT_ISMCTS_ITERATIONS = 150  # about 0.1-0.5 s a move on this machine


@attrs.frozen
class BotSpec:
    """A bot kind with its budget: `ismcts`, `ismcts:500` (iterations) or `ismcts:2s` (seconds)."""

    name: str
    iterations: int | None = None
    seconds: float | None = None

    def __str__(self) -> str:
        if self.seconds is not None:
            return f"{self.name}:{self.seconds:g}s"
        return self.name if self.iterations is None else f"{self.name}:{self.iterations}"


def parse_kind(text: str) -> BotSpec:
    name, _, budget = text.strip().partition(":")
    if name not in KINDS:
        raise core.SetupError(f"unknown bot kind {text!r} (kinds: {', '.join(KINDS)})")
    if not budget:
        return BotSpec(name)
    if name != "ismcts":
        raise core.SetupError(f"bot kind {name} takes no budget, but got {text!r}")
    try:
        if budget.endswith("s"):
            seconds = float(budget[:-1])
            if not 0 < seconds <= 600:
                raise ValueError
            return BotSpec(name, seconds=seconds)
        iterations = int(budget)
        if not 1 <= iterations <= 1_000_000:
            raise ValueError
        return BotSpec(name, iterations=iterations)
    except ValueError:
        raise core.SetupError(f"bad ismcts budget {budget!r}: iterations (e.g. ismcts:500) or seconds (ismcts:2s)") from None


def parse_seats(pairs: tuple[str, ...] | list[str], players: int) -> dict[int, str]:
    """SEAT=KIND pairs (`--bot 1=random`) -> {seat: canonical kind}; SetupError names what is wrong."""
    bots: dict[int, str] = {}
    for pair in pairs:
        seat_text, sep, kind = pair.partition("=")
        if not sep or not seat_text.strip().isdigit():
            raise core.SetupError(f"--bot takes SEAT=KIND (e.g. 1=random), not {bounds.shown(pair)}")
        seat = bounds.parse_int(seat_text, "--bot's seat")
        if not 0 <= seat < players:
            raise core.SetupError(f"--bot {pair}: this table has seats 0 to {players - 1}")
        if seat in bots:
            raise core.SetupError(f"--bot: seat {seat} is given twice")
        bots[seat] = str(parse_kind(kind))
    return bots


def check_seats(bots: Mapping[int, str]) -> dict[int, str]:
    """The Python API's form ({seat: kind}) checked and made canonical."""
    return {seat: str(parse_kind(kind)) for seat, kind in bots.items()}


def bot_random(game_id: str, seq: int, seat: int) -> random.Random:
    """The bot's own generator for this decision: from (game id, seq, seat), never the game's seed."""
    digest = hashlib.sha256(f"pbm-bot:{game_id}:{seq}:{seat}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def choose(kind: str, table: Table, seat: int, rng: random.Random) -> str:
    """The move text the bot `kind` plays for `seat` at this point of `table`."""
    # Imported here: they load every game's rules, and the CLI reads bot seats on every command.
    from workers import heuristics, ismcts

    spec = parse_kind(kind)
    legal = table.legal_moves(seat)
    if not legal:
        raise core.IllegalMove(f"seat {seat} has no move to make")
    if len(legal) == 1:
        return legal[0]
    if spec.name == "random":
        return rng.choice(legal)
    if spec.name in ("heuristic", "autopilot"):
        return heuristics.choose(table.game.slug, table.view(seat), legal, rng)
    budget = ismcts.Budget(
        iterations=spec.iterations or (None if spec.seconds else DEFAULT_ISMCTS_ITERATIONS),
        seconds=spec.seconds,
    )
    return ismcts.search(table.game, table.state, seat, rng, budget)
