"""A seat's channels, checked where they are set: an e-mail address is exactly one address, and a
webhook is an https:// URL whose host resolves only to public addresses, unless the operator allows
plain HTTP (PBM_WEBHOOK_ALLOW_HTTP=1) or private ones (PBM_WEBHOOK_ALLOW_PRIVATE=1). It resolves a
webhook's host to check it; it never connects, sends or logs, and its errors never quote an address
or a URL (they are personal data).

Why so strict: the notifier writes a seat's link (its token) into what it sends there. A list of
addresses sends one seat's token to each of them; a webhook to a loopback, link-local or private
address lets whoever creates a game make the workers POST into the server's own network (the cloud
metadata service at 169.254.169.254, an admin port on 127.0.0.1). A host may resolve differently
later (DNS rebinding), so the send path checks again, with `webhook_addresses`, and must connect to
an address it checked, not resolve the name a second time.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from urllib.parse import urlsplit

import core

ALLOW_HTTP_ENV = "PBM_WEBHOOK_ALLOW_HTTP"
ALLOW_PRIVATE_ENV = "PBM_WEBHOOK_ALLOW_PRIVATE"
MAX_EMAIL = 254  # RFC 5321's longest path, less its angle brackets
MAX_LOCAL_PART = 64
MAX_WEBHOOK = 2000

# One addr-spec with a dot-atom local part (RFC 5322 atext) and a host name: no display name, no
# quoted local part, no comment, no list, nothing a mail header would read as a second address.
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_ADDRESS = re.compile(rf"{_ATEXT}(?:\.{_ATEXT})*@{_LABEL}(?:\.{_LABEL})+", re.ASCII)


class BadChannel(core.SetupError):
    """A channel that is refused: one line naming the field and why, never the value."""


def allowed(env: str) -> bool:
    return os.environ.get(env, "") == "1"


def checked_email(value: str, field: str = "email") -> str:
    """`value` if it is exactly one mail address (local-part@domain), else BadChannel."""
    if not isinstance(value, str) or not 3 <= len(value) <= MAX_EMAIL or not _ADDRESS.fullmatch(value):
        raise BadChannel(f"{field}: exactly one mail address (local-part@domain): no list, no display name, no spaces")
    if len(value.rpartition("@")[0]) > MAX_LOCAL_PART:
        raise BadChannel(f"{field}: the part before the @ is over {MAX_LOCAL_PART} characters")
    return value


def checked_webhook(url: str, field: str = "webhook") -> str:
    """`url` if the notifier may POST to it now (see the module's docstring), else BadChannel."""
    webhook_addresses(url, field)
    return url


def webhook_addresses(url: str, field: str = "webhook") -> list[tuple[int, str]]:
    """The (address family, address) pairs `url`'s host resolves to, each one allowed, for the
    sender to connect to one of them; BadChannel if the URL or any of its addresses is refused."""
    if not isinstance(url, str) or not 8 <= len(url) <= MAX_WEBHOOK or not url.isascii() or not url.isprintable():
        raise BadChannel(f"{field}: an https:// URL of at most {MAX_WEBHOOK} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise BadChannel(f"{field}: not a URL (its host or port does not read)") from None
    schemes = ("https", "http") if allowed(ALLOW_HTTP_ENV) else ("https",)
    if parts.scheme not in schemes:
        plain = "" if allowed(ALLOW_HTTP_ENV) else f" (plain http:// only where the operator sets {ALLOW_HTTP_ENV}=1)"
        raise BadChannel(f"{field}: must start with https://{plain}")
    host = parts.hostname
    if not host:
        raise BadChannel(f"{field}: the URL names no host")
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        raise BadChannel(f"{field}: its host does not resolve") from None
    addresses = sorted({(family, sockaddr[0]) for family, _type, _proto, _name, sockaddr in found})
    if not addresses:
        raise BadChannel(f"{field}: its host does not resolve")
    if not allowed(ALLOW_PRIVATE_ENV):
        for _family, address in addresses:
            if not public(address):
                raise BadChannel(
                    f"{field}: its host is a loopback, link-local or private address "
                    f"(allowed only where the operator sets {ALLOW_PRIVATE_ENV}=1)"
                )
    return addresses


def public(address: str) -> bool:
    """Whether an IP address is one on the public internet: not loopback, link-local, private,
    shared (100.64/10), reserved, unspecified or multicast. An IPv4 address written as IPv6
    (::ffff:127.0.0.1) is judged as the IPv4 address it is."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 scope ("fe80::1%eth0") is link-local
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast
