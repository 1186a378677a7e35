"""`arena bot check`: a compliance run of a bot folder, like an engine check in fastchess.

The folder is read as a submission reads it (`arena.submissions.snapshot`), copied,
built by its own build step in its sandbox, and played as a tournament plays it:
ordinary matches (default timeouts and limits, opaque keyed match ids and seeds)
against bundled `random` bots, in every game it declares, at every player count
the game allows, and once more per game at its most players with every variant option
at its most (`fullest_variant`: e.g. Krumme10's teams, long and showdown, ten Take
That rounds). Full matches reach the end-game.

Each game and player count is a *series* played the way a round robin of the bot and
random bots is (`_series`): `Plan.deals` deals, each in every seat rotation, through
one pool that reuses processes as tournaments do (`BotPool(reuse=True)`: a process
plays match after match, `start` after `end`, and never meets a deal twice, so each
rotation of a deal goes to another process). A bot therefore cannot tell a check
from a tournament by being in a process's first match: with two deals each of its
processes plays two matches. The check plays a few matches only, so a bot that
misbehaves from its k-th match in a process for a larger k still passes: the gate
does not rely on the check for safety (forfeits, escaping and storable text protect
real matches); it catches honest mistakes and crude first-match-only cheats.

Per game the report says whether the bot passed and, from what the match runner
records anyway:

- the first forfeit: its reason, the exact line the bot printed (for an invalid or
  illegal answer) and the message it was answering;
- decision times (the replay's per-decision `ms`): p50, p99 and max against the deadline,
  and what the answers were charged on the bot's clock (`charged_ms`: its CPU, or a
  third of the wall time if more), p50, p99 and max;
- start-up time (start of the process to its first `ready`) against its timeout;
- peak memory (the bot's cgroup, else its main process's peak resident size)
  against the memory limit;
- the tail of the bot's stderr.

`arena bot submit` runs the same check on the stored copy with fewer matches
(`SUBMISSION`): one series per game, at its fewest players.
Nothing here prints: the command renders the report (arena/cli/bot.py).
"""

from __future__ import annotations

import math
import random
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from arena.games import all_games, load_game
from arena.match import seeds
from arena.match.lineup import new_seed
from arena.match.run import BotRef, MatchResult, MatchSpec, run_match
from arena.players.pool import BotPool
from arena.players.process import BotProcess
from arena.protocol.messages import text_of
from arena.status import SeatStatus
from arena.submissions import botfiles
from arena.submissions.botfiles import BotFolderError
from arena.submissions.manifest import Manifest, find_bot, prepare
from arena.submissions.snapshot import snapshot

#: The bundled bot in the other seats.
OPPONENT = "random"
#: The most of a bot's line or of arena's message kept in a report.
SHOWN_CHARS = 2000


@dataclass(frozen=True)
class Plan:
    """Which matches a check plays: a series per game and player count (`_series`)."""

    #: Deals per series, each played in every seat rotation: each of the bot's processes
    #: plays this many matches in a row (two: a first match and a later one).
    deals: int = 2
    #: "all": every player count the game allows; "ends": the fewest and the most;
    #: "fewest": the fewest only.
    counts: Literal["all", "ends", "fewest"] = "all"
    #: One more match per game, at its most players, with every variant option at its
    #: most (`fullest_variant`): the longest matches and the rules a default one skips.
    variants: bool = True


#: What `arena bot check` plays by default.
FULL = Plan()
#: What `arena bot submit` plays: one series per game at its fewest players, i.e. two
#: deals in both seats, two processes of two matches each (a submission must stay cheap;
#: `arena bot check` before it plays every player count).
SUBMISSION = Plan(deals=2, counts="fewest", variants=False)


@dataclass
class Forfeit:
    """The first time the bot lost a seat: why, what it printed, what it was answering."""

    match: str
    players: int
    seat: int
    status: SeatStatus
    detail: str
    #: The line the bot printed that broke the protocol ("" for a crash or a timeout).
    line: str = ""
    #: The last message arena wrote to the bot: the request it was answering.
    answering: str = ""
    #: The bot's last debug texts (protocol 2) before it lost the seat, oldest first.
    debug: list[str] = field(default_factory=list)


@dataclass
class GameCheck:
    """One game's result."""

    game: str
    passed: bool
    player_counts: list[int]
    #: The variant of the extra match (`Plan.variants`), when the game has options.
    variant: dict[str, Any] = field(default_factory=dict)
    matches: int = 0
    decisions: int = 0
    decision_p50_ms: float | None = None
    decision_p99_ms: float | None = None
    decision_max_ms: float | None = None
    #: What its answers were charged on its clock (CPU, or a third of the wall time if
    #: more; arena.protocol.clock): p50, p99 and max, against `deadline_ms`.
    charged_p50_ms: float | None = None
    charged_p99_ms: float | None = None
    charged_max_ms: float | None = None
    deadline_ms: int = 0
    startup_ms: float | None = None
    startup_timeout_ms: int = 0
    peak_memory_bytes: int | None = None
    memory_limit_bytes: int = 0
    forfeit: Forfeit | None = None
    #: A failure of arena itself in a match, its referee's too (void: not the bot's
    #: fault, but no pass).
    platform_error: str = ""
    stderr_tail: str = ""


