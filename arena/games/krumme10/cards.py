"""Krumme10's cards (K1, K2): the double-sided card, its replay names and views, the deck.

A card is stored as it lies (top side, down side, pink flags, whether the down
side was seen); observations show only what is visible (`Card.view`), and
replays name a card top side first (`Card.name`, `parse_card`). An `Entry` is a
card of the display with who played it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from operator import attrgetter
from typing import Any, NamedTuple

from arena.games.base import JSON

#: K1: the six kinds of card (unordered side pairs), nine copies of each.
PAIRS: tuple[tuple[int, int], ...] = ((0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0))
COPIES = 9
DECK_SIZE = len(PAIRS) * COPIES
#: K1 (variant pink4): the 4 of two 3|4 cards and of two 4|5 cards is pink.
PINK_COPIES = 2


class Card(NamedTuple):
    """A card as it lies now: top and down side, pink flags, whether the down side was seen."""

    top: int
    down: int
    top_pink: bool = False
    down_pink: bool = False
    known: bool = False

    def flipped(self) -> Card:
        """The card turned over; both sides are now known to everybody (K2)."""
        return Card(self.down, self.top, self.down_pink, self.top_pink, True)

    def face(self) -> tuple[int, bool]:
        """The visible face: top value and whether it is a pink 4."""
        return (self.top, self.top_pink)

    def kind(self) -> tuple[tuple[int, bool], tuple[int, bool]]:
        """The physical card regardless of which side is up (for conservation checks)."""
        a, b = (self.top, self.top_pink), (self.down, self.down_pink)
        return (a, b) if a <= b else (b, a)

    def name(self) -> str:
        """Replay name, top side first: ``"3/4"``, ``"4p/5"`` (p = pink 4).

        >>> Card(4, 5, top_pink=True).name()
        '4p/5'
        """
        return (
            f"{self.top}{'p' if self.top_pink else ''}/{self.down}{'p' if self.down_pink else ''}"
        )

    def view(self) -> dict[str, Any]:
        """What everybody sees of the card: the top side, a seen down side, a visible pink 4."""
        pink = "top" if self.top_pink else "down" if self.known and self.down_pink else None
        return {"top": self.top, "down": self.down if self.known else None, "pink": pink}


#: `Card.face` as a C-level key: a hand is sorted by what is visible only, so the
#: order leaks nothing (R2).
FACE: Callable[[Card], tuple[int, bool]] = attrgetter("top", "top_pink")
TOP: Callable[[Card], int] = attrgetter("top")


class _ViewCache(dict[Card, dict[str, Any]]):
    """`Card.view` of every card seen so far (a few dozen distinct ones): do not mutate."""

    def __missing__(self, card: Card) -> dict[str, Any]:
        view = self[card] = card.view()
        return view


VIEWS = _ViewCache()


class Entry(NamedTuple):
    """A card of the display, with who played it and whether it came flipped or stolen."""

    card: Card
    by: int
    flipped: bool
    stolen_from: int | None


@lru_cache(maxsize=64)  # a deck has a dozen or so names; errors are not cached
def parse_card(name: str) -> Card:
    """A card from its replay name (``"3/4"``, ``"4p/5"``); ValueError if malformed.

    >>> parse_card("5/4p")
    Card(top=5, down=4, top_pink=False, down_pink=True, known=False)
    """
    sides = name.split("/")
    if len(sides) != 2:
        raise ValueError(f"bad card name {name!r}")
    values = []
    for side in sides:
        pink = side.endswith("p")
        value = int(side[:-1] if pink else side)
        if not 0 <= value <= 5 or (pink and value != 4):
            raise ValueError(f"bad card name {name!r}")
        values.append((value, pink))
    return Card(values[0][0], values[1][0], values[0][1], values[1][1])


def full_deck(pink4: bool) -> list[Card]:
    """K1: the 54 cards (side a up), with the pink 4s when `pink4` is on."""
    cards = []
    for a, b in PAIRS:
        for copy in range(COPIES):
            pink = pink4 and copy < PINK_COPIES and 4 in (a, b)
            cards.append(Card(a, b, pink and a == 4, pink and b == 4))
    return cards


#: One side of a card: its value and whether it is a pink 4.
Side = tuple[int, bool]
#: A physical card whichever side is up: its two sides, ascending.
Kind = tuple[Side, Side]


def kinds(cards: Iterable[Card]) -> Counter[Kind]:
    """The multiset of physical cards, whichever side is up."""
    return Counter(c.kind() for c in cards)


@lru_cache(maxsize=2)
def deck_cards(pink4: bool) -> tuple[Card, ...]:
    """`full_deck`, built once."""
    return tuple(full_deck(pink4))


@lru_cache(maxsize=2)
def deck_kinds(pink4: bool) -> Counter[Kind]:
    """The physical cards of the whole deck (do not mutate: it is shared)."""
    return kinds(deck_cards(pink4))


def side_name(value: int, pink: bool) -> JSON:
    """A side as the search places list it: the value, or ``"4p"`` for a pink 4."""
    return "4p" if pink else value


@lru_cache(maxsize=64)
def name_lying(card: Card, flipped: bool) -> str:
    """The name of `card` turned over or not (names never show whether a side was seen)."""
    return (card.flipped() if flipped else card).name()


def card_from_view(view: Mapping[str, Any]) -> Card:
    """A card as an observation shows it; an unseen down side is the placeholder -1."""
    pink = view["pink"]
    if view["down"] is None:
        return Card(view["top"], -1, pink == "top")
    return Card(view["top"], view["down"], pink == "top", pink == "down", True)


@lru_cache(maxsize=16)
def lying(kind: Kind) -> tuple[Card, Card]:
    """A physical card lying with either side up, its down side unseen."""
    (a, a_pink), (b, b_pink) = kind
    return Card(a, b, a_pink, b_pink), Card(b, a, b_pink, a_pink)
