"""Krumme10's observation, built from parts kept between calls.

An observation lists every card outside the pile as a small dict (`Card.view`),
and rebuilding all of them was most of the referee's time in a match. Each card
list of the observation (a hand, the display, the cards being taken, the
discard pile, a points pile) is kept here as the list of card views it showed
last, with a copy of the cards it was built from. It is rebuilt only when those
cards changed, which a list comparison tells cheaply (unchanged cards are the
same objects, so it compares pointers). The kept views are shared and never
handed out: every observation gets fresh copies, so a caller may change it.

The check is by content, not by tracking which move changed what, so a state
changed from outside (a test, `_determinize`) is seen right as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.games.krumme10.cards import FACE, TOP, VIEWS, Card, Entry

#: A card's view, e.g. ``{"top": 3, "down": None, "pink": None}`` (shared: copy it).
View = dict[str, Any]
_copy = dict.copy


class CardList:
    """The views of one card list as last built; `copies` hands out fresh ones."""

    __slots__ = ("cards", "total", "views")

    def __init__(self) -> None:
        self.cards: list[Card] = []
        self.views: list[View] = []
        #: The sum of the cards' top sides (a points pile's score).
        self.total = 0

    def update(self, cards: list[Card], sort: bool = False) -> CardList:
        """Rebuild the views if `cards` changed since the last call (sorted by face if asked)."""
        if cards != self.cards:
            self.cards = list(cards)
            shown = sorted(cards, key=FACE) if sort else cards
            self.views = [VIEWS[card] for card in shown]
            self.total = sum(map(TOP, cards))
        return self

    def copies(self) -> list[View]:
        """Fresh copies of the views (the caller may change them)."""
        return list(map(_copy, self.views))


class DisplayList:
    """The display's entries as JSON objects as last built; `copies` hands out fresh ones."""

    __slots__ = ("entries", "views")

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.views: list[View] = []

    def update(self, entries: list[Entry]) -> DisplayList:
        """Rebuild the entries' JSON if the display changed since the last call."""
        if entries != self.entries:
            self.entries = list(entries)
            self.views = [
                {
                    "card": VIEWS[e.card],
                    "by": e.by,
                    "flipped": e.flipped,
                    "stolen_from": e.stolen_from,
                }
                for e in entries
            ]
        return self

    def copies(self) -> list[View]:
        """Fresh copies of the entries, each with a fresh card view."""
        return [{**view, "card": view["card"].copy()} for view in self.views]


class ObservedParts:
    """Every card list of a Krumme10 observation, each kept until its cards change."""

    __slots__ = ("discard", "display", "hands", "points", "to_take")

    def __init__(self, players: int) -> None:
        self.display = DisplayList()
        self.to_take = CardList()
        self.discard = CardList()
        self.hands = [CardList() for _ in range(players)]
        self.points = [CardList() for _ in range(players)]

    def hand_views(self, hands: Sequence[list[Card]]) -> list[list[View]]:
        """Every hand's views, sorted by what is visible only (R2), fresh copies."""
        return [
            kept.update(hand, sort=True).copies()
            for kept, hand in zip(self.hands, hands, strict=True)
        ]

    def point_views(self, points: Sequence[list[Card]]) -> list[list[View]]:
        """Every points pile's views, fresh copies."""
        return [kept.update(pile).copies() for kept, pile in zip(self.points, points, strict=True)]

    def scores(self, points: Sequence[list[Card]]) -> list[int]:
        """K4: the top sides of every points pile."""
        return [kept.update(pile).total for kept, pile in zip(self.points, points, strict=True)]
