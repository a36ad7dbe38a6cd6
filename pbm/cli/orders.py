"""`pbm orders`: a seat's standing orders from the operator's terminal (show, set, clear). Thin: the
parsing is core.orders', the store events.orders'; nothing here decides or plays a move.

    pbm orders GAME --as SEAT show
    pbm orders GAME --as SEAT set "if Winter is led: play 9Wi" "next: play SR"
    pbm orders GAME --as SEAT clear
"""

from __future__ import annotations

import click

from pbm.cli import emit_json, open_games, say


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("action", type=click.Choice(["show", "set", "clear"]), default="show")
@click.argument("texts", nargs=-1, metavar="[ORDER]...")
@click.option("--as", "seat", type=int, required=True, help="The seat whose orders these are.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def orders(game_id: str, action: str, texts: tuple[str, ...], seat: int, as_json: bool) -> None:
    """Show, set (each ORDER one text, e.g. "if Winter is led: play 9Wi") or clear a seat's orders;
    `set` replaces the whole list. The conditions of each game: pbm rules GAME."""
    from core.orders import BadOrder
    from events import orders as store

    games = open_games()
    if action != "set" and texts:
        raise BadOrder(f"`{action}` takes no orders (did you mean `set`?)")
    if action == "set":
        if not texts:
            raise BadOrder("`set` needs at least one order (`clear` takes them all off)")
        held = store.leave(games, game_id, seat, list(texts))
    elif action == "clear":
        store.clear(games, game_id, seat)
        held = []
    else:
        games.table(game_id).check_seat(seat)
        held = store.Orders(games.store).read(game_id, seat)
    if as_json:
        return emit_json({"orders": [order.to_json() for order in held]})
    if not held:
        return say(f"seat {seat} holds no orders")
    say(*(f"{n:>2}. {order.text}" for n, order in enumerate(held, 1)))
