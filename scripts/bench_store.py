"""Benchmark the store at scale: reports over 100,000 recorded matches, and recording one more.

Builds a database (SQLite by default, any URL with --db) holding --matches recorded
matches of --bots bots (3 seats each, with replays), spread over --tournaments
tournaments, by inserting the rows directly in bulk. Then it times what the CLI
calls: `reports.leaderboard` (arena leaderboard), `Store.opponents` (the read behind
its pools, which the service's boards refresh), `reports.bot_details` (arena bot
show), `reports.tournament_details` (arena tournament show, of the largest
tournament), and `Store.record` of one match with its TrueSkill update. Each is
run --rounds times; the median and min..max of wall time, with CPU time beside it.
For comparison it also times aggregating every seat in SQL (what the leaderboard
did before it read the rating rows' counters), and checks, after building and
again after recording, that the counters equal that aggregation.

Goals (issue 12): each read under 200 ms, recording under 2 ms per match (SQLite).

    .venv/bin/python scripts/bench_store.py
    .venv/bin/python scripts/bench_store.py --tournaments 1   # one tournament of 100,000
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert, text
from sqlmodel import SQLModel

from arena.errors import StoreError
from arena.results import rating, reports
from arena.status import MatchStatus, SeatStatus
from arena.store import MatchRecord, SeatRecord, Skill, Store
from arena.store.models import Bot, BotVersion, Match, MatchReplay, MatchSeat, Rating, Tournament

GAME = "take-that"
SEATS = 3


def build(store: Store, matches: int, bots: int, tournaments: int, replay_bytes: int) -> None:
    """Insert bots, tournaments, recorded matches, seats, replays and ratings in bulk.

    The ratings get the leaderboard's counters as arena.store counts them (every match
    here is counted: none is void and every seat has a score).
    """
    rng = random.Random(1)
    stamp = datetime.now(UTC)
    replay = '{"pad":"' + "x" * max(0, replay_bytes - 10) + '"}'
    per = matches // tournaments
    with store.writer.begin() as db:
        db.execute(
            insert(Bot),
            [{"id": b + 1, "name": f"bot{b:02d}", "owner": "bench", "created_at": stamp}
             for b in range(bots)],
        )  # fmt: skip
        db.execute(
            insert(BotVersion),
            [
                {"id": b + 1, "bot_id": b + 1, "number": 1, "sha256": f"{b:064x}",
                 "folder": "/nowhere", "command": ["x"], "games": ["*"], "created_at": stamp}
                for b in range(bots)
            ],
        )  # fmt: skip
        db.execute(
            insert(Tournament),
            [
                {"id": t + 1, "name": f"t{t}", "game": GAME, "game_version": 1,
                 "format": "round-robin", "players": SEATS, "rounds": 1, "seed": t,
                 "variant": {}, "settings": {}, "status": "finished", "created_at": stamp}
                for t in range(tournaments)
            ],
        )  # fmt: skip
        skill = {b + 1: Skill.initial() for b in range(bots)}
        # version -> [rated seats, games, wins, score sum, forfeits]
        tally = {b + 1: [0, 0, 0, 0.0, 0] for b in range(bots)}
        links: set[tuple[int, int]] = set()  # (tournament, version) of the rated seats
        chunk = 10_000
        for start in range(0, matches, chunk):
            match_rows, seat_rows, replay_rows = [], [], []
            for m in range(start, min(matches, start + chunk)):
                lineup = rng.sample(range(1, bots + 1), SEATS)
                tid = min(m // per + 1, tournaments)
                links.update((tid, v) for v in lineup)
                match_rows.append(
                    {"id": m + 1, "tournament_id": tid, "number": m, "game": GAME,
                     "game_version": 1, "seed": rng.getrandbits(48), "lineup": lineup,
                     "recorded": True, "status": "forfeit" if m % 50 == 0 else "normal",
                     "seconds": 0.1, "recorded_at": stamp}
                )  # fmt: skip
                replay_rows.append({"match_id": m + 1, "replay": replay})
                for seat, version in enumerate(lineup):
                    forfeited = m % 50 == 0 and seat == 0
                    before = skill[version]
                    after = Skill(before.mu + rng.uniform(-1, 1), before.sigma * 0.999)
                    skill[version] = after
                    score = rng.randint(-100, 0)
                    counts = tally[version]
                    counts[0] += 1
                    counts[1] += 1
                    counts[2] += seat == 0
                    counts[3] += score
                    counts[4] += forfeited
                    seat_rows.append(
                        {"match_id": m + 1, "seat": seat, "bot_version_id": version,
                         "score": score, "rank": seat + 1,
                         "status": "crash" if forfeited else "ok",
                         "detail": "exit 1" if forfeited else "", "stderr": "",
                         "mu_before": before.mu, "sigma_before": before.sigma,
                         "mu_after": after.mu, "sigma_after": after.sigma}
                    )  # fmt: skip
            db.execute(insert(Match), match_rows)
            db.execute(insert(MatchSeat), seat_rows)
            db.execute(insert(MatchReplay), replay_rows)
        db.execute(
            insert(Rating),
            [
                {"bot_version_id": v, "game": GAME, "game_version": 1, "mu": s.mu,
                 "sigma": s.sigma, "matches": tally[v][0], "games": tally[v][1],
                 "wins": tally[v][2], "score_sum": tally[v][3], "forfeits": tally[v][4],
                 "updated_at": stamp}
                for v, s in skill.items()
            ],
        )  # fmt: skip
        if "poollink" in SQLModel.metadata.tables:  # the rating pools' links, as recorded
            db.execute(
                insert(SQLModel.metadata.tables["poollink"]),
                [
                    {"game": GAME, "game_version": 1, "unit": t, "bot_version_id": v}
                    for t, v in sorted(links)
                ],
            )
        if db.dialect.name == "postgresql":  # explicit ids: move the sequences on
            for table in ("bot", "botversion", "tournament", "match"):
                sequence = f"pg_get_serial_sequence('{table}', 'id')"
                db.execute(text(f"SELECT setval({sequence}, MAX(id)) FROM {table}"))


def check_counters(store: Store) -> None:
    """StoreError unless the leaderboard's counters equal the seats aggregated afresh."""
    fresh = store.seat_statistics(GAME, 1)
    for row in store.leaderboard(GAME, 1):
        counted = (row.games, row.wins, row.shared_wins, row.score_sum, row.forfeits)
        found = fresh.get(row.bot_version_id)
        expected = tuple(found.values()) if found else (0, 0, 0, 0.0, 0)
        if counted != expected:
            raise StoreError(f"{row.bot} v{row.version}: counters {counted}, seats {expected}")


