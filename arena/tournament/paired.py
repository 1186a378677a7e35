"""`arena match --sprt`: paired matches between two bots until an SPRT decides.

A run is stored as a tournament of format `sprt` (2 players) whose schedule grows
pair by pair: pair i is one deal (public seed `formats.pairing_seed(seed, i)`) played
twice, A in seat 0 and then B in seat 0 (`formats.rotations`), as a tournament's
duplicate deals are. `Pairs` is its schedule (arena.tournament.schedule): the runner
(arena.tournament.runner.run) plays, records and rates its matches like any
tournament's, so `arena compare`, the leaderboard and `arena tournament show` see
them. After each pair the test (`arena.results.sprt`) reads the pentanomial counts; it
stops at H0, at H1 or at the limit.

A pair with a void match (platform error) is recorded but not counted; three void
pairs in a row stop the run (arena, not a bot, is failing).
"""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.games import load_game
from arena.match.run import MatchResult
from arena.results.headtohead import Record
from arena.results.sprt import Sprt, Tally
from arena.status import VOID, TournamentStatus
from arena.store import Store
from arena.store.models import Match, Tournament
from arena.tournament import runner
from arena.tournament.config import LOCAL, ConfigError
from arena.tournament.entry import enter
from arena.tournament.execution import Executor
from arena.tournament.formats import pairing_seed, rotations
from arena.tournament.schedule import ScheduleError
from arena.tournament.settings import PairedPlan, TournamentSettings

#: The format of a stored SPRT run.
SPRT_FORMAT = "sprt"
#: Void pairs in a row that stop a run.
VOID_LIMIT = 3


@dataclass(frozen=True)
class PairedSettings:
    """What one run plays: bots A and B (names or folders), the game, the test, limits."""

    game: str
    a: str
    b: str
    #: None: play exactly `max_matches` (a fixed-length match, no test).
    test: Sprt | None
    max_matches: int = 1000
    seed: int = 0
    variant: dict[str, Any] = field(default_factory=dict)
    decision_timeout: float = 1.0
    startup_timeout: float = 10.0
    workers: int = 1
    #: The time control as TimeControl spells it (None: `decision_timeout` per decision).
    time_control: str | None = None

    @property
    def max_pairs(self) -> int:
        """Pairs the limit allows (an odd limit leaves its last match unplayed)."""
        return self.max_matches // 2

    def stored(self) -> TournamentSettings:
        """The tournament settings of a run: no suspensions, the local executor, unpinned."""
        return TournamentSettings(
            bots=(self.a, self.b),
            decision_timeout=self.decision_timeout,
            startup_timeout=self.startup_timeout,
            time_control=self.time_control,
            suspend_after=0,
            limits={},
            workers=self.workers,
            executor=LOCAL,
            fresh_processes=False,
            pin_workers=False,
            paired=PairedPlan(self.test, self.max_matches),
        )


@dataclass
class PairedState:
    """The run so far, after each pair: counts, LLR and (once reached) the decision."""

    tournament_id: int
    labels: tuple[str, str]
    pairs: int = 0
    void_pairs: int = 0
    tally: Tally = field(default_factory=Tally)
    llr: float = 0.0
    decision: str | None = None

    @property
    def record(self) -> Record:
        """A's record against B over the counted matches."""
        return Record(self.tally.wins, self.tally.draws, self.tally.losses)


class PairedError(ScheduleError):
    """A run that cannot go on (one line)."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; `arena tournament resume ID` goes on with it."""

    def __init__(self, tournament_id: int, pairs: int):
        super().__init__(tournament_id, pairs)
        self.tournament_id, self.pairs = tournament_id, pairs


def _outcome(result: MatchResult, a_seat: int) -> str | None:
    """A's result in one match, "W", "D" or "L" by rank; None for a void match."""
    if result.status.void:
        return None
    mine, theirs = result.seats[a_seat].rank, result.seats[1 - a_seat].rank
    if mine is None or theirs is None:
        return None
    return "W" if mine < theirs else "D" if mine == theirs else "L"


def create(store: Store, home: Path, settings: PairedSettings) -> tuple[Tournament, list[int]]:
    """Register the bots (as tournaments do), check them, and store the run's tournament."""
    game = load_game(settings.game)
    game.spec.check_players(2)
    variant = game.spec.resolve_variant(settings.variant)
    try:
        versions = [enter(store, home, n, settings.game) for n in (settings.a, settings.b)]
    except ConfigError as error:
        raise PairedError(str(error)) from None
    if versions[0] == versions[1]:
        raise PairedError(f"{settings.a} and {settings.b} are the same bot version")
    tournament = Tournament(
        name=f"sprt {settings.a} vs {settings.b}",
        game=settings.game,
        game_version=game.spec.version,
        format=SPRT_FORMAT,
        players=2,
        rounds=settings.max_pairs,
        seed=settings.seed,
        variant=variant,
        settings=settings.stored().to_json(),
    )
    tournament_id = store.create_tournament(tournament, [])
    stored = store.tournament(tournament_id)
    assert stored is not None
    return stored, versions


