"""Running a tournament: the one loop that plays every format on an executor.

`create` writes a round robin's or a gauntlet's whole schedule; `run` plays any
tournament: it asks the format's schedule (arena.tournament.schedule) for batch after
batch, submits their matches to an executor, records the results, applies the
suspension rule (arena.tournament.suspensions) and tells the schedule of each result.
It alone opens and shuts executors, handles Ctrl-C and a lost executor or database,
marks the tournament running, interrupted or finished, and resumes a cut-off run.

The coordinator (this process) is the only one that touches the database.
Workers only run the picklable `run_match(spec)`. Results may arrive in any
order; they are recorded, rated and checked for suspensions strictly in
schedule order, so the same tournament and seeds give the same leaderboard
with any number of workers, and the recorded matches are always a prefix of
the schedule: a killed run resumes exactly where it stopped.

Given `spectators` (the live pages' arena.service.live.Live), a run on a local
executor tells them of its matches as they are played (arena.tournament.watching):
each match from its start, event by event, until it is recorded or given up.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arena import ArenaError
from arena.errors import StoreError
from arena.games import load_game
from arena.match.run import BotRef, MatchResult
from arena.status import TournamentStatus
from arena.store import (
    UNSTORABLE,
    MatchRecord,
    Rater,
    Store,
    SuspensionRecord,
    TournamentCancelled,
)
from arena.store.models import Match, Tournament
from arena.submissions import submit as registry
from arena.tournament.config import LOCAL, ConfigError, TournamentConfig
from arena.tournament.entry import new_tournament
from arena.tournament.execution import Executor, ExecutorLost, MatchFuture
from arena.tournament.executors import open_executor
from arena.tournament.formats import FORMATS
from arena.tournament.ladder import LADDER, Ladder
from arena.tournament.recording import match_spec, to_record
from arena.tournament.schedule import Schedule, ScheduleError, Written
from arena.tournament.settings import TournamentSettings
from arena.tournament.suspensions import Suspensions
from arena.tournament.watching import Following, Relay, Spectators

LOG = logging.getLogger("arena.tournament")

#: The schedule of each format that `run` can play from its stored settings alone (an
#: `arena match` run brings its own: arena.tournament.paired).
SCHEDULES: dict[str, Callable[[Store, Tournament, TournamentSettings], Schedule]] = {
    **dict.fromkeys(FORMATS, Written),
    LADDER: Ladder,
}


def create(store: Store, home: Path, config: TournamentConfig) -> int:
    """Check the settings, resolve the bots to versions and write the whole schedule
    of a round robin or gauntlet (arena.tournament.formats)."""
    if config.format not in FORMATS:
        raise ConfigError(f"unknown format {config.format!r} (formats: {', '.join(FORMATS)})")
    tournament, versions = new_tournament(store, home, config)
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


@dataclass
class Progress:
    """What the runner reports after each recorded match."""

    done: int
    total: int
    match: Match
    result: MatchResult | None
    suspended_now: list[str] = field(default_factory=list)


class Interrupted(ArenaError, RuntimeError):
    """The run was stopped (Ctrl-C); the tournament is `interrupted` and can be resumed."""

    exit_code = 130


#: Another command cancelled or deleted the tournament a run plays (`Store.cancel_tournament`).
Cancelled = TournamentCancelled

#: The most results recorded in one transaction. Results are held back while the next
#: one is already there, or, for an executor that plays in the coordinator's own thread
#: (its `hold_seconds`), for that long at most while the next match plays: a transaction
#: and its commit cost as much as a short match's decisions. Never past a schedule
#: batch's end (the schedule learns every result before it makes the next batch); a
#: held result that a crash loses is played again on resume, to the same result.
MAX_BATCH = 100

#: Seconds between a run's looks for a cancel (one small read; a cancel needs no
#: faster answer: nothing the run plays after it can be recorded).
CANCEL_LOOK = 1.0


@dataclass(slots=True)
class _Played:
    """A match recorded in the batch just committed, for the log, progress and schedule."""

    number: int
    match: Match
    result: MatchResult | None
    suspended_now: list[SuspensionRecord]


def run(
    store: Store,
    tournament_id: int,
    workers: int = 1,
    *,
    executor: str | Executor = LOCAL,
    fresh_processes: bool = False,
    pin_workers: bool = True,
    on_progress: Callable[[Progress], None] | None = None,
    schedule: Schedule | None = None,
    spectators: Spectators | None = None,
) -> None:
    """Play every match of a tournament still to play and record the results in order.

    `executor` is `local` (a pool of `workers` processes), `dask://HOST:PORT`, or an
    open Executor (left open for the caller). `schedule`: the format's, when it is not
    one of `SCHEDULES` (an `arena match` run). `spectators` follow the matches as they
    are played (the module; not with an open executor, nor on Dask). Raises
    Interrupted on Ctrl-C, and
    ExecutorLost when the executor goes away mid-run, StoreError when the database
    fails, ScheduleError when the format cannot go on: the tournament then is marked
    `interrupted`. Cancelled when another command cancelled it.
    """
    tournament = store.tournament(tournament_id)
    if tournament is None:
        raise ConfigError(f"no tournament {tournament_id}")
    check_rules(tournament)
    settings = TournamentSettings.from_json(tournament.settings)
    secret = store.secret()  # before anything starts: a malformed ARENA_SECRET stops here
    done, written = store.match_counts(tournament_id)
    if schedule is None:
        schedule = _schedule_of(store, tournament, settings)
    suspensions = Suspensions.resumed(store, tournament_id, settings.suspend_after)
    names = store.version_names()
    refs = {
        v.id or 0: registry.bot_ref(v, names[v.id or 0][0])
        for v in store.versions(ids=sorted(schedule.entrants))
    }
    following = None if spectators is None else Following(spectators)
    relay = None if following is None else following.relay
    pool = _opened(executor, workers, not fresh_processes, pin_workers, tournament_id, done, relay)
    store.set_tournament_status(tournament_id, TournamentStatus.RUNNING)
    total = max(written, settings.planned or written)
    where = executor if isinstance(executor, str) else type(executor).__name__
    LOG.info(
        "tournament %d (%s): %d of %d matches to play, %s, %d worker(s)",
        tournament_id,
        tournament.game,
        written - done,
        total,
        where,
        workers,
    )
    loop = _Loop(store, tournament, settings, schedule, suspensions, names, total, on_progress)
    loop.following = following
    stopped = True  # until the loop ends normally: then idle workers may finish politely
    try:
        loop.play(pool, refs, secret, done)
        stopped = False
    except ExecutorLost as error:
        raise ExecutorLost(f"{error}: {_stop(store, tournament_id)}") from None
    except Cancelled:
        raise
    except StoreError as error:
        raise StoreError(f"{error}: {_stop_if_possible(store, tournament_id)}") from None
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted: {_stop(store, tournament_id)}") from None
    except ScheduleError:
        _stop_if_possible(store, tournament_id)
        raise
    finally:
        if isinstance(executor, str):  # opened here: shut here
            pool.shutdown(now=stopped)
        if following is not None:  # what was not recorded is given up
            following.close()
    try:  # every match is recorded; the database may still fail here, as in the loop
        store.set_tournament_status(tournament_id, TournamentStatus.FINISHED)
    except StoreError as error:
        raise StoreError(f"{error}: {_stop_if_possible(store, tournament_id)}") from None
    LOG.info("tournament %d finished", tournament_id)


def _schedule_of(store: Store, tournament: Tournament, settings: TournamentSettings) -> Schedule:
    """The schedule of a tournament's format (`SCHEDULES`)."""
    make = SCHEDULES.get(tournament.format)
    if make is None:
        raise ConfigError(
            f"tournament {tournament.id} is of format {tournament.format!r}, "
            f"which brings its own schedule (run formats: {', '.join(SCHEDULES)})"
        )
    return make(store, tournament, settings)


