"""LEYLO (``leylo``): 4x4 grids of face-down cards, lines, jokers and action-card claims.

The package splits the referee into the deck table and grid facts (`cards`), the
rules (`game`), every decision it can offer, built once and shared (`decisions`),
the observation's parts kept between calls (`views`), search support (`search`:
hidden places and states sampled from an observation), the fast random playout
(`playout`) and exact cheaper draws from a generator (`draws`); the rules page for
bot authors is ``protocol/games/leylo.md``.
"""

from __future__ import annotations

from arena.games.leylo.game import Leylo

__all__ = ["Leylo"]
