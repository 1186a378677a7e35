"""run_match: one game between seats, with deadlines, forfeits and a replay.

`run_match(spec)` is a plain, picklable function of its input: no database, no
global state, no terminal output. The same code runs in-process for tests, in a
local process pool and on remote workers.

Every way a seat's game can end has a name (`SeatStatus`): a bot that crashes,
times out, answers garbage or an illegal decision is forfeited with that reason,
a seeded fallback policy plays its remaining decisions so that the other seats
finish a normal game, and a forfeited seat ranks last. A failure of arena
itself voids the match (`MatchStatus.PLATFORM_ERROR`) and is never a bot's fault; so
does a game that is not over after its `max_decisions`, a referee bug
(`MatchStatus.DECISION_LIMIT`), whose replay up to there is kept to investigate.

A match runs on keyed seeds (arena.match.seeds.MatchKeys) that the coordinator derived
from its secret: the public `seed` of a spec never reaches the referee or a bot.

Whoever wants to follow a match while it is played (the live pages of `arena serve`)
passes a `Watcher`: it is told the replay's header (without its seeds), each replay
event as it is appended, and the end. Without one (the default) the play loop does
one `is None` test per step and nothing else.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from arena import controls
from arena.games import Decision, Game, Outcome, load_game
from arena.match import seeds
from arena.match.results import SeatResult
from arena.players.pool import BotPool
from arena.players.process import BotProcess
from arena.protocol import messages
from arena.protocol.clock import SeatClock, TimeControl
from arena.protocol.errors import BotError
from arena.sandbox.bwrap import VerifiedRead
from arena.sandbox.limits import Limits
from arena.sandbox.spawn import expect_version
from arena.sandbox.uids import SandboxError
from arena.status import MatchStatus, SeatStatus

if TYPE_CHECKING:
    from arena.submissions.botfiles import BotFile

LOG = logging.getLogger("arena.match")
REPLAY_FORMAT = "arena-replay"
#: 2: the deal seed and each seat's fallback seed are recorded; seeds are keyed.
#: 3: the time control, and per decision what it was charged, the bank left, its debug text.
REPLAY_VERSION = 3


@dataclass(frozen=True)
class BotRef:
    """How to start one seat's bot: picklable, resolved before the match."""

    name: str
    folder: str
    argv: tuple[str, ...]
    version_id: int | None = None
    #: The stored version's content hash: lets a worker that cannot see `folder`
    #: run the bot from its own verified copy (arena.tournament.bundles).
    sha256: str | None = None
    #: The protocol version the bot speaks (its bot.toml's `protocol`).
    protocol: int = messages.PROTOCOL_VERSION


@dataclass(frozen=True)
class MatchSpec:
    """Everything needed to play one match anywhere.

    `match_id` labels the match for people and logs (``t3-m17``) and `seed` is the
    organiser's public seed; neither is given to a bot. The bots and the referee get
    `keys`, derived with the database's secret (arena.match.seeds.derive). Without keys the
    match runs on one-off keys (arena.match.seeds.one_off) and cannot be reproduced.
    """

    match_id: str
    game: str
    seed: int
    seats: tuple[BotRef, ...]
    variant: dict[str, Any] = field(default_factory=dict)
    #: The limit per decision in seconds, when `time_control` is None (protocol 1's deadline).
    decision_timeout: float = 1.0
    startup_timeout: float = 10.0
    limits: Limits = field(default_factory=Limits)
    keys: seeds.MatchKeys | None = None
    #: The seats' time control (None: `decision_timeout` per decision).
    time_control: TimeControl | None = None

    @property
    def control(self) -> TimeControl:
        """The time control the seats play under."""
        return self.time_control or TimeControl.per(self.decision_timeout)


class Watcher(Protocol):
    """Follows one match as `run_match` plays it, in the playing thread.

    `start` gets the replay's header without any seed (game, game_version, variant,
    time_control, players, seats as {"seat", "bot"}): the deal seed alone would tell
    every hand. `event` gets each replay event, in order, once it is applied (a joint
    decision's events together); `end` the match's status, on every way out. A watcher
    must not raise: what it raises voids the match as arena's own failure.
    """

    def start(self, header: dict[str, Any]) -> None: ...

    def event(self, event: dict[str, Any]) -> None: ...

    def end(self, status: str) -> None: ...


@dataclass
class MatchResult:
    """What `run_match` returns: the outcome per seat, the replay, timings."""

    match_id: str
    game: str
    game_version: int
    variant: dict[str, Any]
    #: The public seed of the spec (the one to pass again to reproduce the match).
    seed: int
    status: MatchStatus
    seats: list[SeatResult]
    teams: list[int] | None = None
    replay: dict[str, Any] | None = None
    error: str = ""
    seconds: float = 0.0


