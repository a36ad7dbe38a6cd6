"""The Holiday! board: cities, their links and the sightseeing cards, parsed and checked from JSON
text. The one place of this game that parses JSON or reads package data (the shipped board, once,
at import); a user's board arrives as text in the `board` option, read by the shell, never here.

A board file is a JSON object:
    "days":   optional, the 7 day names, Monday first (default mon ... sun); a card names its best
              day by one of them, and the die's 1 ... 6 are the first six
    "cities": [{"name": "Abi Djan", "slug": "abi-djan" (optional, derived from the name),
                "links": [city names or slugs]}, ...]   every link must be listed both ways
    "cards":  [{"id": "abi-djan@mon" (optional, default <city-slug>@<best day>),
                "city": name or slug, "sight": "...", "best_day": "mon"}, ...]
Other keys ("about", "house_links") are notes for people and are ignored.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any

import attrs

from core.bounds import parse_json
from core.contract import SetupError

DEFAULT_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
SHIPPED_FILE = "holiday-board.json"
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
CARD_ID = re.compile(r"([a-z0-9]+(?:-[a-z0-9]+)*)@[a-z0-9]+(?:-[a-z0-9]+)*\Z")


@attrs.frozen
class City:
    name: str
    slug: str
    links: tuple[str, ...]  # slugs of the directly linked cities, in the file's order


@attrs.frozen
class Card:
    id: str
    city: str  # slug
    sight: str
    best_day: int  # index into Board.days


@attrs.frozen
class Board:
    days: tuple[str, ...]
    cities: tuple[City, ...]
    cards: tuple[Card, ...]
    # Lookups derived from the fields above (left out of equality and hashing).
    city_by_slug: dict[str, City] = attrs.field(init=False, eq=False, repr=False)
    card_by_id: dict[str, Card] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "city_by_slug", {city.slug: city for city in self.cities})
        object.__setattr__(self, "card_by_id", {card.id: card for card in self.cards})

    @property
    def slugs(self) -> tuple[str, ...]:
        return tuple(city.slug for city in self.cities)

    def city_name(self, slug: str) -> str:
        return self.city_by_slug[slug].name


def slugify(name: str) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", name.lower()))


def fail(message: str) -> SetupError:
    return SetupError(f"board: {message}")


def parse_board(text: str) -> Board:
    """The board a JSON text describes; SetupError naming the first problem found."""
    data = parse_json(text, "board")
    if not isinstance(data, dict):
        raise fail("expected a JSON object with 'cities' and 'cards'")
    days = parse_days(data.get("days", list(DEFAULT_DAYS)))
    cities = parse_cities(data.get("cities"))
    cards = parse_cards(data.get("cards"), cities, days)
    return Board(days=days, cities=cities, cards=cards)


def parse_days(raw: Any) -> tuple[str, ...]:
    if not isinstance(raw, list) or len(raw) != 7 or len(set(map(str, raw))) != 7:
        raise fail("'days' must list the 7 days of the week, Monday first, each once")
    for day in raw:
        if not isinstance(day, str) or not SLUG.match(day):
            raise fail(f"day {day!r} must be a lowercase word such as 'mon'")
    return tuple(raw)


def parse_cities(raw: Any) -> tuple[City, ...]:
    if not isinstance(raw, list) or len(raw) < 2:
        raise fail("'cities' must list at least two cities")
    named = [city_name_and_slug(entry, number) for number, entry in enumerate(raw, 1)]
    slugs = [slug for _, slug in named]
    for what, values in (("name", [name for name, _ in named]), ("slug", slugs)):
        twice = next((value for i, value in enumerate(values) if value in values[:i]), None)
        if twice is not None:
            raise fail(f"two cities have the {what} {twice!r}")
    for name, slug in named:
        if name in slugs and name != slug:
            raise fail(f"city name {name!r} is another city's slug, so a link to it is ambiguous")
    slug_of = {key: slug for name, slug in named for key in (name, slug)}
    cities = tuple(
        City(name, slug, city_links(entry.get("links"), name, slug_of))
        for (name, slug), entry in zip(named, raw, strict=True)
    )
    check_links_both_ways(cities)
    return cities


def city_name_and_slug(entry: Any, number: int) -> tuple[str, str]:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"].strip():
        raise fail(f"city {number} needs a 'name'")
    name = entry["name"]
    slug = entry.get("slug", slugify(name))
    if not isinstance(slug, str) or not SLUG.match(slug):
        raise fail(f"city {name!r}: slug {slug!r} must be lowercase words joined by '-'")
    return name, slug


def city_links(raw: Any, name: str, slug_of: dict[str, str]) -> tuple[str, ...]:
    if not isinstance(raw, list) or not raw:
        raise fail(f"city {name!r} needs 'links' (a list of cities): the plane could never leave it")
    links: list[str] = []
    for other in raw:
        if not isinstance(other, str) or other not in slug_of:
            raise fail(f"city {name!r} links to unknown city {other!r}")
        if slug_of[other] == slug_of[name]:
            raise fail(f"city {name!r} links to itself")
        if slug_of[other] in links:
            raise fail(f"city {name!r} lists the link to {other!r} twice")
        links.append(slug_of[other])
    return tuple(links)


def check_links_both_ways(cities: tuple[City, ...]) -> None:
    by_slug = {city.slug: city for city in cities}
    for city in cities:
        for other in city.links:
            if city.slug not in by_slug[other].links:
                raise fail(
                    f"one-way link: {city.name!r} links to {by_slug[other].name!r}"
                    f" but {by_slug[other].name!r} does not link back"
                )


def parse_cards(raw: Any, cities: tuple[City, ...], days: tuple[str, ...]) -> tuple[Card, ...]:
    if not isinstance(raw, list) or not raw:
        raise fail("'cards' must list the sightseeing cards")
    slug_of = {key: city.slug for city in cities for key in (city.name, city.slug)}
    cards: list[Card] = []
    seen: set[str] = set()
    for number, entry in enumerate(raw, 1):
        card = parse_card(entry, number, slug_of, days)
        if card.id in seen:
            raise fail(f"duplicate card {card.id!r}")
        seen.add(card.id)
        cards.append(card)
    return tuple(cards)


def parse_card(entry: Any, number: int, slug_of: dict[str, str], days: tuple[str, ...]) -> Card:
    if not isinstance(entry, dict):
        raise fail(f"card {number} must be an object with 'city', 'sight' and 'best_day'")
    city, sight, day = entry.get("city"), entry.get("sight"), entry.get("best_day")
    if not isinstance(city, str) or city not in slug_of:
        raise fail(f"card {number}: unknown city {city!r}")
    if not isinstance(sight, str) or not sight.strip():
        raise fail(f"card {number}: 'sight' must name the sight")
    if day not in days:
        raise fail(f"card {number} ({sight}): bad best day {day!r} (days: {', '.join(days)})")
    card_id = entry.get("id", f"{slug_of[city]}@{day}")
    match = CARD_ID.match(card_id) if isinstance(card_id, str) else None
    if match is None or match.group(1) != slug_of[city]:
        raise fail(f"card {number} ({sight}): id {card_id!r} must read '{slug_of[city]}@<word>'")
    return Card(id=card_id, city=slug_of[city], sight=sight, best_day=days.index(day))


SHIPPED_TEXT = resources.files(__package__).joinpath(SHIPPED_FILE).read_text(encoding="utf-8")
SHIPPED = parse_board(SHIPPED_TEXT)


@functools.lru_cache(maxsize=8)
def load_board(text: str) -> Board:
    """The board of the `board` option: "" means the shipped one."""
    return SHIPPED if text == "" else parse_board(text)
