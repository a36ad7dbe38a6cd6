"""Standing orders, the pure part: one parser for an order's text and JSON forms, and the review
that says which of a seat's orders fires now and which can never fire again. Pure: no I/O; it never
stores an order, never plays a move and never looks at anything but what the seat may see.

An order is `{"id", "move", "when"?, "after"?}`:
- `move`: a move in the game's notation (or a form the game's conditions module resolves against
  the view when the order fires, e.g. Holiday!'s `bid min`);
- `when`: conditions in the game's own terms, joined by "and", each parsed and evaluated by the
  game's conditions module (`Game.conditions`, core/games/<game>/conditions.py);
- `after`: a chain of `{"seat", "move"}`, other seats' moves that must match, as a prefix, the
  moves other seats played since the order was left (compared by what every seat sees of them:
  the game's `public` form of a move).

The text form, one order a line (docs/orders.md):

    next: play SR
    if Winter is led: play 9Wi
    if Winter is led and I hold 10Wi: play 10Wi        (conditions joined by "and")
    after 1 play 3Su: play 9Wi
    after 1 play 3Su, 2 play 4Su if Summer is led: play 9Wi

A bare move is not an order (in a mail it is the move itself): an order starts with `next:`,
`if ...:` or `after ...:`.

A game's conditions module provides (the last four are optional):
    parse_condition(text) -> condition (with a canonical str()); ValueError if unknown
    holds(condition, view) -> bool
    CONDITIONS: the condition forms, for help and errors
    scope(move, view) -> a JSON value: the order lasts while the view's scope stays this (None: always)
    gone(move, view) -> why the move can never be played again (its card left the hand), or None
    resolve(move, view) -> the move text to play now, or None (default: the move itself)
    order_move(text) -> the canonical text of an order-only move form, or None
    public(move) -> what every seat sees of a move (default: the move itself)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from core.contract import Game, IllegalMove

if TYPE_CHECKING:
    from core.table import Table

MAX_ORDERS = 20
MAX_CHAIN = 20
MAX_TEXT = 200  # characters of one order's text or field: an order is a line, not a document
ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
_HEAD = re.compile(r"\s*(?P<head>next|if\s.*?|after\s.*?)\s*:\s*(?P<move>\S.*?)\s*", re.IGNORECASE | re.DOTALL)
_AFTER = re.compile(r"after\s+(?P<chain>.*?)(?:\s+if\s+(?P<when>.*))?", re.IGNORECASE | re.DOTALL)
_LINK = re.compile(r"(?:seat\s+)?(?P<seat>\d{1,3})\s+(?P<move>\S.*)", re.IGNORECASE | re.DOTALL)


class BadOrder(IllegalMove):
    """An order refused: the text names the order (its number, from 1, and its text) and why."""


@attrs.frozen
class Order:
    """One stored order. `left_at`: the log's length when it was left (its chain counts moves from
    there); `scope`: the game's scope then (the round, hand or auction it was left in)."""

    id: str
    move: str
    when: tuple[str, ...] = ()  # canonical condition texts
    after: tuple[tuple[int, str], ...] = ()  # (seat, public move text)
    left_at: int = 0
    scope: Any = None

    @property
    def text(self) -> str:
        """The canonical text form (what parse_text reads back to this order)."""
        head = ""
        if self.after:
            head = "after " + ", ".join(f"{seat} {move}" for seat, move in self.after)
        if self.when:
            head += (" " if head else "") + "if " + " and ".join(self.when)
        return f"{head or 'next'}: {self.move}"

    def to_json(self) -> dict[str, Any]:
        """The JSON form a seat reads back (GET /api/me/orders), with its text."""
        data: dict[str, Any] = {"id": self.id, "move": self.move}
        if self.when:
            data["when"] = " and ".join(self.when)
        if self.after:
            data["after"] = [{"seat": seat, "move": move} for seat, move in self.after]
        data["text"] = self.text
        data["left_at"] = self.left_at
        return data

    def stored(self) -> dict[str, Any]:
        """What the store keeps (events/orders.py), read back by `from_stored`."""
        return {**self.to_json(), "scope": self.scope}


