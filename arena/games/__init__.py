"""The registry of games: one explicit line per game, loud on a duplicate or an unknown id.

Adding a game means one module in this package, one rules page in
`protocol/games/`, its tests, and one `register` line below.
"""

from __future__ import annotations

from arena.games.base import (
    Chance,
    Decision,
    Game,
    GameError,
    GameSpec,
    IllegalDecision,
    Outcome,
    VariantError,
    VariantOption,
)
from arena.games.krumme10 import Krumme10
from arena.games.leylo import Leylo
from arena.games.take_that import TakeThat
from arena.games.twirkle import Twirkle

__all__ = [
    "Chance",
    "Decision",
    "Game",
    "GameError",
    "GameSpec",
    "IllegalDecision",
    "Outcome",
    "UnknownGameError",
    "VariantError",
    "VariantOption",
    "all_games",
    "load_game",
    "register",
]


class UnknownGameError(GameError):
    """No game is registered under the requested id."""


_REGISTRY: dict[str, type[Game]] = {}


def register(game: type[Game]) -> None:
    """Add a game class to the registry; a second game with the same id is an error."""
    if game.spec.id in _REGISTRY:
        raise ValueError(f"game {game.spec.id!r} is registered twice")
    _REGISTRY[game.spec.id] = game


def load_game(game_id: str) -> type[Game]:
    """The game class registered as `game_id`, or UnknownGameError naming the valid ids."""
    try:
        return _REGISTRY[game_id]
    except KeyError:
        valid = ", ".join(sorted(_REGISTRY))
        raise UnknownGameError(f"unknown game {game_id!r} (games: {valid})") from None


def all_games() -> list[type[Game]]:
    """Every registered game class, sorted by id."""
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


# The registry: one line per game.
register(Krumme10)
register(Leylo)
register(TakeThat)
register(Twirkle)
