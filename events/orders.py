"""The standing orders store: a seat's orders in one Redis hash under the game's hash tag, beside
the log (keys.orders), and the one way the front ends leave, read and clear them. It never writes
the log (an order fires through the command path, events.commands), never puts an order into a
job argument or a log line, and never shows a seat's orders to another seat.

The hash: order id -> the order as JSON (core.orders.Order.stored, plus `n`, its place in the
list); `~note:<seq>:<id>` -> {"seq", "text", "why"} for an order dropped at seq (it could never fire
again), which the seat's next report tells (pbm.turn_report). Firing takes the order off in the
same script as the append (events.store `consume`), so an order fires once.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.orders import MAX_ORDERS, BadOrder, Context, Order, from_stored, parse_orders
from events import keys

if TYPE_CHECKING:
    from core.table import Table
    from events.commands import Games
    from events.store import Store

NOTE = "~note:"
MAX_NOTES = 20  # the latest notes a seat keeps (older ones were in reports it has had)


def fresh_id() -> str:
    return secrets.token_hex(4)


class Orders:
    """Reads and writes seats' orders (no parsing: core.orders; no firing: events.commands)."""

    def __init__(self, store: Store) -> None:
        self.redis = store.redis

    def read(self, game_id: str, seat: int) -> list[Order]:
        return self._split(self.redis.hgetall(keys.orders(game_id, seat)))[0]

    def read_seats(self, game_id: str, seats: Sequence[int]) -> dict[int, list[Order]]:
        """Several seats' orders in one round trip (the command path's look after an append)."""
        pipe = self.redis.pipeline(transaction=False)
        for seat in seats:
            pipe.hgetall(keys.orders(game_id, seat))
        return {seat: self._split(raw)[0] for seat, raw in zip(seats, pipe.execute())}

    def notes(self, game_id: str, seat: int) -> list[dict[str, Any]]:
        """The notes of dropped orders, oldest first: {"seq", "text", "why"}."""
        return self._split(self.redis.hgetall(keys.orders(game_id, seat)))[1]

    def replace(self, game_id: str, seat: int, orders: Sequence[Order]) -> None:
        """The seat's whole list, in one transaction (its notes stay); marks the game's row."""
        key = keys.orders(game_id, seat)
        old = self.redis.hkeys(key)
        pipe = self.redis.pipeline(transaction=True)
        stale = [name for name in old if not name.startswith(NOTE.encode())]
        if stale:
            pipe.hdel(key, *stale)
        if orders:
            pipe.hset(key, mapping={order.id: json.dumps({**order.stored(), "n": n}, separators=(",", ":")) for n, order in enumerate(orders)})
            pipe.hset(keys.meta(game_id), "orders", "1")
        pipe.execute()

    def drop(self, game_id: str, seat: int, dropped: Sequence[tuple[Order, str]], seq: int) -> None:
        """Take off orders that can never fire again, each with a note for the seat's next report."""
        if not dropped:
            return
        key = keys.orders(game_id, seat)
        notes = {f"{NOTE}{seq}:{order.id}": json.dumps({"seq": seq, "text": order.text, "why": why}) for order, why in dropped}
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(key, *(order.id for order, _why in dropped))
        pipe.hset(key, mapping=notes)
        pipe.execute()
        self._prune_notes(key)

    def _prune_notes(self, key: str) -> None:
        names = sorted((name for name in self.redis.hkeys(key) if name.startswith(NOTE.encode())), key=note_seq)
        if len(names) > MAX_NOTES:
            self.redis.hdel(key, *names[: len(names) - MAX_NOTES])

    @staticmethod
    def _split(raw: dict[bytes, bytes]) -> tuple[list[Order], list[dict[str, Any]]]:
        orders, notes = [], []
        for name, value in raw.items():
            data = json.loads(value)
            if name.startswith(NOTE.encode()):
                notes.append(data)
            else:
                orders.append((data.pop("n", 0), from_stored(data)))
        return [order for _n, order in sorted(orders, key=lambda pair: pair[0])], sorted(notes, key=lambda note: note["seq"])