def from_stored(data: Mapping[str, Any]) -> Order:
    when = data.get("when")
    return Order(
        id=data["id"],
        move=data["move"],
        when=tuple(when.split(" and ")) if when else (),
        after=tuple((int(link["seat"]), link["move"]) for link in data.get("after") or ()),
        left_at=int(data.get("left_at", 0)),
        scope=data.get("scope"),
    )


def is_order_text(text: str) -> bool:
    """Whether a line reads as an order (rather than a move): it starts `next:`, `if ` or `after `."""
    return _HEAD.fullmatch(text) is not None


@attrs.frozen
class Context:
    """What an order is checked against when it is left: the game, the table's size, the seat
    leaving it and what that seat sees now (its view, with its seq)."""

    game: Game
    players: int
    seat: int
    view: Mapping[str, Any]


def parse_orders(items: Sequence[Any], context: Context, ids: Sequence[str] = (), first_number: int = 1) -> list[Order]:
    """A seat's whole list of orders from texts (str) or JSON forms (dict), checked; BadOrder naming
    the first bad one (by its place in the list: `first_number` for the first of `items`). `ids`:
    fresh ids for orders given without one, in order."""
    if not isinstance(items, (list, tuple)):
        raise BadOrder("orders are a list")
    if len(items) > MAX_ORDERS:
        raise BadOrder(f"{len(items)} orders: a seat may leave at most {MAX_ORDERS}")
    fresh = iter(ids)
    orders, seen = [], set()
    for number, item in enumerate(items, first_number):
        try:
            order = parse_order(item, context, None)
            if not order.id:
                order = attrs.evolve(order, id=next(fresh))
        except (BadOrder, IllegalMove, ValueError) as error:
            raise BadOrder(f"order {number} ({shown(item)}): {error}") from None
        if order.id in seen:
            raise BadOrder(f"order {number} ({shown(item)}): id {order.id!r} is used twice")
        seen.add(order.id)
        orders.append(order)
    return orders


def shown(item: Any) -> str:
    """An order as an error names it: its text, or its JSON form's move, cut short."""
    text = item if isinstance(item, str) else (item.get("move") if isinstance(item, Mapping) else None)
    text = repr(item) if not isinstance(text, str) else text
    return f"`{text[:60]}`" + ("..." if len(text) > 60 else "")


def parse_order(item: Any, context: Context, order_id: str | None) -> Order:
    """One order from its text or JSON form, checked against `context` (ValueError why not)."""
    if isinstance(item, str):
        fields = text_fields(item)
    elif isinstance(item, Mapping):
        unknown = set(item) - {"id", "move", "when", "after", "text", "left_at"}
        if unknown:
            raise BadOrder(f"unknown field {sorted(unknown)[0]!r} (an order has id, move, when, after)")
        fields = dict(item)
        if "move" not in fields and isinstance(fields.get("text"), str):
            fields = {**text_fields(fields["text"]), "id": fields.get("id")}
    else:
        raise BadOrder("an order is a text or an object")
    order_id = fields.get("id") if order_id is None else order_id
    if order_id is not None and (not isinstance(order_id, str) or not ID.fullmatch(order_id)):
        raise BadOrder("an id is 1 to 32 letters, digits, - or _")
    game, view = context.game, context.view
    move = canonical_move(game, fields.get("move"))
    when = conditions_of(game, fields.get("when"))
    after = chain_of(context, fields.get("after"))
    conditions = game.conditions
    gone = getattr(conditions, "gone", None)
    reason = None if gone is None else gone(move, view)
    if reason is not None:
        raise BadOrder(f"it could never be played: {reason}")
    scope = getattr(conditions, "scope", None)
    return Order(order_id or "", move, when, after, int(view["seq"]), None if scope is None else scope(move, view))


