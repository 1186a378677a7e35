"""Benchmark: tournament throughput with 1 and 2 workers, process reuse vs fresh processes,
CPU pinning, the share of time spent outside the bots, and the rating + database cost.

Run: .venv/bin/python scripts/bench_tournament.py [--game take-that] [--rounds 40]

Every figure comes from this one run, on a fresh temporary arena home (SQLite).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import rating  # noqa: E402
from arena.models import Match, Tournament  # noqa: E402
from arena.store import MatchRecord, SeatRecord, Store  # noqa: E402
from arena.tournament import runner  # noqa: E402
from arena.tournament.config import TournamentConfig  # noqa: E402


def run_once(
    game: str, bots: tuple[str, ...], rounds: int, workers: int, fresh: bool, pin: bool
) -> tuple[float, float, float]:
    """(matches per second, share of match time inside bots, seconds) for one tournament."""
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

        began = time.perf_counter()
        runner.run(
            store, tid, workers, fresh_processes=fresh, pin_workers=pin, on_progress=progress
        )
        took = time.perf_counter() - began
        store.close()
    return count / took, thinking / max(match_time, 1e-9), took


def record_cost(n: int = 500) -> float:
    """Milliseconds per recorded match: rating plus one database transaction."""
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
        schedule = [Match(number=i, game="take-that", seed=i, lineup=[a, b]) for i in range(n)]
        tid = store.create_tournament(tournament, schedule)
        matches = store.matches(tid)
        replay = "{" + '"x":' + "1," * 2000 + '"y":1}'  # a replay of realistic size (~4 KB)
        began = time.perf_counter()
        for i, match in enumerate(matches):
            ranks = [1, 2] if i % 2 else [2, 1]
            seats = [SeatRecord(0, a, 1, ranks[0], "ok"), SeatRecord(1, b, 0, ranks[1], "ok")]
            record = MatchRecord(match.id or 0, "normal", seats, replay=replay)
            store.record(record, lambda before, r=ranks: rating.rate("take-that", before, r))
        took = time.perf_counter() - began
        store.close()
    return took / n * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="take-that")
    parser.add_argument("--bots", default="random,first-legal")
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    bots = tuple(args.bots.split(","))
    print(f"{args.game} round robin of {', '.join(bots)}, {args.rounds} rounds, 2 players")
    print("workers  processes  pinned   matches/s  in-bot share  seconds")
    figures = {}
    for workers, fresh, pin in [
        (1, False, False),
        (1, True, False),
        (2, False, True),
        (2, False, False),
        (2, True, True),
    ]:
        rate_, share, took = run_once(args.game, bots, args.rounds, workers, fresh, pin)
        figures[(workers, fresh, pin)] = rate_
        label = "fresh" if fresh else "reused"
        print(f"{workers:7d}  {label:9s}  {pin!s:6s}  {rate_:9.1f}  {share:11.0%}  {took:7.1f}")
    reuse_gain = figures[(1, False, False)] / figures[(1, True, False)]
    print(f"reuse vs fresh (1 worker): {reuse_gain:.1f}x")
    scaling = figures[(2, False, True)] / figures[(1, False, False)]
    print(f"2 workers vs 1 (reused, pinned): {scaling:.2f}x")
    print(f"rating + database per recorded match: {record_cost():.2f} ms")


if __name__ == "__main__":
    main()
