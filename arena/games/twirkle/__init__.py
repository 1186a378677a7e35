"""Twirkle, the tile-laying card game (ids, rules and referee in small modules).

`cards` holds the 108 cards and the line rule as bit masks, `board` the
unbounded layout with its cached per-cell masks, `shifting` the end-of-turn
shift (W6), and `game` the referee itself.
"""

from arena.games.twirkle.game import Twirkle

__all__ = ["Twirkle"]
