"""What crosses the store's edge: the records callers hand it and the rows it gives back.

Plain values, no SQL: a rating (`Skill`, from arena.skill), a finished match and its
seats as the tournament runner records them, a suspension, a leaderboard row. A seat is
the worker's own `SeatResult` (arena.match.results), which the store takes as it comes
(and names `SeatRecord` too). Statuses are arena.status members (a caller's word,
`"ok"`, is made the member on the way in: a misspelt one fails here, not in a query).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from arena.match.results import SeatResult
from arena.skill import Skill
from arena.status import MatchStatus

__all__ = [
    "Inherit",
    "LeaderRow",
    "MatchRecord",
    "Rater",
    "SeatRecord",
    "SeatResult",
    "Skill",
    "SuspensionRecord",
]

#: What rates one match: the seats' skills before -> after (arena.results.rating.rate, bound).
Rater = Callable[[list[Skill]], list[Skill]]
#: Where a bot's new version starts: from its predecessor's rating at the same game and
#: rules version (arena.results.rating.inherited).
Inherit = Callable[[Skill], Skill]


#: A seat as the store records it: the very result the worker sent (see arena.match.results).
SeatRecord = SeatResult


@dataclass
class MatchRecord:
    """What the coordinator stores for one finished (or suspended) match."""

    match_id: int
    status: MatchStatus
    seats: list[SeatResult]
    error: str = ""
    seconds: float = 0.0
    replay: str | None = None
    rated: bool = field(default=False)

    def __post_init__(self) -> None:
        if not isinstance(self.status, MatchStatus):  # a word: its member (ValueError: none)
            self.status = MatchStatus(self.status)


@dataclass(frozen=True)
class SuspensionRecord:
    """A bot version suspended from a tournament by the match whose forfeit made its
    forfeits in a row reach the tournament's limit (`forfeits`: that streak's length)."""

    version_id: int
    match_id: int
    forfeits: int


@dataclass
class LeaderRow:
    """One line of a leaderboard."""

    bot: str
    version: int
    bot_version_id: int
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    score_sum: float = 0.0
    forfeits: int = 0
    #: Of the wins, those where the first place was shared with a rival (a tie).
    shared_wins: int = 0

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: the sort key."""
        return self.mu - 3 * self.sigma

    @property
    def average_score(self) -> float | None:
        """Mean final score over the games counted."""
        return self.score_sum / self.games if self.games else None
