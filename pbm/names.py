"""How a person reads a seat: its display name, "you" for the reader, "(bot)" after a bot, and the
seat number only where it tells two apart (two seats with the same name, or a seat with none).
Pure and shared by every front end's text; machine forms (--json, the API's structured fields)
keep seat numbers and never pass through here. It reads no store: callers hand it the names
(events.seats.Seats.names) and the bots (Table.bots).

    name = Names(("Ann", "Bob", None), viewer=1, bots={2})
    name(0), name(1), name(2)          # "Ann", "you", "seat 2 (bot)"
    name.text("seat 0 led 7Su; seat 1's turn")   # "Ann led 7Su; your turn"

`text` rewrites core's narration, which names seats only as "seat N" (core.contract.seat_name):
the names go in here, in one place, for the story, the report, mails and the audit alike.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

import attrs

SEAT = re.compile(r"\b[Ss]eat (\d+)('s)?\b")
# The verbs core's narration puts after a seat, as they read after "you" (the rest take no -s).
YOU_VERBS = {"is": "are", "has": "have", "was": "were", "does": "do", "passes": "pass", "goes": "go"}
VERB_AFTER = re.compile(r"^( (?:also |still |now |then )?)([a-z]+)\b")
# A verb joined to the first by "and", as in "holds 1Sp and leads": agrees with it too.
AND_VERB = re.compile(r"^((?:[^;:,.()]|[,.](?=\d))*? and )([a-z]+s)\b")
THEIR = re.compile(r"^((?:[^;:,.()]|[,.](?=\d))*?)\btheir\b")  # "and forfeits all their money"
SEAT_AS_THING = re.compile(r"^ is (?:played|handed|given|taken)\b")
NOT_VERBS = frozenset({"this", "its", "his", "plus", "less", "kings", "cards", "points", "tricks", "islands", "days", "seats", "moves", "always", "as"})


@attrs.frozen
class Names:
    names: Sequence[str | None] = ()
    viewer: int | None = None
    bots: Collection[int] = frozenset()

    def __call__(self, seat: int) -> str:
        if seat == self.viewer:
            return "you"
        name = self.names[seat] if 0 <= seat < len(self.names) else None
        if not name:
            text = f"seat {seat}"
        elif sum(1 for other in self.names if other == name) > 1:
            text = f"{name} (seat {seat})"
        else:
            text = name
        return text + (" (bot)" if seat in self.bots else "")

    def possessive(self, seat: int) -> str:
        return "your" if seat == self.viewer else self(seat) + "'s"

    def text(self, line: str) -> str:
        """A line of narration with each "seat N" named; after "you", its verb agrees."""
        out = []
        while (match := SEAT.search(line)) is not None:
            seat, rest = int(match.group(1)), line[match.end() :]
            name = self.possessive(seat) if match.group(2) else self(seat)
            if seat == self.viewer and not match.group(2):
                if SEAT_AS_THING.match(rest):  # "seat 0 is played by a bot": the seat, not its player
                    name = "your seat"
                else:
                    rest = agreeing(rest)
            if match.group(0)[0] == "S":
                name = name[:1].upper() + name[1:]
            out += [line[: match.start()], name]
            line = rest
        return "".join(out) + line


def agreeing(rest: str) -> str:
    """What follows "you" in a line, its first verb (and one joined by "and") put in agreement."""
    rest = VERB_AFTER.sub(lambda m: m.group(1) + you_form(m.group(2)), rest, count=1)
    rest = AND_VERB.sub(lambda m: m.group(1) + you_form(m.group(2)), rest, count=1)
    return THEIR.sub(lambda m: m.group(1) + "your", rest, count=1)


def you_form(verb: str) -> str:
    if verb in YOU_VERBS:
        return YOU_VERBS[verb]
    if verb in NOT_VERBS or not verb.endswith("s") or verb.endswith("ss"):
        return verb
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "xes", "sses")):
        return verb[:-2]
    return verb[:-1]

