"""Drawing from a `random.Random` exactly as its ``choice`` and ``shuffle`` do, but cheaper.

CPython's ``Random.choice(seq)`` is ``seq[self._randbelow(len(seq))]`` and
``_randbelow(k)`` draws ``getrandbits(k.bit_length())`` until the value is below
k; ``shuffle`` swaps every position from the last down with one drawn the same
way. Doing that inline saves two Python calls per draw, which matters in a
random playout (about a thousand draws per game) and in a deal. Both are
checked against the real methods once at import: a Python that draws otherwise,
or a generator of another class, gets the real methods.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from typing import Any

#: range(k) for every legal-list length: ``rng.choice(INDEXES[k])`` draws from the
#: generator exactly as ``rng.choice(legal)`` does for a list of k decisions.
INDEXES: tuple[range, ...] = tuple(range(k) for k in range(64))
#: ``k.bit_length()`` for every legal-list length k.
WIDTHS: tuple[int, ...] = tuple(k.bit_length() for k in range(64))


def index_by_bits(getrandbits: Callable[[int], int], k: int) -> int:
    """A random index below k (< 64), drawn as ``Random.choice`` draws it.

    >>> index_by_bits(random.Random(3).getrandbits, 26) == random.Random(3).choice(range(26))
    True
    """
    width = WIDTHS[k]
    index = getrandbits(width)
    while index >= k:
        index = getrandbits(width)
    return index


def _shuffle_by_bits(rng: random.Random, items: list[Any]) -> None:
    """Shuffle `items` in place as ``Random.shuffle`` does."""
    getrandbits = rng.getrandbits
    for last in range(len(items) - 1, 0, -1):
        k = last + 1
        width = k.bit_length()
        other = getrandbits(width)
        while other >= k:
            other = getrandbits(width)
        items[last], items[other] = items[other], items[last]


def _draws_match() -> bool:
    """True when the inlined draws give what ``Random.choice`` and ``shuffle`` give here."""
    plain, inlined = random.Random(20261124), random.Random(20261124)
    for k in range(1, len(INDEXES)):
        for _ in range(4):
            if plain.choice(INDEXES[k]) != index_by_bits(inlined.getrandbits, k):
                return False
    dealt, redealt = list(range(111)), list(range(111))
    plain.shuffle(dealt)
    _shuffle_by_bits(inlined, redealt)
    return dealt == redealt


DRAWS_MATCH = _draws_match()


def _inlinable(rng: random.Random) -> bool:
    """True when `rng` draws exactly as the inlined code does (a subclass may not)."""
    return DRAWS_MATCH and type(rng) is random.Random


def index_picker(rng: random.Random) -> Callable[[int], int]:
    """``pick(k)``: the index ``rng.choice`` would pick from a list of k decisions."""
    if _inlinable(rng):
        return partial(index_by_bits, rng.getrandbits)
    choose = rng.choice
    return lambda k: choose(INDEXES[k])


def inline_getrandbits(rng: random.Random) -> Callable[[int], int] | None:
    """`rng.getrandbits` when a caller may inline `index_by_bits` with it, else None."""
    return rng.getrandbits if _inlinable(rng) else None


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """``rng.shuffle(items)``: the same order, drawn with fewer Python calls."""
    if _inlinable(rng):
        _shuffle_by_bits(rng, items)
    else:
        rng.shuffle(items)