def _opened(
    executor: str | Executor,
    workers: int,
    reuse: bool,
    pin: bool,
    tournament_id: int,
    done: int,
    relay: Relay | None = None,
) -> Executor:
    """The executor to play on: `executor` itself, or the one it names, opened.

    ExecutorLost when it cannot be reached: nothing was played, and this says how to go
    on (and that a tournament that never recorded a match may go altogether)."""
    if not isinstance(executor, str):
        return executor
    try:
        return open_executor(executor, workers, reuse=reuse, pin=pin, relay=relay)
    except ExecutorLost as error:
        hint = f"arena tournament resume {tournament_id} --executor ..."
        drop = "" if done else f", or drop it: arena tournament delete {tournament_id}"
        raise ExecutorLost(f"{error} (nothing played; run it later with: {hint}{drop})") from None


class _Loop:
    """One run's loop: batches from the schedule, results in schedule order, recorded a
    batch of ready results per transaction."""

    def __init__(
        self,
        store: Store,
        tournament: Tournament,
        settings: TournamentSettings,
        schedule: Schedule,
        suspensions: Suspensions,
        names: Mapping[int, tuple[str, int]],
        total: int,
        on_progress: Callable[[Progress], None] | None,
    ):
        self.store, self.tournament, self.settings = store, tournament, settings
        self.schedule, self.suspensions = schedule, suspensions
        self.names, self.total, self.on_progress = names, total, on_progress
        self.tournament_id = tournament.id or 0
        #: Who follows the matches as they are played (None: nobody).
        self.following: Following | None = None

    def play(
        self, executor: Executor, refs: Mapping[int, BotRef], secret: bytes, done: int
    ) -> None:
        """Play batch after batch until the schedule has no more."""
        ctrl_c, shielded, restore_handler = note_ctrl_c()
        try:
            self._play(executor, refs, secret, done, ctrl_c, shielded)
        finally:
            restore_handler()

    def _play(
        self,
        executor: Executor,
        refs: Mapping[int, BotRef],
        secret: bytes,
        done: int,
        ctrl_c: threading.Event,
        shielded: Callable[[], contextlib.AbstractContextManager[None]],
    ) -> None:
        results = (
            played
            for batch in self._batches(ctrl_c, shielded)
            for played in self._results(executor, batch, refs, secret)
        )
        batch: list[tuple[MatchRecord, Rater | None]] = []
        caused: list[SuspensionRecord] = []
        played: list[_Played] = []
        hold = getattr(executor, "hold_seconds", 0.0)
        self._record_as_played(results, done, batch, caused, played, hold, shielded, ctrl_c)

    def _record_as_played(
        self,
        results: Iterator[tuple[Match, MatchResult | None, bool, bool]],
        done: int,
        batch: list[tuple[MatchRecord, Rater | None]],
        caused: list[SuspensionRecord],
        played: list[_Played],
        hold: float,
        shielded: Callable[[], contextlib.AbstractContextManager[None]],
        ctrl_c: threading.Event,
    ) -> None:
        """Record the results as they come, several to a transaction where they may wait."""
        looked = time.monotonic()  # when the run last looked for a cancel by another command
        game, suspended = self.tournament.game, self.suspensions.suspended
        held_since = 0.0
        number = done
        while True:
            try:
                match, result, more, last = next(results)
            except StopIteration:
                return
            except BaseException:  # Ctrl-C or a lost executor while the next match played
                if batch:  # the results held back are whole: keep them
                    with shielded():
                        record(self.store, batch, caused)
                raise
            number += 1
            if not batch:
                held_since = time.monotonic()
            batch.append(to_record(game, match, result, suspended))
            suspended_now = self.suspensions.learn(match, result)
            caused.extend(suspended_now)
            played.append(_Played(number, match, result, suspended_now))
            waits = more or (time.monotonic() - held_since < hold and not ctrl_c.is_set())
            if waits and len(batch) < MAX_BATCH and not last:
                continue  # the next result is there already, or may be waited for
            with shielded():  # a Ctrl-C now waits for the commit (see note_ctrl_c)
                voided = record(self.store, batch, caused)
            for match_id in voided:
                LOG.warning("match id %d: %s; recorded as void", match_id, UNSTORABLE.strip(": "))
            batch.clear()
            caused.clear()
            if ctrl_c.is_set():  # noted during the commit, or its KeyboardInterrupt was lost
                raise KeyboardInterrupt
            if time.monotonic() - looked >= CANCEL_LOOK:
                looked = time.monotonic()
                check_not_cancelled(self.store, self.tournament_id)
            self._told(played)
            played.clear()

    def _batches(
        self,
        ctrl_c: threading.Event,
        shielded: Callable[[], contextlib.AbstractContextManager[None]],
    ) -> Iterator[list[Match]]:
        """The schedule's batches. A generator: the next batch is asked for only once
        every match before it is recorded (and the schedule told of it)."""
        while True:
            with shielded():  # a schedule may write its batch: no Ctrl-C inside the commit
                batch = self.schedule.next_batch(self.suspensions.suspended)
            if ctrl_c.is_set():
                raise KeyboardInterrupt
            if not batch:
                return
            yield batch

    def _results(
        self,
        executor: Executor,
        pending: list[Match],
        refs: Mapping[int, BotRef],
        secret: bytes,
    ) -> Iterator[tuple[Match, MatchResult | None, bool, bool]]:
        """Submit matches a few at a time and yield (match, result, more, last) in
        schedule order.

        A match whose lineup holds a bot already suspended is not played (result None).
        `more` says that the next result is there already (asking for it will not wait),
        `last` that this is the batch's last match.
        """
        window = max(2, 2 * executor.slots)
        futures: dict[int, MatchFuture | None] = {}
        submitted = 0
        for index, match in enumerate(pending):
            while submitted < len(pending) and submitted < index + window:
                upcoming = pending[submitted]
                if self.suspensions.skips(upcoming.lineup):
                    futures[submitted] = None
                else:
                    spec = match_spec(self.tournament, self.settings, upcoming, refs, secret)
                    if self.following is not None:
                        self.following.expect(spec.match_id, upcoming.id or 0)
                    futures[submitted] = executor.submit(spec)
                submitted += 1
            future = futures.pop(index)
            result = future.result() if future is not None else None
            yield match, result, _ready(futures, index + 1), index == len(pending) - 1

    def _told(self, played: list[_Played]) -> None:
        """Tell of the matches just recorded: the log, the spectators, the caller, the schedule."""
        for entry in played:
            LOG.info("%d/%d %s", entry.number, self.total, _told(self.tournament_id, entry))
            if self.following is not None:
                self.following.done(entry.match.id or 0)
        if self.on_progress is not None:
            for entry in played:
                labels = [self._label(s.version_id) for s in entry.suspended_now]
                progress = Progress(entry.number, self.total, entry.match, entry.result, labels)
                self.on_progress(progress)
        for entry in played:
            self.schedule.learn(entry.match, entry.result)

    def _label(self, version: int) -> str:
        name, number = self.names[version]
        return f"{name} v{number}"


