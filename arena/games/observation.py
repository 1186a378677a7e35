"""One observation envelope for every game (protocol 2), and version 1 made from it.

A referee's `_observe` returns its game's typed envelope (a TypedDict declared next
to the referee, in its views module): the same keys in every game,

- ``seat``: the seat the observation is for (0-based);
- ``players``: the number of players;
- ``phase``: what is being asked now, one of the game's documented names (its last
  one, ``over``, once the game has ended);
- ``to_move``: the seats that must decide now, always a list (empty once over);
- ``scores``: the running public score of every seat, by seat;
- ``game``: everything else the seat knows, in the game's own fields.

`Game.observation` hands out that envelope. `Game.observe` hands out the version-1
observation that every bot written before protocol 2 reads, and makes it from the
envelope with `to_v1`, the one adapter: a game declares, as data, which version-1
key comes from which key of the envelope (`V1Layout`), and no referee has a second
way to build an observation.

The envelope's models carry the JSON Schema facts of every field (`Field`, `Named`),
from which `arena.games.schemas` writes ``protocol/games/<game>.observation.*``
(``scripts/gen_schemas.py``). Only the standard library is used: bots import this.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: The keys of every envelope, in order.
ENVELOPE_KEYS = ("seat", "players", "phase", "to_move", "scores", "game")
#: The envelope's keys that are not the game's own fields.
COMMON_KEYS = ENVELOPE_KEYS[:-1]
#: A version-1 ``to_move`` that is one seat or null (three games), not a list (LEYLO).
ONE_SEAT = "one seat"


class Field:
    """JSON Schema facts of a type, for ``Annotated[T, Field("text", minimum=0)]``.

    `description` is what a bot author reads; `keywords` are JSON Schema keywords as
    they are spelt there (``minItems``, ``pattern``, ``not``).
    """

    __slots__ = ("description", "keywords")

    def __init__(self, description: str | None = None, **keywords: Any) -> None:
        self.description = description
        self.keywords = keywords

    def __repr__(self) -> str:
        return f"Field({self.description!r}, **{self.keywords!r})"


@dataclass(frozen=True)
class Named:
    """Marks a type as one definition of the schema (``$defs``), referred to by name.

    In ``Annotated[T, Field(...), Named("card"), Field(...)]`` the facts before the
    name belong to the definition, those after it to the place that uses it.
    """

    name: str


@dataclass(frozen=True)
class V1Layout:
    """How a game's version-1 observation is made from its envelope: data, not code.

    `keys` are the version-1 keys in their order; each is a key of the envelope (a
    common one, or one of `renamed`'s) or else a field of ``game``. `to_move` is
    `ONE_SEAT` when version 1 gives one seat or null (its type, with its description,
    is `to_move_type`), None when it gives the list as version 2 does.
    """

    keys: tuple[str, ...]
    #: version-1 key -> the envelope's key it comes from (LEYLO's totals are its scores).
    renamed: Mapping[str, str] = field(default_factory=dict)
    to_move: str | None = ONE_SEAT
    #: The type of a version-1 ``to_move`` of one seat (``Annotated[int | None, ...]``).
    to_move_type: Any = None


@dataclass(frozen=True)
class ObservationModel:
    """A game's observation: its typed envelope, its schema text and its version-1 layout."""

    game: str
    #: The schemas' title and description (version 1 and 2 alike).
    title: str
    description: str
    #: The game's envelope, a TypedDict with exactly `ENVELOPE_KEYS`; its ``game`` key's
    #: type is the TypedDict of the game's own fields.
    envelope: type
    v1: V1Layout
    #: (version-1 key, where from): "game" for a game field, else the envelope key.
    plan: tuple[tuple[str, str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        renamed = self.v1.renamed
        plan = tuple(
            (key, renamed.get(key, key if key in COMMON_KEYS else "game")) for key in self.v1.keys
        )
        object.__setattr__(self, "plan", plan)


_MODELS: dict[str, ObservationModel] = {}


def register(model: ObservationModel) -> ObservationModel:
    """Make `model` the observation of its game (once); returns it."""
    if model.game in _MODELS:
        raise ValueError(f"an observation model for {model.game!r} is registered twice")
    _MODELS[model.game] = model
    return model


def model(game_id: str) -> ObservationModel:
    """The observation model of a registered game."""
    try:
        return _MODELS[game_id]
    except KeyError:
        known = ", ".join(sorted(_MODELS))
        raise KeyError(f"no observation model for {game_id!r} (models: {known})") from None


def is_envelope(observation: Mapping[str, Any]) -> bool:
    """True when `observation` is a version-2 envelope (exactly its keys), not version 1."""
    return len(observation) == len(ENVELOPE_KEYS) and all(k in observation for k in ENVELOPE_KEYS)


def to_v1(game_id: str, envelope: Mapping[str, Any]) -> dict[str, Any]:
    """The version-1 observation of `game_id` made from a version-2 `envelope`.

    The result shares the envelope's values (lists, objects): copy it to change both.
    """
    layout = _MODELS[game_id]
    fields = envelope["game"]
    one_seat = layout.v1.to_move == ONE_SEAT
    result: dict[str, Any] = {}
    for key, source in layout.plan:
        if source == "game":
            result[key] = fields[key]
        elif source == "to_move" and one_seat:
            moving = envelope["to_move"]
            result[key] = moving[0] if moving else None
        else:
            result[key] = envelope[source]
    return result
