"""Orders are secret until they fire, byte for byte on every channel: two games alike but for one
seat's standing orders (not fired yet; one of them dropped on the way) give every other seat the
same bytes of its event stream (the seat's page's SSE), its turn mails (a real SMTP server), its
webhook bodies (a real HTTP server) and its GET /api/me, move after move. What may differ is only
what must: each game's own id and each seat's own token (its link, its reply address)."""

from __future__ import annotations

import re
import uuid

import pytest

from events.commands import Games
from pbm.web import create_app
from tests.mail.conftest import Receiver, hooks_served, text_of
from tests.mail.test_notify import work_in_process
from events.orders import Orders
from tests.web.conftest import ADMIN, LOOSE, TestClient, bearer

pytestmark = pytest.mark.usefixtures("clean_notify_queue")
MOVES = 12


class RawReceiver(Receiver):
    """Keeps each webhook's body as the bytes that came, beside the parsed ones."""

    raw: list[bytes] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.raw.append(body)
        self.send_response(204)
        self.end_headers()


@pytest.fixture
def raw_hooks(local_webhooks):
    class Handler(RawReceiver):
        raw: list[bytes] = []

    with hooks_served(Handler):
        yield Handler


def first_event(client: TestClient, game_id: str, seat: int, token: str) -> bytes:
    """The head of the seat's page's event stream, as its bytes come: up to its first event."""
    here = f"/play/g/{game_id}/{seat}"
    client.cookies.clear()
    client.cookies.set("pbm_seat", token, domain="127.0.0.1", path=here)
    got = b""
    with client.stream("GET", f"{here}/events") as stream:
        assert stream.status_code == 200
        for chunk in stream.iter_bytes():
            got += chunk
            if b"data: " in got and got.endswith(b"\n\n"):
                return got
    raise AssertionError(f"the stream ended with {got!r}")


def test_a_seats_unfired_orders_change_no_byte_another_seat_is_sent(dispatching: Games, smtp_sink, raw_hooks, queue_client):
    app = create_app(dispatching.store.redis, games=dispatching, admin_token=ADMIN, limits=LOOSE)
    tag = uuid.uuid4().hex[:8]
    with TestClient(app) as client:
        games = []
        for n in (1, 2):
            seats = [{"name": "Ann", "email": f"ann-{tag}-{n}@players.test"}, {"name": "Bob"}, {"name": "Cy", "webhook": raw_hooks.url}]
            created = client.post("/api/games", json={"game": "holly-oak", "players": 3, "seats": seats, "seed": 7, "late_salts": False}, headers=bearer(ADMIN))
            assert created.status_code == 201, created.text
            games.append(created.json())
        planner, plain = games
        tokens = [{seat["seat"]: seat["token"] for seat in game["seats"]} for game in games]
        bob = client.get("/api/me", headers=bearer(tokens[0][1])).json()["view"]
        winter = [card for card in bob["hand"] if card.endswith("Wi")]
        (mover,) = bob["to_act"]
        assert mover != 1  # Bob waits: his orders are left out of turn
        chain = client.get("/api/me", headers=bearer(tokens[0][mover])).json()["view"]["legal_moves"][1]  # the mover plays [0]
        orders = [f"if Winter is led: play {card}" for card in winter] + [f"after {mover} {chain}: play {bob['hand'][0]}"]
        left = client.put("/api/me/orders", headers=bearer(tokens[0][1]), json={"orders": orders})
        assert left.status_code == 200 and len(left.json()["orders"]) == len(orders) >= 2

        def same_but_ids(n: int, data: bytes) -> bytes:
            """The bytes with the game's own id, its seats' own tokens and Ann's person link (each
            game's Ann is a person of her own, by her address) put as placeholders."""
            data = re.sub(rb"/me/p-[A-Za-z0-9.]+", b"/me/<person token>", data)
            for seat, token in tokens[n].items():
                data = data.replace(token.encode(), f"<token of seat {seat}>".encode())
            return data.replace(games[n]["game_id"].encode(), b"<game>")

        def sent() -> tuple[list[list[bytes]], list[list[bytes]]]:
            """Every mail (subject and text) and webhook body each game's Ann and Cy were sent so far."""
            work_in_process(queue_client, dispatching.store)
            mails = [[same_but_ids(n, m["Subject"].encode() + b"\n" + text_of(m).encode()) for m in smtp_sink.to(f"ann-{tag}-{n + 1}@players.test")] for n in (0, 1)]
            hooks = [[same_but_ids(n, body) for body in raw_hooks.raw if games[n]["game_id"].encode() in body] for n in (0, 1)]
            return mails, hooks

        dropped = False
        for step in range(MOVES):
            # Every answer to Ann and Cy, in both games, before this move.
            for seat in (0, 2):
                streams = [same_but_ids(n, first_event(client, game["game_id"], seat, tokens[n][seat])) for n, game in enumerate(games)]
                assert streams[0] == streams[1] and b"event: seq\ndata: " in streams[0], (step, seat)
                me = [same_but_ids(n, client.get("/api/me", headers=bearer(tokens[n][seat])).content) for n in (0, 1)]
                assert me[0] == me[1], (step, seat)
            mails, hooks = sent()
            assert mails[0] == mails[1] and hooks[0] == hooks[1], step
            log = dispatching.store.read(planner["game_id"])
            assert not any(env.origin == "order" for env in log)  # none fired: what this test is about
            held = client.get("/api/me", headers=bearer(tokens[0][1])).json()
            dropped = dropped or len(held["orders"]) < len(orders)
            view = client.get("/api/me", headers=bearer(tokens[0][0])).json()["view"]
            if view["outcome"] is not None:
                break
            seat = view["to_act"][0]
            move = client.get("/api/me", headers=bearer(tokens[0][seat])).json()["view"]["legal_moves"][0]
            for n in (0, 1):
                played = client.post("/api/me/moves", headers=bearer(tokens[n][seat]), json={"move": move})
                assert played.status_code == 200, played.text
        mails, hooks = sent()
        assert mails[0] == mails[1] and hooks[0] == hooks[1]
        assert mails[0] and hooks[0]  # turns came to both channels: the comparison compared something
        assert dropped  # the broken chain's order went, with a note for Bob alone
        notes = Orders(dispatching.store).notes
        assert [note["why"][:10] for note in notes(planner["game_id"], 1)] == ["it waited "] and notes(plain["game_id"], 1) == []
        assert all(notes(planner["game_id"], seat) == [] for seat in (0, 2))
