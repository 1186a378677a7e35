"""LEYLO (``leylo``): 4x4 grids of face-down cards, lines, jokers and action-card claims.

The package splits the referee into the deck table (`cards`) and the rules
(`game`); the rules page for bot authors is ``protocol/games/leylo.md``.
"""

from __future__ import annotations

from arena.games.leylo.game import Leylo

__all__ = ["Leylo"]
