"""Holiday!'s map labels (pbm/web/map_labels.py), as geometry: on the shipped board, for every city
and every place of the plane, no label sits under the plane, past the map's edge, on another label
or on another city; a label crosses a route only where its city has no clear side; on a board with
room, none does."""

from __future__ import annotations

import pytest

from core.games.holiday_board.board import load_board
from pbm.web import pictures
from pbm.web.map_labels import Box, city_box, crossings, place_labels, plane_box

BOARD = load_board("")
PLACES = pictures.city_places(BOARD)
ROUTES = [(PLACES[city.slug], PLACES[other]) for city in BOARD.cities for other in city.links if city.slug < other]
NAMES = {city.slug: city.name for city in BOARD.cities}
MAP = Box(0, 0, pictures.MAP_WIDTH, pictures.MAP_HEIGHT)


@pytest.mark.parametrize("plane_city", [None, *PLACES])
def test_no_label_sits_under_the_plane_off_the_map_or_on_another(plane_city):
    labels = pictures.map_labels(BOARD, plane_city)
    assert set(labels) == set(PLACES)
    plane = plane_box(PLACES[plane_city]) if plane_city else None
    for slug, label in labels.items():
        assert label.box.inside(MAP.right, MAP.bottom), slug
        assert plane is None or not label.box.overlaps(plane), f"{NAMES[slug]} under the plane over {plane_city}"
        for other, its in labels.items():
            assert other == slug or not label.box.overlaps(its.box), f"{NAMES[slug]} on {NAMES[other]}"
            assert other == slug or not label.box.overlaps(city_box(PLACES[other])), f"{NAMES[slug]} on the city {NAMES[other]}"


def test_labels_cross_fewer_routes_than_labels_all_below_their_cities():
    below = {slug: Box(x - 80, y + 16, x + 80, y + 48) for slug, (x, y) in PLACES.items()}
    placed = place_labels(PLACES, NAMES, ROUTES, None, (MAP.right, MAP.bottom))
    assert sum(crossings(label.box, ROUTES) for label in placed.values()) * 2 < sum(crossings(box, ROUTES) for box in below.values())


def test_on_a_board_with_room_no_label_crosses_a_route_or_the_plane():
    # A square of cities with both diagonals: every label below would sit on a route to a city below.
    places = {"a": (300.0, 100.0), "b": (700.0, 100.0), "c": (300.0, 400.0), "d": (700.0, 400.0)}
    routes = [(places[x], places[y]) for x, y in ("ab", "ac", "ad", "bc", "bd", "cd")]
    names = dict.fromkeys(places, "Somewhere")
    for plane in (None, *places.values()):
        labels = place_labels(places, names, routes, plane, (1000, 560))
        assert [slug for slug, label in labels.items() if crossings(label.box, routes)] == []
        assert plane is None or not any(label.box.overlaps(plane_box(plane)) for label in labels.values())


@pytest.mark.parametrize(("a", "b", "crossed"), [
    ((0, 5), (20, 5), True),  # straight through
    ((5, 5), (6, 6), True),  # wholly inside
    ((-5, -5), (-1, 20), False),  # beside it
    ((-5, 5), (5, -5), True),  # across a corner
    ((-5, 4), (4, -5), False),  # past the corner, outside
    ((20, 0), (20, 10), False),  # level with it, farther right
])
def test_a_box_is_crossed_by_the_segments_through_it(a, b, crossed):
    assert Box(0, 0, 10, 10).crosses(a, b) is crossed
