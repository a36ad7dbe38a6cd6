"""What a seat's page draws: its view turned into cards, cells, a map and the controls of its legal
moves, one function per game. Pure: it reads the view (and, for Holiday!'s board, the game's public
options) and returns plain data for the templates; it writes no HTML and does no I/O.
"""

from __future__ import annotations

import functools
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import urlencode

import core
from core import menus
from core.games.holiday_board.board import Board, load_board
from core.games.holiday_board.moves import bid_offers
from core.games.holly_oak.rules import KING_POINTS
from pbm.view_text import HOLIDAYS_PHASES
from pbm.web.map_layout import Layout, lay_out

# ---------------------------------------------------------------------------------------------
# Legal moves grouped by their first word: "play 7Su" -> {"play": [["7Su"]]}.


def by_head(legal: Iterable[str]) -> dict[str, list[list[str]]]:
    groups: dict[str, list[list[str]]] = defaultdict(list)
    for text in legal:
        head, *rest = text.split()
        groups[head].append(rest)
    return groups


def compose(fields: Iterable[tuple[str, str]]) -> str:
    """The move text a form sends, from its fields in document order: `move` (the whole move, or
    its first word), then the values of `part1`, `part2`, ... in the order of their names (a
    field may stand anywhere on the page, as a cell of the sea does), then `cost`s, the cards a
    placement pays with, after the word `discard`."""
    fields = [(name, value.strip()) for name, value in fields if value.strip()]
    move = [value for name, value in fields if name == "move"][:1]
    parts = sorted(((name, value) for name, value in fields if PART.fullmatch(name)), key=lambda f: int(f[0][4:]))
    costs = [value for name, value in fields if name == "cost"]
    return " ".join(move + [value for _name, value in parts] + (["discard", *costs] if costs else []))


PART = re.compile(r"part[1-9]")


# ---------------------------------------------------------------------------------------------
# The steps to a move (core.menus): each choice a link that carries the choices so far in the
# page's URL, so the page picks a move without JavaScript (and its script redraws in place).


def steps(view: Mapping[str, Any], chosen: Mapping[str, str], page_path: str) -> tuple[dict[str, Any] | None, str | None]:
    """The steps of the seat's moves after `chosen` (the page's query), and what to tell the seat
    when a choice fits none of its moves (an old link): then the steps start again. None for a
    game whose moves are offered as they are."""
    game = core.GAMES[view["game"]]
    refusal = None
    try:
        at = menus.position(game, view, chosen)
    except menus.BadChoice as bad:
        at, refusal = menus.position(game, view, {}), str(bad)
    if at is None:
        return None, refusal

    def url(choices: Iterable[tuple[str, str]]) -> str:
        query = urlencode(list(choices))
        return page_path + ("?" + query if query else "")

    step = at.step
    options = [
        {"value": o.value, "label": o.label, "count": o.count, "move": o.move, "href": url([*at.chosen, (step.key, o.value)])}
        for o in at.options
    ] if step else []
    labels = {known.key: known for known in game.moves.steps(view)}
    board = bool(step and step.board)
    return {
        "key": step.key if step else None,
        "prompt": step.prompt if step else ("Your moves" if at.chosen else None),
        "board": board,
        # the options drawn in the move panel too: all but a board's, unless those are a handful of moves
        "listed": not board or (len(options) <= menus.HANDFUL and all(o["move"] for o in options)),
        "options": options,
        "by_value": {o["value"]: o for o in options},
        "moves": list(at.moves) if step is None else [],
        "chosen": [{"key": key, "value": value, "label": labels[key].label(value)} for key, value in at.chosen],
        "restart": page_path,
        "query": urlencode(list(at.chosen)),  # data-chosen: what a test waits for after a step
    }, refusal


# ---------------------------------------------------------------------------------------------
# Holly Oak

SEASONS = {"Sp": "Spring", "Su": "Summer", "Fa": "Fall", "Wi": "Winter"}
SEASON_SYMBOLS = {"Spring": "❀", "Summer": "☀", "Fall": "❦", "Winter": "❄"}


def holly_card(text: str) -> dict[str, Any]:
    if text == "SR":
        return {"text": text, "rank": "½", "suit": "retreat", "symbol": "↺", "name": "Season Retreats", "king": 0}
    season = SEASONS[text[-2:]]
    rank = text[:-2]
    return {
        "text": text,
        "rank": rank,
        "suit": season.lower(),
        "symbol": SEASON_SYMBOLS[season],
        "name": f"{rank} of {season}",
        "king": KING_POINTS.get(text, 0),
    }


