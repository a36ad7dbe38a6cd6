"""How Holiday!'s map is laid out: each city's label at a side of it, inside the map and clear of
every other city (the plane is drawn on its own city) and every other label, and each route drawn
as a curve that bends around every label and every city it does not end at; a route shorter across
the Pacific (the map's left and right edges) is drawn as two pieces that leave the map there. Pure
geometry in the map's own units: it draws nothing (the template does) and measures no font (a box
is a cautious estimate).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import attrs

Point = tuple[float, float]

# The label's font on a phone, the larger of the page's two (page.css: .map text), in map units.
FONT_SIZE = 26
# Letters by how wide they are: each kind's width in ems is a little over DejaVu Sans Bold's
# (the widest of the page's fonts), so a label's box is never narrower than its text.
NARROW, SLIM, WIDE = frozenset("ijlIJ .'"), frozenset("tfr"), frozenset("mwMW")
HALO = 3  # half the text's stroke: the halo drawn around its letters
# The largest a city is drawn: the plane's own, under the plane (holiday-board.html draws it on
# its city, 30 by 25.5 units and its white stroke), so a label clear of every city is
# clear of the plane wherever it stands, and the labels need no new places when it flies.
CITY_RADIUS = 17
PLANE_BOX = (-16.5, -14.25, 16.5, 14.25)
GAP = 3
SEARCH_STEPS = 2_000  # the shipped board needs 21 (one a city)
# A route's curve leaves each end up to 70 degrees off the straight line, in steps of 10, the
# least bent first; drawn for the checks as a polyline of this many pieces.
BENDS = sorted((math.radians(degrees) for degrees in range(-70, 71, 10)), key=abs)
CURVES = sorted(((leaving, arriving) for leaving in BENDS for arriving in BENDS), key=lambda bend: abs(bend[0]) + abs(bend[1]))
CURVE_PIECES = 16


def text_width(text: str) -> float:
    ems = sum(0.38 if c in NARROW else 0.52 if c in SLIM else 1.06 if c in WIDE else 0.86 if c.isupper() else 0.73 for c in text)
    return ems * FONT_SIZE


@attrs.frozen
class Box:
    left: float
    top: float
    right: float
    bottom: float

    def overlaps(self, other: Box) -> bool:
        return self.left < other.right and other.left < self.right and self.top < other.bottom and other.top < self.bottom

    def crosses(self, a: Point, b: Point) -> bool:
        """Whether the segment a-b passes through this box: their bounding boxes meet and the
        box's corners are not all on one side of the segment's line."""
        (x0, y0), (x1, y1) = a, b
        if max(x0, x1) < self.left or min(x0, x1) > self.right or max(y0, y1) < self.top or min(y0, y1) > self.bottom:
            return False
        turns = [(x1 - x0) * (y - y0) - (y1 - y0) * (x - x0) for x in (self.left, self.right) for y in (self.top, self.bottom)]
        return not (all(turn > 0 for turn in turns) or all(turn < 0 for turn in turns))

    def inside(self, width: float, height: float) -> bool:
        return self.left >= 0 and self.top >= 0 and self.right <= width and self.bottom <= height


@attrs.frozen
class Label:
    """A label's text position as SVG takes it (x, baseline y, text-anchor) and the box it covers."""

    x: float
    y: float
    anchor: str
    box: Box


