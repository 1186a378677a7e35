"""Krumme10's decisions as the referee handles them: every possible `Move`, built once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.games.base import Decision


@dataclass(frozen=True, slots=True)
class Move:
    """A decision as the referee handles it; every possible one is built once (below).

    `top` is -1 when the decision names no card, `victim` (the robbed seat of a steal)
    is -1 for any other decision, `flip` is None where the decision has none.
    """

    action: str
    top: int = -1
    pink: bool = False
    flip: bool | None = None
    victim: int = -1
    #: The decision as JSON, keys in the order the rules page shows (built once).
    json: Decision = field(init=False, repr=False, compare=False)
    #: The decision's items sorted by name: a name of it that ignores key order (a
    #: search's key of a decision, see `Krumme10._legal_keys`).
    key: tuple[tuple[str, Any], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Build `json` once: legal lists copy it for every decision they offer."""
        decision: Decision = {"action": self.action}
        if self.victim >= 0:
            decision["from"] = self.victim
        if self.top >= 0:
            decision["top"] = self.top
        if self.pink:
            decision["pink"] = True
        if self.flip is not None:
            decision["flip"] = self.flip
        object.__setattr__(self, "json", decision)
        object.__setattr__(self, "key", tuple(sorted(decision.items())))

    def decision(self) -> Decision:
        """A fresh copy of the decision as JSON (the caller may change it)."""
        return {**self.json}

    @staticmethod
    def of(decision: Decision) -> Move:
        """The move of a legal decision (JSON numbers and booleans compare alike)."""
        own = _BY_JSON.get(id(decision))  # a move's own `json` (see `Krumme10._legal_keys`)
        if own is not None:
            return own
        key = (
            decision["action"],
            decision.get("top", -1),
            bool(decision.get("pink", False)),
            decision.get("flip"),
            decision.get("from", -1),
        )
        return _MOVES[key]


#: Every visible face a card can show: the values, and the pink 4 (variant pink4).
FACES: tuple[tuple[int, bool], ...] = (*((value, False) for value in range(6)), (4, True))
#: Per face: playing it top side up, then flipped (so the legal list reads).
PLAYS = {face: (Move("play", *face, False), Move("play", *face, True)) for face in FACES}
#: Per face: scoring it as it lies, then flipped.
SCORES = {face: (Move("score", *face, False), Move("score", *face, True)) for face in FACES}
#: Per (victim, face): stealing a card showing that face from that seat (seats 0..5).
STEALS = {(seat, face): Move("steal", *face, None, seat) for seat in range(6) for face in FACES}
#: Taking the card as it lies, then flipped; passing (no steal, or no scoring).
TAKES = (Move("take", flip=False), Move("take", flip=True))
PASS = Move("pass")
_MOVES: dict[tuple[Any, ...], Move] = {
    (move.action, move.top, move.pink, move.flip, move.victim): move
    for move in (
        *(move for pair in PLAYS.values() for move in pair),
        *(move for pair in SCORES.values() for move in pair),
        *STEALS.values(),
        *TAKES,
        PASS,
    )
}

#: Every move by the id of its own `json` (moves live as long as the module: no other
#: object can have one of these ids).
_BY_JSON: dict[int, Move] = {id(move.json): move for move in _MOVES.values()}
