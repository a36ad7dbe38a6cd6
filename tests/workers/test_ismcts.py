"""The search's own pieces, without Redis: the paired comparison at the root."""

from __future__ import annotations

import random

from workers import ismcts


def test_a_move_is_clearly_better_only_when_the_paired_differences_say_so() -> None:
    noise = random.Random(1)
    theirs = [noise.random() for _ in range(30)]
    # The same deals, a steady small gain: clear, though the results overlap wildly.
    assert ismcts.clearly_better([t + 0.05 for t in theirs], theirs)
    # The same mean gain, but as noise around it: not clear.
    assert not ismcts.clearly_better([t + 0.05 + noise.uniform(-1, 1) for t in theirs], theirs)
    assert not ismcts.clearly_better([t - 0.05 for t in theirs], theirs)
    assert not ismcts.clearly_better([1.0], [0.0])  # one deal proves nothing