@attrs.frozen
class Curve:
    """A cubic Bezier curve from `start` to `end` (SVG's `C`), bent at each end by its controls."""

    start: Point
    control1: Point
    control2: Point
    end: Point

    @classmethod
    def bent(cls, start: Point, end: Point, leaving: float = 0.0, arriving: float = 0.0) -> Curve:
        """The curve that leaves `start` turned `leaving` radians off the straight line to `end`,
        and reaches `end` turned `arriving` off it (both 0: the straight line)."""
        (x0, y0), (x1, y1) = start, end
        heading, reach = math.atan2(y1 - y0, x1 - x0), math.dist(start, end) / 3
        control1 = (x0 + reach * math.cos(heading + leaving), y0 + reach * math.sin(heading + leaving))
        control2 = (x1 - reach * math.cos(heading - arriving), y1 - reach * math.sin(heading - arriving))
        return cls(start, control1, control2, end)

    def points(self, pieces: int = CURVE_PIECES) -> list[Point]:
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = self.start, self.control1, self.control2, self.end
        return [
            ((1 - t) ** 3 * x0 + 3 * (1 - t) ** 2 * t * x1 + 3 * (1 - t) * t * t * x2 + t**3 * x3,
             (1 - t) ** 3 * y0 + 3 * (1 - t) ** 2 * t * y1 + 3 * (1 - t) * t * t * y2 + t**3 * y3)
            for t in (i / pieces for i in range(pieces + 1))
        ]

    @property
    def path(self) -> str:
        """The curve as an SVG path's `d`."""
        return "M {} {} C {} {}, {} {}, {} {}".format(*(round(value, 1) for point in attrs.astuple(self) for value in point))

    def crosses_any(self, boxes: Sequence[Box]) -> list[Box]:
        """Those of `boxes` the curve passes through."""
        points = self.points()
        xs, ys = [x for x, _ in points], [y for _, y in points]
        around = Box(min(xs), min(ys), max(xs), max(ys))
        return [box for box in boxes if box.overlaps(around) and any(box.crosses(a, b) for a, b in zip(points, points[1:]))]


@attrs.frozen
class Route:
    """A route as drawn: its two cities' slugs and one curve, or two leaving the map's edges."""

    ends: tuple[str, str]
    curves: tuple[Curve, ...]


@attrs.frozen
class Layout:
    labels: Mapping[str, Label]
    routes: tuple[Route, ...]


def plane_box(at: Point) -> Box:
    left, top, right, bottom = PLANE_BOX
    return Box(at[0] + left, at[1] + top, at[0] + right, at[1] + bottom)


def city_box(at: Point) -> Box:
    return Box(at[0] - CITY_RADIUS, at[1] - CITY_RADIUS, at[0] + CITY_RADIUS, at[1] + CITY_RADIUS)


def sides(name: str, at: Point) -> list[Label]:
    """The places a city's label may take, in the order they are tried: below it, beside it,
    above it, at its corners, then below and above it slid a third of its width either way. The
    text keeps to the side of its box nearest the city, so at the desktop's smaller font too it
    stays by its city, inside the box."""
    x, y = at
    width, height = text_width(name) + 2 * HALO, 1.2 * FONT_SIZE + 2 * HALO
    # At a corner the box is clear of the round city by a diagonal, and of the plane on it (wider
    # than high) by its height.
    near, corner, corner_y = CITY_RADIUS + GAP, 0.7 * (CITY_RADIUS + GAP), PLANE_BOX[3] + GAP

    def at_box(left: float, top: float, anchor: str, level: str) -> Label:
        box = Box(left, top, left + width, top + height)
        # The font's letters reach 0.93 em above their baseline and 0.24 em below it.
        baseline = {"top": top + HALO + 0.95 * FONT_SIZE, "middle": top + height / 2 + 0.35 * FONT_SIZE, "bottom": box.bottom - HALO - 0.25 * FONT_SIZE}[level]
        text_x = {"start": left + HALO, "middle": left + width / 2, "end": box.right - HALO}[anchor]
        return Label(round(text_x, 1), round(baseline, 1), anchor, box)

    below, above = y + near, y - near - height
    return [
        at_box(x - width / 2, below, "middle", "top"),
        at_box(x + near, y - height / 2, "start", "middle"),  # right
        at_box(x - near - width, y - height / 2, "end", "middle"),  # left
        at_box(x - width / 2, above, "middle", "bottom"),
        at_box(x + corner, y + corner_y, "start", "top"),  # below right
        at_box(x - corner - width, y + corner_y, "end", "top"),  # below left
        at_box(x + corner, y - corner_y - height, "start", "bottom"),  # above right
        at_box(x - corner - width, y - corner_y - height, "end", "bottom"),  # above left
        *(at_box(x - width / 2 + slide, top, "middle", level) for top, level in ((below, "top"), (above, "bottom")) for slide in (width / 3, -width / 3)),
    ]


