"""Benchmark: tournament throughput with 1 and 2 workers, process reuse vs fresh processes,
CPU pinning, the share of time spent outside the bots, and the rating + database cost.

Run: .venv/bin/python scripts/bench_tournament.py [--game take-that] [--rounds 40] [--repeat 3]
     [--fresh-against DIR]

Every figure comes from this one run, each tournament on a fresh temporary arena home
(SQLite). What is timed: `runner.run` of the whole round robin on a local process pool
of 1 or 2 worker processes (the same executor class for both, started and shut down
inside the timed span: pool start-up, every match, recording), wall clock and CPU
time (this process and every process it waited for: workers, bots). The set-ups take
turns round by round (--repeat rounds), so that the load of a shared machine falls on
all of them alike; each figure is the median, with min..max, over the rounds.

"bot wait" is the share of the matches' time that the worker spent waiting for a
bot's answer: the bot's thinking *and* the pipe round trip (arena's write, the
wake-ups, its read); it is not the bots' own CPU. The last line, one match recorded
per transaction, is what a run pays when it waits for every result; a coordinator
fed faster records several per transaction (scripts/bench_coordinator.py).

`--fresh-against DIR` measures only 1 worker with fresh processes, here and in DIR
(another checkout of arena, e.g. `git worktree add DIR COMMIT`, with bots/first-legal
built), each tournament in a child process run from its own tree by this script's own
code, the two trees taking turns round by round; it prints the per-round ratio.
"""

from __future__ import annotations

import argparse
import functools
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Where arena and the bots are imported from: `--tree DIR` (a child run of
#: --fresh-against) takes them from another checkout.
TREE = Path(sys.argv[sys.argv.index("--tree") + 1]) if "--tree" in sys.argv[:-1] else ROOT
sys.path.insert(0, str(TREE))

from arena.games import load_game  # noqa: E402
from arena.results import rating  # noqa: E402
from arena.status import MatchStatus, SeatStatus  # noqa: E402
from arena.store import MatchRecord, SeatRecord, Skill, Store  # noqa: E402
from arena.store.models import Match, Tournament  # noqa: E402
from arena.submissions.manifest import find_bot  # noqa: E402
from arena.tournament import executors, runner  # noqa: E402
from arena.tournament.config import TournamentConfig  # noqa: E402


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


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked (a bad value exits 2 in one line); `bot_names` are the
    --bots. --tree is read from sys.argv at import, before arena is imported."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="take-that")
    parser.add_argument("--bots", default="random,first-legal")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds (>= 1)")
    parser.add_argument("--fresh-against", metavar="DIR", type=Path)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child's run
    parser.add_argument("--tree", type=Path, help=argparse.SUPPRESS)  # read above, at import
    args = parser.parse_args(argv)
    args.bot_names = tuple(args.bots.split(","))
    try:
        load_game(args.game)
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
