"""The web server's settings that a public deployment depends on, checked once when the app is made:
a setting that would leave it open is refused in one line, before anything listens. It reads what
it is given (the environment, by default) and never logs a setting's value.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import click

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