def final_ranks(
    outcome: Outcome, forfeited: list[bool], higher_is_better: bool, *, seat_counted: bool = False
) -> list[int]:
    """Ranks after forfeits: a forfeited seat (its whole team in team games) ranks last.

    A rank is 1 + the number of rivals ahead; in team games the rivals are the teams
    (ABAB with A ahead: 1, 2, 1, 2). `seat_counted` counts seats instead (1, 3, 1, 3),
    the numbering of team matches recorded by earlier arenas, which `arena replay
    verify` still accepts; the order, and so the rating, is the same.

    >>> final_ranks(Outcome((5, 3, 1), (1, 2, 3)), [True, False, False], True)
    [3, 1, 2]
    >>> abab = Outcome((4, 9, 4, 9), (2, 1, 2, 1), teams=(0, 1, 0, 1))
    >>> final_ranks(abab, [False, True, False, False], True)
    [1, 2, 1, 2]
    """
    players = len(outcome.scores)
    lost = list(forfeited)
    rivals = list(range(players))
    if outcome.teams is not None:
        teams = outcome.teams
        bad_teams = {teams[s] for s in range(players) if forfeited[s]}
        lost = [teams[s] in bad_teams for s in range(players)]
        if not seat_counted:  # one rival per team: its first seat (mates share score and fate)
            rivals = [s for s in range(players) if teams[s] not in teams[:s]]
    sign = 1 if higher_is_better else -1

    def beats(a: int, b: int) -> bool:
        if lost[a] != lost[b]:
            return lost[b]
        return sign * outcome.scores[a] > sign * outcome.scores[b]

    return [1 + sum(beats(o, s) for o in rivals) for s in range(players)]


class _Seat:
    """A seat during a match: its bot process (until forfeited) and its fallback."""

    def __init__(self, index: int, ref: BotRef, keys: seeds.MatchKeys, control: TimeControl):
        self.index = index
        self.ref = ref
        self.bot: BotProcess | None = None
        self.status = SeatStatus.OK
        self.detail = ""
        self.stderr = ""
        self.decisions = 0
        self.think = 0.0
        self.requests = 0
        self.bot_seed = keys.bots[index]
        self.fallback = random.Random(keys.fallbacks[index])
        self.clock = SeatClock(control)

    def forfeit(self, status: SeatStatus, detail: str, pool: BotPool) -> None:
        LOG.info("seat %d (%s) forfeited: %s: %s", self.index, self.ref.name, status, detail)
        self.status, self.detail = status, detail
        if self.bot is not None:
            self.stderr = self.bot.stderr_tail()
            pool.release(self.bot, healthy=False)
            self.bot = None


def _checked_reading(folder: Path, sha256: str) -> VerifiedRead:
    """How the sandbox reads a stored version: once, checked against its submission
    (`arena.submissions.manifest.verified_files`); SandboxError (the match void) if it changed."""
    from arena.submissions.botfiles import BotFolderError
    from arena.submissions.manifest import verified_files

    def read() -> dict[tuple[str, ...], BotFile]:
        try:
            return verified_files(folder, sha256)
        except BotFolderError as error:
            raise SandboxError(str(error)) from None

    return read


def _seat_start(
    spec: MatchSpec, seat: _Seat, game: Game, pool: BotPool, idle: BotProcess | None = None
) -> None:
    """Start (or reuse: `idle`, or one the pool finds) the seat's process and complete the
    start/ready handshake."""
    ref = seat.ref
    assert spec.keys is not None  # run_match fills them in
    message = messages.start_message(
        match=spec.keys.match,
        game=spec.game,
        game_version=game.spec.version,
        variant=game.variant,
        players=game.players,
        seat=seat.index,
        seed=seat.bot_seed,
        decision_timeout_ms=int(spec.control.first_limit * 1000),
        protocol=ref.protocol,
        time_control={
            **spec.control.message(),
            "startup_ms": int(spec.startup_timeout * 1000),
        },
    )
    if ref.sha256 is not None:  # a stored version runs only as the bytes it was checked with
        expect_version(Path(ref.folder), _checked_reading(Path(ref.folder), ref.sha256))
    try:
        seat.bot = idle or pool.acquire(
            ref.name,
            ref.argv,
            Path(ref.folder),
            spec.limits,
            deal=spec.keys.deal,
            protocol=ref.protocol,
        )
        seat.bot.start_match(message, time.monotonic() + spec.startup_timeout)
    except BotError as error:
        seat.forfeit(error.status, f"at start: {error}", pool)


