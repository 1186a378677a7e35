"""Benchmark: tournament throughput per game beside the decisions' round-trip floor, and
the local pool's set-ups (1 and 2 workers, process reuse, pinning, the database cost).

Run: .venv/bin/python scripts/bench_tournament.py [--games take-that,leylo] [--repeat 3]
     [--matches 100] [--pairs python,c] [--trips 2000]
     .venv/bin/python scripts/bench_tournament.py --pool-table [--game take-that] [--rounds 40]
     [--repeat 3] [--fresh-against DIR]

Default report: for every game, at 2 and at its most players, for a Python pair (copies
of bots/random) and a C pair (copies of bots/first-legal, all seats the same bot, each
copy under a name of its own): a real round robin (`runner.run`, the bots sandboxed as
in every tournament, processes reused, fresh SQLite home) on 1 worker (`InProcess`, the
coordinator playing, pinned as `arena tournament run --workers 1` pins) and on 2 pinned
worker processes (`Processes`). What is timed: from the end of the match half-way through
the run to the run's end (the last result recorded), so that the bots' builds and
process starts are left out (a process never meets a deal twice, so a worker starts one
per bot and seat rotation in its first deals); every match in between, its recording,
rating and replay are in: wall clock and CPU time (this process, the workers and the
bots). Per decision: that span over the decisions of the matches recorded in it.

Beside it, measured in the same round: the floor. "round trip" is one decision of that
game through arena on one core: the decide requests of one real match of that game
and player count are recorded, then a fresh process of the same bot, in its sandbox,
pinned with this thread to one core, answers them (cycled, new ids) through
BotProcess.decide + find_legal, exactly the runner's protocol work; the mean wall time
of a trip. "referee" is the referee's CPU per decision (legal, the protocol-2
observation, apply) playing the same game in-process with the pair's policy (random
choice, or the first legal). The goal is wall per decision <= 2 x round trip +
referee; shown as the ratio to that bound (<= 1.00 is met), and 2 workers' matches/s
over 1 worker's. Subjects take turns round by round, each figure is the
median (min..max) over the rounds (--repeat). With `--tree DIR` arena is imported from
another checkout (e.g. `git worktree add DIR COMMIT`): the same measurement of the code
before a change.

--pool-table: the older table (1 and 2 workers, reuse vs fresh processes, pinned or
not) for one game; "bot wait" there is the share of the matches' time the worker spent
waiting for a bot's answer (the bot's thinking and the pipe round trip). Its last line,
one match recorded per transaction, is what a run pays when it waits for every result.
`--fresh-against DIR` measures only 1 worker with fresh processes, here and in DIR
(another checkout of arena, e.g. `git worktree add DIR COMMIT`, with bots/first-legal
built), each tournament in a child process run from its own tree by this script's own
code, the two trees taking turns round by round; it prints the per-round ratio.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: Where arena and the bots are imported from: `--tree DIR` (a child run of
#: --fresh-against) takes them from another checkout.
TREE = Path(sys.argv[sys.argv.index("--tree") + 1]) if "--tree" in sys.argv[:-1] else ROOT
sys.path.insert(0, str(TREE))
sys.path.insert(1, str(Path(__file__).resolve().parent))  # bench_protocol, beside it

from arena.games import all_games, load_game  # noqa: E402
from arena.match.run import MatchResult  # noqa: E402
from arena.players.process import BotProcess  # noqa: E402
from arena.protocol import messages  # noqa: E402
from arena.protocol.clock import TimeControl  # noqa: E402
from arena.results import rating  # noqa: E402
from arena.status import MatchStatus, SeatStatus  # noqa: E402
from arena.store import MatchRecord, SeatRecord, Skill, Store  # noqa: E402
from arena.store.models import Match, Tournament  # noqa: E402
from arena.submissions.manifest import find_bot, load_manifest, prepare  # noqa: E402
from arena.tournament import executors, runner  # noqa: E402
from arena.tournament.config import TournamentConfig  # noqa: E402
from arena.tournament.execution import Executor  # noqa: E402


def cpu_seconds() -> float:
    """CPU time of this process and of its waited-for descendants so far."""
    own, children = (
        resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_once(
    game: str, bots: tuple[str, ...], rounds: int, workers: int, fresh: bool, pin: bool
) -> tuple[float, float, float, float]:
    """(matches/s, share of match time inside bots, seconds, CPU seconds) for one tournament."""
    with tempfile.TemporaryDirectory() as home:
        store = Store(f"sqlite:///{home}/arena.db")
        config = TournamentConfig(
            game=game, bots=bots, rounds=rounds, seed=3, workers=workers, fresh_processes=fresh
        )
        tid = runner.create(store, Path(home), config)
        thinking = match_time = 0.0
        count = 0

        def progress(p: runner.Progress) -> None:
            nonlocal thinking, match_time, count
            if p.result is not None:
                thinking += sum(s.think_seconds for s in p.result.seats)
                match_time += p.result.seconds
                count += 1

        began, cpu = time.perf_counter(), cpu_seconds()
        # A pool for 1 worker too: `arena tournament run --workers 1` plays in-process
        # instead, which would make "2 workers vs 1" compare two different executors.
        pool = executors.Processes(workers, reuse=not fresh, pin=pin)
        try:
            runner.run(store, tid, executor=pool, on_progress=progress)
        finally:
            pool.shutdown()
        took, cpu = time.perf_counter() - began, cpu_seconds() - cpu
        store.close()
    return count / took, thinking / max(match_time, 1e-9), took, cpu


def rate_take_that(before: list[Skill], ranks: list[int]) -> list[Skill]:
    """A two-player Take That rating update (what `Store.record` is handed)."""
    return rating.rate("take-that", before, ranks)


def record_cost(n: int = 500) -> float:
    """Milliseconds per recorded match, one per transaction: rating plus the transaction."""
    with tempfile.TemporaryDirectory() as home:
        store = Store(f"sqlite:///{home}/arena.db")
        a = store.add_bot_version("a", "a" * 64, "/a", ["x"], ["*"]).id or 0
        b = store.add_bot_version("b", "b" * 64, "/b", ["x"], ["*"]).id or 0
        tournament = Tournament(
            name="bench",
            game="take-that",
            game_version=1,
            format="round-robin",
            players=2,
            rounds=n,
            seed=0,
            variant={},
            settings={},
        )
        schedule = [
            Match(number=i, game="take-that", game_version=1, seed=i, lineup=[a, b])
            for i in range(n)
        ]
        tid = store.create_tournament(tournament, schedule)
        matches = store.matches(tid)
        replay = "{" + '"x":' + "1," * 2000 + '"y":1}'  # a replay of realistic size (~4 KB)
        began = time.perf_counter()
        for i, match in enumerate(matches):
            ranks = [1, 2] if i % 2 else [2, 1]
            seats = [
                SeatRecord(0, a, 1, ranks[0], SeatStatus.OK),
                SeatRecord(1, b, 0, ranks[1], SeatStatus.OK),
            ]
            record = MatchRecord(match.id or 0, MatchStatus.NORMAL, seats, replay=replay)
            store.record(record, functools.partial(rate_take_that, ranks=ranks))
        took = time.perf_counter() - began
        store.close()
    return took / n * 1000


# ----- per game: a real round robin beside its round-trip floor ---------------------
#: A pair's bundled bot: every seat plays a copy of it.
PAIRS = {"python": "random", "c": "first-legal"}


def tree_cpu() -> float:
    """CPU seconds of this process, of the descendants it has waited for, and of every
    living descendant (bots, workers) so far: the difference of two readings is what
    all of them spent in between, whether or not a bot was reaped in between."""
    from bench_protocol import cpu_ns, process_tree

    living = 0
    for pid in process_tree(os.getpid())[1:]:
        with contextlib.suppress(OSError):  # it ended meanwhile: counted once reaped
            living += cpu_ns(pid)
    return cpu_seconds() + living / 1e9


def copies(bot: str, count: int, into: Path) -> tuple[str, ...]:
    """`count` copies of a bundled bot, named `<bot>-1`.. (a tournament lists a bot once)."""
    source = find_bot(bot).folder
    folders = []
    for i in range(1, count + 1):
        folder = into / f"{bot}-{i}"
        if not folder.exists():
            shutil.copytree(source, folder)
            toml = folder / "bot.toml"
            text = re.sub(r'^name = ".*"$', f'name = "{bot}-{i}"', toml.read_text(), flags=re.M)
            toml.write_text(text)
        folders.append(str(folder))
    return tuple(folders)


@contextmanager
def home_store() -> Iterator[tuple[Path, Store]]:
    with tempfile.TemporaryDirectory() as home:
        store = Store(f"sqlite:///{home}/arena.db")
        try:
            yield Path(home), store
        finally:
            store.close()


def real_tournament(
    game: str, players: int, bots: tuple[str, ...], matches: int, workers: int
) -> dict[str, float]:
    """A pinned round robin; figures from the window's opening to the run's end."""
    with home_store() as (home, store):
        rounds = max(2, -(-matches // players))  # each deal is played in every rotation
        config = TournamentConfig(game=game, bots=bots, players=players, rounds=rounds, seed=3)
        tid = runner.create(store, home, config)
        total = store.match_counts(tid)[1]
        # The window opens once half of the matches are played: by then every worker has
        # started its processes (a process never meets a deal twice, so each bot needs as
        # many as there are rotations of a deal), so starts are left out, as builds are.
        window = Window(max(1, total // 2))
        pool: Executor
        if workers == 1:
            try:
                pool = executors.InProcess(reuse=True, pin=True)
            except TypeError:  # a tree from before in-process runs pinned (--tree)
                pool = executors.InProcess(True)
        else:
            pool = executors.Processes(workers, reuse=True, pin=True)
        played = executors.run_match  # type: ignore[attr-defined]
        if workers == 1:  # matches end here, and results may wait to be recorded: see them end
            executors.run_match = window.watching(played)  # type: ignore[attr-defined]
        try:
            progress = None if workers == 1 else lambda p: window.ended(p.result)
            runner.run(store, tid, executor=pool, on_progress=progress)
            ended, cpu_at_end = time.perf_counter(), tree_cpu()  # the last result is recorded
        finally:
            executors.run_match = played  # type: ignore[attr-defined]
            pool.shutdown()
    took = ended - window.opened
    return {
        "rate": window.matches / took,
        "wall": took / window.decisions * 1e6,
        "cpu": (cpu_at_end - window.cpu) / window.decisions * 1e6,
    }


class Window:
    """The matches ended after the first `opens`: when it opened, with how much CPU spent
    so far, and how many matches and decisions ended in it."""

    def __init__(self, opens: int):
        self.opens, self.seen = opens, 0
        self.opened = self.cpu = 0.0
        self.matches = self.decisions = 0

    def ended(self, result: MatchResult | None) -> None:
        """A match ended (None: one skipped, not played)."""
        if result is None:
            return
        self.seen += 1
        if self.seen == self.opens:  # reading every process's CPU costs ms: at the ends only
            self.opened, self.cpu = time.perf_counter(), tree_cpu()
        elif self.seen > self.opens:
            self.matches += 1
            self.decisions += sum(s.decisions for s in result.seats)

    def watching(self, play: Callable[..., MatchResult]) -> Callable[..., MatchResult]:
        """`play` (run_match), telling this window of every match it ends."""

        def run(*args: Any, **kwargs: Any) -> MatchResult:
            result = play(*args, **kwargs)
            self.ended(result)
            return result

        return run


def record_requests(game: str, players: int, bots: tuple[str, ...]) -> list[dict[str, Any]]:
    """The decide requests of two real matches of this line-up (protocol 2's shape)."""
    sent: list[dict[str, Any]] = []
    original = messages.decide_message

    def keep(*args: Any, **kwargs: Any) -> dict[str, Any]:
        message = original(*args, **kwargs)
        sent.append(message)
        return message

    messages.decide_message = keep
    try:
        with home_store() as (home, store):
            config = TournamentConfig(game=game, bots=bots, players=players, rounds=1, seed=5)
            tid = runner.create(store, home, config)
            pool = executors.InProcess(reuse=True)
            try:
                runner.run(store, tid, executor=pool)
            finally:
                pool.shutdown()
    finally:
        messages.decide_message = original
    return sent


def round_trip(
    folder: str, game: str, players: int, requests: list[dict[str, Any]], n: int
) -> float:
    """Microseconds of wall time a decision trip costs through arena, the bot and this
    thread on one core (cycling through `requests`)."""
    from bench_protocol import pin_tree

    manifest = load_manifest(Path(folder))
    core = max(os.sched_getaffinity(0))
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {core})
    bot = BotProcess(manifest.name, prepare(manifest), manifest.folder, protocol=manifest.protocol)
    try:
        bot.spawn()
        start = messages.start_message(
            match="bench",
            game=game,
            game_version=load_game(game).spec.version,
            variant={},
            players=players,
            seat=0,
            seed=1,
            decision_timeout_ms=1000,
            protocol=manifest.protocol,
            time_control={**TimeControl.per(1.0).message(), "startup_ms": 10_000},
        )
        bot.start_match(start, time.monotonic() + 10)
        assert bot.process is not None
        pin_tree(bot.process.pid, {core})
        trips = [dict(requests[i % len(requests)], id=i + 1) for i in range(n + 200)]
        decide, find_legal, monotonic = bot.decide, messages.find_legal, time.monotonic
        for message in trips[:200]:  # warm-up, untimed
            decide(message, monotonic() + 1.0)
        began = time.perf_counter()
        for message in trips[200:]:
            if find_legal(decide(message, monotonic() + 1.0), message["legal"]) is None:
                raise AssertionError("illegal answer")
        took = time.perf_counter() - began
    finally:
        bot.close()
        os.sched_setaffinity(0, allowed)
    return took / n * 1e6