@dataclass
class CheckReport:
    """The whole check: passed only when every game passed."""

    bot: str
    folder: str
    seed: int
    passed: bool = False
    #: Why the bot could not be checked at all (its build failed, its program is missing).
    error: str = ""
    #: What explains `error`: the build's output.
    error_output: str = ""
    build_seconds: float | None = None
    games: list[GameCheck] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The report as plain data (for --json)."""
        return asdict(self)


def _text(data: bytes) -> str:
    """A line as text for the report, at most SHOWN_CHARS of it."""
    shown = text_of(data[: SHOWN_CHARS * 4]).rstrip("\n")
    return shown if len(shown) <= SHOWN_CHARS else shown[:SHOWN_CHARS] + "..."


class _Watch(BotPool):
    """A pool that reuses processes as a tournament's does and notes, for the checked
    bot's folder, what a match runner does not keep: peak memory, start-up time, the
    last lines both ways."""

    def __init__(self, folder: Path):
        super().__init__(reuse=True)  # what a tournament's executor uses (reuse, no prestart)
        self.folder = folder
        self.peak: int | None = None
        self.startup: float | None = None
        self.last_line = b""
        self.last_sent = b""

    def release(self, bot: BotProcess, healthy: bool) -> None:
        if bot.folder == self.folder:
            peak = bot.sandbox.peak_memory_bytes() if bot.sandbox is not None else None
            if peak is not None:
                self.peak = max(self.peak or 0, peak)
            self.startup = bot.startup_seconds
            self.last_line, self.last_sent = bot.last_line, bot.last_sent
        super().release(bot, healthy)


def _counts(game: str, plan: Plan) -> list[int]:
    spec = load_game(game).spec
    if plan.counts == "ends":
        return sorted({spec.min_players, spec.max_players})
    if plan.counts == "fewest":
        return [spec.min_players]
    return list(range(spec.min_players, spec.max_players + 1))


def declared_games(manifest: Manifest) -> list[str]:
    """The games the bot declares it plays (every game for "*"); GameError for an unknown id."""
    if "*" in manifest.games:
        return [g.spec.id for g in all_games()]
    for game in manifest.games:
        load_game(game)
    return list(manifest.games)


def _percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile of sorted `values`.

    >>> _percentile([float(v) for v in range(1, 101)], 0.99), _percentile([1.0, 2.0, 3.0], 0.5)
    (99.0, 2.0)
    """
    index = max(0, min(len(values) - 1, math.ceil(share * len(values)) - 1))
    return round(values[index], 3)


def fullest_variant(game: str) -> dict[str, Any]:
    """Every variant option of a game at its most: switches on, numbers at their maximum,
    the last of a list of choices ({} for a game without options).

    >>> fullest_variant("krumme10")["long"], fullest_variant("leylo"), fullest_variant("twirkle")
    (True, {'rounds': 5}, {})
    """
    chosen: dict[str, Any] = {}
    for option in load_game(game).spec.variants:
        if isinstance(option.default, bool):
            chosen[option.name] = True
        elif option.choices:
            chosen[option.name] = option.choices[-1]
        elif option.maximum is not None:
            chosen[option.name] = option.maximum
    return chosen


def _rotation_spec(
    game: str,
    seat: int,
    seats: tuple[BotRef, ...],
    seed: int,
    rotation: int,
    secret: bytes,
    variant: dict[str, Any],
) -> tuple[MatchSpec, int]:
    """An ordinary match of deal `seed` in one seat rotation, with the bot in `seat`.

    Its keys are derived as a tournament's are (the deal from `seed` alone, the match
    id and the bots' seeds from the match's place too), so every rotation of a deal
    gets the same cards and the pool's deal memory applies.
    """
    match_id = f"{game}-{seed}-r{rotation}"
    keys = seeds.derive(secret, seed, match_id, len(seats))
    return MatchSpec(match_id, game, seed, seats, dict(variant), keys=keys), seat