def run(
    store: Store,
    home: Path,
    settings: PairedSettings,
    on_pair: Callable[[PairedState], None] | None = None,
    executor: str | Executor = LOCAL,
) -> PairedState:
    """Play pairs until the test decides or the limit is reached; the final state.

    `executor` as for `runner.run` (`settings.workers` sizes a local pool)."""
    tournament, versions = create(store, home, settings)
    assert tournament.id is not None
    state = PairedState(tournament.id, _labels(store, versions))
    pairs = Pairs(store, tournament, versions, settings, state, on_pair)
    return _play(store, pairs, executor)


def resume(
    store: Store,
    tournament_id: int,
    on_pair: Callable[[PairedState], None] | None = None,
    executor: str | Executor = LOCAL,
) -> tuple[PairedSettings, PairedState]:
    """Go on with an interrupted run from its recorded pairs: the same pairs, counts and
    test as an uninterrupted run (a pair cut in half plays its missing match)."""
    tournament = store.tournament(tournament_id)
    if tournament is None or tournament.format != SPRT_FORMAT:
        raise PairedError(f"tournament {tournament_id} is not an `arena match` run")
    runner.check_rules(tournament)
    settings = settings_of(tournament)
    written = store.matches(tournament_id)
    if not written:
        raise PairedError(f"tournament {tournament_id} never wrote a pair: run `arena match` anew")
    first = written[0].lineup  # pair 0, A in seat 0: (A's version, B's version)
    versions = [first[0], first[1]]
    state = PairedState(tournament_id, _labels(store, versions))
    _replay_pairs(store, tournament, versions[0], settings, state)
    if state.decision is not None or state.pairs + state.void_pairs >= settings.max_pairs:
        store.set_tournament_status(tournament_id, TournamentStatus.FINISHED)
        return settings, state
    pairs = Pairs(store, tournament, versions, settings, state, on_pair)
    return settings, _play(store, pairs, executor)


def settings_of(tournament: Tournament) -> PairedSettings:
    """The settings a stored run was started with (`create` keeps them)."""
    stored = TournamentSettings.from_json(tournament.settings)
    assert stored.paired is not None, f"tournament {tournament.id} is not an `arena match` run"
    a, b = stored.bots
    return PairedSettings(
        game=tournament.game,
        a=a,
        b=b,
        test=stored.paired.test,
        max_matches=stored.paired.max_matches,
        seed=tournament.seed,
        variant=dict(tournament.variant),
        decision_timeout=stored.decision_timeout,
        startup_timeout=stored.startup_timeout,
        workers=stored.workers,
        time_control=stored.time_control,
    )


def _play(store: Store, pairs: Pairs, executor: str | Executor) -> PairedState:
    """Play pairs from where `pairs` stands on, on the runner, until the test decides or
    the limit is reached (the runner marks the tournament finished, or interrupted)."""
    state = pairs.state
    try:
        runner.run(
            store,
            state.tournament_id,
            pairs.settings.workers,
            executor=executor,
            fresh_processes=False,
            pin_workers=False,
            schedule=pairs,
        )
    except runner.Interrupted:
        raise RunInterrupted(state.tournament_id, state.pairs) from None
    return state


