"""The suspension rule: a bot that forfeits N matches in a row sits out the rest.

N is the tournament's `suspend_after` (arena.tournament.settings; 0: never, as in an
`arena match` run). Seats are counted per bot version in schedule order as their
matches are recorded: a forfeit (any seat status but `ok`) adds one to the version's
streak, a seat played to the end clears it. A void match (arena's fault) counts for
nobody, nor does a match skipped because a bot of it is suspended. A suspended
version's later matches are recorded as skipped (`SeatStatus.SUSPENDED`) and a ladder
schedules no more for it.

This is the only place the rule is applied: a suspension is recorded with the match
that caused it (a `SuspensionRecord`, in the same transaction), and a resume and the
reports (arena.results.reports) read the records.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.match.run import MatchResult
from arena.status import VOID, SeatStatus
from arena.store import UNSTORABLE, Store, SuspensionRecord
from arena.store.models import Match


class Suspensions:
    """Forfeits in a row per bot version, and the versions suspended (see the module)."""

    def __init__(self, limit: int):
        self.limit = limit
        self.streak: dict[int, int] = {}
        self.suspended: set[int] = set()

    def note(self, version: int, forfeited: bool) -> bool:
        """Count one played seat; True when this makes the version suspended."""
        if self.limit < 1:
            return False
        self.streak[version] = self.streak.get(version, 0) + 1 if forfeited else 0
        if self.streak[version] >= self.limit and version not in self.suspended:
            self.suspended.add(version)
            return True
        return False

    def skips(self, lineup: Sequence[int]) -> bool:
        """Whether a match of this lineup is skipped: one of its bots is suspended."""
        return any(v in self.suspended for v in lineup)

    def learn(self, match: Match, result: MatchResult | None) -> list[SuspensionRecord]:
        """Count a recorded match's seats; the suspensions it causes, to record with it."""
        if result is None or result.status.void or self.skips(match.lineup):
            return []
        assert match.id is not None
        return [
            SuspensionRecord(version, match.id, self.streak[version])
            for seat, version in zip(result.seats, match.lineup, strict=True)
            if self.note(version, seat.status is not SeatStatus.OK)
        ]

    @classmethod
    def resumed(cls, store: Store, tournament_id: int, limit: int) -> Suspensions:
        """The rule's state as the tournament's recorded matches left it: the recorded
        suspensions, and the forfeits in a row of everyone else (a resume goes on
        counting from there)."""
        suspensions = cls(limit)
        if limit < 1:
            return suspensions  # nobody to count
        suspensions.suspended = {s.version_id for s in store.suspensions(tournament_id)}
        by_match: dict[int, tuple[Match, list[tuple[int, str]]]] = {}
        for match, seat in store.seat_rows(tournament_id=tournament_id):
            entry = by_match.setdefault(match.id or 0, (match, []))
            entry[1].append((seat.bot_version_id, seat.status))
        for match, entries in by_match.values():
            # a match the store voided was played: the run counted its seats (Store.record_many)
            stored_void = (match.error or "").startswith(UNSTORABLE)
            if match.status in VOID and not stored_void:
                continue
            if any(status == SeatStatus.SUSPENDED for _v, status in entries):
                continue
            for version, status in entries:
                if version not in suspensions.suspended:
                    suspensions.streak[version] = (
                        suspensions.streak.get(version, 0) + 1 if status != SeatStatus.OK else 0
                    )
        return suspensions
