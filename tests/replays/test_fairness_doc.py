"""docs/fairness.md's stand-alone generator agrees with core.rng, and re-derives a real deal."""

from __future__ import annotations

import re
from pathlib import Path

import core
from core.games.holly_oak import rules
from core.rng import Rng, seed_hex, silent_salt

DOC = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"


def doc_code() -> dict:
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    names: dict = {}
    exec(code, names)
    return names


def test_the_documented_generator_is_pbms() -> None:
    doc = doc_code()
    for seed in (0, 7, 2**256 - 1, 123456789 * 2**200):
        for seq in (0, 1, 57):
            mine, pbms = doc["Stream"](seed_hex(seed), seq), Rng(seed, seq)
            assert [mine.below(n) for n in (1, 2, 3, 52, 10**18)] == [pbms.below(n) for n in (1, 2, 3, 52, 10**18)]
            assert mine.shuffle(range(60)) == pbms.shuffled(range(60))
            assert mine.roll(6) == pbms.roll(6)
        assert doc["commitment"](seed_hex(seed)) == core.commitment(seed)


def test_the_documented_salted_key_is_pbms() -> None:
    doc = doc_code()
    for salts in (("alice",), ("alice", "bob"), ("ünïcode ☃", "x" * 200)):
        mine, pbms = doc["Stream"](seed_hex(99), 3, salts), Rng(99, 3, salts)
        assert mine.shuffle(range(60)) == pbms.shuffled(range(60))
    assert Rng(99, 3, ("a", "b")).shuffled(range(60)) != Rng(99, 3, ("ab",)).shuffled(range(60))
    assert Rng(99, 3, ("a",)).shuffled(range(60)) != Rng(99, 3).shuffled(range(60))


def test_a_salted_deal_is_re_derived_from_the_doc() -> None:
    doc = doc_code()
    table = core.new_table("holly-oak", 3, seed=2024, salts=["alice", "bob"])
    assert table.events[0].salts == ("alice", "bob")
    shuffled = doc["Stream"](seed_hex(2024), 1, ["alice", "bob"]).shuffle([str(c) for c in rules.deck(3)])
    assert [sorted(shuffled[s * 15 : (s + 1) * 15]) for s in range(3)] == [sorted(h) for h in table.events[1].hands]
    assert table.events[1] != core.new_table("holly-oak", 3, seed=2024).events[1]


def test_a_holly_oak_deal_is_re_derived_from_the_doc() -> None:
    doc = doc_code()
    table = core.new_table("holly-oak", 4, seed=2024)
    deck = [str(card) for card in rules.deck(4)]
    shuffled = doc["Stream"](seed_hex(2024), 1).shuffle(deck)
    size = len(deck) // 4
    dealt = table.events[1]
    for seat in range(4):
        assert sorted(shuffled[seat * size : (seat + 1) * size]) == sorted(dealt.hands[seat])


def test_the_documented_silent_salt_is_pbms() -> None:
    doc = doc_code()
    for seed, seat in ((0, 0), (99, 1), (2**256 - 1, 4)):
        assert doc["silent_salt"](seed_hex(seed), seat) == silent_salt(seed, seat)
    assert len({silent_salt(99, seat) for seat in range(5)} | {silent_salt(98, 0)}) == 6