def holly_oak(view: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    playable = {args[0] for args in by_head(view["legal_moves"]).get("play", [])}
    season = view["season"]
    return {
        "season": season,
        "season_symbol": SEASON_SYMBOLS[season],
        "seasons": [(name, SEASON_SYMBOLS[name], name == season) for name in SEASONS.values()],
        "hand": [dict(holly_card(card), move=f"play {card}" if card in playable else None) for card in view["hand"]],
        "trick": [dict(holly_card(p["card"]), seat=p["seat"], counts_in=p["season"]) for p in view["trick"]],
        "last_trick": [dict(holly_card(p["card"]), seat=p["seat"], counts_in=p["season"]) for p in view.get("last_trick", [])],
        "kings_taken": [[holly_card(card) for card in kings] for kings in view["kings_taken"]],
        "kings": [holly_card(card) | {"points": points} for card, points in KING_POINTS.items()],
    }


# ---------------------------------------------------------------------------------------------
# Holidays

TRAVELLERS = {"M": "man", "W": "woman", "C": "child"}
DESTINATIONS = {
    "venice": ("Venice", "one man and one woman"),
    "mykonos": ("Mykonos", "one or more adults"),
    "park": ("Amusement park", "one adult and any children"),
    "berghotel": ("Berghotel", "one man, one woman, one child"),
    "cruise": ("Cruise", "men only, or women only"),
}


def traveller(text: str) -> dict[str, Any]:
    suit = TRAVELLERS[text[0]]
    return {"text": text, "suit": suit, "rank": text[1:], "name": f"{suit} {text[1:]}"}


def destination(slug: str | None) -> dict[str, Any] | None:
    if slug is None:
        return None
    name, party = DESTINATIONS[slug]
    return {"slug": slug, "name": name, "party": party}


def holidays(view: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    moves = by_head(view["legal_moves"])
    change = moves.get("change", [])
    setoffs = [[traveller(card) for card in args] for args in moves.get("setoff", [])]
    setoffs.sort(key=lambda cards: -sum(int(card["rank"]) for card in cards))
    return {
        "phase": HOLIDAYS_PHASES.get(view["phase"], view["phase"]),
        "hand": [traveller(card) for card in view["hand"]],
        "destination": destination(view["destination"]),
        "destinations": [destination(slug) for slug in DESTINATIONS],
        "played": [[destination(slug) for slug in played] for played in view["destinations_played"]],
        "pot_face_down": [traveller(card) for card in view["pot_face_down"]],
        "pot_backs": range(0 if view["pot_face_down"] else view["pot_face_down_count"]),
        "pot_face_up": [traveller(card) for card in view["pot_face_up"]],
        "pot_paid": [traveller(card) for card in view["pot_paid"]],
        "set_off": [
            dict(record, cards=[traveller(card) for card in record["cards"]], backs=range(0 if record["cards"] else record["card_count"]))
            for record in view["set_off"]
        ],
        "propose": [destination(args[0]) for args in moves.get("propose", [])],
        "change_to": [destination(slug) for slug in dict.fromkeys(args[0] for args in change)],
        "change_pay": [traveller(card) for card in dict.fromkeys(args[2] for args in change)],
        "accept": "accept" in moves,
        "confirm": "confirm" in moves,
        "setoffs": [{"move": "setoff " + " ".join(c["text"] for c in cards), "cards": cards, "score": sum(int(c["rank"]) for c in cards)} for cards in setoffs],
        "discard": "discard" in moves,
    }


# ---------------------------------------------------------------------------------------------
# Holiday!: the board is drawn as a schematic world map. The shipped board's cities have places
# here: first put by hand roughly where they are on a globe, then each moved (by a search,
# simulated annealing: 43 units on average, keeping their order west to east and north to south
# but that Madrid went east of Abi Djan and Copenhagen east of Athens) until every label has a side
# clear of every route (map_layout.lay_out; tests/pages/test_map_layout.py fails if a route crosses
# one). A custom board's cities stand on a ring around the middle.

MAP_WIDTH, MAP_HEIGHT = 1000, 560
PLACES = {
    "honolulu": (155, 314),
    "mexico-city": (156, 206),
    "montego-bay": (288, 142),
    "lima": (198, 414),
    "rio-de-janeiro": (310, 435),
    "london": (424, 83),
    "paris": (420, 161),
    "madrid": (405, 252),
    "copenhagen": (576, 25),
    "rome": (528, 208),
    "abi-djan": (367, 381),
    "athens": (544, 303),
    "istanbul": (609, 154),
    "moscow": (667, 53),
    "cairo": (594, 331),
    "jerusalem": (597, 268),
    "nairobi": (667, 467),
    "delhi": (805, 232),
    "singapore": (738, 407),
    "hong-kong": (851, 285),
    "tokyo": (970, 171),
}


def city_places(board: Board) -> dict[str, tuple[int, int]]:
    places = {city.slug: PLACES[city.slug] for city in board.cities if city.slug in PLACES}
    others = [city.slug for city in board.cities if city.slug not in places]
    for i, slug in enumerate(others):
        angle = 2 * math.pi * i / len(others)
        places[slug] = (round(MAP_WIDTH / 2 + 420 * math.cos(angle)), round(MAP_HEIGHT / 2 + 230 * math.sin(angle)))
    return places


@functools.lru_cache(maxsize=64)  # a board's map, worked out once: the plane flying moves nothing
def map_layout(board: Board) -> Layout:
    """The board's city labels and route curves (map_layout.lay_out)."""
    links = sorted({tuple(sorted((city.slug, other))) for city in board.cities for other in city.links})
    world = all(city.slug in PLACES for city in board.cities)  # a custom board's ring is not the globe
    return lay_out(city_places(board), {city.slug: city.name for city in board.cities}, links, (MAP_WIDTH, MAP_HEIGHT), wraps=world)


def holiday_board(view: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    board = load_board(str(options.get("board", "")))
    moves = by_head(view["legal_moves"])
    days = list(board.days)
    today = view["day"]

    def sight(card_id: str) -> dict[str, Any]:
        card = board.card_by_id[card_id]
        best = board.days[card.best_day]
        points = None
        if today is not None:
            points = 7000 - 1000 * ((days.index(today) - card.best_day) % 7)
        return {"id": card_id, "city": board.city_name(card.city), "sight": card.sight, "best_day": best, "points_today": points}

    places = city_places(board)
    reachable = set(view["destinations"]) if view["phase"] in ("bidding", "flying") else set()
    in_hand = {board.card_by_id[card].city for card in view["hand"]}
    layout = map_layout(board)
    cities = [
        {
            "slug": city.slug,
            "name": city.name,
            "x": places[city.slug][0],
            "y": places[city.slug][1],
            "label": layout.labels[city.slug],
            "here": city.slug == view["city"],
            "reachable": city.slug in reachable,
            "yours": city.slug in in_hand,
        }
        for city in board.cities
    ]
    bids = [int(args[0]) for args in moves.get("bid", []) if args[0].isdigit()]
    bid_cities = sorted({args[2] for args in moves.get("bid", []) if len(args) == 3})
    auction = view["auction"]
    return {
        "width": MAP_WIDTH,
        "height": MAP_HEIGHT,
        "cities": cities,
        "routes": [(route, " – ".join(board.city_name(end) for end in route.ends), view["city"] in route.ends) for route in layout.routes],
        "city_name": board.city_name(view["city"]) if view["city"] else None,
        "days": [(day, day == today) for day in days],
        "today": today,
        "hand": sorted((sight(card) for card in view["hand"]), key=lambda s: (-(s["points_today"] or 0), s["id"])),
        "seen": [[sight(card) for card in cards] for cards in view["seen"]],
        "auction": auction,
        "min_bid": min(bids) if bids else None,
        "max_bid": max(bids) if bids else None,
        "bid_offers": bid_offers(view),
        "bid_cities": [(slug, board.city_name(slug)) for slug in bid_cities],
        "pass": "pass" in moves,
        "fly": {args[0]: (board.city_name(args[0]), args[0] in in_hand) for args in moves.get("fly", [])},
        "see": [sight(args[0]) for args in moves.get("see", [])],
        "skip": "skip" in moves,
        "destination_names": [board.city_name(slug) for slug in view["destinations"]],
    }


# ---------------------------------------------------------------------------------------------
# Tranquility

COLUMNS = "abcdef"
ROWS = 6


def tranquility(view: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """The sea and the hand; a placement's steps are core.menus' (`steps`), the discards a form."""
    discards = by_head(view["legal_moves"]).get("discard", [])
    grid = view["grid"]
    sea = [[{"name": f"{column}{row}", "number": grid.get(f"{column}{row}")} for column in COLUMNS] for row in range(ROWS, 0, -1)]
    start_discard = view["start_discard"]
    return {
        "sea": sea,
        "hand": view["hand"],
        "discard_two": bool(discards) and start_discard is None,
        "start_discard": start_discard,
        "skip_share": [] in discards,
    }


PICTURES: Mapping[str, Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]] = {
    "holly-oak": holly_oak,
    "holidays": holidays,
    "holiday-board": holiday_board,
    "tranquility": tranquility,
}


def picture(view: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """Everything the game's template draws, beyond the view itself."""
    return PICTURES[view["game"]](view, options)
