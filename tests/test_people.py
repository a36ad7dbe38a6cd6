"""People on a real Redis: a name, an optional address and time zone, checked with one clear line
for each thing wrong and nothing written; a person token kept only as its hash; a person's data
carried to every seat they hold, and erased from them (the logs untouched, still verifying); and
the same operations from `pbm people`."""

from __future__ import annotations

import json
import uuid

import pytest

from events import keys
from events.commands import Games
from events.people import FORMER_PLAYER, People, PersonError, check_email, check_name, check_tz, parse
from events.seats import Seats
from pbm import people as ops
from replays.log import from_store
from replays.verify import verify


@pytest.fixture
def people(redis_client) -> People:
    return People(redis_client)


@pytest.fixture
def seats(redis_client) -> Seats:
    return Seats(redis_client)


def mail(name: str = "ann") -> str:
    """An address of this test's own (the session's Redis is shared: one address is one person)."""
    return f"{name}-{uuid.uuid4().hex[:8]}@example.org"


BAD_NAMES = {
    "": "name: empty",
    "   ": "name: empty",
    "\u200b\u200b": "name: holds a control or invisible formatting character",
    "Ann\nBob": "name: holds a control",
    "x" * 101: "name: 101 characters, at most 100",
    "\u0301\u0301": "name: nothing visible",
}
BAD_EMAILS = ["zed@example.net, bob@example.net", "Zed <zed@example.net>", "zedd", "zed@examplenet", "zed@@example.net", "z b@example.net", "zed@example.net;"]
BAD_ZONES = ["Mars/Olympus", "../../etc/passwd", "Europe/", "", "x" * 100]


@pytest.mark.parametrize("name, said", BAD_NAMES.items())
def test_a_bad_name_is_refused_in_one_line_naming_what_is_wrong(name: str, said: str):
    with pytest.raises(PersonError) as refused:
        check_name(name)
    assert str(refused.value).startswith(said) and "\n" not in str(refused.value)


@pytest.mark.parametrize("email", BAD_EMAILS)
def test_an_email_that_is_not_one_address_is_refused_without_repeating_it(email: str):
    with pytest.raises(PersonError) as refused:
        check_email(email)
    assert str(refused.value).startswith("email: not one mail address") and (not email or email not in str(refused.value))


@pytest.mark.parametrize("tz", BAD_ZONES)
def test_a_time_zone_must_be_one_zoneinfo_knows(tz: str):
    with pytest.raises(PersonError, match="^tz: "):
        check_tz(tz)


def test_good_data_is_kept_as_given():
    assert check_name("  Zoë 🎲 ") == "Zoë 🎲"
    assert check_email(" ann.o'neil+pbm@mail.example.org ") == "ann.o'neil+pbm@mail.example.org"
    assert check_tz("America/Argentina/Buenos_Aires") == "America/Argentina/Buenos_Aires" and check_tz("UTC") == "UTC"


def test_bad_input_changes_nothing(people: People, redis_client):
    before = redis_client.zcard(keys.PEOPLE), redis_client.hlen(keys.PEOPLE_BY_EMAIL)
    for name, email, tz in (("", None, None), ("Ann", "a@b.org, c@d.org", None), ("Ann", "ann@example.org", "Nowhere/Town")):
        with pytest.raises(PersonError):
            people.add(name, email, tz)
    assert (redis_client.zcard(keys.PEOPLE), redis_client.hlen(keys.PEOPLE_BY_EMAIL)) == before
    person, _token = people.add("Ann")
    with pytest.raises(PersonError):
        people.edit(person.id, name="Bob", email="not an address")
    assert people.get(person.id).name == "Ann"


def test_redis_keeps_only_the_person_tokens_hash(people: People, redis_client):
    person, token = people.add("Ann", mail(), "Europe/Paris")
    assert parse(token) == person.id and people.resolve(token) == person.id
    assert people.resolve(token.upper()) == person.id
    secret = token.rsplit(".", 1)[1]
    for key in redis_client.scan_iter(match="pbm:*"):
        kind = redis_client.type(key)
        stored = b" ".join(k + b" " + v for k, v in redis_client.hgetall(key).items()) if kind == b"hash" else b""
        assert secret.encode() not in stored
    assert people.token(person.id) == token  # made again from its nonce, for a mail's link


def test_a_fresh_person_token_replaces_the_old_and_bad_ones_open_nothing(people: People):
    person, old = people.add("Ann")
    new = people.issue(person.id)
    assert people.resolve(old) is None and people.resolve(new) == person.id
    for bad in ("", "p-000000000000." + "a" * 52, new[:-1], new + "a", f"{person.id}.{'b' * 52}", None, 7):
        assert people.resolve(bad) is None


