"""The seat's standing orders in the JSON API (/api/me/orders): read, replace, clear. Thin: the
parsing is core.orders', the store events.orders'; a seat reaches only its own orders, by its
token, and an answer never holds another seat's.

    GET    /api/me/orders  -> {"orders": [...]}
    PUT    /api/me/orders  {"orders": [text | {"id"?, "move", "when"?, "after"?}, ...]}
                           -> 200 {"orders": [...]} the stored list, or 422 {"error"} naming the bad
                              order (nothing stored)
    DELETE /api/me/orders  -> 204
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Response
from pydantic import BaseModel, ConfigDict

from core.orders import BadOrder
from events import orders as store
from pbm.web.auth import SeatAccess, me
from pbm.web.errors import ApiError

router = APIRouter(prefix="/api/me")


class OrdersBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Texts or objects, checked by core.orders (one parser for every front end), not here.
    orders: list[Any]


def held(access: SeatAccess) -> list[dict[str, Any]]:
    """The seat's orders as the API answers them (also in GET /api/me)."""
    return [order.to_json() for order in store.Orders(access.server.games.store).read(access.game_id, access.seat)]


@router.get("/orders", summary="Your standing orders: moves left for your coming turns")
def get_orders(access: SeatAccess = Depends(me)) -> dict[str, Any]:
    return {"orders": held(access)}


@router.put("/orders", summary="Replace your standing orders (docs/orders.md: the forms per game)",
            responses={422: {"description": "A bad order, named, and why: nothing was stored"}})
def put_orders(body: OrdersBody, access: SeatAccess = Depends(me)) -> dict[str, Any]:
    try:
        orders = store.leave(access.server.games, access.game_id, access.seat, body.orders)
    except BadOrder as refused:
        raise ApiError(422, str(refused)) from None
    return {"orders": [order.to_json() for order in orders]}


@router.delete("/orders", status_code=204, response_class=Response, summary="Take all your standing orders off")
def delete_orders(access: SeatAccess = Depends(me)) -> Response:
    store.clear(access.server.games, access.game_id, access.seat)
    return Response(status_code=204)
