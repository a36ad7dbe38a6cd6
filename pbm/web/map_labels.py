"""Where Holiday!'s map puts its city labels: at a side of each city where the label's box meets
no other city, no other label and not the plane, inside the map, and crosses as few routes as it
can (on the shipped board's crowded middle some must cross one). Pure geometry in the map's own
units: it draws nothing (the template does) and measures no font (a box is a cautious estimate).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

Point = tuple[float, float]

# The label's font on a phone, the larger of the page's two (page.css: .map text), in map units.
FONT_SIZE = 26
# Letters by how wide they are: each kind's width in ems is a little over DejaVu Sans Bold's
# (the widest of the page's fonts), so a label's box is never narrower than its text.
NARROW, SLIM, WIDE = frozenset("ijlIJ .'"), frozenset("tfr"), frozenset("mwMW")
HALO = 3  # half the text's stroke: the halo drawn around its letters
CITY_RADIUS = 13  # the largest a city is drawn (the plane's own city)
GAP = 3
# The plane is drawn above its city (holiday-board.html's path spans x-20..x+20, y-34..y), its
# 2-unit white stroke around it.
PLANE_BOX = (-21, -35, 21, 1)
SEARCH_STEPS = 2_000  # the shipped board needs at most 21 (one a city), at any place of the plane


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
    near, corner = CITY_RADIUS + GAP, 0.7 * (CITY_RADIUS + GAP)

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
        at_box(x + corner, y + corner, "start", "top"),  # below right
        at_box(x - corner - width, y + corner, "end", "top"),  # below left
        at_box(x + corner, y - corner - height, "start", "bottom"),  # above right
        at_box(x - corner - width, y - corner - height, "end", "bottom"),  # above left
        *(at_box(x - width / 2 + slide, top, "middle", level) for top, level in ((below, "top"), (above, "bottom")) for slide in (width / 3, -width / 3)),
    ]


def place_labels(
    places: Mapping[str, Point],
    names: Mapping[str, str],
    links: Sequence[tuple[Point, Point]],
    plane: Point | None,
    size: tuple[float, float],
) -> dict[str, Label]:
    """slug -> its label, for every city in `places`: each at a side of its city inside the map
    (`size`), clear of every other city, every other label and the plane's box at `plane`; each
    city tries its sides crossing the fewest routes in `links` first (search() takes the first
    that fits with the others). A board too crowded for that (a custom one: the search gives up
    after SEARCH_STEPS tries) keeps every label below its city."""
    cities = {slug: city_box(at) for slug, at in places.items()}
    avoid = [plane_box(plane)] if plane else []
    choices = {}
    for slug, at in places.items():
        blocked = avoid + [box for other, box in cities.items() if other != slug]
        clear = [label for label in sides(names[slug], at) if label.box.inside(*size) and not any(label.box.overlaps(box) for box in blocked)]
        choices[slug] = sorted(clear, key=lambda label: crossings(label.box, links))
    found = search(choices, [SEARCH_STEPS])
    return found or {slug: sides(names[slug], at)[0] for slug, at in places.items()}


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