def timed(label: str, rounds: int, action: Callable[[], Any], per: int = 1) -> None:
    """Print median and min..max of wall time (ms, per item), CPU time beside it."""
    walls, cpus = [], []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append((time.perf_counter() - wall) * 1000 / per)
        cpus.append((time.process_time() - cpu) * 1000 / per)
    print(
        f"{label:<40} wall {statistics.median(walls):8.2f} ms ({min(walls):.2f}..{max(walls):.2f})"
        f"   cpu {statistics.median(cpus):8.2f} ms ({min(cpus):.2f}..{max(cpus):.2f})"
    )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (argparse exits 2 on a bad one)."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--tournaments", type=int, default=10)
    parser.add_argument("--replay-bytes", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--record", type=int, default=200, help="matches recorded per round")
    parser.add_argument("--db", help="SQLAlchemy URL of an empty database (default: SQLite)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="arena-bench-store-") as folder:
        url = args.db or f"sqlite:///{Path(folder) / 'arena.db'}"
        store = Store(url)
        began = time.perf_counter()
        build(store, args.matches, args.bots, args.tournaments, args.replay_bytes)
        print(
            f"built {args.matches} matches of {args.bots} bots in {args.tournaments} tournaments"
            f" ({SEATS} seats, {args.replay_bytes}-byte replays) in"
            f" {time.perf_counter() - began:.1f} s; {args.rounds} rounds each"
        )
        check_counters(store)
        largest = 1  # tournament 1 has the most matches (or as many as any)
        timed(
            "(seats summed in SQL, for comparison)",
            args.rounds,
            lambda: store.seat_statistics(GAME, 1),
        )
        timed(
            "leaderboard (arena leaderboard)", args.rounds, lambda: reports.leaderboard(store, GAME)
        )
        timed(
            "rating pools' read (Store.opponents)",
            args.rounds,
            lambda: store.opponents(GAME, 1),
        )
        timed("bot show (arena bot show)", args.rounds, lambda: reports.bot_details(store, "bot07"))
        timed(
            "tournament show (arena tournament show)",
            args.rounds,
            lambda: reports.tournament_details(store, largest),
        )
        schedule_id = store.create_tournament(
            Tournament(
                name="recording", game=GAME, game_version=1, format="round-robin",
                players=SEATS, rounds=1, seed=0, variant={}, settings={},
            ),
            [Match(number=i, game=GAME, game_version=1, seed=i, lineup=[1, 2, 3])
             for i in range(args.rounds * args.record)],
        )  # fmt: skip
        pending = iter(store.matches(schedule_id))
        replay = '{"pad":"' + "x" * args.replay_bytes + '"}'

        def record_some() -> None:
            for _ in range(args.record):
                match = next(pending)
                seats = [
                    SeatRecord(s, v, -s, s + 1, SeatStatus.OK) for s, v in enumerate(match.lineup)
                ]
                store.record(
                    MatchRecord(
                        match.id or 0, MatchStatus.NORMAL, seats, seconds=0.1, replay=replay
                    ),
                    lambda before: rating.rate(GAME, before, [1, 2, 3]),
                )

        timed("record one match (with rating)", args.rounds, record_some, per=args.record)
        check_counters(store)
        print("checked: the leaderboard's counters equal the seats aggregated in SQL")
        store.close()


if __name__ == "__main__":
    main()