def text_fields(text: str) -> dict[str, Any]:
    """The fields of an order's text form: move, when (text), after (list of {seat, move})."""
    if len(text) > MAX_TEXT:
        raise BadOrder(f"an order is at most {MAX_TEXT} characters")
    match = _HEAD.fullmatch(text)
    if match is None:
        raise BadOrder("an order reads `next: MOVE`, `if CONDITION: MOVE` or `after SEAT MOVE: MOVE`")
    head, fields = match["head"], {"move": match["move"]}
    if head.lower().startswith("if"):
        fields["when"] = head[2:].strip()
    elif head.lower().startswith("after"):
        after = _AFTER.fullmatch(head)
        fields["when"] = after["when"]
        links = []
        for link in after["chain"].split(","):
            found = _LINK.fullmatch(link.strip())
            if found is None:
                raise BadOrder(f"{link.strip()!r} is not `SEAT MOVE` (e.g. `1 play 3Su`)")
            links.append({"seat": int(found["seat"]), "move": found["move"]})
        fields["after"] = links
    return fields


def canonical_move(game: Game, text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise BadOrder("no move: an order names a move in the game's notation")
    if len(text) > MAX_TEXT:
        raise BadOrder(f"a move is at most {MAX_TEXT} characters")
    order_move = getattr(game.conditions, "order_move", None)
    special = None if order_move is None else order_move(text)
    if special is not None:
        return special
    return str(game.parse_move(text))


def conditions_of(game: Game, when: Any) -> tuple[str, ...]:
    if when is None or when == "":
        return ()
    if not isinstance(when, str) or len(when) > MAX_TEXT:
        raise BadOrder(f"`when` is a text of at most {MAX_TEXT} characters")
    text = re.sub(r"^\s*if\s+", "", when, flags=re.IGNORECASE)
    parsed = []
    for part in re.split(r"\s+and\s+", text.strip(), flags=re.IGNORECASE):
        try:
            parsed.append(str(game.conditions.parse_condition(part)))
        except ValueError:
            forms = "; ".join(game.conditions.CONDITIONS)
            raise BadOrder(f"unknown condition {part!r} ({game.slug} knows: {forms})") from None
    return tuple(parsed)


def chain_of(context: Context, after: Any) -> tuple[tuple[int, str], ...]:
    if after is None:
        return ()
    if not isinstance(after, (list, tuple)) or len(after) > MAX_CHAIN:
        raise BadOrder(f"`after` is a list of at most {MAX_CHAIN} {{seat, move}}")
    links = []
    for link in after:
        if not isinstance(link, Mapping) or set(link) != {"seat", "move"}:
            raise BadOrder("each link of `after` is {seat, move}")
        seat = link["seat"]
        if type(seat) is not int or not 0 <= seat < context.players:
            raise BadOrder(f"`after` names seat {seat!r}: this table has seats 0 to {context.players - 1}")
        if seat == context.seat:
            raise BadOrder(f"`after` names seat {seat}, the seat leaving the order: a chain is other seats' moves")
        links.append((seat, public_move(context.game, str(context.game.parse_move(link["move"])))))
    return tuple(links)


def public_move(game: Game, move: str) -> str:
    """What every seat sees of a move (Tranquility's discards are face down)."""
    public = getattr(game.conditions, "public", None)
    return move if public is None else public(move)


# ---------------------------------------------------------------------------------------------
# The review: which order fires now, which are dropped


@attrs.frozen
class Review:
    fire: Order | None  # the first order whose move is legal now and whose conditions hold
    move: str | None  # the move it plays (its template resolved)
    dropped: tuple[tuple[Order, str], ...]  # orders that can never fire again, and why


def review(game: Game, orders: Sequence[Order], view: Mapping[str, Any], played: Sequence[tuple[int, int, str]]) -> Review:
    """For the seat whose `view` this is, to act now: the order to fire and the orders to drop.

    `played`: (seq, seat, move) of the moves other seats played, in order, since the earliest
    `left_at` of the orders with a chain (each order counts from its own). Pure: a function of the
    orders and what the seat sees.
    """
    conditions = game.conditions
    scope = getattr(conditions, "scope", None)
    gone = getattr(conditions, "gone", None)
    resolve = getattr(conditions, "resolve", None)
    legal = set(view["legal_moves"])
    fire = move = None
    dropped = []
    for order in orders:
        if scope is not None and scope(order.move, view) != order.scope:
            dropped.append((order, getattr(conditions, "SCOPE_ENDED", "what it was left for is over")))
            continue
        reason = None if gone is None else gone(order.move, view)
        if reason is not None:
            dropped.append((order, reason))
            continue
        since = [(seat, public_move(game, text)) for seq, seat, text in played if seq >= order.left_at]
        broke = chain_broken(order.after, since)
        if broke is not None:
            dropped.append((order, broke))
            continue
        if fire is not None or len(since) < len(order.after):
            continue
        text = order.move if resolve is None else resolve(order.move, view)
        if text is None or text not in legal:
            continue  # not legal now: skipped, it may be later
        if all(conditions.holds(conditions.parse_condition(c), view) for c in order.when):
            fire, move = order, text
    return Review(fire, move, tuple(dropped))


def chain_broken(chain: Sequence[tuple[int, str]], since: Sequence[tuple[int, str]]) -> str | None:
    """Why the chain can never match the moves played since (a move differs), or None."""
    for (seat, wanted), (played_by, played) in zip(chain, since):
        if (seat, wanted) != (played_by, played):
            return f"it waited for seat {seat} to {wanted}, and seat {played_by}'s move was {played}"
    return None


# ---------------------------------------------------------------------------------------------
# What the shell plays next without asking: a forced move, else an order that fires. The engine
# (events.commands.Games._follow_up) and the benchmark (bench/waits.py) both ask these, so the
# figures measure the engine's own rule.


def forced_move(table: Table) -> tuple[int, str] | None:
    """(seat, move) if a person's seat the game waits on has exactly one legal move; else None.
    A bot's seat is its bot's to play (its job is queued as for any other move)."""
    if table.outcome is not None:
        return None
    for seat in table.to_act:
        if seat in table.bots:
            continue
        legal = table.legal_moves(seat)
        if len(legal) == 1:
            return seat, legal[0]
    return None


@attrs.frozen
class Firing:
    seat: int
    move: str  # the move it plays (its template resolved)
    order: Order


# (seat, seq) -> (seq, seat, move) of the moves seats other than `seat` played from `seq` on, as the
# log records them: the chains' input, read only when a seat holds a chained order.
PlayedSince = Callable[[int, int], Sequence[tuple[int, int, str]]]


def order_to_fire(table: Table, held: Mapping[int, Sequence[Order]], played_since: PlayedSince) -> tuple[Firing | None, dict[int, tuple[tuple[Order, str], ...]]]:
    """The first order that fires now among the person's seats the game waits on (a bot's seat
    keeps its orders until it is handed back), in the order of `table.to_act`, and per seat
    reviewed on the way the orders that can never fire again (for the caller to drop, each with
    a note for its seat). `held`: seat -> its orders, in its order. Pure."""
    dropped: dict[int, tuple[tuple[Order, str], ...]] = {}
    if table.outcome is not None:
        return None, dropped
    for seat in table.to_act:
        orders = held.get(seat)
        if seat in table.bots or not orders:
            continue
        chained = [order.left_at for order in orders if order.after]
        played = played_since(seat, min(chained)) if chained else ()
        looked = review(table.game, orders, table.view(seat), played)
        dropped[seat] = looked.dropped
        if looked.fire is not None:
            return Firing(seat, looked.move, looked.fire), dropped
    return None, dropped
