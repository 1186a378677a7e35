"""Twirkle's 108 cards and the one rule every line obeys, as bit masks.

A card's *kind* is a number 0..35: ``6 * colour + symbol``. The three copies of
a kind are indistinguishable, so the referee only ever stores kinds; that also
means no card identity can leak which copy a player holds (ruling W1).

A set of kinds is a 36-bit integer. `run_mask` answers the question asked for
every cell and every line: which kinds may join these cards so that they still
form one valid line (one colour in different symbols, or one symbol in
different colours, no repeats, hence at most six cards).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

#: The six colours (blau, gelb, grün, lila, rot, schwarz).
COLOURS: tuple[str, ...] = ("blue", "yellow", "green", "purple", "red", "black")
#: The six symbols (Wirbel, Stern, Pyramide, Kleeblatt, Rosette, Kristall).
SYMBOLS: tuple[str, ...] = ("swirl", "star", "pyramid", "clover", "rosette", "crystal")
#: Number of kinds (colour x symbol) and copies of each (W1).
KINDS = 36
COPIES = 3
#: Hand size (W1) and the longest possible line.
HAND_SIZE = 6
MAX_LINE = 6
#: Points for a completed line of six (a "Twirkle").
TWIRKLE_POINTS = 12

#: Card names as they appear in observations and decisions, e.g. ``"red-star"``.
NAMES: tuple[str, ...] = tuple(f"{c}-{s}" for c in COLOURS for s in SYMBOLS)
KIND_OF: dict[str, int] = {name: kind for kind, name in enumerate(NAMES)}

#: Every kind.
ALL_KINDS = (1 << KINDS) - 1
#: Kinds of one colour / one symbol.
COLOUR_MASK: tuple[int, ...] = tuple(sum(1 << (6 * c + s) for s in range(6)) for c in range(6))
SYMBOL_MASK: tuple[int, ...] = tuple(sum(1 << (6 * c + s) for c in range(6)) for s in range(6))
#: Kinds having any of the colours (symbols) in a 6-bit set, indexed by the set.
_COLOURSET_MASK: tuple[int, ...] = tuple(
    sum(COLOUR_MASK[c] for c in range(6) if bits >> c & 1) for bits in range(64)
)
_SYMBOLSET_MASK: tuple[int, ...] = tuple(
    sum(SYMBOL_MASK[s] for s in range(6) if bits >> s & 1) for bits in range(64)
)


def colour(kind: int) -> int:
    """The colour index of a kind.

    >>> COLOURS[colour(KIND_OF["red-star"])]
    'red'
    """
    return kind // 6


def symbol(kind: int) -> int:
    """The symbol index of a kind.

    >>> SYMBOLS[symbol(KIND_OF["red-star"])]
    'star'
    """
    return kind % 6


def full_deck() -> list[int]:
    """All 108 cards as kinds, three of each, in kind order."""
    return [kind for kind in range(KINDS) for _ in range(COPIES)]


def run_mask(cards: Iterable[int]) -> int:
    """The kinds that may join `cards` so that together they form one valid line.

    `cards` are the cards of one line in any order; an invalid line accepts nothing.

    >>> names = lambda mask: sorted(NAMES[k] for k in range(KINDS) if mask >> k & 1)
    >>> names(run_mask([KIND_OF["red-star"], KIND_OF["red-clover"]]))
    ['red-crystal', 'red-pyramid', 'red-rosette', 'red-swirl']
    >>> run_mask([KIND_OF["red-star"], KIND_OF["blue-clover"]])
    0
    >>> bin(run_mask([KIND_OF["red-star"]])).count("1")
    10
    """
    seen = 0
    colours = 0
    symbols = 0
    count = 0
    for kind in cards:
        bit = 1 << kind
        if seen & bit:
            return 0
        seen |= bit
        colours |= 1 << (kind // 6)
        symbols |= 1 << (kind % 6)
        count += 1
    if count == 0:
        return ALL_KINDS
    if count >= MAX_LINE:
        return 0
    result = 0
    if colours & (colours - 1) == 0:  # one colour: a new symbol of that colour
        result |= COLOUR_MASK[colours.bit_length() - 1] & ~_SYMBOLSET_MASK[symbols]
    if symbols & (symbols - 1) == 0:  # one symbol: a new colour of that symbol
        result |= SYMBOL_MASK[symbols.bit_length() - 1] & ~_COLOURSET_MASK[colours]
    return result


def is_line(cards: Sequence[int]) -> bool:
    """True when `cards` form a valid line (a single card always does).

    >>> is_line([KIND_OF["red-star"], KIND_OF["blue-star"], KIND_OF["green-star"]])
    True
    >>> is_line([KIND_OF["red-star"], KIND_OF["red-star"]])
    False
    """
    if len(cards) <= 1:
        return True
    return bool(run_mask(cards[1:]) >> cards[0] & 1)


def line_points(length: int) -> int:
    """W4: a line scores its length, a completed line of six scores 12; one card scores 0."""
    if length < 2:
        return 0
    return TWIRKLE_POINTS if length == MAX_LINE else length


def largest_line_set(hand: Iterable[int]) -> int:
    """W2: the size of the largest set of hand cards that could form one line.

    >>> largest_line_set([KIND_OF[n] for n in ("red-star", "red-star", "blue-star", "red-swirl")])
    2
    """
    kinds = set(hand)
    best = 1 if kinds else 0
    for c in range(6):
        best = max(best, sum(1 for k in kinds if k // 6 == c))
    for s in range(6):
        best = max(best, sum(1 for k in kinds if k % 6 == s))
    return best
