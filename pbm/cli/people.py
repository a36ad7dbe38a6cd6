"""`pbm people`: the operator's people on the server's machine (add, edit, erase, list, show, a fresh
link), the same operations as the web API's (pbm.people). A printed link is the only place a person
token appears.
"""

from __future__ import annotations

import click

from pbm.cli import emit_json, open_games, say

AS_JSON = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
BASE_URL = click.option("--url", "base_url", metavar="URL", help="The server's public address (default: PBM_PUBLIC_URL, else http://127.0.0.1:8000).")


def stores():
    from events.people import People
    from events.seats import Seats

    games = open_games()
    return games, Seats(games.store.redis), People(games.store.redis)


@click.group()
def people() -> None:
    """People: players with a name, who may hold seats in many games and have one page for all."""


@people.command()
@click.argument("name")
@click.option("--email", metavar="ADDRESS", help="One mail address: their turns are told there.")
@click.option("--tz", metavar="ZONE", help="Their time zone (IANA, e.g. Europe/Paris).")
@BASE_URL
@AS_JSON
def add(name: str, email: str | None, tz: str | None, base_url: str | None, as_json: bool) -> None:
    """Add a person; prints their id and their page's link."""
    from pbm import people as ops

    _games, _seats, store = stores()
    person, token = ops.add(store, name, email, tz)
    url = ops.link(base_url, token)
    if as_json:
        return emit_json(person.public() | {"url": url})
    say(person.id, url)


@people.command()
@click.argument("person_id", metavar="ID")
@click.option("--name", help="A new display name.")
@click.option("--email", metavar="ADDRESS", help="A new mail address ('' removes it).")
@click.option("--tz", metavar="ZONE", help="A new time zone ('' removes it).")
@AS_JSON
def edit(person_id: str, name: str | None, email: str | None, tz: str | None, as_json: bool) -> None:
    """Change a person's name, address or time zone, in every game they sit in."""
    from pbm import people as ops

    _games, seats, store = stores()
    changes = {key: (value or None) for key, value in (("email", email), ("tz", tz)) if value is not None}
    person = ops.edit(store, seats, person_id, name=name, **changes)
    if as_json:
        return emit_json(person.public())
    say(f"{person.id}: {person.name}" + (f", {person.tz}" if person.tz else "") + (", with a mail address" if person.email else ""))


@people.command()
@click.argument("person_id", metavar="ID")
@AS_JSON
def erase(person_id: str, as_json: bool) -> None:
    """Erase a person: their data and link go; their seats are named "a former player". The logs stay as they are."""
    from pbm import people as ops

    _games, seats, store = stores()
    held = ops.erase(store, seats, person_id)
    if as_json:
        return emit_json({"id": person_id, "erased": True, "seats": [{"game_id": g, "seat": s} for g, s in held]})
    say(f"{person_id} erased; {len(held)} seat{'s' if len(held) != 1 else ''} now held by a former player")


@people.command(name="list")
@AS_JSON
def list_people(as_json: bool) -> None:
    """Every person: id, name, how many seats they hold."""
    _games, _seats, store = stores()
    rows = [person.public() | {"seats": len(store.seats(person.id))} for person in store.all()]
    if as_json:
        return emit_json(rows)
    if not rows:
        return say("no people yet: pbm people add NAME")
    say(*(f"{row['id']}  {row['name']}  ({row['seats']} seat{'s' if row['seats'] != 1 else ''})" for row in rows))


@people.command()
@click.argument("person_id", metavar="ID")
@AS_JSON
def show(person_id: str, as_json: bool) -> None:
    """A person's data and every seat they hold, their turns first."""
    from pbm import clock_control
    from pbm import people as ops

    games, seats, store = stores()
    person = store.need(person_id)
    rows = ops.holdings(games, seats, store, person_id, clock_control.now_ms())
    if as_json:
        return emit_json(person.public() | {"seats": rows})
    say(f"{person.id}: {person.name}" + (f" ({person.tz})" if person.tz else ""))
    for row in rows:
        detail = row["deadline"] and f", due {row['deadline']}" or row["result"] and f": {row['result']}" or ""
        say(f"  {row['game_id']} seat {row['seat']}: {row['state']}{detail}")


@people.command()
@click.argument("person_id", metavar="ID")
@BASE_URL
@AS_JSON
def link(person_id: str, base_url: str | None, as_json: bool) -> None:
    """Print a fresh link for a person's page; their old link stops working at once."""
    from pbm import people as ops

    _games, _seats, store = stores()
    url = ops.link(base_url, store.issue(person_id))
    if as_json:
        return emit_json({"id": person_id, "url": url})
    click.echo(url)
