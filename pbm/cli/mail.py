"""`pbm mail-in` (one message on stdin, for an MTA's pipe) and `pbm mail-server` (an SMTP server,
aiosmtpd): the shell over pbm.mail, which both call the same way. Each message gets one line on
stderr (or the server's log) saying what became of it; none names a token, an address or a move.
aiosmtpd is imported by mail-server only.

Exit status of mail-in: 0 whenever the message was handled, dropped or refused (an MTA must not
bounce it: a bounce would tell a stranger which addresses exist); 75 (EX_TEMPFAIL) when Redis
cannot be reached, so the MTA keeps the message and tries again later.
"""

from __future__ import annotations

import sys

import click

from pbm.cli import emit_json, errors, open_games

EX_TEMPFAIL = 75


@click.command(name="mail-in")
@click.option("--recipient", "recipients", multiple=True, metavar="ADDRESS",
              help="The envelope recipient (Postfix: ${original_recipient}, Exim: $local_part$local_part_suffix@$domain); default: the message's own headers.")
@click.option("--json", "as_json", is_flag=True, help="What became of the message as JSON on stdout, instead of the line on stderr.")
def mail_in(recipients: tuple[str, ...], as_json: bool) -> None:
    """Play the move in one mail read from stdin, and answer it by mail."""
    import redis

    from events import server
    from pbm.mail import MAX_MESSAGE_BYTES, MailSettingError, Received, receive, sender_check

    try:
        sender_check()
    except MailSettingError as error:  # the operator's to fix: the MTA keeps the message meanwhile
        errors.print(f"mail-in: not handled, try again later: {error}", highlight=False, markup=False, soft_wrap=True)
        sys.exit(EX_TEMPFAIL)
    raw = sys.stdin.buffer.read(MAX_MESSAGE_BYTES + 1)
    if len(raw) > MAX_MESSAGE_BYTES:
        while sys.stdin.buffer.read(1 << 16):  # drained a piece at a time, so the MTA's pipe does not break
            pass
        received = Received("dropped", f"the message is over {MAX_MESSAGE_BYTES:,} bytes")
    else:
        try:
            received = receive(open_games(), raw, recipients)
        except redis.RedisError as error:
            errors.print(f"mail-in: not handled, try again later: {server.explain(error)}", highlight=False, markup=False)
            sys.exit(EX_TEMPFAIL)
    if as_json:
        return emit_json({"status": received.status, "reason": received.reason, "game_id": received.game_id,
                          "seat": received.seat, "answered": received.answered})
    errors.print(received.line(), highlight=False, markup=False, soft_wrap=True)


@click.command(name="mail-server")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", default=2525, show_default=True, type=click.IntRange(0, 65535), help="The port to listen on (0: any free one).")
def mail_server(host: str, port: int) -> None:
    """Listen over SMTP for moves by mail (the MTA relays pbm's plus addresses here)."""
    from pbm.mail import MailSettingError, sender_check, serve

    try:
        sender_check()
    except MailSettingError as error:
        errors.print(f"mail-server: {error}", highlight=False, markup=False, soft_wrap=True)
        sys.exit(1)
    serve(open_games(), host, port)