def test_one_address_is_one_person(people: People):
    address = mail()
    person, _ = people.add("Ann", address.replace("ann", "Ann").replace(".org", ".ORG"))
    assert people.by_email(address) == person.id
    with pytest.raises(PersonError, match=f"that address is {person.id}'s already"):
        people.add("Another Ann", address)
    people.edit(person.id, email=None)
    assert people.by_email(address) is None
    assert people.add("Another Ann", address)[0].id != person.id


def test_an_edit_reaches_every_seat_and_an_erasure_leaves_a_former_player(games: Games, people: People, seats: Seats, store):
    address, second = mail(), mail()
    ann, _ = people.add("Ann", address)
    running = games.create("tranquility", 2, seed=1)
    finished = games.create("tranquility", 2, seed=2)
    for game_id in (running, finished):
        ops.seat_person(people, seats, ann, game_id, 0)
        seats.set_contact(game_id, 1, name="Bob")
    table = games.table(finished)
    while table.outcome is None:
        seat = table.to_act[0]
        games.submit(finished, seat, table.legal_moves(seat)[0])
        table = games.table(finished)
    ops.edit(people, seats, ann.id, name="Annie", tz="Europe/Paris")
    assert {seats.contact(g, 0)["name"] for g in (running, finished)} == {"Annie"}
    assert seats.contact(running, 0)["email"] == address
    ops.edit(people, seats, ann.id, email=None)
    assert "email" not in seats.contact(running, 0)
    ops.edit(people, seats, ann.id, email=second)
    log_before = [raw for _seq, raw in store.read_raw(finished)]
    held = ops.erase(people, seats, ann.id)
    assert sorted(held) == sorted([(running, 0), (finished, 0)])
    for game_id in (running, finished):
        assert seats.contact(game_id, 0) == {"name": FORMER_PLAYER}
        assert seats.contact(game_id, 1) == {"name": "Bob"}
        assert people.holder(game_id, 0) is None
    assert people.get(ann.id) is None and people.by_email(second) is None
    assert not list(store.redis.scan_iter(match=f"pbm:{{person:{ann.id}}}:*"))
    assert [raw for _seq, raw in store.read_raw(finished)] == log_before
    assert verify(from_store(store, finished)).ok


def test_a_persons_seats_are_those_the_games_agree_with(games: Games, people: People, seats: Seats, store):
    ann, _ = people.add("Ann")
    game_id = games.create("tranquility", 2, seed=1)
    ops.seat_person(people, seats, ann, game_id, 1)
    store.redis.zadd(keys.person_seats(ann.id), {f"{game_id}/0": 1, "no-such-game/0": 1})  # as a crash leaves them
    assert people.seats(ann.id) == [(game_id, 1)]
    assert store.redis.zcard(keys.person_seats(ann.id)) == 1  # the old ones are dropped


def test_pbm_people_add_edit_show_list_and_erase(pbm, games: Games, redis_client):
    address = mail()
    added = json.loads(pbm("people", "add", "Ann", "--email", address, "--tz", "Europe/Paris", "--json").output)
    assert added["name"] == "Ann" and "/me/" in added["url"] and added["tz"] == "Europe/Paris"
    person_id = added["id"]
    edited = json.loads(pbm("people", "edit", person_id, "--name", "Annie", "--tz", "", "--json").output)
    assert edited["name"] == "Annie" and edited["tz"] is None
    assert person_id in pbm("people", "list").output
    shown = json.loads(pbm("people", "show", person_id, "--json").output)
    assert shown["seats"] == [] and shown["email"] == address
    fresh = pbm("people", "link", person_id).output.strip()
    assert People(redis_client).resolve(fresh.rsplit("/", 1)[1]) == person_id
    assert "erased" in pbm("people", "erase", person_id).output
    assert "no person" in pbm("people", "show", person_id, ok=False).output


@pytest.mark.parametrize("args, said", [
    (("add", ""), "error: name: empty"),
    (("add", "Ann", "--email", "a@b.org, c@d.org"), "error: email: not one mail address"),
    (("add", "Ann", "--tz", "Mars/Base"), "error: tz: no time zone"),
    (("erase", "p-000000000000"), "error: no person"),
])
def test_pbm_people_refuses_bad_input_in_one_line(pbm, redis_client, args, said):
    before = redis_client.zcard(keys.PEOPLE)
    out = pbm("people", *args, ok=False).output
    assert out.startswith(said) and out.count("\n") == 1
    assert redis_client.zcard(keys.PEOPLE) == before
