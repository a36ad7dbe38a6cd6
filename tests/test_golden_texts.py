"""Golden texts: what a player reads at the end of one recorded game per game (the story, the end
mail, the page's text), frozen beside the golden logs (tests/golden/<game>/<log>.<what>.txt), so a
change of wording is a reviewed diff. PBM_GOLDEN_TEXTS=write rewrites them after a deliberate change."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.test_names import GOLDEN, texts_a_seat_reads

FIRSTS = sorted({path.parent.name: path for path in reversed(GOLDEN)}.values())


def texts(path: Path) -> dict[str, str]:
    read = texts_a_seat_reads(path, 0)
    page = [" ".join(line.split()) for line in read["page"]]
    return {
        "story": "\n".join(read["story"]) + "\n",
        "mail": "\n".join([f"Subject: {read['subject'][0]}", *read["mail"]]) + "\n",
        "page": "\n".join(line for line in page if line) + "\n",
    }


@pytest.mark.parametrize("path", FIRSTS, ids=[p.parent.name for p in FIRSTS])
def test_the_end_of_a_game_reads_as_its_golden_text(path: Path) -> None:
    for what, text in texts(path).items():
        golden = path.with_suffix(f".{what}.txt")
        if os.environ.get("PBM_GOLDEN_TEXTS") == "write":
            golden.write_text(text)
        assert golden.read_text() == re.sub(r"\r\n", "\n", text), f"{golden.name} changed: review, then PBM_GOLDEN_TEXTS=write"
