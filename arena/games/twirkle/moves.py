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
        return card_decision(action, move[1])
    if action == "place":
        return place_decision(move[1], move[2])
    if action == "lift":
        return lift_decision(move[1])
    if action == "put":
        return put_decision(move[1])
    return {"action": action}


# The decisions by action, for `decision_of` and the random playout (which has no moves).
def card_decision(action: str, kind: int) -> Decision:
    """A ``pick`` or ``exchange`` of a card of `kind`."""
    return {"action": action, "card": NAMES[kind]}


def place_decision(kind: int, cell: Cell) -> Decision:
    """The ``place`` of the picked card of `kind` on `cell`."""
    x, y = decode(cell)
    return {"action": "place", "card": NAMES[kind], "x": x, "y": y}


def lift_decision(cell: Cell) -> Decision:
    """The ``lift`` of the card on `cell`."""
    x, y = decode(cell)
    return {"action": "lift", "x": x, "y": y}


def put_decision(end: int) -> Decision:
    """The ``put`` of the lifted card at the line end `end` (see `board.end_of`)."""
    x, y = decode(end >> 2)
    return {"action": "put", "x": x, "y": y, "direction": STEP_NAME[RANK_STEP[end & 3]]}


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
