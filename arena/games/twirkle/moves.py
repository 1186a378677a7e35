"""Decisions in compact form: what the referee lists, applies and plays out.

A move is a tuple: ``("pick", kind)``, ``("place", kind, cell)``, ``("exchange", kind)``,
``("lift", cell)``, ``("put", end)`` (a line end, see `board.end_of`), or ``(action,)``
for the rest. Building the JSON decision only for the move a seat makes keeps random
playouts cheap; the legal list a bot sees is these moves turned into decisions, in the
same order.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import Decision
from arena.games.twirkle.board import (
    DIRECTIONS,
    RANK_STEP,
    STEP_NAME,
    STEP_OF,
    Cell,
    decode,
    encode,
    end_of,
)
from arena.games.twirkle.cards import KIND_OF, NAMES

Move = tuple[Any, ...]
END_PLACING: Move = ("end_placing",)
END_EXCHANGE: Move = ("end_exchange",)
END_TURN: Move = ("end_turn",)
PASS: Move = ("pass",)
#: ``("pick", kind)`` and ``("exchange", kind)`` for every kind, built once: lists share them.
PICKS: tuple[Move, ...] = tuple(("pick", kind) for kind in range(len(NAMES)))
EXCHANGES: tuple[Move, ...] = tuple(("exchange", kind) for kind in range(len(NAMES)))


def decision_of(move: Move) -> Decision:
    """The JSON decision of a compact move."""
    action = move[0]
    if action == "pick" or action == "exchange":
        return {"action": action, "card": NAMES[move[1]]}
    if action == "place":
        x, y = decode(move[2])
        return {"action": "place", "card": NAMES[move[1]], "x": x, "y": y}
    if action == "lift":
        x, y = decode(move[1])
        return {"action": "lift", "x": x, "y": y}
    if action == "put":
        x, y = decode(move[1] >> 2)
        return {"action": "put", "x": x, "y": y, "direction": STEP_NAME[RANK_STEP[move[1] & 3]]}
    return {"action": action}


def move_of(decision: Decision) -> Move:
    """The compact move of a decision already checked to be legal."""
    action = decision["action"]
    if action == "pick" or action == "exchange":
        return (action, KIND_OF[decision["card"]])
    if action == "place":
        return ("place", KIND_OF[decision["card"]], _cell(decision))
    if action == "lift":
        return ("lift", _cell(decision))
    if action == "put":
        step = STEP_OF[DIRECTIONS[decision["direction"]]]
        return ("put", end_of(_cell(decision), step))
    return (action,)


def _cell(decision: Decision) -> Cell:
    """The integer cell a decision's x and y name."""
    return encode((int(decision["x"]), int(decision["y"])))


def describe(seat: int, decision: Decision) -> str:
    """One human line, e.g. 'seat 1 places red-star at (2, 0)'."""
    action = decision.get("action")
    if action == "pick":
        return f"seat {seat} picks {decision['card']} to place"
    if action == "place":
        return f"seat {seat} places {decision['card']} at ({decision['x']}, {decision['y']})"
    if action == "exchange":
        return f"seat {seat} puts {decision['card']} aside to exchange"
    if action == "lift":
        return f"seat {seat} lifts the card at ({decision['x']}, {decision['y']})"
    if action == "put":
        return (
            f"seat {seat} puts it at ({decision['x']}, {decision['y']}),"
            f" extending a line {decision['direction']}"
        )
    words = {
        "end_placing": "ends placing",
        "end_exchange": "ends the exchange",
        "pass": "passes",
        "end_turn": "ends the turn",
    }
    return f"seat {seat} {words.get(str(action), str(action))}"