def _start_seats(spec: MatchSpec, seats: list[_Seat], game: Game, pool: BotPool) -> None:
    """Start every seat at once: a match waits for its slowest bot, not for the sum of them.

    A seat whose bot has a live idle process (the common case in a tournament that
    reuses processes) is started in this thread: its handshake is two pipe trips, less
    than starting a thread. Every other seat but the first runs `_seat_start` in a
    thread of its own (the first in this one),
    so that new processes are launched together and their start/ready handshakes are
    awaited together, each before its own deadline; a seat that fails is forfeited there,
    with the same reason and detail as when seats started one after another. A failure
    of arena (a sandbox that cannot be set up) is raised once every seat has settled, the
    first in seat order, so that the match is void and no seat is left half-started.
    """
    assert spec.keys is not None  # run_match fills them in
    failures: list[BaseException | None] = [None] * len(seats)
    idle = [
        pool.acquire_idle(
            s.ref.name, s.ref.argv, Path(s.ref.folder), spec.limits, spec.keys.deal, s.ref.protocol
        )
        for s in seats
    ]

    def start(seat: _Seat) -> None:
        try:
            _seat_start(spec, seat, game, pool, idle[seat.index])
        except BaseException as error:  # raised below, in this thread
            failures[seat.index] = error

    late = [seat for seat in seats if idle[seat.index] is None]
    threads = [
        threading.Thread(target=start, args=(seat,), name=f"arena-seat-{seat.index}")
        for seat in late[1:]
    ]
    for thread in threads:
        thread.start()
    for seat in seats:
        if idle[seat.index] is not None:
            seat.bot = idle[seat.index]  # a void match releases it (_stop_seats)
            start(seat)
    if late:
        start(late[0])
    for thread in threads:
        thread.join()
    for failure in failures:
        if failure is not None:
            raise failure


@dataclass
class _Answer:
    """One decision as the replay records it: who made it and what it cost."""

    decision: Decision
    wall: float = 0.0
    charged: float = 0.0
    bank: float | None = None
    debug: str | None = None
    fallback: bool = False

    def event(self, seat: int) -> dict[str, Any]:
        """The replay's event (protocol/REPLAY.md)."""
        event: dict[str, Any] = {"seat": seat, "decision": self.decision}
        event["ms"] = round(self.wall * 1000, 3)
        if self.fallback:
            event["by"] = "fallback"
        else:
            event["charged_ms"] = round(self.charged * 1000, 3)
            if self.bank is not None:
                event["bank_ms"] = round(self.bank * 1000, 3)
        if self.debug is not None:  # with an illegal answer too: its last words
            event["debug"] = self.debug
        return event


def _observation(game: Game, seat: int, protocol: int) -> dict[str, Any]:
    """What the seat is shown, in the shape of its protocol version."""
    if protocol == 1:
        return game.observe(seat)
    # the envelope, the same keys in every game; encoded at once, so it may share lists
    return cast(dict[str, Any], game.observation_to_send(seat))


def _ask(spec: MatchSpec, seat: _Seat, game: Game, pool: BotPool) -> _Answer:
    """One decision from the seat's bot, or from its fallback once it is forfeited.

    The bot may be charged (arena.protocol.clock) up to its clock's limit; what the
    answer cost is taken from its clock.
    """
    legal = game.legal(seat.index)
    bot = seat.bot
    if bot is None:
        return _Answer(seat.fallback.choice(legal), fallback=True)
    seat.requests += 1
    limit = seat.clock.limit()
    observation = _observation(game, seat.index, bot.protocol)
    time_left = None if bot.protocol == 1 else seat.clock.request()
    message = messages.decide_message(
        seat.requests, observation, legal, int(limit * 1000), time_left
    )
    try:
        answer = bot.decide(message, time.monotonic() + limit)
    except BotError as error:
        seat.forfeit(error.status, str(error), pool)
        return _Answer(seat.fallback.choice(legal), fallback=True)
    spent = bot.transport.last_spent
    seat.think += spent.wall
    seat.clock.charge(spent.charged)
    decision = messages.find_legal(answer, legal)
    if decision is None:
        shown = messages.describe(answer)
        said = bot.last_debug
        seat.forfeit(SeatStatus.ILLEGAL, f"answered {shown}, which was not offered", pool)
        return _Answer(seat.fallback.choice(legal), spent.wall, debug=said, fallback=True)
    seat.decisions += 1
    return _Answer(decision, spent.wall, spent.charged, seat.clock.bank, bot.last_debug)


