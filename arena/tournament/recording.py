"""What crosses between a tournament's schedule, its workers and the store.

A scheduled match goes to a worker as a `MatchSpec` (`match_spec`); its result comes
back as a `MatchResult` and goes to the store as a `MatchRecord` with how to rate it
(`to_record`): the seats are the worker's own `SeatResult`s, each with its stored
version (the spec's `BotRef.version_id`). Pure: the runner (arena.tournament.runner)
does the reading and writing.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any

import orjson

from arena import controls
from arena.match import seeds
from arena.match.results import SeatResult
from arena.match.run import BotRef, MatchResult, MatchSpec
from arena.results import rating
from arena.sandbox import limits as bot_limits
from arena.skill import Skill
from arena.status import MatchStatus, SeatStatus
from arena.store import MatchRecord, Rater
from arena.store.models import Match, Tournament
from arena.tournament.settings import TournamentSettings

#: The detail of a seat skipped because its bot is suspended.
SUSPENDED_DETAIL = "bot suspended after repeated forfeits"


def match_spec(
    tournament: Tournament,
    settings: TournamentSettings,
    match: Match,
    refs: Mapping[int, BotRef],
    secret: bytes,
) -> MatchSpec:
    """The spec of one scheduled match, with its keys derived from the database's secret.

    The keys depend on the public pairing seed and the match's number, not on the
    tournament's id: the same tournament seed and secret give the same matches.
    """
    return MatchSpec(
        match_id=f"t{tournament.id}-m{match.number}",
        game=match.game,
        seed=match.seed,
        keys=seeds.derive(secret, match.seed, f"m{match.number}", len(match.lineup)),
        seats=tuple(refs[v] for v in match.lineup),
        variant=dict(tournament.variant),
        decision_timeout=settings.decision_timeout,
        startup_timeout=settings.startup_timeout,
        limits=bot_limits.from_settings(settings.limits),
        time_control=settings.control,
    )


def to_record(
    game: str, match: Match, result: MatchResult | None, suspended: Set[int]
) -> tuple[MatchRecord, Rater | None]:
    """What the store records of one match, and how to rate it (None: not rated).

    `result` None: the match was not played, a bot of its lineup being suspended.
    The seats go to the store as they came; ValueError if they are not the match's
    lineup (versions in seat order).
    """
    assert match.id is not None
    if result is None or any(v in suspended for v in match.lineup):
        return _skipped(match, suspended), None
    seats = result.seats
    if [s.bot_version_id for s in seats] != match.lineup:
        raise ValueError(f"match {match.id}: the result's seats are not its lineup")
    ranks = [s.rank or len(seats) for s in seats]

    def rate(before: list[Skill]) -> list[Skill]:
        return rating.rate(game, before, ranks, result.teams)

    rated = not result.status.void
    replay = replay_text(result.replay) if result.replay else None
    record = MatchRecord(match.id, result.status, seats, result.error, result.seconds, replay)
    return record, (rate if rated else None)


def _skipped(match: Match, suspended: Set[int]) -> MatchRecord:
    """The record of a match not played because a bot of it is suspended."""
    assert match.id is not None
    seats = [
        SeatResult(i, v, None, None, SeatStatus.SUSPENDED, SUSPENDED_DETAIL)
        if v in suspended
        else SeatResult(i, v, None, None, SeatStatus.OK, "")
        for i, v in enumerate(match.lineup)
    ]
    return MatchRecord(match.id, MatchStatus.FORFEIT, seats)


def replay_text(replay: dict[str, Any]) -> str:
    """The replay as JSON; a lone surrogate (a byte a bot wrote that was not UTF-8),
    which orjson refuses, spelled there as run_match spells it (`\\xff`, see
    arena.controls.spelled; the seat row keeps the exact text)."""
    try:
        return orjson.dumps(replay).decode()
    except TypeError:
        return orjson.dumps(_spelled(replay)).decode()


def _spelled(value: Any) -> Any:
    """`value` with every string's lone surrogates written as escapes (``\\x80``)."""
    if isinstance(value, str):
        return controls.spelled(value)
    if isinstance(value, dict):
        return {_spelled(k): _spelled(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_spelled(v) for v in value]
    return value
