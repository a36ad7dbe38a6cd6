"""Golden texts: what a player reads of one recorded game per game (the story, the mail, the page's
text) at its end and at a turn of theirs mid-game (its turn mail; the page with a hand and moves to
choose from), frozen beside the golden logs (tests/golden/<game>/<log>[.mid].<what>.txt), so a change
of wording is a reviewed diff. PBM_GOLDEN_TEXTS=write rewrites them after a deliberate change."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import pytest

from replays import archive
from tests.test_names import GOLDEN, mid_game, texts_a_seat_reads

FIRSTS = sorted({path.parent.name: path for path in reversed(GOLDEN)}.values())
MOMENTS = {"end": lambda log: None, "mid": lambda log: mid_game(log, 0)}  # the moment's seq in its log (None: the end)


def texts(path: Path, moment: str) -> dict[str, str]:
    read = texts_a_seat_reads(path, 0, MOMENTS[moment](archive.read(path)))
    page = [" ".join(html.unescape(line).split()) for line in read["page"]]
    return {
        "story": "\n".join(read["story"]) + "\n",
        "mail": "\n".join([f"Subject: {read['subject'][0]}", *read["mail"]]) + "\n",
        "page": "\n".join(line for line in page if line) + "\n",
    }


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("path", FIRSTS, ids=[p.parent.name for p in FIRSTS])
def test_what_a_seat_reads_is_its_golden_text(path: Path, moment: str) -> None:
    prefix = "" if moment == "end" else f".{moment}"
    for what, text in texts(path, moment).items():
        golden = path.with_suffix(f"{prefix}.{what}.txt")
        if os.environ.get("PBM_GOLDEN_TEXTS") == "write":
            golden.write_text(text)
        assert golden.read_text() == re.sub(r"\r\n", "\n", text), f"{golden.name} changed: review, then PBM_GOLDEN_TEXTS=write"
