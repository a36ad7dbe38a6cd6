"""A seat's channels, refused where they are set (events/channels.py): an e-mail address is exactly
one address; a webhook is https:// to a host that resolves to public addresses only, unless the
operator allows plain HTTP or private addresses. Through the seat store on the real test Redis,
the API's create and `pbm invite`, each refusal one line naming the field, and nothing written."""

from __future__ import annotations

import pytest

from events import channels
from events.channels import BadChannel
from events.commands import Games
from events.seats import Seats
from pbm.web import create_app
from tests.conftest import written
from tests.web.conftest import ADMIN, TestClient, bearer

ONE_ADDRESS = ["ann@example.org", "a.b+pbm@mail.example.co.uk", "x_y-z@sub.example.org"]
NOT_ONE_ADDRESS = [
    "ann@example.org,eve@evil.test",  # the token would go to both
    "ann@example.org;eve@evil.test",
    "ann@example.org eve@evil.test",
    "Ann <ann@example.org>",
    "<ann@example.org>",
    '"ann@x"@example.org',
    "ann@example.org (Ann)",
    "ann",
    "ann@",
    "@example.org",
    "ann@localhost",  # no domain of the internet
    "ann@@example.org",
    "ann@example..org",
    "ann\u00e9@example.org",
    "x" * 65 + "@example.org",
]
# Hosts written as addresses, so no test depends on DNS: the check resolves a name the same way.
PUBLIC = ["https://93.184.215.14/hook", "https://93.184.215.14:8443/h?x=1", "https://[2606:4700::1111]/hook"]
PRIVATE = [
    "https://127.0.0.1/hook",
    "https://localhost/hook",  # a name, resolved (/etc/hosts): loopback
    "https://10.1.2.3/hook",
    "https://172.16.0.1/hook",
    "https://192.168.1.1/hook",
    "https://169.254.169.254/latest/meta-data",  # a cloud's metadata service: link-local
    "https://100.64.0.1/hook",  # shared address space
    "https://0.0.0.0/hook",
    "https://[::1]/hook",
    "https://[fe80::1]/hook",
    "https://[fc00::1]/hook",
    "https://[::ffff:127.0.0.1]/hook",  # IPv4 loopback written as IPv6
    "https://224.0.0.1/hook",  # multicast
    "https://2130706433/hook",  # 127.0.0.1 as one number: resolved, then refused
]


@pytest.fixture
def no_allowances(monkeypatch):
    monkeypatch.delenv(channels.ALLOW_HTTP_ENV, raising=False)
    monkeypatch.delenv(channels.ALLOW_PRIVATE_ENV, raising=False)


@pytest.mark.parametrize("address", ONE_ADDRESS)
def test_one_address_is_taken(address):
    assert channels.checked_email(address) == address


@pytest.mark.parametrize("address", NOT_ONE_ADDRESS)
def test_anything_but_one_address_is_refused_in_one_line_without_quoting_it(address):
    with pytest.raises(BadChannel) as refused:
        channels.checked_email(address, "seats[2].email")
    said = str(refused.value)
    assert said.startswith("seats[2].email: ") and "\n" not in said and address not in said


@pytest.mark.parametrize("url", PUBLIC)
def test_an_https_webhook_to_a_public_address_is_taken(no_allowances, url):
    assert channels.checked_webhook(url) == url


@pytest.mark.parametrize("url", PRIVATE)
def test_a_webhook_to_loopback_link_local_or_private_is_refused_unless_allowed(no_allowances, monkeypatch, url):
    with pytest.raises(BadChannel, match="^webhook: its host is a loopback, link-local or private address") as refused:
        channels.checked_webhook(url)
    assert "PBM_WEBHOOK_ALLOW_PRIVATE=1" in str(refused.value) and url not in str(refused.value)
    monkeypatch.setenv(channels.ALLOW_PRIVATE_ENV, "1")
    assert channels.checked_webhook(url) == url


