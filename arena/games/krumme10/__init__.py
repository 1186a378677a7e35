"""Krumme10 (``krumme10``): double-sided cards, a shared display that should add up to 10.

The package splits the referee by concern: the cards, their names, views and
the deck (`cards`), every decision as a prebuilt move (`moves`), the exact
counting and sampling of the deals consistent with what is visible (`sampling`,
for search support), and the rules (`game`); the rules page for bot authors is
``protocol/games/krumme10.md``.
"""

from __future__ import annotations

from arena.games.krumme10.cards import (
    DECK_SIZE,
    Card,
    Entry,
    Kind,
    Side,
    full_deck,
    kinds,
    parse_card,
)
from arena.games.krumme10.game import Krumme10
from arena.games.krumme10.sampling import Undersides

__all__ = [
    "DECK_SIZE",
    "Card",
    "Entry",
    "Kind",
    "Krumme10",
    "Side",
    "Undersides",
    "full_deck",
    "kinds",
    "parse_card",
]
