"""Holiday!'s map layout (pbm/web/map_layout.py), as geometry: on the shipped board no label sits
past the map's edge, on another label, on a city or under the plane wherever it stands, and no
route crosses a label or a city it does not end at; routes across the Pacific leave the map's
edges at one height; a board too crowded for that still gets every label and every route."""

from __future__ import annotations

import math

import pytest

from core.games.holiday_board.board import load_board
from pbm.web import pictures
from pbm.web.map_layout import Box, Curve, city_box, lay_out, pieces, plane_box

BOARD = load_board("")
PLACES = pictures.city_places(BOARD)
NAMES = {city.slug: city.name for city in BOARD.cities}
LINKS = sorted({tuple(sorted((city.slug, other))) for city in BOARD.cities for other in city.links})
LAYOUT = pictures.map_layout(BOARD)
MAP = Box(0, 0, pictures.MAP_WIDTH, pictures.MAP_HEIGHT)


def test_every_label_is_inside_the_map_and_on_no_other_label_or_city():
    labels = LAYOUT.labels
    assert set(labels) == set(PLACES)
    for slug, label in labels.items():
        assert label.box.inside(MAP.right, MAP.bottom), slug
        for other, its in labels.items():
            assert other == slug or not label.box.overlaps(its.box), f"{NAMES[slug]} on {NAMES[other]}"
            assert other == slug or not label.box.overlaps(city_box(PLACES[other])), f"{NAMES[slug]} on the city {NAMES[other]}"


@pytest.mark.parametrize("plane_city", PLACES)
def test_no_label_is_under_the_plane_wherever_it_stands(plane_city):
    plane = plane_box(PLACES[plane_city])
    inside_its_city = city_box(PLACES[plane_city])
    assert (inside_its_city.left, inside_its_city.top) <= (plane.left, plane.top) and (plane.right, plane.bottom) <= (inside_its_city.right, inside_its_city.bottom)
    assert [NAMES[slug] for slug, label in LAYOUT.labels.items() if label.box.overlaps(plane)] == []


def test_no_route_crosses_a_label_or_a_city_it_does_not_end_at():
    assert {route.ends for route in LAYOUT.routes} == set(LINKS)
    labels = {NAMES[slug]: label.box for slug, label in LAYOUT.labels.items()}
    crossed = []
    for route in LAYOUT.routes:
        others = {NAMES[slug]: city_box(at) for slug, at in PLACES.items() if slug not in route.ends}
        for curve in route.curves:
            crossed += [(route.ends, f"label {name}") for name, box in labels.items() if curve.crosses_any([box])]
            crossed += [(route.ends, f"city {name}") for name, box in others.items() if curve.crosses_any([box])]
    assert crossed == []


def test_each_route_is_drawn_inside_the_map_from_its_cities_and_the_pacific_ones_leave_it_at_one_height():
    across = {}
    for route in LAYOUT.routes:
        assert all(0 <= x <= MAP.right and 0 <= y <= MAP.bottom for curve in route.curves for x, y in curve.points()), route.ends
        a, b = (PLACES[slug] for slug in route.ends)
        if len(route.curves) == 1:
            (curve,) = route.curves
            assert {curve.start, curve.end} == {a, b}
        else:
            west, east = route.curves
            assert {west.start, east.start} == {a, b} and west.end[0] == 0 and east.end[0] == MAP.right and west.end[1] == east.end[1]
            across[route.ends] = west.end[1]
    assert {(NAMES[a], NAMES[b]) for a, b in across} == {("Honolulu", "Tokyo"), ("Hong Kong", "Honolulu"), ("Honolulu", "Singapore")}


def test_a_route_is_cut_at_the_edges_only_where_that_is_shorter():
    assert pieces((100, 100), (900, 300), 1000) == [((100, 100), (0.0, 200.0)), ((900, 300), (1000, 200.0))]  # halfway, at half the rise
    assert pieces((300, 100), (700, 300), 1000) == [((300, 100), (700, 300))]


def test_an_unbent_curve_is_the_straight_line_and_a_bent_one_leaves_at_its_angle():
    straight = Curve.bent((0, 0), (300, 0))
    assert all(abs(y) < 1e-9 for _, y in straight.points()) and straight.path == "M 0 0 C 100.0 0.0, 200.0 0.0, 300 0"
    bent = Curve.bent((0, 0), (300, 0), leaving=math.radians(30))
    (x, y) = bent.control1
    assert math.isclose(math.degrees(math.atan2(y, x)), 30) and max(y for _, y in bent.points()) > 0


def test_on_a_board_with_room_labels_and_routes_meet_nothing():
    # A square of cities with both diagonals: every label below would sit on a route to a city below.
    places = {"a": (300.0, 100.0), "b": (700.0, 100.0), "c": (300.0, 400.0), "d": (700.0, 400.0)}
    links = [tuple(pair) for pair in ("ab", "ac", "ad", "bc", "bd", "cd")]
    layout = lay_out(places, dict.fromkeys(places, "Somewhere"), links, (1000, 560))
    boxes = [label.box for label in layout.labels.values()]
    assert [route.ends for route in layout.routes for curve in route.curves if curve.crosses_any(boxes)] == []


def test_a_board_too_crowded_still_gets_every_label_and_route():
    places = {str(n): (100.0 + 4 * n, 100.0 + 3 * n) for n in range(12)}
    links = [(str(n), str(n + 1)) for n in range(11)]
    layout = lay_out(places, dict.fromkeys(places, "A long city name"), links, (400, 300))
    assert set(layout.labels) == set(places) and [route.ends for route in layout.routes] == links


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
