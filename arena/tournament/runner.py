"""Running a tournament: write the schedule, play it on an executor, record in order.

The coordinator (this process) is the only one that touches the database.
Workers only run the picklable `run_match(spec)`. Results may arrive in any
order; they are recorded, rated and checked for suspensions strictly in
schedule order, so the same tournament and seeds give the same leaderboard
with any number of workers, and the recorded matches are always a prefix of
the schedule: a killed run resumes exactly where it stopped.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from arena import controls
from arena.errors import StoreError
from arena.games import load_game
from arena.match import seeds
from arena.match.run import BotRef, MatchResult, MatchSpec
from arena.results import rating
from arena.sandbox import limits as bot_limits
from arena.status import MatchStatus, SeatStatus, TournamentStatus
from arena.store import (
    UNSTORABLE,
    MatchRecord,
    Rater,
    SeatRecord,
    Store,
    TournamentCancelled,
)
from arena.store.models import Match, Tournament
from arena.submissions import submit as registry
from arena.submissions.manifest import find_bot
from arena.tournament.config import LOCAL, ConfigError, TournamentConfig
from arena.tournament.execution import Executor, ExecutorLost, MatchFuture
from arena.tournament.executors import open_executor
from arena.tournament.formats import FORMATS

LOG = logging.getLogger("arena.tournament")
#: The format of a ladder (arena.tournament.ladder): scheduled batch by batch from ratings.
LADDER = "ladder"


# ----- scheduling -------------------------------------------------------------
def create(store: Store, home: Path, config: TournamentConfig) -> int:
    """Check the settings, resolve the bots to versions and write the whole schedule."""
    if config.format not in FORMATS:
        raise ConfigError(f"unknown format {config.format!r} (formats: {', '.join(FORMATS)})")
    tournament, versions = prepare(store, home, config)
    try:
        pairings = FORMATS[config.format](len(versions), config.players, config.rounds, config.seed)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    schedule = [
        Match(
            number=p.number,
            game=config.game,
            game_version=tournament.game_version,
            seed=p.seed,
            lineup=[versions[i] for i in p.seats],
        )
        for p in pairings
    ]
    return store.create_tournament(tournament, schedule)


def prepare(store: Store, home: Path, config: TournamentConfig) -> tuple[Tournament, list[int]]:
    """Check the settings and resolve the bots to versions: the tournament row, unsaved.

    Shared by every format: `create` adds a whole schedule, a ladder
    (arena.tournament.ladder) its own settings and then batch after batch.
    """
    config.checked()
    game = load_game(config.game)
    game.spec.check_players(config.players)
    variant = game.spec.resolve_variant(config.variant)
    versions = [_version_for(store, home, name, config.game) for name in config.bots]
    tournament = Tournament(
        name=config.name or f"{config.game}-{config.format}",
        game=config.game,
        game_version=game.spec.version,
        format=config.format,
        players=config.players,
        rounds=config.rounds,
        seed=config.seed,
        variant=variant,
        settings={
            "bots": list(config.bots),
            "decision_timeout": config.decision_timeout,
            "startup_timeout": config.startup_timeout,
            "suspend_after": config.suspend_after,
            "limits": dict(config.limits),
            # How it runs: `resume` uses the same unless told otherwise.
            "workers": config.workers,
            "executor": config.executor,
            "fresh_processes": config.fresh_processes,
            "pin_workers": config.pin_workers,
        },
    )
    return tournament, versions


def _version_for(store: Store, home: Path, name: str, game: str) -> int:
    """A registered bot's newest version not retired; a bundled bot or folder is
    registered first. ConfigError for a retired bot or version (`arena bot retire`)."""
    version = store.playable_version(name) or store.latest_version(name)
    if version is None:
        if not find_bot(name).plays(game):  # said before its check plays anything
            raise ConfigError(f"bot {name} does not play {game}")
        # checked in the game it is about to play, not in every game it declares
        version, _created = registry.submit(store, home, name, games=[game])
    if "*" not in version.games and game not in version.games:
        raise ConfigError(f"bot {name} does not play {game}")
    assert version.id is not None
    if version.id in store.retired_versions():
        label = store.version_names()[version.id][0]
        raise ConfigError(
            f"bot {label} (version {version.number}) is retired: it plays in no new "
            f"tournament (arena bot reinstate {label})"
        )
    return version.id


# ----- running and recording ----------------------------------------------------
@dataclass
class Progress:
    """What the runner reports after each recorded match."""

    done: int
    total: int
    match: Match
    result: MatchResult | None
    suspended_now: list[str] = field(default_factory=list)


@dataclass
class _Suspensions:
    """Forfeits in a row per bot version, replayed from the recorded matches on resume."""

    limit: int
    streak: dict[int, int] = field(default_factory=dict)
    suspended: set[int] = field(default_factory=set)

    def note(self, version: int, forfeited: bool) -> bool:
        """Count one played seat; True when this makes the version suspended."""
        self.streak[version] = self.streak.get(version, 0) + 1 if forfeited else 0
        if self.streak[version] >= self.limit and version not in self.suspended:
            self.suspended.add(version)
            return True
        return False


def _spec(
    tournament: Tournament, match: Match, refs: dict[int, BotRef], secret: bytes
) -> MatchSpec:
    """The spec of one scheduled match, with its keys derived from the database's secret.

    The keys depend on the public pairing seed and the match's number, not on the
    tournament's id: the same tournament seed and secret give the same matches.
    """
    settings = tournament.settings
    return MatchSpec(
        match_id=f"t{tournament.id}-m{match.number}",
        game=match.game,
        seed=match.seed,
        keys=seeds.derive(secret, match.seed, f"m{match.number}", len(match.lineup)),
        seats=tuple(refs[v] for v in match.lineup),
        variant=dict(tournament.variant),
        decision_timeout=float(settings["decision_timeout"]),
        startup_timeout=float(settings["startup_timeout"]),
        limits=bot_limits.from_settings(settings.get("limits", {})),
    )


def _record(
    store: Store, game: str, match: Match, result: MatchResult | None, suspended: set[int]
) -> None:
    """Rate and store one match in schedule order (result None: skipped for suspension)."""
    store.record(*_to_record(game, match, result, suspended))


def _to_record(
    game: str, match: Match, result: MatchResult | None, suspended: set[int]
) -> tuple[MatchRecord, Rater | None]:
    """What the store records of one match, and how to rate it (None: not rated)."""
    assert match.id is not None
    if result is None or any(v in suspended for v in match.lineup):
        seats = [
            SeatRecord(
                i,
                v,
                None,
                None,
                SeatStatus.SUSPENDED if v in suspended else SeatStatus.OK,
                "bot suspended after repeated forfeits" if v in suspended else "",
            )
            for i, v in enumerate(match.lineup)
        ]
        return MatchRecord(match.id, str(MatchStatus.FORFEIT), seats), None
    records = [
        SeatRecord(s.seat, v, s.score, s.rank, str(s.status), s.detail, s.stderr[-4000:])
        for s, v in zip(result.seats, match.lineup, strict=True)
    ]
    ranks = [s.rank or len(records) for s in result.seats]

    def rate(before: list[rating.Skill]) -> list[rating.Skill]:
        return rating.rate(game, before, ranks, result.teams)

    rated = result.status is not MatchStatus.PLATFORM_ERROR
    replay = _replay_text(result.replay) if result.replay else None
    record = MatchRecord(
        match.id, str(result.status), records, result.error, result.seconds, replay
    )
    return record, (rate if rated else None)


def _replay_text(replay: dict[str, Any]) -> str:
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


#: The most results recorded in one transaction. Results are only held back while the
#: next one is already there, so a batch never waits for a match still being played.
MAX_BATCH = 100


def run(
    store: Store,
    tournament_id: int,
    workers: int = 1,
    *,
    executor: str | Executor = LOCAL,
    fresh_processes: bool = False,
    pin_workers: bool = True,
    on_progress: Callable[[Progress], None] | None = None,
) -> None:
    """Play every unrecorded match of a tournament and record the results in order.

    `executor` is `local` (a pool of `workers` processes), `dask://HOST:PORT`, or an
    open Executor (left open for the caller). Raises ExecutorLost, with the
    tournament marked `interrupted`, when the executor goes away mid-run.
    """
    tournament = store.tournament(tournament_id)
    if tournament is None:
        raise ConfigError(f"no tournament {tournament_id}")
    check_rules(tournament)
    secret = store.secret()  # before anything starts: a malformed ARENA_SECRET stops here
    pending = store.matches(tournament_id, recorded=False)
    recorded = store.matches(tournament_id, recorded=True)
    total = planned(tournament, len(pending) + len(recorded))
    suspensions = _replay_suspensions(store, tournament, recorded)
    names = store.version_names()
    entrants = {x for m in pending for x in m.lineup} | set(tournament.settings.get("versions", []))
    refs = {
        v.id or 0: registry.bot_ref(v, names[v.id or 0][0])
        for v in store.versions(ids=sorted(entrants))
    }
    reuse = not fresh_processes
    owned = isinstance(executor, str)
    if isinstance(executor, str):
        try:
            pool = open_executor(executor, workers, reuse=reuse, pin=pin_workers)
        except ExecutorLost as error:
            hint = f"arena tournament resume {tournament_id} --executor ..."
            # a tournament that never recorded a match may go altogether
            drop = "" if recorded else f", or drop it: arena tournament delete {tournament_id}"
            raise ExecutorLost(
                f"{error} (nothing played; run it later with: {hint}{drop})"
            ) from None
    else:
        pool = executor
    store.set_tournament_status(tournament_id, TournamentStatus.RUNNING)
    where = executor if isinstance(executor, str) else type(executor).__name__
    LOG.info(
        "tournament %d (%s): %d of %d matches to play, %s, %d worker(s)",
        tournament_id,
        tournament.game,
        len(pending),
        total,
        where,
        workers,
    )
    looked = time.monotonic()  # when the run last looked for a cancel by another command
    stopped = True  # until the loop ends normally: then idle workers may finish politely
    ctrl_c, shielded, restore_handler = _note_ctrl_c()
    try:
        results = (
            played
            for batch in _batches(store, tournament, pending, suspensions.suspended)
            for played in _results(pool, tournament, batch, refs, suspensions, secret)
        )
        batch: list[tuple[MatchRecord, Rater | None]] = []
        played: list[tuple[int, Match, MatchResult | None, list[int]]] = []
        for done, (match, result, more) in enumerate(results, start=len(recorded) + 1):
            batch.append(_to_record(tournament.game, match, result, suspensions.suspended))
            played.append((done, match, result, _note(suspensions, match, result)))
            if more and len(batch) < MAX_BATCH:
                continue  # the next result is there already: record both together
            with shielded():  # a Ctrl-C now waits for the commit (see _note_ctrl_c)
                voided = store.record_many(batch)
            for match_id in voided:
                LOG.warning("match id %d: %s; recorded as void", match_id, UNSTORABLE.strip(": "))
            batch.clear()
            if ctrl_c.is_set():  # noted during the commit, or its KeyboardInterrupt was lost
                raise KeyboardInterrupt
            if time.monotonic() - looked >= CANCEL_LOOK:
                looked = time.monotonic()
                check_not_cancelled(store, tournament_id)
            for number, was, outcome, _newly in played:
                LOG.info("%d/%d %s", number, total, _told(tournament_id, was, outcome))
            if on_progress is not None:  # recorded now: tell of them
                for number, was, outcome, newly in played:
                    labels = [f"{names[v][0]} v{names[v][1]}" for v in newly]
                    on_progress(Progress(number, total, was, outcome, labels))
            played.clear()
        stopped = False
    except ExecutorLost as error:
        raise ExecutorLost(f"{error}: {_stop(store, tournament_id)}") from None
    except Cancelled:
        raise
    except StoreError as error:
        raise StoreError(f"{error}: {_stop_if_possible(store, tournament_id)}") from None
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted: {_stop(store, tournament_id)}") from None
    finally:
        restore_handler()
        if owned:
            pool.shutdown(now=stopped)
    store.set_tournament_status(tournament_id, TournamentStatus.FINISHED)
    LOG.info("tournament %d finished", tournament_id)


def _told(tournament_id: int, match: Match, result: MatchResult | None) -> str:
    """One recorded match in a log line: its label, status, seats with scores and ranks."""
    label = f"t{tournament_id}-m{match.number}"
    if result is None:
        return f"{label} skipped (a bot is suspended)"
    seats = ", ".join(
        f"{s.bot} {'' if s.score is None else f'{s.score:g} '}(rank {s.rank}, {s.status})"
        for s in result.seats
    )
    return f"{label} {result.status}: {seats} in {result.seconds:.2f} s"


def _note_ctrl_c() -> tuple[
    threading.Event, Callable[[], contextlib.AbstractContextManager[None]], Callable[[], None]
]:
    """While the run lasts, Ctrl-C also sets an event; returns it, a shield, and how to
    undo this.

    Python raises KeyboardInterrupt wherever the main thread happens to be, and
    there a finalizer or a library may swallow it (a finalizer's exceptions are only
    printed): the run would go on to the end. The runner checks the event after
    every recorded match, so a Ctrl-C stops the run at the latest one match later.
    Inside the shield a Ctrl-C only sets the event: raised in the middle of a commit,
    it could leave that transaction open on a connection the traceback keeps alive,
    and marking the run `interrupted` would then wait for its write lock and fail.
    Only the main thread can set a handler; elsewhere the event is never set.
    """
    noted = threading.Event()
    shielding = threading.Event()

    @contextlib.contextmanager
    def shielded() -> Iterator[None]:
        shielding.set()
        try:
            yield
        finally:
            shielding.clear()

    if threading.current_thread() is not threading.main_thread():
        return noted, shielded, lambda: None
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        # SIGINT ignored, or someone else's handler: leave it
        return noted, shielded, lambda: None

    def handler(signum: int, frame: object) -> None:
        noted.set()
        if not shielding.is_set():
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)

    def restore() -> None:
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGINT, previous)

    return noted, shielded, restore


class Interrupted(RuntimeError):
    """The run was stopped (Ctrl-C); the tournament is `interrupted` and can be resumed."""


#: Another command cancelled or deleted the tournament a run plays (`Store.cancel_tournament`).
Cancelled = TournamentCancelled


#: Seconds between a run's looks for a cancel (one small read; a cancel needs no
#: faster answer: nothing the run plays after it can be recorded).
CANCEL_LOOK = 1.0


def check_not_cancelled(store: Store, tournament_id: int) -> None:
    """Cancelled when the tournament was cancelled or deleted by another command."""
    status = store.tournament_status(tournament_id)
    if status is None or status == TournamentStatus.CANCELLED:
        done = "deleted" if status is None else "cancelled"
        raise Cancelled(f"tournament {tournament_id} was {done} by another command: run stopped")


def _stop(store: Store, tournament_id: int) -> str:
    """Mark a cut-off run `interrupted`; how far it got and how to finish it."""
    store.set_tournament_status(tournament_id, TournamentStatus.INTERRUPTED)
    done, total = counts(store, tournament_id)
    return (
        f"stopped after {done} of {total} matches "
        f"(finish with: arena tournament resume {tournament_id})"
    )


def _stop_if_possible(store: Store, tournament_id: int) -> str:
    """`_stop` after a database failure; when the database is not usable enough for
    that either, only how to finish (the recorded matches are a prefix of the schedule)."""
    try:
        return _stop(store, tournament_id)
    except StoreError:
        return f"the run stopped (finish with: arena tournament resume {tournament_id})"


def planned(tournament: Tournament, written: int) -> int:
    """How many matches a tournament will have played when done.

    A ladder writes its schedule batch by batch: its planned total is a setting.
    """
    return max(written, int(tournament.settings.get("planned", written)))


def counts(store: Store, tournament_id: int) -> tuple[int, int]:
    """(recorded, planned) matches of a tournament (`Store.match_counts` for a ladder's plan)."""
    done, written = store.match_counts(tournament_id)
    tournament = store.tournament(tournament_id)
    return done, planned(tournament, written) if tournament is not None else written


def _batches(
    store: Store, tournament: Tournament, pending: list[Match], suspended: set[int]
) -> Iterator[list[Match]]:
    """The matches to play, batch by batch: the written ones, then (a ladder) new batches.

    A generator: the next batch is asked for only once every match before it is
    recorded, so a ladder schedules it from the recorded results alone.
    """
    if pending:
        yield pending
    if tournament.format != LADDER:
        return
    from arena.tournament import ladder  # it builds on this module

    while batch := ladder.extend(store, tournament, suspended):
        yield batch


def check_rules(tournament: Tournament) -> None:
    """ConfigError when the tournament cannot be played on: cancelled (for good), or the
    game's rules changed since it was scheduled."""
    if tournament.status == TournamentStatus.CANCELLED:
        raise ConfigError(
            f"tournament {tournament.id} was cancelled: its unplayed matches are never "
            "played (start a new one with arena tournament run ...)"
        )
    now = load_game(tournament.game).spec.version
    if tournament.game_version != now:
        raise ConfigError(
            f"tournament {tournament.id} was scheduled under {tournament.game} rules "
            f"v{tournament.game_version}, arena now has v{now}: its matches cannot be "
            f"mixed; start a new tournament (arena tournament run ...)"
        )


def _note(suspensions: _Suspensions, match: Match, result: MatchResult | None) -> list[int]:
    """Update forfeit streaks from a recorded match; the versions suspended by it."""
    if result is None or result.status is MatchStatus.PLATFORM_ERROR:
        return []
    if any(v in suspensions.suspended for v in match.lineup):
        return []
    newly = []
    for seat, version in zip(result.seats, match.lineup, strict=True):
        if suspensions.note(version, seat.status is not SeatStatus.OK):
            newly.append(version)
    return newly


def _replay_suspensions(
    store: Store, tournament: Tournament, recorded: list[Match]
) -> _Suspensions:
    """Rebuild forfeit streaks from what was recorded before a resume."""
    suspensions = _Suspensions(int(tournament.settings.get("suspend_after", 5)))
    seats = store.seat_rows(tournament_id=tournament.id)
    by_match: dict[int, list[tuple[int, str]]] = {}
    for match, seat in seats:
        by_match.setdefault(match.id or 0, []).append((seat.bot_version_id, seat.status))
    for match in recorded:
        # a match the store voided was played: the run counted its seats (Store.record_many)
        stored_void = (match.error or "").startswith(UNSTORABLE)
        if match.status == str(MatchStatus.PLATFORM_ERROR) and not stored_void:
            continue
        entries = by_match.get(match.id or 0, [])
        if any(status == SeatStatus.SUSPENDED for _v, status in entries):
            continue
        for version, status in entries:
            suspensions.note(version, status != SeatStatus.OK)
    return suspensions


def _results(
    executor: Executor,
    tournament: Tournament,
    pending: list[Match],
    refs: dict[int, BotRef],
    suspensions: _Suspensions,
    secret: bytes,
) -> Iterator[tuple[Match, MatchResult | None, bool]]:
    """Submit matches a few at a time and yield (match, result, more) in schedule order.

    A match whose lineup holds a bot already suspended is not played (result None).
    `more` says that the next result is there already (asking for it will not wait).
    """
    window = max(2, 2 * executor.slots)
    futures: dict[int, MatchFuture | None] = {}
    submitted = 0
    for index, match in enumerate(pending):
        while submitted < len(pending) and submitted < index + window:
            upcoming = pending[submitted]
            if any(v in suspensions.suspended for v in upcoming.lineup):
                futures[submitted] = None
            else:
                futures[submitted] = executor.submit(_spec(tournament, upcoming, refs, secret))
            submitted += 1
        future = futures.pop(index)
        result = future.result() if future is not None else None
        yield match, result, _ready(futures, index + 1)


def _ready(futures: dict[int, MatchFuture | None], index: int) -> bool:
    """Whether the result of match `index` is there (a skipped match's at once)."""
    if index not in futures:
        return False
    future = futures[index]
    return future is None or future.done()