def referee_cpu(game: str, players: int, policy: str, seconds: float = 0.3) -> float:
    """Microseconds of CPU a decision costs the referee alone: legal moves, the
    protocol-2 observation the seat would be sent, and applying the decisions."""
    game_cls = load_game(game)
    rng = random.Random(0)
    choose: Callable[[list[Any]], Any] = (
        rng.choice if policy == "random" else (lambda legal: legal[0])
    )
    decisions = games = 0
    began = time.thread_time()
    while time.thread_time() - began < seconds:
        state = game_cls.new(players, games)
        while not state.is_over():
            choices = {}
            for seat in state.to_move():
                state.observation(seat)
                choices[seat] = choose(state.legal(seat))
            state.apply_joint(choices)
            decisions += len(choices)
        games += 1
    return (time.thread_time() - began) / decisions * 1e6


@dataclass
class Row:
    game: str
    players: int
    pair: str
    bots: tuple[str, ...]
    requests: list[dict[str, Any]]
    figures: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))


def measure_row(row: Row, matches: int, trips: int) -> None:
    """One round of one row: both tournaments, the round trip and the referee."""
    one = real_tournament(row.game, row.players, row.bots, matches, 1)
    two = real_tournament(row.game, row.players, row.bots, matches, 2)
    rt = round_trip(row.bots[0], row.game, row.players, row.requests, trips)
    ref = referee_cpu(row.game, row.players, PAIRS[row.pair])
    figures = {
        "rate1": one["rate"],
        "wall": one["wall"],
        "cpu": one["cpu"],
        "rt": rt,
        "ref": ref,
        "bound": one["wall"] / (2 * rt + ref),
        "rate2": two["rate"],
        "scaling": two["rate"] / one["rate"],
    }
    for key, value in figures.items():
        row.figures[key].append(value)