def _series(
    game: str,
    players: int,
    bot: BotRef,
    other: BotRef,
    plan: Plan,
    rng: random.Random,
    secret: bytes,
    variant: dict[str, Any],
) -> list[tuple[MatchSpec, int]]:
    """The matches a round robin of the bot and random bots plays: `plan.deals` deals,
    each in every cyclic seat rotation in a row (arena.tournament.formats.rotations).

    The bot starts in a random seat and moves one seat back per rotation, as an
    entrant of a rotated group does.
    """
    first = rng.randrange(players)
    matches = []
    for _deal in range(plan.deals):
        seed = rng.randrange(2**31)
        for rotation in range(players):
            seat = (first - rotation) % players
            seats = tuple(bot if s == seat else other for s in range(players))
            matches.append(_rotation_spec(game, seat, seats, seed, rotation, secret, variant))
    return matches


def match_spec(
    game: str,
    players: int,
    bot: BotRef,
    other: BotRef,
    rng: random.Random,
    secret: bytes | None,
    variant: dict[str, Any] | None = None,
) -> tuple[MatchSpec, int]:
    """The first match of a check's series (a one-off secret when `secret` is None)."""
    key = seeds.new_secret() if secret is None else secret
    return _series(game, players, bot, other, Plan(deals=1), rng, key, variant or {})[0]


def _record(
    report: GameCheck, result: MatchResult, spec: MatchSpec, seat: int, watch: _Watch
) -> None:
    """Add one match's facts to the game's report."""
    report.matches += 1
    mine = result.seats[seat] if result.seats else None
    if result.status.void and not report.platform_error:
        report.platform_error = result.error
    if mine is not None:
        if report.forfeit is None:  # the first failing match's, else the last match's
            report.stderr_tail = mine.stderr
        report.decisions += mine.decisions
        if mine.status is not SeatStatus.OK and report.forfeit is None:
            protocol_broken = mine.status in (SeatStatus.INVALID, SeatStatus.ILLEGAL)
            report.forfeit = Forfeit(
                match=spec.match_id,
                players=len(spec.seats),
                seat=seat,
                status=mine.status,
                detail=mine.detail,
                line=_text(watch.last_line) if protocol_broken else "",
                answering=_text(watch.last_sent),
                debug=_last_debug(result, seat),
            )
            report.stderr_tail = mine.stderr
    if watch.startup is not None:
        report.startup_ms = max(report.startup_ms or 0.0, round(watch.startup * 1000, 3))
    if watch.peak is not None:
        report.peak_memory_bytes = max(report.peak_memory_bytes or 0, watch.peak)


def _times(result: MatchResult, seat: int, key: str = "ms") -> list[float]:
    """The bot's own decision times in a match (ms: wall; charged_ms: on its clock),
    from its replay's events."""
    events = (result.replay or {}).get("events", [])
    return [float(e[key]) for e in events if e.get("seat") == seat and key in e and "by" not in e]


#: How many of a forfeited bot's last debug texts its report shows.
DEBUG_SHOWN = 5


def _last_debug(result: MatchResult, seat: int) -> list[str]:
    """The seat's last debug texts in the match (protocol 2), oldest first."""
    events = (result.replay or {}).get("events", [])
    texts = [e["debug"] for e in events if e.get("seat") == seat and "debug" in e]
    return texts[-DEBUG_SHOWN:]


def _play_series(
    report: GameCheck, matches: list[tuple[MatchSpec, int]], folder: Path
) -> tuple[list[float], list[float]]:
    """Play one series through one reusing pool (closed after it, as a tournament's is);
    the bot's decision times, wall and charged."""
    times: list[float] = []
    charged: list[float] = []
    watch = _Watch(folder)
    try:
        for spec, seat in matches:
            report.deadline_ms = int(spec.decision_timeout * 1000)
            report.startup_timeout_ms = int(spec.startup_timeout * 1000)
            report.memory_limit_bytes = spec.limits.memory_bytes
            result = run_match(spec, watch)
            _record(report, result, spec, seat, watch)
            times += _times(result, seat)
            charged += _times(result, seat, "charged_ms")
    finally:
        watch.close()
    return times, charged


def check_game(
    bot: BotRef,
    other: BotRef,
    game: str,
    plan: Plan,
    rng: random.Random,
    secret: bytes | None = None,
) -> GameCheck:
    """Play the plan's series of one game and report them.

    Without `secret` the game's matches run under a one-off secret of their own.
    """
    counts = _counts(game, plan)
    variant = fullest_variant(game) if plan.variants else {}
    report = GameCheck(game=game, passed=False, player_counts=counts, variant=variant)
    key = seeds.new_secret() if secret is None else secret
    series: list[tuple[int, dict[str, Any]]] = [(players, {}) for players in counts]
    if variant:
        series.append((max(counts), variant))
    times: list[float] = []
    charged: list[float] = []
    for players, rules in series:
        matches = _series(game, players, bot, other, plan, rng, key, rules)
        wall, spent = _play_series(report, matches, Path(bot.folder))
        times += wall
        charged += spent
    times.sort()
    charged.sort()
    if times:
        report.decision_p50_ms = _percentile(times, 0.5)
        report.decision_p99_ms = _percentile(times, 0.99)
        report.decision_max_ms = round(times[-1], 3)
    if charged:
        report.charged_p50_ms = _percentile(charged, 0.5)
        report.charged_p99_ms = _percentile(charged, 0.99)
        report.charged_max_ms = round(charged[-1], 3)
    report.passed = report.forfeit is None and not report.platform_error
    return report