def note_seq(name: bytes) -> int:
    return int(name.decode()[len(NOTE) :].split(":", 1)[0])


def leave(games: Games, game_id: str, seat: int, items: Sequence[Any]) -> list[Order]:
    """Set `seat`'s orders from their texts or JSON forms (one parser: core.orders), all or none:
    BadOrder naming the first bad order, nothing changed. An order given with the id of one the
    seat holds, and the same move, conditions and chain, is kept as it was (its chain still counts
    from when it was first left). Then the game settles: a seat to act now whose order can fire
    plays it at once. Returns the orders the seat holds after that."""
    table = open_for_orders(games, game_id, seat)
    if not isinstance(items, (list, tuple)):
        raise BadOrder("orders are a list")
    if len(items) > MAX_ORDERS:
        raise BadOrder(f"{len(items)} orders: a seat may leave at most {MAX_ORDERS}")
    parsed = parse_orders(items, context_of(table, seat), ids=[fresh_id() for _ in items])
    store = Orders(games.store)
    held = {order.id: order for order in store.read(game_id, seat)}
    kept = []
    for order in parsed:
        old = held.get(order.id)
        same = old is not None and (old.move, old.when, old.after) == (order.move, order.when, order.after)
        kept.append(old if same else order)
    return stored(games, game_id, seat, table, kept)


def add(games: Games, game_id: str, seat: int, item: Any) -> list[Order]:
    """One order more, after those the seat holds (which stay as they are, unparsed): the seat's
    page adds them one at a time. BadOrder naming it (by its place in the list) and nothing
    changed if it is bad or the list is full."""
    table = open_for_orders(games, game_id, seat)
    held = Orders(games.store).read(game_id, seat)
    if len(held) >= MAX_ORDERS:
        raise BadOrder(f"you hold {len(held)} orders: a seat may leave at most {MAX_ORDERS} (remove one first)")
    (order,) = parse_orders([item], context_of(table, seat), ids=[fresh_id()], first_number=len(held) + 1)
    return stored(games, game_id, seat, table, [*held, order])


REARRANGE = ("remove", "up", "down")


def rearrange(games: Games, game_id: str, seat: int, order_id: str, how: str) -> list[Order]:
    """Take one of the seat's orders off (`remove`), or move it one place earlier (`up`) or later
    (`down`) in its list: the first that fires is the first in the list. BadOrder if the seat holds
    no order of that id (fired or dropped meanwhile)."""
    if how not in REARRANGE:
        raise BadOrder(f"an order is moved {', '.join(REARRANGE)}, not {how[:20]!r}")
    table = open_for_orders(games, game_id, seat)
    held = Orders(games.store).read(game_id, seat)
    place = next((n for n, order in enumerate(held) if order.id == order_id), None)
    if place is None:
        raise BadOrder("you hold no such order now: it has fired, or been dropped or taken off")
    order = held.pop(place)
    if how != "remove":
        held.insert(max(0, place - 1) if how == "up" else min(len(held), place + 1), order)
    return stored(games, game_id, seat, table, held)


def open_for_orders(games: Games, game_id: str, seat: int) -> Table:
    """The game's table, if `seat` is one of its seats and it still takes orders (BadOrder if over)."""
    table = games.table(game_id)
    table.check_seat(seat)
    if table.outcome is not None:
        raise BadOrder(f"game {game_id} is over: it takes no orders")
    return table


def context_of(table: Table, seat: int) -> Context:
    return Context(table.game, table.players, seat, table.view(seat))


def stored(games: Games, game_id: str, seat: int, table: Table, orders: Sequence[Order]) -> list[Order]:
    """`orders` as the seat's whole list; then the game settles (a seat to act now whose order can
    fire plays it at once). Returns the orders the seat holds after that."""
    store = Orders(games.store)
    store.replace(game_id, seat, orders)
    if orders and seat in table.to_act:
        games.settle(game_id)
    return store.read(game_id, seat)


def clear(games: Games, game_id: str, seat: int) -> None:
    """Take all of `seat`'s orders off (its notes stay, for its report)."""
    games.table(game_id).check_seat(seat)
    Orders(games.store).replace(game_id, seat, [])
