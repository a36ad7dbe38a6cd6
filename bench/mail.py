"""Benchmark of mail: what turn notifications cost a move, and moves by mail against the same moves
through Games.submit, in the same run. Prints; asserts nothing.

    python bench/mail.py [--games 6] [--moves 40] [--forged 2000] [--rounds 3]

Every side plays exactly the same scripted moves (each game played offline on its seed by a seeded
random chooser) on fresh games with the same seeds, all seats people's:
  - submit, no dispatcher: the command path alone (the baseline);
  - submit, dispatcher, no channels: what every people's game pays now (the dispatcher reads the
    seats' channels: one round trip);
  - submit, dispatcher, e-mail on every seat: that read plus a notify job queued per turn;
  - mail-in: each move as a mail through pbm.mail.inbound.receive (parse, token, submit, an answer
    sent over SMTP to a local aiosmtpd server that discards it).
And forged mail (a well-formed token with a wrong secret) dropped per second. On the embedded
Redis by default; with REDIS_URL set, on that server.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from email.message import EmailMessage
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import core  # noqa: E402
from bench import serving  # noqa: E402
from bench._common import bench_redis  # noqa: E402
from events.commands import Games  # noqa: E402
from events.seats import Seats  # noqa: E402
from events.store import Store  # noqa: E402
from workers.dispatch import Dispatcher  # noqa: E402

GAME, PLAYERS = "holly-oak", 3


def script(seed: int, moves: int) -> list[tuple[int, str]]:
    table = core.new_table(GAME, players=PLAYERS, seed=seed)
    chooser, played = random.Random(seed), []
    while table.outcome is None and len(played) < moves:
        seat = table.to_act[0]
        move = chooser.choice(table.legal_moves(seat))
        table.play(seat, move)
        played.append((seat, move))
    return played


class Discard:
    async def handle_DATA(self, server, session, envelope) -> str:
        return "250 OK"


def mail(token: str, move: str, number: int) -> bytes:
    message = EmailMessage()
    message["From"] = "player@bench.test"
    message["To"] = f"pbm+{token}@bench.test"
    message["Subject"] = "Re: Your turn"
    message["Message-ID"] = f"<bench-{number}@bench.test>"
    message.set_content(f"{move}\n\nOn Tue, 1 Dec 2026, pbm wrote:\n> Your turn\n")
    return message.as_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--forged", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from aiosmtpd.controller import Controller

    from pbm.mail import inbound

    port = serving.free_port()
    controller = Controller(Discard(), hostname="127.0.0.1", port=port)
    controller.start()
    os.environ.update(PBM_SMTP_URL=f"smtp://127.0.0.1:{port}", PBM_MAIL_FROM="pbm@bench.test", PBM_MAILS_PER_10MIN="100000")
    scripts = [script(seed, args.moves) for seed in range(args.games)]
    total = sum(len(moves) for moves in scripts)
    results: dict[str, float] = {}
    try:
        with bench_redis() as (client, where):
            store, seats = Store(client), Seats(client)
            sides = {
                "submit, no dispatcher (baseline)": (Games(store), None),
                "submit, dispatcher, no channels": (Games(store, dispatch=Dispatcher(client, log=client)), None),
                "submit, dispatcher, e-mail on every seat": (Games(store, dispatch=Dispatcher(client, log=client)), "email"),
                "mail-in (parse, submit, answer over SMTP)": (Games(store, dispatch=Dispatcher(client, log=client)), "mail"),
            }
            for round_number in range(args.rounds):
                for name, (games, channel) in sides.items():
                    prepared = []
                    for seed, moves in enumerate(scripts):
                        game_id = games.create(GAME, PLAYERS, seed=seed, game_id=f"bench-mail-{round_number}-{abs(hash(name)) % 10**6}-{seed}")
                        tokens = {}
                        for seat in range(PLAYERS):
                            if channel:
                                seats.set_contact(game_id, seat, email=f"seat{seat}@bench.test")
                            tokens[seat] = seats.issue(game_id, seat)
                        prepared.append((game_id, tokens, moves))
                    start = time.perf_counter()
                    number = 0
                    for game_id, tokens, moves in prepared:
                        for seat, move in moves:
                            number += 1
                            if channel == "mail":
                                received = inbound.receive(games, mail(tokens[seat], move, number))
                                assert received.status == "played", received.line()
                            else:
                                games.submit(game_id, seat, move)
                    rate = total / (time.perf_counter() - start)
                    results[name] = max(results.get(name, 0.0), rate)
                    for game_id, _tokens, _moves in prepared:
                        store.delete(game_id)
            forged_game = Games(store).create(GAME, PLAYERS, seed=1, game_id="bench-mail-forged")
            forged = f"{forged_game}.0.{'a' * 52}"
            raws = [mail(forged, "play 7Su", number) for number in range(args.forged)]
            start = time.perf_counter()
            for raw in raws:
                assert inbound.receive(Games(store), raw).status == "dropped"
            forged_rate = args.forged / (time.perf_counter() - start)
            store.delete(forged_game)
            client.delete(*[key for key in client.scan_iter(match="rq:*")] or ["-"])
    finally:
        controller.stop()
    baseline = results["submit, no dispatcher (baseline)"]
    print(f"{GAME}, {args.games} games x {args.moves} moves ({total} moves), all seats people's, on {where}; best of {args.rounds} rounds")
    for name, rate in results.items():
        print(f"  {name:45s} {rate:8.0f} moves/s  {rate / baseline:5.2f}x the baseline")
    print(f"  forged mail dropped                           {forged_rate:8.0f} messages/s")


if __name__ == "__main__":
    main()