def _forfeit_event(seat: _Seat) -> dict[str, Any]:
    """The replay's event for a forfeit. The detail may quote bytes that were not UTF-8
    (lone surrogates, which no JSON encoder takes): the replay spells them `\\xff`, the
    seat's result keeps them exactly."""
    detail = controls.spelled(seat.detail)
    return {"forfeit": seat.index, "reason": str(seat.status), "detail": detail}


class _PastDecisionLimit(Exception):
    """The game took more decisions than its `max_decisions` (MatchStatus.DECISION_LIMIT)."""

    def __init__(self, game: Game, events: list[dict[str, Any]]):
        limit = game.spec.max_decisions
        super().__init__(f"{game.spec.id} ran past {limit} decisions (its max_decisions)")
        self.events = events


def _play(
    spec: MatchSpec,
    game: Game,
    seats: list[_Seat],
    pool: BotPool,
    events: list[dict[str, Any]],
    watcher: Watcher | None = None,
) -> list[dict[str, Any]]:
    """Drive the game to its end, appending to `events` (the replay's event list, which
    it returns); the watcher is told of each new one after each step.

    Raises _PastDecisionLimit, with the events so far, once more decisions than the
    game's `max_decisions` are applied.
    """
    told = 0
    chance_seen = 0
    applied = 0
    while True:
        log = game.chance.log
        events.extend(log[chance_seen:])
        chance_seen = len(log)
        if watcher is not None:  # the only cost of the hook when nobody follows
            told = _tell(watcher, events, told)
        if game.is_over():
            return events
        choices: dict[int, Decision] = {}
        for index in game.to_move():
            seat = seats[index]
            was_ok = seat.status is SeatStatus.OK
            answer = _ask(spec, seat, game, pool)
            if was_ok and seat.status is not SeatStatus.OK:
                events.append(_forfeit_event(seat))
            choices[index] = answer.decision
            events.append(answer.event(index))
        game.apply_joint(choices)
        applied += len(choices)
        if applied > game.spec.max_decisions:
            events.extend(game.chance.log[chance_seen:])
            if watcher is not None:
                _tell(watcher, events, told)
            raise _PastDecisionLimit(game, events)


def _tell(watcher: Watcher, events: list[dict[str, Any]], told: int) -> int:
    """Tell the watcher of the events after the first `told`; how many it now knows."""
    for event in events[told:]:
        watcher.event(event)
    return len(events)


def _header(spec: MatchSpec, game: Game) -> dict[str, Any]:
    """A replay's header without its seeds (`make_replay`), for a watcher."""
    return {
        "format": REPLAY_FORMAT,
        "version": REPLAY_VERSION,
        "match": spec.match_id,
        "game": spec.game,
        "game_version": game.spec.version,
        "variant": dict(game.variant),
        "seed": spec.seed,
        "time_control": str(spec.control),
        "players": game.players,
        "seats": [{"seat": i, "bot": ref.name} for i, ref in enumerate(spec.seats)],
    }


def _finish(
    spec: MatchSpec, game: Game, seats: list[_Seat], pool: BotPool
) -> tuple[Outcome, list[int]]:
    assert spec.keys is not None  # run_match fills them in
    outcome = game.outcome()
    forfeited = [s.status is not SeatStatus.OK for s in seats]
    ranks = final_ranks(outcome, forfeited, game.spec.higher_score_wins)
    statuses = [str(s.status) for s in seats]
    for seat in seats:
        if seat.bot is None:
            continue
        message = messages.end_message(
            spec.keys.match, seat.index, list(outcome.scores), ranks, statuses
        )
        healthy = True
        try:
            seat.bot.send(message, time.monotonic() + spec.decision_timeout)
        except BotError:
            healthy = False
        seat.stderr = seat.bot.stderr_tail()
        pool.release(seat.bot, healthy)
        seat.bot = None
    return outcome, ranks


def _stop_seats(seats: list[_Seat], pool: BotPool) -> None:
    """Stop the bots of a void match mid-game (no `end`: there is no result to send)."""
    for seat in seats:
        if seat.bot is not None:
            seat.stderr = seat.bot.stderr_tail()
            pool.release(seat.bot, healthy=False)
            seat.bot = None


def run_match(
    spec: MatchSpec, pool: BotPool | None = None, watcher: Watcher | None = None
) -> MatchResult:
    """Play one match to its end and return its result; never raises for a bot's fault.

    `watcher` (see `Watcher`) follows the match as it is played."""
    if watcher is None:
        return _run(spec, pool, None)
    result = _run(spec, pool, watcher)
    watcher.end(str(result.status))
    return result


