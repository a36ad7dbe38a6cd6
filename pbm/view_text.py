"""The text of a game's view, per game, for every front end that prints one (the CLI, turn mails).
It turns a view dict (core's Table.view) or a whole state (replays.log.plain) into plain lines; it
reads no log, prints nothing and imports no front end.

    lines = view_lines(view, game_id="g-1", bots={2: "heuristic"}, name=Names(("Ann", "Bob", None), viewer=0))

Seats are named as the reader reads them (pbm.names): the tables' rows by `name(seat)`, and each
sentence is written with "seat N", as core's narration is, then named by `name.text` (which also
makes a verb agree with "you").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import core
from core import menus
from core.games.holiday_board.board import load_board
from core.games.holiday_board.rules import FULL_DAY_NAMES
from pbm.names import Names
from pbm.result import result_lines

COMMON_KEYS = ("game", "seq", "seat", "to_act", "legal_moves", "outcome", "hand")
NOT_DEALT = "the game has not been dealt yet"
MOVES_SHOWN = 12  # more legal moves than this are listed by pattern (the full list: --all, --json)


# ---- small pieces --------------------------------------------------------------------------------


def seats_text(seats: Sequence[int]) -> str:
    return ", ".join(f"seat {s}" for s in seats) or "nobody"


def cards_text(cards: Sequence[Any]) -> str:
    return " ".join(str(card) for card in cards) or "-"


def plain(value: Any) -> str:
    """One value on one line: lists space-joined, None as '-'."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return " ".join(plain(item) for item in value) if value else "-"
    if isinstance(value, dict):
        return ", ".join(f"{k} {plain(v)}" for k, v in value.items()) or "-"
    return "-" if value is None else str(value)


def not_dealt(seq: int) -> bool:
    """Whether the position right after the event at `seq` is before the deal: only the game's
    start (seq 0) is; every game deals in the events that follow it."""
    return seq == 0


