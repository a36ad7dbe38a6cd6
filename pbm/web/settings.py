"""The web server's settings that a public deployment depends on, checked once when the app is made:
a setting that would leave it open is refused in one line, before anything listens. It reads what
it is given (the environment, by default) and never logs a setting's value.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

import attrs
import click

from pbm.web.limits import Allowance, Limits

MIN_ADMIN_TOKEN = 32  # characters: 32 hex digits are 128 bits, out of reach of any guessing


class SettingError(click.ClickException):
    """A setting the server refuses to start with. A ClickException, so `pbm serve` (which makes
    the app before it listens) prints it as one line and exits 1; to any other caller it is an
    exception with a one-line message."""


def admin_token(given: str | None) -> str | None:
    """PBM_ADMIN_TOKEN, or None when the operator's endpoints are off (unset or empty)."""
    if not given:
        return None
    if len(given) < MIN_ADMIN_TOKEN or not given.isprintable() or any(c.isspace() for c in given):
        # Its length only: the value itself goes into no message.
        raise SettingError(
            f"PBM_ADMIN_TOKEN must be at least {MIN_ADMIN_TOKEN} printable characters without spaces "
            f"({len(given)} given): make one with `openssl rand -hex 32`"
        )
    return given


def public_url(given: str | None) -> str | None:
    """PBM_PUBLIC_URL without its trailing slash (the base of every seat's link), or None."""
    if not given:
        return None
    parts = urlsplit(given)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment or parts.username or parts.password:
        raise SettingError(f"PBM_PUBLIC_URL must be an http:// or https:// address with no query, like https://pbm.example.org (given: {given[:80]!r})")
    return given.rstrip("/")


# The limits an operator may set, each a whole number: the environment variable, the allowance it
# sets (Limits' field) and its window (None: a count, not an allowance).
LIMIT_SETTINGS = (
    ("PBM_MOVES_PER_10S", "moves", 10),
    ("PBM_READS_PER_10S", "reads", 10),
    ("PBM_REQUESTS_PER_10S", "address", 10),
    ("PBM_WRONG_TOKENS_PER_MINUTE", "wrong_tokens", 60),
    ("PBM_STREAMS_PER_SEAT", "streams_per_seat", None),
)


def limits(base: Limits | None = None, environ: Mapping[str, str] | None = None) -> Limits:
    """`base` (default: Limits()) with what the environment sets (LIMIT_SETTINGS)."""
    environ = os.environ if environ is None else environ
    found = base or Limits()
    for name, field, window_s in LIMIT_SETTINGS:
        given = environ.get(name)
        if not given:
            continue
        if not (given.isascii() and given.isdigit()) or len(given) > 9 or int(given) < 1:
            raise SettingError(f"{name} must be a whole number from 1 (given: {given[:20]!r})")
        found = attrs.evolve(found, **{field: int(given) if window_s is None else Allowance(int(given), window_s)})
    return found