def bench_games(games: list[str], pairs: list[str], rounds: int, matches: int, trips: int) -> None:
    """The per-game table: every row measured once a round, the rows taking turns."""
    with tempfile.TemporaryDirectory() as scratch:
        rows = []
        for game in games:
            spec = load_game(game).spec
            for players in sorted({spec.min_players, spec.max_players} - {1}):
                for pair in pairs:
                    bots = copies(PAIRS[pair], players, Path(scratch))
                    requests = record_requests(game, players, bots)
                    rows.append(Row(game, players, pair, bots, requests))
        for round_index in range(rounds):
            shift = round_index % len(rows)
            for row in rows[shift:] + rows[:shift]:
                measure_row(row, matches, trips)
    print(f"real round robins, ~{matches} matches each, bots sandboxed, processes reused, pinned;")
    print(f"median (min..max) over {rounds} interleaved rounds; per decision in us")
    head = f"{'game':10s} {'pl':>2s} {'pair':6s} {'1w matches/s':>19s} {'wall/dec':>17s}"
    head += f" {'CPU/dec':>17s} {'round trip':>17s} {'referee':>14s}"
    print(head + f" {'/ bound':>17s} {'2w matches/s':>19s} {'2w/1w':>16s}")
    for row in rows:
        f = row.figures
        line = f"{row.game:10s} {row.players:2d} {row.pair:6s} {spread(f['rate1'], 1):>19s}"
        line += f" {spread(f['wall'], 1):>17s} {spread(f['cpu'], 1):>17s}"
        line += f" {spread(f['rt'], 1):>17s} {spread(f['ref'], 1):>14s}"
        line += f" {spread(f['bound'], 2):>17s} {spread(f['rate2'], 1):>19s}"
        print(line + f" {spread(f['scaling'], 2):>16s}")
    print("bound = wall/dec / (2 x round trip + referee): the goal is <= 1.00; 2w/1w >= 1.8")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked (a bad value exits 2 in one line); `bot_names` are the
    --bots. --tree is read from sys.argv at import, before arena is imported."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="take-that")
    parser.add_argument("--bots", default="random,first-legal")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds (>= 1)")
    parser.add_argument("--fresh-against", metavar="DIR", type=Path)
    parser.add_argument("--pool-table", action="store_true", help="the local pool's set-ups")
    parser.add_argument("--games", default="", help="comma-separated (default: every game)")
    parser.add_argument("--pairs", default="python,c", help="python, c or both")
    parser.add_argument("--matches", type=int, default=100, help="matches per tournament")
    parser.add_argument("--trips", type=int, default=2000, help="timed trips per round trip")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child's run
    parser.add_argument(  # read above, at import (arena is imported from it)
        "--tree",
        type=Path,
        metavar="DIR",
        help="measure another checkout of arena (e.g. git worktree add DIR COMMIT) the same way",
    )
    args = parser.parse_args(argv)
    args.bot_names = tuple(args.bots.split(","))
    args.game_ids = [g for g in args.games.split(",") if g] or [g.spec.id for g in all_games()]
    args.pair_names = [p for p in args.pairs.split(",") if p]
    if unknown := [p for p in args.pair_names if p not in PAIRS]:
        parser.error(f"no pair {unknown[0]!r} (pairs: {', '.join(PAIRS)})")
    if args.repeat < 1 or args.matches < 2 or args.trips < 1:
        parser.error("--repeat and --trips must be at least 1, --matches at least 2")
    try:
        for game in [args.game, *args.game_ids]:
            load_game(game)
        for bot in args.bot_names:
            find_bot(bot)
    except ValueError as error:  # an unknown game or bot, named with those there are
        parser.error(str(error))
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    bots = args.bot_names
    if args.one:  # one fresh-process tournament; prints matches/s
        print(run_once(args.game, bots, args.rounds, 1, True, False)[0])
        return
    if args.fresh_against is not None:
        compare_fresh(args.fresh_against.resolve(), args.game, args.bots, args.rounds, args.repeat)
        return
    if not args.pool_table:
        bench_games(args.game_ids, args.pair_names, args.repeat, args.matches, args.trips)
        return
    setups = [(1, False, False), (1, True, False), (2, False, True), (2, False, False)]
    setups.append((2, True, True))
    runs: dict[tuple[int, bool, bool], list[tuple[float, float, float, float]]] = {}
    for _round in range(args.repeat):
        for setup in setups:
            runs.setdefault(setup, []).append(run_once(args.game, bots, args.rounds, *setup))
    print(f"{args.game} round robin of {', '.join(bots)}, {args.rounds} rounds, 2 players;")
    print(f"median (min..max) over {args.repeat} interleaved rounds")
    print("workers  processes  pinned  matches/s            bot wait  wall s  CPU s")
    for (workers, fresh, pin), figures in runs.items():
        rate_ = spread([f[0] for f in figures], 1)
        share, took, cpu = (statistics.median(f[i] for f in figures) for i in (1, 2, 3))
        label = "fresh" if fresh else "reused"
        row = f"{workers:7d}  {label:9s}  {pin!s:6s}  {rate_:19s}  {share:8.0%}"
        print(f"{row}  {took:6.1f}  {cpu:5.1f}")
    reused, fresh_runs = runs[(1, False, False)], runs[(1, True, False)]
    gains = [a[0] / b[0] for a, b in zip(reused, fresh_runs, strict=True)]
    print(f"reuse vs fresh (1 worker, matches/s, per round): {spread(gains, 2)}x")
    cpu_gains = [b[3] / a[3] for a, b in zip(reused, fresh_runs, strict=True)]
    print(f"fresh vs reuse CPU seconds (1 worker, per round): {spread(cpu_gains, 2)}x")
    pinned = runs[(2, False, True)]
    scaling = [a[0] / b[0] for a, b in zip(pinned, reused, strict=True)]
    print(f"2 workers vs 1 (reused, pinned, per round): {spread(scaling, 2)}x")
    print(f"rating + database, one match per transaction: {record_cost():.2f} ms per match")