def lay_out(
    places: Mapping[str, Point],
    names: Mapping[str, str],
    links: Sequence[tuple[str, str]],
    size: tuple[float, float],
    wraps: bool = False,
) -> Layout:
    """The map's labels and routes: every city in `places` gets a label at a side of it, inside the
    map (`size`) and clear of every other city and label, crossing the fewest of the routes
    (`links`, drawn straight) that it can (search() takes the first combination that fits, then
    each label moves to a side crossing fewer where one is free); then each route takes the least
    bent curve inside the map that crosses no label and no city it does not end at; on a map that
    `wraps` (a map of the world) a route shorter across its left and right edges goes that way. A
    board too crowded for that (a custom one: the search gives up after SEARCH_STEPS tries) keeps
    every label below its city, and a route with no clear curve is drawn straight."""
    width, height = size
    cities = {slug: city_box(at) for slug, at in places.items()}
    edge = width if wraps else math.inf
    straight = [line for a, b in links for line in pieces(places[a], places[b], edge)]

    def crossed(label: Label) -> int:
        return crossings(label.box, straight)

    choices = {}
    for slug, at in places.items():
        blocked = [box for other, box in cities.items() if other != slug]
        choices[slug] = sorted((label for label in sides(names[slug], at) if label.box.inside(width, height) and not any(label.box.overlaps(box) for box in blocked)), key=crossed)
    labels = search(choices, [SEARCH_STEPS])
    if labels is None:
        labels = {slug: sides(names[slug], at)[0] for slug, at in places.items()}
    else:
        moved = True
        while moved:
            moved = False
            for slug, options in choices.items():
                for label in options:
                    if crossed(label) < crossed(labels[slug]) and not any(label.box.overlaps(its.box) for other, its in labels.items() if other != slug):
                        labels[slug], moved = label, True
    boxes = [label.box for label in labels.values()]
    routes = []
    for a, b in links:
        avoid = boxes + [box for slug, box in cities.items() if slug not in (a, b)]
        routes.append(Route((a, b), tuple(clear_curve(start, end, avoid, size) for start, end in pieces(places[a], places[b], edge))))
    return Layout(labels, tuple(routes))


def pieces(a: Point, b: Point, width: float) -> list[tuple[Point, Point]]:
    """The route a-b as straight lines: itself, or, where it is shorter across the map's left and
    right edges (the Pacific), a line from each city to the edge, meeting it at the same height
    (`width` infinite: never)."""
    (west, west_y), (east, east_y) = sorted((a, b))
    across = west + width - east
    if across >= east - west:
        return [(a, b)]
    edge_y = west_y + (east_y - west_y) * west / across
    return [((west, west_y), (0.0, round(edge_y, 1))), ((east, east_y), (width, round(edge_y, 1)))]


def clear_curve(start: Point, end: Point, avoid: Sequence[Box], size: tuple[float, float]) -> Curve:
    """The least bent curve from `start` to `end` inside the map (`size`) that crosses none of
    `avoid` (straight if none is)."""
    width, height = size
    for leaving, arriving in CURVES:
        curve = Curve.bent(start, end, leaving, arriving)
        if all(0 <= x <= width and 0 <= y <= height for x, y in curve.points()) and not curve.crosses_any(avoid):
            return curve
    return Curve.bent(start, end)


def search(choices: Mapping[str, list[Label]], steps: list[int]) -> dict[str, Label] | None:
    """A label for every city of `choices` from its own, none on another: the city with the fewest
    left goes first, and each label tried strikes the others' it would lie on (depth first, with
    forward checking). None when there is none, or when `steps[0]` tries are spent."""
    if not choices:
        return {}
    slug = min(choices, key=lambda city: len(choices[city]))
    for label in choices[slug]:
        steps[0] -= 1
        if steps[0] < 0:
            return None
        rest = {other: [its for its in options if not its.box.overlaps(label.box)] for other, options in choices.items() if other != slug}
        if all(rest.values()):
            found = search(rest, steps)
            if found is not None:
                return {slug: label, **found}
    return None


def crossings(box: Box, links: Sequence[tuple[Point, Point]]) -> int:
    return sum(box.crosses(a, b) for a, b in links)
