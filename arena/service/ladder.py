"""The open ladder of `arena serve`: per configured game, a ladder that keeps playing
while the service runs and takes in every new version.

It is made of the house's ladders (arena.tournament.ladder), played by the one runner
(`runner.run`, with its executors, suspensions, recording and resume), in *rounds*:
a round is one ladder tournament, named `open ladder GAME`, whose pool is the newest
playable version of every bot that plays the game (and the bundled bots the file
names). When the pool changes (a version submitted, retired or reinstated, a
suspension cooled down) the round ends at its next batch, when every match it wrote
is recorded (`RoundSchedule`), and the next round starts with the new pool. So a new
version is admitted within one batch; in the round it enters, the ladder's rule makes
the most uncertain version the first of group after group (arena.tournament.ladder,
rule 2), so it plays first until its rating settles, then at the ladder's pace. Each
version keeps its own rating (the rating rows, which every round starts from).

A version suspended in a round (its forfeits in a row, `suspend_after`) sits out that
round; it is left out of the next rounds until `cooldown` seconds after the match
that suspended it, then retried.

Only this process writes the database (it is the coordinator). Each match is
recorded in one transaction, in schedule order: the service killed at any moment
(kill -9 too) leaves its round `running`, and the next `arena serve` resumes that
round where it stopped (the runner's resume: its unrecorded matches, then the same
choices), so nothing is lost or counted twice. On SIGTERM the rounds are told to
stop at their next batch; the server waits `server.GRACE` seconds for them, and a
round still playing then is resumed the same way by the next start.

Given the app's `Live`, the rounds publish their matches as they are played, move by
move (arena.tournament.watching): spectators of /live follow them, in this process
and with `--workers N`; a match's view ends when it is recorded, when its worker
died, or when its round gives it up. On a Dask executor nothing is published.
"""

from __future__ import annotations

import logging
import threading
import tomllib
from collections.abc import Callable, Set
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from arena import ArenaError
from arena.games import load_game
from arena.service.live import Live
from arena.status import TournamentStatus
from arena.store import Store
from arena.store.models import Match, Tournament
from arena.submissions.manifest import bundled_names
from arena.tournament import ladder, runner
from arena.tournament.config import LOCAL, ConfigError, TournamentConfig
from arena.tournament.settings import TournamentSettings

LOG = logging.getLogger("arena.service")
#: Seconds between looks for new bots when a game has too few to play.
POLL = 5.0
#: Seconds before a round that failed (an executor lost, the database busy) is tried again.
RETRY = 10.0
#: The statuses of a round that the next start resumes.
UNFINISHED = frozenset(
    {TournamentStatus.SCHEDULED, TournamentStatus.RUNNING, TournamentStatus.INTERRUPTED}
)


@dataclass(frozen=True)
class LadderSpec:
    """One game's open ladder, as the ladder file gives it (a `[[ladder]]` table)."""

    game: str
    players: int = 2
    #: Matches a round plays at most (a new round then starts with the same pool).
    matches: int = 1000
    #: The seats' time control (arena.protocol.clock), else `decision_timeout` per decision.
    time_control: str | None = None
    decision_timeout: float = 1.0
    #: Worker processes of its matches (0: `arena serve --workers`).
    workers: int = 0
    #: Bundled bots that play in it beside the accounts' bots.
    bundled: tuple[str, ...] = ("random",)
    #: Seconds a suspended version sits out before it is retried.
    cooldown: float = 600.0
    suspend_after: int = 5
    #: Groups chosen at once (0: the ladder's default).
    batch: int = 0
    seed: int = 0
    variant: dict[str, Any] = field(default_factory=dict)


def load_specs(path: Path) -> list[LadderSpec]:
    """The ladders of a file; ConfigError (one line) for one that does not make sense."""
    try:
        data = tomllib.loads(path.read_text())
    except OSError as error:
        raise ConfigError(f"cannot read the ladder file {path}: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: {error}") from None
    tables = data.get("ladder")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise ConfigError(f"{path}: give each game's ladder as a [[ladder]] table")
    known = {f.name for f in fields(LadderSpec)}
    specs = []
    for table in tables:
        unknown = sorted(set(table) - known)
        if unknown:
            raise ConfigError(f"{path}: unknown ladder setting {unknown[0]!r}")
        if "bundled" in table:
            table = {**table, "bundled": tuple(table["bundled"])}
        try:
            spec = LadderSpec(**table)
        except TypeError as error:
            raise ConfigError(f"{path}: {error}") from None
        load_game(spec.game).spec.check_players(spec.players)
        if spec.matches < 1 or spec.cooldown < 0 or spec.workers < 0:
            raise ConfigError(f"{path}: {spec.game}: matches >= 1, cooldown and workers >= 0")
        missing = sorted(set(spec.bundled) - set(bundled_names()))
        if missing:
            raise ConfigError(f"{path}: {spec.game}: no bundled bot {missing[0]!r}")
        specs.append(spec)
    games = [s.game for s in specs]
    if len(set(games)) != len(games):
        raise ConfigError(f"{path}: one ladder per game")
    return specs


def round_name(game: str) -> str:
    """The name of every round of a game's open ladder."""
    return f"open ladder {game}"


