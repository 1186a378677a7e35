"""Twirkle, the tile-laying card game (ids, rules and referee in small modules).

`cards` holds the 108 cards and the line rule as bit masks, `board` the
unbounded layout with its incrementally kept frontier, leaves, line ends and
masks, `shifting` the end-of-turn shift (W6), `moves` the compact decisions the
referee lists and plays, `game` the referee itself, `playout` its random
playouts a whole turn at a time (`fast`: the same turns in C, by the optional
compiled `_engine`), and `sampling` what search needs: the hidden places and
states drawn from one seat's observation.
"""

from arena.games.twirkle.game import Twirkle

__all__ = ["Twirkle"]