def _run(spec: MatchSpec, pool: BotPool | None, watcher: Watcher | None) -> MatchResult:
    began = time.monotonic()
    if spec.keys is None:
        spec = replace(spec, keys=seeds.one_off(spec.seed, spec.match_id, len(spec.seats)))
    keys = spec.keys
    assert keys is not None and len(keys.bots) == len(keys.fallbacks) == len(spec.seats)
    own_pool = pool is None
    pool = pool or BotPool(reuse=False)
    game_cls = load_game(spec.game)
    game = game_cls.new(len(spec.seats), keys.deal, spec.variant)
    seats = [_Seat(i, ref, keys, spec.control) for i, ref in enumerate(spec.seats)]
    result = MatchResult(
        match_id=spec.match_id,
        game=spec.game,
        game_version=game.spec.version,
        variant=dict(game.variant),
        seed=spec.seed,
        status=MatchStatus.NORMAL,
        seats=[],
    )
    events: list[dict[str, Any]] = []
    if watcher is not None:
        watcher.start(_header(spec, game))
    try:
        _start_seats(spec, seats, game, pool)
        events = [_forfeit_event(s) for s in seats if s.status is not SeatStatus.OK]
        events = _play(spec, game, seats, pool, events, watcher)
        outcome, ranks = _finish(spec, game, seats, pool)
    except _PastDecisionLimit as stop:  # the referee's bug: void, the replay kept
        LOG.error("match %s: %s: %s", spec.match_id, MatchStatus.DECISION_LIMIT, stop)
        _stop_seats(seats, pool)
        result.status, result.error = MatchStatus.DECISION_LIMIT, str(stop)
        result.seats = [
            SeatResult(
                *(s.index, s.ref.version_id, None, None, s.status, s.detail, s.stderr),
                bot=s.ref.name,
                decisions=s.decisions,
                think_seconds=s.think,
            )
            for s in seats
        ]
        result.replay = make_replay(spec, game, result, stop.events)
        result.seconds = time.monotonic() - began
        return result
    except Exception as error:  # arena's own failure: void the match, blame no bot
        LOG.error("match %s: platform error\n%s", spec.match_id, traceback.format_exc())
        _stop_seats(seats, pool)
        result.status = MatchStatus.PLATFORM_ERROR
        result.error = f"{type(error).__name__}: {error}"
        result.seats = [
            SeatResult(
                *(s.index, s.ref.version_id, None, None, s.status, s.detail, s.stderr),
                bot=s.ref.name,
            )
            for s in seats
        ]
        result.seconds = time.monotonic() - began
        return result
    finally:
        if own_pool:
            pool.close()
    if any(s.status is not SeatStatus.OK for s in seats):
        result.status = MatchStatus.FORFEIT
    result.teams = list(outcome.teams) if outcome.teams is not None else None
    result.seats = [
        SeatResult(
            seat=s.index,
            bot_version_id=s.ref.version_id,
            bot=s.ref.name,
            score=outcome.scores[s.index],
            rank=ranks[s.index],
            status=s.status,
            detail=s.detail,
            stderr=s.stderr,
            decisions=s.decisions,
            think_seconds=s.think,
        )
        for s in seats
    ]
    result.replay = make_replay(spec, game, result, events)
    result.seconds = time.monotonic() - began
    return result


def make_replay(
    spec: MatchSpec, game: Game, result: MatchResult, events: list[dict[str, Any]]
) -> dict[str, Any]:
    """The self-contained replay document (format in protocol/REPLAY.md).

    It records the keyed seeds this match ran on (never the secret), so anyone can
    check it and re-run it; they tell nothing about any other match. A void match's
    replay (only a decision-limit one has one) has null scores and ranks and says
    why it is void (`outcome.void`).
    """
    assert spec.keys is not None
    keys = spec.keys
    outcome: dict[str, Any] = {
        "scores": [s.score for s in result.seats],
        "ranks": [s.rank for s in result.seats],
        "status": [str(s.status) for s in result.seats],
    }
    if result.status.void:  # no scores: why (decision-limit), for whoever investigates
        outcome["void"] = str(result.status)
    return {
        "format": REPLAY_FORMAT,
        "version": REPLAY_VERSION,
        "match": spec.match_id,
        "game": spec.game,
        "game_version": game.spec.version,
        "variant": dict(game.variant),
        "seed": spec.seed,
        "deal_seed": f"{keys.deal:064x}",
        "time_control": str(spec.control),
        "players": game.players,
        "seats": [
            {
                "seat": s.seat,
                "bot": s.bot,
                "seed": keys.bots[s.seat],
                "fallback_seed": keys.fallbacks[s.seat],
            }
            for s in result.seats
        ],
        "events": events,
        "outcome": outcome,
    }
