"""Every decision LEYLO can offer, built once and shared by all legal lists.

A legal list is the referee's own: callers read it and never change it (see
`Game.legal`), and a history only ever reads the decisions in it. So a decision
can be the same object in every state and every game, and `Leylo._legal` only
picks the ones that apply, where it used to build up to 26 new dicts per turn
(the random playout has shared its history entries this way all along). Each
legal list itself is still a new list.
"""

from __future__ import annotations

from arena.games.base import Decision
from arena.games.leylo.cards import ADJACENT, ALL_CELLS, LINES

#: By cell: turn it up in the opening, put the held card there, discard and turn it up,
#: exchange the face-up action card there for the top discard.
FLIPS: tuple[Decision, ...] = tuple({"action": "flip", "cell": cell} for cell in ALL_CELLS)
REPLACES: tuple[Decision, ...] = tuple({"action": "replace", "cell": cell} for cell in ALL_CELLS)
REVEALS: tuple[Decision, ...] = tuple({"action": "discard", "reveal": cell} for cell in ALL_CELLS)
CLAIMS: tuple[Decision, ...] = tuple({"action": "claim", "cell": cell} for cell in ALL_CELLS)
#: By index into LINES: clear that line.
CLEARS: tuple[Decision, ...] = tuple({"action": "clear", kind: index} for kind, index, _ in LINES)
KEEP: Decision = {"action": "keep"}
PASS: Decision = {"action": "pass"}

#: The draws a turn offers (L3, L9), by (draw pile not empty, discard not empty), pile first.
_PILE: Decision = {"action": "draw", "source": "pile"}
_DISCARD: Decision = {"action": "draw", "source": "discard"}
DRAWS: dict[tuple[bool, bool], tuple[Decision, ...]] = {
    (pile, discard): (_PILE,) * pile + (_DISCARD,) * discard
    for pile in (False, True)
    for discard in (False, True)
}
#: By index into ADJACENT: swap that pair; and by the pair itself.
SWAPS: tuple[Decision, ...] = tuple({"action": "swap", "cells": [a, b]} for a, b in ADJACENT)
SWAP_BY_PAIR: dict[tuple[int, int], Decision] = dict(zip(ADJACENT, SWAPS, strict=True))