def opponent() -> BotRef:
    """The bundled bot in the other seats."""
    found = find_bot(OPPONENT)
    return BotRef(OPPONENT, str(found.folder), tuple(prepare(found)), protocol=found.protocol)


def check_built(
    manifest: Manifest,
    plan: Plan = FULL,
    seed: int | None = None,
    secret: bytes | None = None,
    games: list[str] | None = None,
) -> CheckReport:
    """Check a bot folder in place: build it (if not built yet), then play the plan.

    `seed` chooses the seats and the matches' seeds (a fresh one when None); with
    `secret` (ARENA_SECRET) the same seed plays the same matches, without it the
    matches run under a one-off secret (the rotations of a deal still share it). An
    unknown game id is a GameError.
    """
    seed = new_seed() if seed is None else seed
    report = CheckReport(bot=manifest.name, folder=str(manifest.folder), seed=seed)
    chosen = declared_games(manifest) if games is None else games
    began = time.monotonic()
    try:
        argv = tuple(prepare(manifest))
    except BotFolderError as error:
        report.error, report.error_output = str(error), error.details
        return report
    if manifest.build:
        report.build_seconds = round(time.monotonic() - began, 3)
    bot = BotRef(manifest.name, str(manifest.folder), argv, protocol=manifest.protocol)
    other = opponent()
    rng = random.Random(seed)
    report.games = [check_game(bot, other, game, plan, rng, secret) for game in chosen]
    report.passed = all(g.passed for g in report.games)
    return report


@contextmanager
def _copy(folder: Path) -> Iterator[Manifest]:
    """The bot's files (as a submission reads them) in a scratch folder, removed afterwards."""

    read = snapshot(folder)
    scratch = Path(tempfile.mkdtemp(prefix="arena-check-"))
    copy = scratch / "bot"
    try:
        botfiles.write_folder(read.files, copy)
        yield replace(read.manifest, folder=copy)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # the build stamp beside the copy too


def check(
    path: str,
    plan: Plan = FULL,
    seed: int | None = None,
    secret: bytes | None = None,
    games: list[str] | None = None,
) -> CheckReport:
    """Check the bot folder at `path` (or a bundled bot's name) as a submission would run it.

    It is read once and copied; the copy is built and played (the folder itself
    is never written). BotFolderError for a folder that cannot be read or has a bad
    manifest; a failing build is in the report.
    """
    found = find_bot(path)
    with _copy(found.folder) as manifest:
        report = check_built(manifest, plan, seed, secret, games)
    report.folder = str(found.folder)
    return report


def summary(report: CheckReport) -> str:
    """Why a check failed, in one line ("" when it passed)."""
    if report.error:
        return report.error
    failed = [g for g in report.games if not g.passed]
    if not failed:
        return ""
    first = failed[0]
    if first.forfeit is not None:
        f = first.forfeit
        why = f"{f.status} in a {f.players}-player match: {f.detail}"
    else:
        why = f"platform error: {first.platform_error}"
    more = f" (and {len(failed) - 1} more game(s))" if len(failed) > 1 else ""
    return f"{report.bot} failed its check in {first.game}: {why}{more}"


def details(report: CheckReport) -> str:
    """The text that explains a failed check: the offending line, the request, stderr."""
    if report.error:
        return report.error_output
    lines: list[str] = []
    for game in report.games:
        if game.passed:
            continue
        if game.forfeit is not None and game.forfeit.line:
            lines += [f"{game.game}: the bot printed:", game.forfeit.line]
        if game.forfeit is not None and game.forfeit.answering:
            lines += [f"{game.game}: answering:", game.forfeit.answering]
        if game.stderr_tail.strip():
            lines += [f"{game.game}: stderr (last part):", game.stderr_tail.strip("\n")]
        break
    return "\n".join(lines)


def submission_check(manifest: Manifest, games: list[str] | None = None) -> None:
    """The check `arena bot submit` runs on the stored copy; BotFolderError if it fails.

    `games`: only these of the games it declares (a folder entering a tournament is
    checked in the tournament's game), else every one. The error's first line says what
    failed; its details hold the bot's offending line, the request it was answering and
    its stderr (or a failed build's output).
    """
    report = check_built(manifest, SUBMISSION, games=games)
    if not report.passed:
        raise BotFolderError(summary(report), details(report))