def record(
    store: Store,
    batch: list[tuple[MatchRecord, Rater | None]],
    suspensions: list[SuspensionRecord],
) -> list[int]:
    """Store a batch of results with the suspensions they caused, in one transaction
    (`Store.record_many`); the ids of matches the database refused, recorded void instead."""
    return store.record_many(batch, suspensions=suspensions)


def _ready(futures: dict[int, MatchFuture | None], index: int) -> bool:
    """Whether the result of match `index` is there (a skipped match's at once)."""
    if index not in futures:
        return False
    future = futures[index]
    return future is None or future.done()


def _told(tournament_id: int, entry: _Played) -> str:
    """One recorded match in a log line: its label, status, seats with scores and ranks."""
    label = f"t{tournament_id}-m{entry.match.number}"
    result = entry.result
    if result is None:
        return f"{label} skipped (a bot is suspended)"
    seats = ", ".join(
        f"{s.bot} {'' if s.score is None else f'{s.score:g} '}(rank {s.rank}, {s.status})"
        for s in result.seats
    )
    return f"{label} {result.status}: {seats} in {result.seconds:.2f} s"


def note_ctrl_c() -> tuple[
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
    return max(written, TournamentSettings.from_json(tournament.settings).planned or written)


def counts(store: Store, tournament_id: int) -> tuple[int, int]:
    """(recorded, planned) matches of a tournament (`Store.match_counts` for a ladder's plan)."""
    done, written = store.match_counts(tournament_id)
    tournament = store.tournament(tournament_id)
    return done, planned(tournament, written) if tournament is not None else written


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