def _rounds(store: Store, game: str) -> list[Tournament]:
    """The rounds of a game's open ladder, oldest first."""
    found = [
        t for t in store.tournaments() if t.name == round_name(game) and t.format == ladder.LADDER
    ]
    return sorted(found, key=lambda t: t.id or 0)


def cooling(store: Store, game: str, cooldown: float) -> set[int]:
    """The versions suspended in a round of `game` less than `cooldown` seconds ago."""
    since = datetime.now(UTC) - timedelta(seconds=cooldown)
    found: set[int] = set()
    for tournament in _rounds(store, game)[-3:]:  # a suspension older than that has cooled
        for suspension in store.suspensions(tournament.id or 0):
            match = store.match(suspension.match_id)
            when = None if match is None else match.recorded_at
            if when is not None and (when if when.tzinfo else when.replace(tzinfo=UTC)) > since:
                found.add(suspension.version_id)
    return found


def pool(store: Store, spec: LadderSpec) -> tuple[list[str], frozenset[int]]:
    """The bots of the game's next round by name, and their versions (those registered)."""
    bundled = set(bundled_names())
    names = [n for n in ladder.every_bot(store, spec.game) if n not in bundled or n in spec.bundled]
    out = cooling(store, spec.game, spec.cooldown)
    versions = {n: store.playable_version(n) for n in names}
    kept = [n for n in names if (v := versions[n]) is None or v.id not in out]
    ids = frozenset(v.id for n in kept if (v := versions[n]) is not None and v.id is not None)
    return kept, ids


class RoundSchedule(ladder.Ladder):
    """A round's ladder that ends at its next batch once its pool is out of date or the
    service stops (the batch it was cut off in, if any, is played first)."""

    def __init__(
        self,
        store: Store,
        tournament: Tournament,
        settings: TournamentSettings,
        current: Callable[[], frozenset[int]],
        stopping: threading.Event,
    ):
        super().__init__(store, tournament, settings)
        self.current, self.stopping = current, stopping
        self.versions = frozenset(self.plan.versions)
        self.first = True

    def next_batch(self, suspended: Set[int]) -> list[Match]:
        if not self.first and (self.stopping.is_set() or self.current() != self.versions):
            return []
        self.first = False
        return super().next_batch(suspended)


class OpenLadders:
    """The service's ladders, one thread each; `poke` when the bots changed."""

    def __init__(
        self,
        store: Store,
        home: Path,
        specs: list[LadderSpec],
        workers: int = 1,
        executor: str = LOCAL,
        live: Live | None = None,
    ):
        self.store, self.home, self.specs = store, home, specs
        self.workers, self.executor = workers, executor
        self.live = live
        self.stopping = threading.Event()
        self.changed = threading.Event()
        self.threads = [
            threading.Thread(target=self._loop, args=(s,), name=f"ladder-{s.game}", daemon=True)
            for s in specs
        ]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def poke(self) -> None:
        """A version was added, retired or reinstated: look again at once."""
        self.changed.set()

    def stop(self, grace: float) -> None:
        """Tell every round to stop at its next batch; wait up to `grace` seconds."""
        self.stopping.set()
        self.changed.set()
        for thread in self.threads:
            thread.join(grace)

    def _loop(self, spec: LadderSpec) -> None:
        while not self.stopping.is_set():
            try:
                played = self._round(spec)
            except ArenaError as error:
                LOG.warning("open ladder %s: %s", spec.game, error)
                self.stopping.wait(RETRY)
                continue
            if not played:  # too few bots: wait for a submission
                self.changed.wait(POLL)
                self.changed.clear()

    def _round(self, spec: LadderSpec) -> bool:
        """Play one round (resumed, or new); False when there are too few bots."""
        store = self.store
        rounds = _rounds(store, spec.game)
        last = rounds[-1] if rounds else None
        if last is not None and last.status in UNFINISHED:
            tid = last.id or 0
            LOG.info("open ladder %s: resuming round %d", spec.game, tid)
        else:
            names, _ids = pool(store, spec)
            if len(names) < spec.players:
                return False
            config = TournamentConfig(
                game=spec.game,
                bots=tuple(names),
                name=round_name(spec.game),
                format=ladder.LADDER,
                players=spec.players,
                seed=spec.seed + len(rounds),
                workers=spec.workers or self.workers,
                variant=dict(spec.variant),
                decision_timeout=spec.decision_timeout,
                time_control=spec.time_control,
                suspend_after=spec.suspend_after,
                executor=self.executor,
            )
            tid = ladder.create(
                store, self.home, config, ladder.LadderSettings(spec.matches, spec.batch)
            )
            LOG.info("open ladder %s: round %d with %d bots", spec.game, tid, len(names))
        tournament = store.tournament(tid)
        assert tournament is not None
        settings = TournamentSettings.from_json(tournament.settings)
        schedule = RoundSchedule(
            store, tournament, settings, lambda: pool(store, spec)[1], self.stopping
        )
        runner.run(
            store,
            tid,
            settings.workers,
            executor=settings.executor,
            fresh_processes=settings.fresh_processes,
            pin_workers=settings.pin_workers,
            schedule=schedule,
            spectators=self.live,
        )
        return True