def test_plain_http_is_refused_unless_allowed(no_allowances, monkeypatch):
    with pytest.raises(BadChannel, match=r"^webhook: must start with https:// \(plain http:// only where the operator sets PBM_WEBHOOK_ALLOW_HTTP=1\)$"):
        channels.checked_webhook("http://93.184.215.14/hook")
    monkeypatch.setenv(channels.ALLOW_HTTP_ENV, "1")
    assert channels.checked_webhook("http://93.184.215.14/hook")
    with pytest.raises(BadChannel, match="private"):  # one allowance is not the other
        channels.checked_webhook("http://127.0.0.1/hook")


@pytest.mark.parametrize(
    "url, said",
    [
        ("ftp://93.184.215.14/x", "must start with https://"),
        ("https:///hook", "names no host"),
        ("https://93.184.215.14:notaport/", "does not read"),
        ("https://no-such-host.invalid/hook", "does not resolve"),
        ("https://example\u00e9.org/hook", "an https:// URL"),
    ],
)
def test_a_webhook_that_is_not_one_is_refused_in_one_line(no_allowances, url, said):
    with pytest.raises(BadChannel, match=said):
        channels.checked_webhook(url)


def test_the_seat_store_refuses_them_and_writes_nothing(no_allowances, redis_client, games, game_id):
    games.create("holly-oak", 3, seed=1, game_id=game_id)
    seats = Seats(redis_client)
    seats.set_contact(game_id, 0, name="Ann", email="ann@example.org", webhook=PUBLIC[0])
    before = written(redis_client, game_id)
    for fields in ({"email": "ann@example.org,eve@evil.test"}, {"webhook": "https://169.254.169.254/"}, {"webhook": "http://93.184.215.14/"}):
        with pytest.raises(BadChannel):
            seats.set_contact(game_id, 0, name="Annie", **fields)
    assert written(redis_client, game_id) == before
    assert seats.contact(game_id, 0) == {"name": "Ann", "email": "ann@example.org", "webhook": PUBLIC[0]}


def test_the_api_refuses_them_before_making_the_game(no_allowances, store):
    client = TestClient(create_app(store.redis, games=Games(store), admin_token=ADMIN))
    listed = client.get("/api/games", headers=bearer(ADMIN)).json()["games"]
    for seat, field, value, said in (
        (1, "email", "bob@example.org, eve@evil.test", "seats[1].email: exactly one mail address"),
        (2, "email", "Cy <cy@example.org>", "seats[2].email: exactly one mail address"),
        (0, "webhook", "http://93.184.215.14/hook", "seats[0].webhook: must start with https://"),
        (1, "webhook", "https://127.0.0.1:8000/api/games", "seats[1].webhook: its host is a loopback"),
        (2, "webhook", "https://169.254.169.254/latest/meta-data", "seats[2].webhook: its host is a loopback"),
    ):
        seats = [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}]
        seats[seat][field] = value
        answer = client.post("/api/games", json={"game": "holly-oak", "players": 3, "seats": seats}, headers=bearer(ADMIN))
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"].startswith(said) and value not in answer.text, answer.text
    assert client.get("/api/games", headers=bearer(ADMIN)).json()["games"] == listed  # no game was made


def test_pbm_invite_refuses_a_list_of_addresses_in_one_line(no_allowances, pbm, redis_client):
    game_id = pbm("new", "holly-oak", "--players", "3", "--seed", "4").stdout.strip()
    before = written(redis_client, game_id)
    refused = pbm("invite", game_id, "1", "--email", "bob@example.org,eve@evil.test", ok=False)
    [line] = refused.output.strip().splitlines()
    assert "email: exactly one mail address" in line and "evil.test" not in line, line
    assert written(redis_client, game_id) == before  # no address kept, no token issued
    assert pbm("invite", game_id, "1", "--email", "bob@example.org").stdout.strip().startswith("http")
