"""What the Twirkle referee shares with its helpers: the rules' numbers and its state's interface.

The numbers are the ones both the referee (`game`) and the compiled turns (`fast`)
play by. `TwirkleState` is the referee as the random playouts (`playout`, `fast`)
and search support (`sampling`) see it: a Protocol that `game.Twirkle` implements,
so none of them imports the referee, and the referee imports all three. Its fields
are the referee's own (see `Twirkle`); its methods are the referee's public but
internal steps (not for bots, which see only observations), each the very code a
decision runs. The package docstring says who may call what, and why that is safe.
"""

from __future__ import annotations

from typing import Any, Protocol

from arena.games.base import Chance, Decision
from arena.games.twirkle.board import Board, Cell
from arena.games.twirkle.shifting import ShiftStarts

#: W7: the bonus of the first player out of cards.
OUT_BONUS = 6
#: T11 (ruling W9), the idle guard against endless exchanging (the rulebook has none):
#: the game ends like the all-pass end after IDLE_ROUNDS * players consecutive turns
#: without a placement. A safeguard that random play almost never reaches (version 3;
#: versions 1 and 2 had 5, which ended games the rulebook plays on).
IDLE_ROUNDS = 30
#: A turn takes at most 22 decisions (6 picks, 6 places and end_placing, then at most
#: 4 lifts, 4 puts and end_turn), rounded up to 25.
TURN_DECISIONS = 25
#: T13: at most 108 placing turns with fewer than IDLE_ROUNDS * 4 idle turns before,
#: between and after them, `TURN_DECISIONS` each.
MAX_DECISIONS = 110 * (IDLE_ROUNDS * 4 + 1) * TURN_DECISIONS
#: The chance draw of the bag's new order after an exchange (W5).
EXCHANGE_DRAW = "bag after exchange"


class TwirkleState(Protocol):
    """The fields of a Twirkle match and the steps a whole-turn playout may take on them."""

    # From `Game`.
    players: int
    chance: Chance
    history: list[tuple[int, Decision]]
    # The match and the turn under way (see `Twirkle`).
    hands: list[list[int]]
    bag: list[int]
    board: Board
    scores: list[int]
    current: int
    phase: str
    start_seat: int
    opening_size: int
    placed_cells: list[Cell]
    placed_kinds: list[int]
    picked: int | None
    selected: list[int]
    exchanged: int
    turn_action: str
    turn_points: int
    shift_source: list[Cell]
    shift_direction: int | None
    shift_last: Cell | None
    lifted: tuple[int, Cell] | None
    pending_puts: list[int]
    moved: int
    returner: int | None
    returned: list[int]
    passes: int
    idle: int
    turns: int
    last_turns: list[dict[str, Any] | None]
    end: dict[str, Any] | None

    # ----- steps: each changes the state as one decision (or its automatic end) does -----
    def place(self, kind: int, cell: Cell) -> None:
        """The decision ``place`` of the picked card `kind` (``picked`` set) on `cell`."""

    def finish_placing(self) -> None:
        """The decision ``end_placing`` (also what the referee takes when no card fits)."""

    def finish_exchange(self) -> None:
        """The decision ``end_exchange`` (also taken at the exchange's cap)."""

    def lift(self, cell: Cell) -> None:
        """The decision ``lift`` of `cell`."""

    def put(self, end: int) -> None:
        """The decision ``put`` at the line end `end` (one of ``pending_puts``)."""

    def end_turn(self) -> None:
        """The decision ``end_turn`` (also taken when no card may move)."""

    # ----- facts: what the legal lists are made of; nothing changes -----
    def exchange_cap(self) -> int:
        """How many cards the exchange under way may set aside in all (W5)."""

    def shift_starts(self) -> ShiftStarts:
        """The leaves that can start a shift on the board as it is (cached per board)."""

    def next_put(self) -> Cell | None:
        """The cell the source line's next card would go to, or None if it cannot move."""
