"""`pbm mail-server`: an SMTP server (aiosmtpd) that hands every message to pbm.mail.inbound, exactly as
`pbm mail-in` does. It accepts every recipient and answers 250 to every message it could handle,
played, refused or dropped, so nothing a sender sees tells a valid token from a forged one; it
never logs an address, a token or a move. Messages over inbound.MAX_MESSAGE_BYTES are refused by
aiosmtpd itself (552) before they are read into memory whole.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import redis

from events import server as redis_server
from events.commands import Games
from pbm.mail.inbound import MAX_MESSAGE_BYTES, MAX_RECIPIENTS, receive

log = logging.getLogger("pbm.mail")


class MoveHandler:
    """aiosmtpd's handler: each message is played in a thread (the command path blocks on Redis)."""

    def __init__(self, games: Games) -> None:
        self.games = games

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:  # noqa: N802 (aiosmtpd's name)
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:
            return "452 4.5.3 Too many recipients"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        try:
            received = await asyncio.get_running_loop().run_in_executor(None, receive, self.games, raw, list(envelope.rcpt_tos))
        except redis.RedisError as error:
            log.error("mail-in: not handled, the sender will try again: %s", redis_server.explain(error))
            return "451 4.3.0 Try again later"
        except Exception as error:  # a fault of pbm's own: one line (its type only: the message may name a token)
            log.error("mail-in: not handled: pbm failed on it (%s)", type(error).__name__)
            return "451 4.3.0 Try again later"
        (log.info if received.status == "played" else log.warning)("%s", received.line())
        return "250 OK"


def smtp_factory(games: Games):
    from aiosmtpd.smtp import SMTP

    handler = MoveHandler(games)
    return lambda: SMTP(handler, data_size_limit=MAX_MESSAGE_BYTES, enable_SMTPUTF8=True, ident="pbm", timeout=60)


def serve(games: Games, host: str, port: int) -> None:
    """Listen until SIGINT or SIGTERM; prints the address once it is listening."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd's own log names senders and recipients

    async def main() -> None:
        loop = asyncio.get_running_loop()
        listening = await loop.create_server(smtp_factory(games), host, port)
        bound = listening.sockets[0].getsockname()
        print(f"pbm mail-server listening on {bound[0]}:{bound[1]}", file=sys.stderr, flush=True)
        stop = asyncio.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        async with listening:
            await stop.wait()

    asyncio.run(main())
