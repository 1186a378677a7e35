"""LEYLO's observation, built from parts kept between calls.

Between two decisions at most the mover's grid and the top of the discard pile
change, yet every observation shows every grid and the whole discard pile: building
them anew was most of the referee's time in a match. So each part is kept here as
last built, with a copy of the cards it was built from, and built again only when
those changed. A list comparison tells that cheaply (equal small ints are the same
objects), and it is a check by content, not by tracking which move changed what,
so a state changed from outside (a test, `_determinize`) is shown right as well.

The kept parts are never handed out: every observation gets fresh copies, so a
caller may change it. Each part is replaced as one tuple, never changed in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import compress
from operator import ne
from typing import Any

from arena.games.leylo.cards import EMPTY, NAMES

#: What a grid cell shows when face up, by code (EMPTY, -1, is "empty").
SHOWN: tuple[str, ...] = (*NAMES, "empty")
HIDDEN = "hidden"
#: (cards, up, what everybody sees, face-down cards) of every grid, by seat.
GridParts = tuple[list[list[int]], list[list[bool]], list[list[str]], list[int]]
_name = NAMES.__getitem__


class ViewParts:
    """The parts of a state's observation as last built, for one state (not its clones)."""

    __slots__ = ("discard", "grids", "known")

    def __init__(self) -> None:
        #: The grids' parts as last built (GridParts).
        self.grids: GridParts = ([], [], [], [])
        #: (codes, names) of the discard pile, bottom first.
        self.discard: tuple[list[int], list[str]] = ([], [])
        #: (codes, sorted names) of the last public draw pile shown (L9).
        self.known: tuple[list[int], list[str]] = ([], [])

    def grid_views(
        self, cards: list[list[int]], up: list[list[bool]]
    ) -> tuple[list[list[str]], list[int]]:
        """What everybody sees of every grid, and its face-down cards (kept: copy them).

        Two comparisons tell that no grid changed; else only changed grids are rebuilt.
        """
        kept = self.grids
        if cards != kept[0] or up != kept[1]:
            kept = self.grids = _rebuilt(kept, cards, up)
        return kept[2], kept[3]

    def discard_names(self, codes: list[int]) -> list[str]:
        """The discard pile's card names, bottom first (kept: copy).

        The pile changes at its top: a card or a cleared line put on it, the top taken,
        or both (a claim). So the names of the unchanged part below are kept.
        """
        kept_codes, names = self.discard
        if codes != kept_codes:
            stem = min(len(codes), len(kept_codes))
            if codes[:stem] != kept_codes[:stem]:
                stem -= 1  # a claim took the top and put another card there
                if stem <= 0 or codes[:stem] != kept_codes[:stem]:
                    stem = 0  # a new round or a reshuffle
            names = names[:stem]
            names += map(_name, codes[stem:])
            self.discard = (list(codes), names)
        return names

    def known_names(self, codes: list[int]) -> list[str]:
        """The sorted names of public draw-pile cards (kept: copy)."""
        kept_codes, names = self.known
        if codes != kept_codes:
            names = list(map(_name, sorted(codes)))
            self.known = (codes, names)
        return names


def _rebuilt(kept: GridParts, cards: list[list[int]], up: list[list[bool]]) -> GridParts:
    """The grid parts for `cards` and `up`: the kept ones of unchanged grids (usually all
    but the mover's), new ones for the others (all of them after a new deal)."""
    seats = range(len(cards))
    if len(kept[0]) != len(cards):  # nothing built yet: every grid differs from []
        kept = ([[]] * len(cards), [[]] * len(cards), [[]] * len(cards), [0] * len(cards))
    # New outer lists (the kept ones are shared), holding the kept grids' parts.
    kept_cards, kept_up = list(kept[0]), list(kept[1])
    kept_shown, kept_down = list(kept[2]), list(kept[3])
    # The seats whose cards or face states changed, found by C-level loops.
    changed = {*compress(seats, map(ne, cards, kept_cards)), *compress(seats, map(ne, up, kept_up))}
    for seat in changed:
        grid, face_up = cards[seat], up[seat]
        kept_cards[seat], kept_up[seat] = list(grid), list(face_up)
        kept_shown[seat] = [
            SHOWN[code] if is_up or code == EMPTY else HIDDEN
            for code, is_up in zip(grid, face_up, strict=True)
        ]
        kept_down[seat] = face_up.count(False) - grid.count(EMPTY)  # an empty cell is never up
    return kept_cards, kept_up, kept_shown, kept_down


def copy_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """A round result with its own lists, so that a caller may change it."""
    return {
        **result,
        "points": list(result["points"]),
        "scores": list(result["scores"]),
        "grids": list(map(list, result["grids"])),
    }