def compare_fresh(other: Path, game: str, bots: str, rounds: int, repeat: int) -> None:
    """1 worker, fresh processes: this tree against `other`, alternating, in child processes."""
    rates: dict[Path, list[float]] = {ROOT: [], other: []}
    for _round in range(repeat):
        for tree in rates:
            argv = ["--game", game, "--bots", bots, "--rounds", str(rounds), "--one"]
            done = subprocess.run(
                [sys.executable, __file__, *argv, "--tree", str(tree)],
                cwd=tree,
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                sys.exit(f"the run in {tree} failed:\n{done.stderr[-2000:]}")
            rates[tree].append(float(done.stdout.split()[-1]))
    print(f"{game}, {bots}, {rounds} rounds, 1 worker, fresh processes; {repeat} rounds")
    for tree, values in rates.items():
        print(f"  {tree!s:40s} {spread(values, 1)} matches/s")
    ratios = [a / b for a, b in zip(rates[ROOT], rates[other], strict=True)]
    print(f"  this tree / the other, per round: {spread(ratios, 2)}x")


def spread(values: list[float], digits: int) -> str:
    """`median (min..max)`."""
    median, low, high = statistics.median(values), min(values), max(values)
    return f"{median:.{digits}f} ({low:.{digits}f}..{high:.{digits}f})"


if __name__ == "__main__":
    main()