class Pairs:
    """An `arena match` run's schedule (arena.tournament.schedule): one pair a batch,
    until the test decides or the limit is reached; learns each pair's outcome."""

    def __init__(
        self,
        store: Store,
        tournament: Tournament,
        versions: list[int],
        settings: PairedSettings,
        state: PairedState,
        on_pair: Callable[[PairedState], None] | None,
    ):
        assert tournament.id is not None
        self.store, self.tournament_id = store, tournament.id
        self.game_version = tournament.game_version
        self.versions, self.settings, self.state = versions, settings, state
        self.on_pair = on_pair
        self.entrants = frozenset(versions)
        self.outcomes: dict[int, str | None] = {}  # A's, by match number, of the pair in play
        self.void_in_a_row = 0

    def next_batch(self, suspended: Set[int]) -> list[Match]:
        """The next pair's unrecorded matches, written; [] once decided or at the limit."""
        while not self._over():
            pair = self._written_pair(self.state.pairs + self.state.void_pairs)
            todo = [m for m in pair if not m.recorded]
            self.outcomes = {}
            if len(todo) < len(pair):  # half of the pair was recorded before a resume
                stored = _stored_outcomes(self.store, self.tournament_id, self.versions[0])
                self.outcomes = {m.number: stored.get(m.number) for m in pair if m.recorded}
            if todo:
                return todo
            self._count_pair(pair[0].number)  # all of it recorded: count it as a run would
        return []

    def learn(self, match: Match, result: MatchResult | None) -> None:
        """Note A's result; once both of the pair are in, count the pair."""
        assert result is not None  # a run suspends nobody
        self.outcomes[match.number] = _outcome(result, match.lineup.index(self.versions[0]))
        first = 2 * (match.number // 2)
        if first in self.outcomes and first + 1 in self.outcomes:
            self._count_pair(first)

    def _over(self) -> bool:
        """Whether the test has decided or the limit is reached."""
        state = self.state
        done = state.pairs + state.void_pairs >= self.settings.max_pairs
        return state.decision is not None or done

    def _written_pair(self, index: int) -> list[Match]:
        """Pair `index` as stored, written first where it is not (a resumed half pair is)."""
        deal = pairing_seed(self.settings.seed, index)
        matches = [
            Match(
                number=2 * index + k,
                game=self.settings.game,
                game_version=self.game_version,
                seed=deal,
                lineup=list(seats),
            )
            for k, seats in enumerate(rotations((self.versions[0], self.versions[1])))
        ]
        numbers = [m.number for m in matches]  # the objects expire once stored
        known = {m.number for m in self.store.matches(self.tournament_id)}
        self.store.add_matches(self.tournament_id, [m for m in matches if m.number not in known])
        written = {m.number: m for m in self.store.matches(self.tournament_id)}
        return [written[n] for n in numbers]

    def _count_pair(self, first: int) -> None:
        """Count the pair of matches `first` and `first + 1`; a third void pair in a row
        stops the run (PairedError), a counted pair is told of (`on_pair`)."""
        if not _count(
            self.state, self.settings.test, self.outcomes.get(first), self.outcomes.get(first + 1)
        ):
            self.void_in_a_row += 1
            if self.void_in_a_row >= VOID_LIMIT:
                last = self.store.matches(self.tournament_id)[-2:]
                errors = "; ".join(m.error or "" for m in last)
                raise PairedError(f"{VOID_LIMIT} pairs in a row were void: {errors}")
            return
        self.void_in_a_row = 0
        if self.on_pair is not None:
            self.on_pair(self.state)


def _labels(store: Store, versions: list[int]) -> tuple[str, str]:
    names = store.version_names()
    first, second = (f"{names[v][0]} v{names[v][1]}" for v in versions)
    return first, second


def _stored_outcomes(store: Store, tournament_id: int, a_version: int) -> dict[int, str | None]:
    """A's result in each recorded match of the run, by match number (None: void)."""
    seats: dict[int, dict[int, int | None]] = {}
    status: dict[int, str | None] = {}
    for match, seat in store.seat_rows(tournament_id=tournament_id):
        seats.setdefault(match.number, {})[seat.bot_version_id] = seat.rank
        status[match.number] = match.status
    outcomes: dict[int, str | None] = {}
    for number, ranks in seats.items():
        mine = ranks.get(a_version)
        theirs = next((r for v, r in ranks.items() if v != a_version), None)
        if status[number] in VOID or mine is None or theirs is None:
            outcomes[number] = None
        else:
            outcomes[number] = "W" if mine < theirs else "D" if mine == theirs else "L"
    return outcomes


def _replay_pairs(
    store: Store,
    tournament: Tournament,
    a_version: int,
    settings: PairedSettings,
    state: PairedState,
) -> None:
    """Count the run's complete recorded pairs into `state`, as the run counted them."""
    assert tournament.id is not None
    outcomes = _stored_outcomes(store, tournament.id, a_version)
    index = 0
    while 2 * index in outcomes and 2 * index + 1 in outcomes and state.decision is None:
        _count(state, settings.test, outcomes[2 * index], outcomes[2 * index + 1])
        index += 1


def _count(state: PairedState, test: Sprt | None, first: str | None, second: str | None) -> bool:
    """Count one played pair into `state`; False for a void pair (not counted)."""
    if first is None or second is None:
        state.void_pairs += 1
        return False
    state.pairs += 1
    state.tally.add_pair(first, second)
    if test is not None:
        state.llr = test.llr(state.tally.pentanomial)
        state.decision = test.decision(state.llr)
    return True
