"""A seat's result: the one shape a seat has from the worker that played it to the
store that keeps it.

`run_match` (arena.match.run) fills one per seat; the tournament runner hands the very
objects to the store (arena.store's `MatchRecord.seats`, where the type is also named
`SeatRecord`), which sets `before` and `after` when it rates the match and keeps the
tail of `stderr` (its table is arena.store.models.MatchSeat). This module imports
nothing but the ground, so that the store reads it without loading the match runner.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.skill import Skill
from arena.status import SeatStatus


@dataclass
class SeatResult:
    """One seat's result.

    `bot_version_id` is the stored version that played the seat (None for a bot
    that is not stored: `arena play`, `arena bot check`), `bot` its name as the
    match knew it. `before` and `after` are the seat's ratings around the match,
    set by the store when it rates it. A status given as its word (`"ok"`) is made
    its member here: a misspelt one fails at once.
    """

    seat: int
    bot_version_id: int | None
    score: float | None
    rank: int | None
    status: SeatStatus
    detail: str = ""
    stderr: str = ""
    before: Skill | None = None
    after: Skill | None = None
    bot: str = ""
    decisions: int = 0
    think_seconds: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.status, SeatStatus):  # a word: its member (ValueError: none)
            self.status = SeatStatus(self.status)