def columns(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    """Rows of cells aligned in columns (the first row is the header)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [(indent + "  ".join(cell.ljust(width) for cell, width in zip(row, widths))).rstrip() for row in rows]




# ---- moves ---------------------------------------------------------------------------------------


def moves_lines(view: Mapping[str, Any], all_moves: bool = False, more: str | None = "--all lists them") -> list[str]:
    """The seat's legal moves as lines: as they are when they are few (or `all_moves`), else one
    line per pattern with a few examples (core.menus, the game's own patterns). `more`: where the
    whole list is, said beside the count."""
    moves = view["legal_moves"]
    if all_moves or len(moves) <= MOVES_SHOWN:
        text = " | ".join(moves)
        return [f"your moves: {text}"] if len(text) <= 100 else ["your moves:", *(f"  {move}" for move in moves)]
    lines = [f"your moves ({len(moves)} in all{'; ' + more if more else ''}):"]
    for pattern in menus.patterns_of(core.GAMES[view["game"]], view):
        lines += [f"  {line}" for line in pattern_lines(pattern)]
    return lines


def pattern_lines(pattern: menus.Pattern) -> list[str]:
    """One pattern of moves: the move itself when it is one, else the pattern, how many and a few
    examples (and on a line of its own what its words may be)."""
    if len(pattern.moves) == 1:
        return [pattern.moves[0]]
    if len(pattern.moves) <= len(pattern.examples):
        line = f"{pattern.text}: {' | '.join(pattern.moves)}"
    else:
        line = f"{pattern.text}: {len(pattern.moves)} moves, e.g. {', '.join(pattern.examples)}"
    return [line, f"  ({pattern.note})"] if pattern.note else [line]


# ---- the views -----------------------------------------------------------------------------------


def view_lines(
    view: Mapping[str, Any],
    game_id: str | None = None,
    bots: Mapping[int, str] | None = None,
    all_moves: bool = False,
    name: Names | None = None,
    options: Mapping[str, Any] | None = None,
) -> list[str]:
    """A seat's view (or a spectator's) as lines of text: whose turn, the game's own picture,
    the hand, the moves. `name`: how the reader reads the seats (default: by number, "you" for
    the view's seat, "(bot)" after `bots`); `options`: the game's public options (Holiday!'s board,
    whose cities it names; default: the shipped board)."""
    bots = bots or {}
    seat = view["seat"]
    name = name or Names(viewer=seat, bots=frozenset(bots))
    own = None if seat is None or seat >= len(name.names) else name.names[seat]
    who = "a spectator" if seat is None else f"{own} (seat {seat})" if own else f"seat {seat}"  # the reader's own seat, by number too
    title = f"{game_id} ({view['game']})" if game_id else view["game"]
    # A view's seq is the seq the next event will get (what --expect-seq takes); the last event's is one less.
    lines = [f"{title} after event {view['seq'] - 1}, as {who}"]
    if bots and view["game"] not in GAME_VIEWS:  # the games' own pictures name them per seat
        lines.append("bots: " + ", ".join(f"{name(s)} ({kind})" for s, kind in sorted(bots.items())))
    lines += GAME_VIEWS.get(view["game"], generic_view)(view, name, options or {})
    if "hand" in view and seat is not None:
        lines.append(f"your hand: {cards_text(view['hand']) if view['hand'] else '(empty)'}")
    if view["outcome"] is not None:
        first, *ranking = result_lines(view["game"], view["outcome"], view.get("loss") and name.text(view["loss"]), name)
        lines.append(f"game over: {first}")
        return lines + [f"  {line}" for line in ranking]
    if not_dealt(view["seq"] - 1):
        lines.append(NOT_DEALT)
        return lines
    if seat is not None and seat in view["to_act"]:
        others = [s for s in view["to_act"] if s != seat]
        lines.append("Your turn" + (f" (also waiting for {names_text(others, name)})" if others else "") + ".")
    elif view["to_act"]:
        lines.append(f"waiting for {names_text(view['to_act'], name)}")
    else:
        lines.append("nobody is to move at this point")
    if view["legal_moves"]:
        lines += moves_lines(view, all_moves)
    return lines


def names_text(seats: Sequence[int], name: Names) -> str:
    return ", ".join(name(s) for s in seats) or "nobody"


def generic_view(view: Mapping[str, Any], name: Names, options: Mapping[str, Any]) -> list[str]:
    """Any game without its own picture: one line per key, per-seat lists one line per seat."""
    return value_lines({k: v for k, v in view.items() if k not in COMMON_KEYS}, len(view.get("hand_sizes", [])) or None, name)


def value_lines(values: Mapping[str, Any], players: int | None, name: Names | None = None) -> list[str]:
    lines = []
    for key, value in values.items():
        label = key.replace("_", " ")
        if players and isinstance(value, list) and len(value) == players and all(isinstance(v, list) for v in value):
            lines.append(f"{label}:")
            lines += [f"  {name(seat) if name else f'seat {seat}'}: {plain(item)}" for seat, item in enumerate(value)]
        elif isinstance(value, dict) and value:
            lines.append(f"{label}:")
            lines += [f"  {k.replace('_', ' ')}: {summary_of(v)}" for k, v in value.items()]
        else:
            lines.append(f"{label}: {summary_of(value)}")
    return [name.text(line) for line in lines] if name else lines  # a record's "seat 2" (a trick's play) named too


def summary_of(value: Any) -> str:
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        # Small records (a trick's plays) read in a line; big ones (a board's cities) are data.
        if all(not isinstance(x, list | dict) for record in value for x in record.values()):
            return "; ".join(plain(record) for record in value)
        return f"{len(value)} entries (--json shows them)"
    return plain(value)


def holly_oak_view(view: Mapping[str, Any], name: Names, options: Mapping[str, Any]) -> list[str]:
    if view["round"] == 0:
        return [f"round 0: {NOT_DEALT}"]
    over = view["outcome"] is not None
    said = [f"round {view['round']}, season {view['season']}" + ("" if over else f"; seat {view['leader']} leads this trick")]
    if view["trick"] or not view.get("last_trick"):
        said.append(f"trick: {plays_text(view['trick']) or '(no card yet)'}")
    if not view["trick"] and view.get("last_trick"):  # the table between tricks, and at the end
        said.append(f"{'the last' if over else 'last'} trick, taken by seat {view['last_winner']}: {plays_text(view['last_trick'])}")
    lines = [name.text(line) for line in said]
    rows = [["seat", "cards", "tricks", "kings taken", "score", "last round"]]
    for seat, size in enumerate(view["hand_sizes"]):
        rows.append([
            name(seat), str(size), str(view["tricks_won"][seat]),
            cards_text(view["kings_taken"][seat]), str(view["scores"][seat]), str(view["round_points"][seat]),
        ])
    lines += columns(rows)
    lines.append(f"the game ends after a round in which someone has {view['winning_score']}; "
                 f"no trick in a round scores {view['no_trick_bonus']}")
    return lines


# Holidays' phases as a player reads them (the page's heading says the same).
HOLIDAYS_PHASES = {"dealing": "dealing the cards", "propose": "choosing where to go", "choose": "choosing where to go",
                   "setoff": "setting off", "clean-up": "settling the pot", "over": "over"}


def holidays_view(view: Mapping[str, Any], name: Names, options: Mapping[str, Any]) -> list[str]:
    destination = view["destination"] or "(none yet)"
    proposer = "" if view["proposer"] is None else f", proposed by seat {view['proposer']}"
    said = [
        f"hand {view['hand_number']}, {HOLIDAYS_PHASES.get(view['phase'], view['phase'])}: destination {destination}{proposer} "
        f"(seat {view['first_proposer']} proposed first)",
        f"holiday value {view['holiday_value']}: face up {cards_text(view['pot_face_up'])}, "
        f"paid {cards_text(view['pot_paid'])}, face down "
        + (cards_text(view["pot_face_down"]) if view["pot_face_down"] else f"{view['pot_face_down_count']} unseen"),
    ]
    for record in view["set_off"]:
        cards = cards_text(record["cards"]) if record["cards"] else f"{record['card_count']} cards, unseen"
        said.append(f"set off: seat {record['seat']}: {record.get('combination') or 'discarded'} ({cards})")
    lines = [name.text(line) for line in said]
    rows = [["seat", "win points", "cards", "destinations played"]]
    for seat, size in enumerate(view["hand_sizes"]):
        rows.append([name(seat), str(view["win_points"][seat]), str(size),
                     cards_text(view["destinations_played"][seat])])
    lines += columns(rows)
    lines.append(f"draw pile {view['draw_pile']}, discard pile {view['discard_pile']} "
                 f"(face up: {cards_text(view['discarded_face_up'])})")
    return lines


def plays_text(plays: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f"seat {play['seat']} -> {play['card']} ({play['season']})" for play in plays)


HOLIDAY_ENDS = {"last_card": "someone used their last sightseeing card", "no_bid": "nobody bid in the last auction"}  # EndReason


def holiday_board_view(view: Mapping[str, Any], name: Names, options: Mapping[str, Any]) -> list[str]:
    board = load_board(str(options.get("board", "")))

    def city(slug: str) -> str:  # by its name; a city of another board than `options`' by its slug
        return board.city_name(slug) if slug in board.city_by_slug else slug

    day = FULL_DAY_NAMES.get(view["day"], view["day"]) if view["day"] else None
    where = f"in {city(view['city'])}" + (f" on {day}" if day else "") if view["city"] else "on the ground"
    charterer = "" if view["charterer"] is None else f"; seat {view['charterer']} chartered the plane"
    lines = [name.text(f"{view['phase']}: {where}{charterer}")]
    auction = view["auction"]
    if auction is not None:
        high = "no bid yet" if auction["high_bidder"] is None else f"high bid ${auction['high_bid']:,} by seat {auction['high_bidder']}"
        to = f" to {city(auction['destination'])}" if auction["destination"] else ""
        lines.append(name.text(f"auction opened by seat {auction['opener']}: {high}{to} (bids up to ${auction['cap']:,}); ")
                     + f"passed: {names_text(auction['passed'], name)}")
    rows = [["seat", "money", "points", "cards", "seen"]]
    for seat, size in enumerate(view["hand_sizes"]):
        rows.append([name(seat), f"${view['money'][seat]:,}", str(view["points"][seat]),
                     str(size), cards_text(view["seen"][seat])])
    lines += columns(rows)
    if view["destinations"] and view["outcome"] is None:
        lines.append(f"can fly to: {', '.join(city(slug) for slug in view['destinations'])}")
    if view["open_destinations"]:
        lines.append("open destinations: a bid may name its city")
    if view["ended"]:
        lines.append(f"the game ended: {HOLIDAY_ENDS.get(view['ended'], view['ended'])}")
    return lines


def tranquility_view(view: Mapping[str, Any], name: Names, options: Mapping[str, Any]) -> list[str]:
    frame = view["frame"]
    lines = [f"the sea, {view['filled']} of 36 filled (ascending from a1 to f6):", *sea_lines(view["grid"])]
    lines.append(f"frame: start {'played' if frame['start'] else 'not yet'}, finish {'played' if frame['finish'] else 'not yet'}")
    if view["start_discard"]:
        owed = view["start_discard"]
        lines.append(name.text(f"the Start's discard: {owed['owed']} cards still owed, circle {owed['circle']}, "
                               f"at least {owed['at_least']} each (started by seat {owed['starter']})"))
    rows = [["seat", "pile", "hand", "discarded"]]
    for seat, pile in enumerate(view["piles"]):
        rows.append([name(seat), str(pile), str(view["hands"][seat]), str(view["discarded"][seat])])
    lines += columns(rows)
    if view["set_aside"]:
        lines.append(f"set aside (Galateia): {view['set_aside']} islands, unseen")
    return lines


def sea_lines(grid: Mapping[str, int] | Sequence[int]) -> list[str]:
    """Tranquility's 6x6 sea, row 6 on top, `.` for an empty cell; from the view's cell -> number
    or from the state's 36 cells in sequence (0 = empty)."""
    if not isinstance(grid, Mapping):
        grid = {f"{'abcdef'[i % 6]}{i // 6 + 1}": n for i, n in enumerate(grid) if n}
    lines = ["     " + "".join(f"{col:>4}" for col in "abcdef")]
    for row in range(6, 0, -1):
        lines.append(f"  {row}  " + "".join(f"{grid.get(f'{col}{row}', '.'):>4}" for col in "abcdef"))
    return lines


# A game's own picture as text, from its view, the reader's names and the game's public options.
GAME_VIEWS: dict[str, Callable[[Mapping[str, Any], Names, Mapping[str, Any]], list[str]]] = {
    "holly-oak": holly_oak_view,
    "holidays": holidays_view,
    "holiday-board": holiday_board_view,
    "tranquility": tranquility_view,
}


def state_lines(game_id: str, slug: str, seq: int, state: Mapping[str, Any], name: Names | None = None) -> list[str]:
    """The whole state right after the event at `seq` (a referee's view): every key, each seat's
    hand on its own line. `name`: how the reader reads the seats (default: by number)."""
    players = state.get("players")
    lines = [f"{game_id} ({slug}) after event {seq}, the whole state" + (f": {NOT_DEALT}" if not_dealt(seq) else "")]
    rest = dict(state)
    if slug == "tranquility" and isinstance(rest.get("grid"), list):
        lines += ["grid:", *sea_lines(rest.pop("grid"))]
    return lines + value_lines(rest, players, name)
