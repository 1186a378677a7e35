"""A tournament format as the runner drives it: a schedule of batches (fastchess's
matchmaking: formats as schedules).

The runner (arena.tournament.runner.run) asks a `Schedule` for its next batch of
matches only once every match of the batch before is recorded, plays the batch and
tells the schedule of each recorded result, in schedule order. So a format may choose
its next matches from the results so far (a ladder from the ratings, an `arena match`
run from its test), and a run killed at any point resumes with the same choices, the
recorded matches being a prefix of the schedule. Everything else (executors, Ctrl-C,
interruption, recording, suspensions) is the runner's alone.

Formats: `Written` here (round robin and gauntlet, whose whole schedule is written
when the tournament is created: arena.tournament.formats); arena.tournament.ladder;
arena.tournament.paired.
"""

from __future__ import annotations

from collections.abc import Set
from typing import Protocol

from arena import ArenaError
from arena.match.run import MatchResult
from arena.store import Store
from arena.store.models import Match, Tournament
from arena.tournament.settings import TournamentSettings


class Schedule(Protocol):
    """The matches of one run of a tournament, batch by batch (see the module)."""

    #: The bot versions it may seat (the runner resolves them to bots once).
    entrants: frozenset[int]

    def next_batch(self, suspended: Set[int]) -> list[Match]:
        """The next matches to play, written to the store, unrecorded, in schedule order;
        [] when the run is done. `suspended`: the versions that sit out."""
        ...

    def learn(self, match: Match, result: MatchResult | None) -> None:
        """A match of the batch was recorded (result None: skipped for a suspension).

        May raise ScheduleError: the run stops there, its tournament interrupted."""
        ...


class ScheduleError(ArenaError, RuntimeError):
    """A format cannot go on (one line): the run stops, the tournament is marked
    interrupted, the error reaches the caller."""


class Written:
    """Round robin and gauntlet: the schedule was written whole; one batch, what of it
    is not recorded yet."""

    def __init__(self, store: Store, tournament: Tournament, settings: TournamentSettings):
        assert tournament.id is not None
        self._pending = store.matches(tournament.id, recorded=False)
        self.entrants = frozenset(v for match in self._pending for v in match.lineup)

    def next_batch(self, suspended: Set[int]) -> list[Match]:
        """Every unrecorded match, then []."""
        batch, self._pending = self._pending, []
        return batch

    def learn(self, match: Match, result: MatchResult | None) -> None:
        """Nothing to learn: the schedule is fixed."""
