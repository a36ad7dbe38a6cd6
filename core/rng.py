"""The portable deterministic generator: every random step of a game, derived from (seed, seq).

It must stay pure and portable: no Python `random`, no clock, no state outside the object. The
algorithm below is the specification; an auditor re-implements it in any language with SHA-256.

    seed        an integer 0 <= seed < 2**256, written as 32 bytes big-endian: S
    salts       the players' optional salts (texts): GameStarted's, in order, then the late salts
                (SaltGiven, after the commitment, or a silent seat's salt below) by seat.
                None: the key K = S.
                Else K = SHA-256(S || for each salt: its UTF-8 length as 4 bytes big-endian || its
                UTF-8 bytes), so nobody who lacks a player's salt could have chosen the deals
    silent salt a seat asked for a late salt that sent none by the deadline, in a log whose
                SaltsAwaited says `silent_from_seed`, takes HMAC-SHA256(key S, message the ASCII
                text "pbm.silent_salt:" and the seat in decimal) as lowercase hex: a salt fixed by
                the committed seed, so the server has no choice in it
    seq         the log position of the first event of the command that draws: 8 bytes big-endian: Q
    block k     SHA-256(K || Q || k as 8 bytes big-endian), for k = 0, 1, 2, ...
    words       the blocks concatenated, read as unsigned 64-bit big-endian integers, in order
    below(n)    the next word w with w < 2**64 - (2**64 mod n) (others are skipped, so every
                result is equally likely); the result is w mod n
    shuffle(xs) Fisher-Yates from the end: for i = len-1 down to 1: j = below(i + 1); swap xs[i], xs[j]
    roll(sides) below(sides) + 1
    commitment  SHA-256(S) as lowercase hex: what GameStarted records before the seed is revealed
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

SEED_BITS = 256
_WORD = 1 << 64


def seed_bytes(seed: int) -> bytes:
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 1 << SEED_BITS:
        raise ValueError(f"a seed is a whole number from 0 to 2**{SEED_BITS} - 1, not {seed!r}")
    return seed.to_bytes(SEED_BITS // 8, "big")


def seed_hex(seed: int) -> str:
    """The seed as the log reveals it: its 32 bytes in lowercase hex."""
    return seed_bytes(seed).hex()


def seed_from_hex(text: str) -> int:
    if len(text) != SEED_BITS // 4:
        raise ValueError(f"a revealed seed is {SEED_BITS // 4} hex digits, not {len(text)}")
    return int(text, 16)


def key(seed: int, salts: Sequence[str] = ()) -> bytes:
    """K: the seed's bytes, or with salts the SHA-256 of the seed and the salts (module text)."""
    if not salts:
        return seed_bytes(seed)
    material = bytearray(seed_bytes(seed))
    for salt in salts:
        encoded = salt.encode("utf-8")
        material += len(encoded).to_bytes(4, "big") + encoded
    return hashlib.sha256(material).digest()


def silent_salt(seed: int, seat: int) -> str:
    """The salt a silent seat's place in the key takes (module text): derived from the seed alone."""
    return hmac.new(seed_bytes(seed), f"pbm.silent_salt:{seat}".encode("ascii"), hashlib.sha256).hexdigest()


def commitment(seed: int) -> str:
    """The public promise of a secret seed: SHA-256 of its 32 bytes, hex."""
    return hashlib.sha256(seed_bytes(seed)).hexdigest()


class Rng:
    """The random stream for one point of one game's log; see the module text for the algorithm."""

    __slots__ = ("_prefix", "_block", "_words")

    def __init__(self, seed: int, seq: int, salts: Sequence[str] = ()) -> None:
        if seq < 0:
            raise ValueError(f"seq must be >= 0, not {seq}")
        self._prefix = key(seed, salts) + seq.to_bytes(8, "big")
        self._block = 0
        self._words: list[int] = []

    def _word(self) -> int:
        if not self._words:
            digest = hashlib.sha256(self._prefix + self._block.to_bytes(8, "big")).digest()
            self._block += 1
            # Reversed so that pop() hands the words out in reading order.
            self._words = [int.from_bytes(digest[i : i + 8], "big") for i in (24, 16, 8, 0)]
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform whole number in [0, n)."""
        if n < 1:
            raise ValueError(f"below() needs n >= 1, not {n}")
        limit = _WORD - _WORD % n
        while True:
            word = self._word()
            if word < limit:
                return word % n

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A new list: `items` in Fisher-Yates order."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def roll(self, sides: int = 6) -> int:
        return self.below(sides) + 1


class NoRng:
    """Stands in where a table was rebuilt without its seed: any draw is refused, clearly."""

    def _refuse(self, *_args: object) -> int:
        raise ValueError("this table was rebuilt without its seed, so it cannot draw randomness")

    below = roll = _refuse

    def shuffled(self, items: Sequence[T]) -> list[T]:
        self._refuse()
        return []
