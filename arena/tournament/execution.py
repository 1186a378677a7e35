"""What every executor shares: the interface the runner plays matches through.

An executor (arena.tournament.executors: this process or a local pool;
arena.tournament.dask_executor: a Dask cluster) has the small interface of
`concurrent.futures`: `submit(spec)` returns a `MatchFuture` whose `result()` is the
`MatchResult` of `run_match(spec)`. It never raises for a single match that could not
be played: it returns a void result for it (`platform_error`), never rated nor counted
as a bot's forfeit. Only `ExecutorLost` (the executor itself is gone, e.g. the Dask
scheduler) stops a run; `arena tournament resume` finishes it.
"""

from __future__ import annotations

from typing import Protocol

from arena import ArenaError
from arena.games import load_game
from arena.match.results import SeatResult
from arena.match.run import MatchResult, MatchSpec
from arena.status import MatchStatus, SeatStatus

#: How many times a match whose worker died is run again before it is voided.
RERUNS = 1


class ExecutorLost(ArenaError, RuntimeError):
    """The executor can no longer run matches (e.g. the Dask scheduler went away)."""

    exit_code = 1


class MatchFuture(Protocol):
    """A submitted match."""

    def result(self) -> MatchResult:
        """Wait for the match; a void platform-error result if it could not be played."""
        ...

    def done(self) -> bool:
        """Whether `result` would return without waiting."""
        ...


class Executor(Protocol):
    """Runs matches somewhere; see the module docstring."""

    #: How many matches it runs at once (the runner keeps about twice that in flight).
    slots: int

    def submit(self, spec: MatchSpec) -> MatchFuture:
        """Start a match."""
        ...

    def shutdown(self, now: bool = False) -> None:
        """Stop, dropping matches not yet started; close idle bot processes.

        With `now` (Ctrl-C, an error) matches in progress are abandoned too.
        """
        ...


def platform_error(spec: MatchSpec, message: str) -> MatchResult:
    """A void result for a match arena could not play: nobody's forfeit, never rated."""
    return MatchResult(
        match_id=spec.match_id,
        game=spec.game,
        game_version=load_game(spec.game).spec.version,
        variant=dict(spec.variant),
        seed=spec.seed,
        status=MatchStatus.PLATFORM_ERROR,
        seats=[
            SeatResult(i, ref.version_id, None, None, SeatStatus.OK, bot=ref.name)
            for i, ref in enumerate(spec.seats)
        ],
        error=message,
    )
