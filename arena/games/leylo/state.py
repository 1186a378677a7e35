"""The LEYLO referee as its helpers see it: the state's fields and the internal steps.

`LeyloState` is a Protocol that `game.Leylo` implements; the fast random playout
(`playout`) and search support (`search`) take a state typed by it, so neither
imports the referee, and the referee imports both. The fields are the referee's
own (see `Leylo` for their meaning). The methods are the referee's public but
internal steps and facts (not for bots, which see only observations): each is one
piece of a rule exactly as a decision applies it, so a caller that reaches a state
only through them, choosing among what the legal list would offer, leaves the
state as the same decisions through `Game.apply` would. The package docstring
says who may call what.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from arena.games.base import Decision


class LeyloState(Protocol):
    """The fields of a LEYLO match and the steps a fast playout may take on them."""

    # From `Game`.
    players: int
    history: list[tuple[int, Decision]]
    # The match and the round (see `Leylo`).
    round_no: int
    totals: list[int]
    results: list[dict[str, Any]]
    dealer: int
    start_seat: int | None
    cards: list[list[int]]
    up: list[list[bool]]
    pile: list[int]
    discard: list[int]
    pile_known: bool
    phase: str
    flips: list[int]
    current: int
    turns: int
    ender: int | None
    final_left: int
    held: int | None
    held_source: str | None
    actor: int
    clear_context: str
    next_seat: int
    claimant: int
    claim_queue: list[int]

    def to_move(self) -> list[int]:
        """The seats that must decide now, in the order their decisions apply."""

    # ----- steps: each changes the state as one decision (or its tail) does -----
    def flip(self, seat: int, cell: int) -> None:
        """The decision ``flip`` of `cell`."""

    def draw(self, source: str) -> None:
        """The decision ``draw`` from `source` ("pile" or "discard") by the current seat."""

    def place(self, seat: int, cell: int, replace: bool) -> None:
        """The held card into `cell` (``replace``) or discarded (``discard``, `cell` turned
        up); the caller goes on with `after_action`."""

    def claim(self, seat: int, cell: int) -> None:
        """The decision ``claim`` into `cell`; the caller goes on with `after_action`."""

    def after_action(self, seat: int, context: str) -> None:
        """What follows a turn's action (`context` "turn") or a claim ("claim")."""

    def end_turn(self) -> None:
        """What follows a turn's action that leaves no line to clear."""

    def offer_claim(self) -> None:
        """The decision ``pass`` of a claim gap."""

    def clear_line(self, seat: int, index: int) -> None:
        """The decision ``clear`` of the line LINES[index]."""

    def go_on(self, context: str) -> None:
        """The decision ``keep`` (with `context` = the state's ``clear_context``)."""

    # ----- facts: what the legal lists are made of; nothing changes -----
    def face_down_count(self, seat: int) -> int:
        """Number of face-down cards in the grid of `seat`."""

    def face_down_cells(self, seat: int) -> list[int]:
        """The face-down cells of the grid, ascending."""

    def filled_cells(self, seat: int) -> Sequence[int]:
        """The non-empty cells of the grid, ascending."""

    def swap_pairs(self, seat: int) -> Sequence[tuple[int, int]]:
        """The pairs of cells a turn may swap, ascending."""

    def claim_cells(self, seat: int) -> list[int]:
        """The cells a claim may exchange, ascending."""

    def line_indexes(self, seat: int, mask: int | None = None) -> list[int]:
        """Indexes into LINES of the lines that may be cleared now (`mask`: the grid's
        face-up mask, when the caller keeps it)."""

    def has_line(self, seat: int, mask: int | None = None) -> bool:
        """True when the grid holds a line that may be cleared now."""
