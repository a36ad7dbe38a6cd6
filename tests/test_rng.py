"""The generator is the documented algorithm, to the bit: an independent re-implementation from the
module's text agrees with it, and frozen vectors catch any change (a change would break old logs)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.rng import NoRng, Rng, commitment, seed_from_hex, seed_hex


def words_by_the_spec(seed: int, seq: int):
    counter = 0
    while True:
        block = hashlib.sha256(seed.to_bytes(32, "big") + seq.to_bytes(8, "big") + counter.to_bytes(8, "big")).digest()
        for i in range(0, 32, 8):
            yield int.from_bytes(block[i : i + 8], "big")
        counter += 1


def below_by_the_spec(words, n: int) -> int:
    limit = 2**64 - 2**64 % n
    return next(w for w in words if w < limit) % n


@given(seed=st.integers(0, 2**256 - 1), seq=st.integers(0, 2**40), bounds=st.lists(st.integers(1, 2**64), min_size=1, max_size=12))
def test_below_follows_the_documented_algorithm(seed: int, seq: int, bounds: list[int]) -> None:
    rng, words = Rng(seed, seq), words_by_the_spec(seed, seq)
    assert [rng.below(n) for n in bounds] == [below_by_the_spec(words, n) for n in bounds]


@given(seed=st.integers(0, 2**256 - 1), items=st.lists(st.integers(), max_size=60))
def test_shuffle_is_fisher_yates_from_the_end(seed: int, items: list[int]) -> None:
    words = words_by_the_spec(seed, 0)
    expected = list(items)
    for i in range(len(expected) - 1, 0, -1):
        j = below_by_the_spec(words, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert Rng(seed, 0).shuffled(items) == expected


def test_frozen_vectors() -> None:
    rng = Rng(7, 1)
    assert [rng.below(10) for _ in range(8)] == [0, 5, 1, 0, 1, 6, 5, 8]
    assert Rng(7, 1).shuffled(range(10)) == [3, 6, 9, 4, 7, 8, 2, 5, 1, 0]
    assert Rng(2**256 - 1, 3).roll(6) == 4
    assert commitment(7) == "48428bdb7ddd829410d6bbb924fdeb3a3d7e88c2577bffae073b990c6f061d08"


def test_different_seqs_give_different_streams() -> None:
    assert Rng(7, 1).shuffled(range(52)) != Rng(7, 2).shuffled(range(52))


@pytest.mark.parametrize("bad", [-1, 2**256, "7", 1.5, True])
def test_bad_seeds_are_refused(bad) -> None:
    with pytest.raises(ValueError, match="seed"):
        Rng(bad, 0)


def test_seed_hex_round_trips() -> None:
    assert seed_from_hex(seed_hex(2**255 + 3)) == 2**255 + 3 and len(seed_hex(1)) == 64


def test_a_table_without_its_seed_refuses_to_draw() -> None:
    with pytest.raises(ValueError, match="without its seed"):
        NoRng().shuffled([1, 2])
