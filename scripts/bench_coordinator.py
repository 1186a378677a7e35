"""Coordinator speed: matches recorded per second, the path a tournament's results take.

Usage: .venv/bin/python scripts/bench_coordinator.py [--db URL ...] [--players 2 4 6]
       [--rounds 3] [--per-round 400] [--bots 12]

Only the coordinator writes the database: every result a worker sends back goes
through the loop of `arena.tournament.runner.run` (suspension streaks, progress, the
record of each match: TrueSkill update, replay as JSON) and `Store.record_many`
(matches, seats, replays and rating rows, several matches per transaction when
results arrive faster than one transaction). This script runs that very loop on an
executor whose results are all there at once (`Instant`), as from many fast workers,
so that nothing but the coordinator is timed: no bot, referee or pipe runs while the
clock runs.

Set-up (not timed): a fresh database per `--db` URL (default: a temporary SQLite file;
PostgreSQL: pass an empty database's URL), `--bots` bot versions (pointing at
bots/random, whose manifest `run` reads), and per round and player count one Krumme10
tournament of `--per-round` matches with seats drawn from the bots, and its results.
Each result carries a replay of realistic shape: the events of one seeded random
in-process game of that player count (about 13-22 KB as JSON).

Timed: `--rounds` rounds; in each, every player count in turn (the order rotating
from round to round, so load from other processes hits all alike) runs its
tournament: `runner.run(store, id, executor=Instant(...))`, start to finish. Printed per
database and player count: median matches/s by wall time with min..max over the
rounds, and median coordinator CPU per match (`time.process_time`, this process only;
with PostgreSQL the server's own CPU is not in it) with min..max.

Goals (issue 15): >= 2,000 matches/s for 2 players on SQLite (<= 0.5 ms each), >= 500/s
for 6 players.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from arena.errors import StoreError
from arena.games import load_game
from arena.match.results import SeatResult
from arena.match.run import MatchResult, MatchSpec
from arena.status import MatchStatus, SeatStatus
from arena.store import Store
from arena.store.models import Bot, BotVersion, Match, Tournament
from arena.tournament import runner

GAME = "krumme10"
RANDOM_BOT = Path(__file__).resolve().parents[1] / "bots" / "random"


def replay_of(players: int, seed: int) -> dict[str, Any]:
    """A replay document shaped like a real one: the events of a random in-process game."""
    game = load_game(GAME).new(players, seed)
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    while not game.is_over():
        for seat in game.to_move():
            decision = rng.choice(game.legal(seat))
            events.append({"type": "decision", "seat": seat, "decision": decision, "ms": 1.5})
            game.apply(seat, decision)
    return {
        "format": "arena-replay",
        "version": 2,
        "match": "bench",
        "game": GAME,
        "players": players,
        "events": events,
        "outcome": {"scores": list(game.outcome().scores)},
    }


def build(store: Store, bots: int) -> None:
    """The bot versions (all pointing at bots/random, so `run` can read a manifest)."""
    stamp = datetime.now(UTC)
    with store.writer.begin() as db:
        db.execute(
            insert(Bot),
            [{"id": b + 1, "name": f"bot{b:02d}", "owner": "bench", "created_at": stamp}
             for b in range(bots)],
        )  # fmt: skip
        db.execute(
            insert(BotVersion),
            [{"id": b + 1, "bot_id": b + 1, "number": 1, "sha256": f"{b:064x}",
              "folder": str(RANDOM_BOT), "command": ["python3", "bot.py"], "games": ["*"],
              "created_at": stamp}
             for b in range(bots)],
        )  # fmt: skip


def schedule(store: Store, bots: int, count: int, matches: int, seed: int) -> int:
    """A tournament of `matches` matches of `count` players; its id."""
    rng = random.Random(seed)
    version = load_game(GAME).spec.version
    tournament = Tournament(
        name=f"bench-{count}p-{seed}", game=GAME, game_version=version,
        format="round-robin", players=count, rounds=1, seed=seed, variant={},
        settings={"decision_timeout": 1.0, "startup_timeout": 10.0, "suspend_after": 5},
    )  # fmt: skip
    lineups = [rng.sample(range(1, bots + 1), count) for _ in range(matches)]
    return store.create_tournament(
        tournament,
        [
            Match(number=i, game=GAME, game_version=version, seed=i, lineup=lineup)
            for i, lineup in enumerate(lineups)
        ],
    )


class _Ready:
    """A match whose result is there."""

    def __init__(self, result: MatchResult):
        self.value = result

    def result(self) -> MatchResult:
        return self.value

    def done(self) -> bool:
        return True


class Instant:
    """An executor whose every result is there at once: precomputed, handed out in order."""

    slots = 64

    def __init__(self, results: list[MatchResult]):
        self.results = iter(results)

    def submit(self, spec: MatchSpec) -> _Ready:
        return _Ready(next(self.results))

    def shutdown(self, now: bool = False) -> None:
        pass


def results(match: Match, replay: dict[str, Any], rng: random.Random) -> MatchResult:
    """A normal result for a scheduled match, as a worker would send it back."""
    count = len(match.lineup)
    order = list(range(count))
    rng.shuffle(order)
    seats = [
        SeatResult(
            seat, version, float(-order[seat]), order[seat] + 1, SeatStatus.OK, bot=f"bot{version}"
        )
        for seat, version in enumerate(match.lineup)
    ]
    return MatchResult(
        match_id=f"bench-{match.id}", game=GAME, game_version=1, variant={}, seed=match.seed,
        status=MatchStatus.NORMAL, seats=seats, replay=replay, seconds=0.2,
    )  # fmt: skip


def bench(url: str, args: argparse.Namespace) -> None:
    """Every player count on one database, interleaved round by round."""
    store = Store(url)
    build(store, args.bots)
    replays = {count: replay_of(count, count) for count in args.players}
    walls: dict[int, list[float]] = {count: [] for count in args.players}
    cpus: dict[int, list[float]] = {count: [] for count in args.players}
    rng = random.Random(2)
    for round_no in range(args.rounds):
        shift = round_no % len(args.players)
        for count in args.players[shift:] + args.players[:shift]:
            tid = schedule(store, args.bots, count, args.per_round, seed=100 * round_no + count)
            made = [results(m, replays[count], rng) for m in store.matches(tid, recorded=False)]
            executor = Instant(made)
            wall, cpu = time.perf_counter(), time.process_time()
            runner.run(store, tid, executor=executor)
            walls[count].append((time.perf_counter() - wall) / args.per_round)
            cpus[count].append((time.process_time() - cpu) / args.per_round)
            assert store.match_counts(tid) == (args.per_round, args.per_round)
    store.close()
    backend = url.split(":", 1)[0]
    for count in args.players:
        rates = [1 / w for w in walls[count]]
        cpu_ms = [c * 1000 for c in cpus[count]]
        print(
            f"{backend:<22} {count}p  {statistics.median(rates):7.0f} matches/s"
            f" ({min(rates):.0f}..{max(rates):.0f})   cpu {statistics.median(cpu_ms):6.2f}"
            f" ms/match ({min(cpu_ms):.2f}..{max(cpu_ms):.2f})"
        )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked: a bad value or an unusable database exits 2 in one line."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--db", action="append", help="SQLAlchemy URL of an empty database")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--per-round", type=int, default=400)
    parser.add_argument("--bots", type=int, default=12)
    args = parser.parse_args(argv)
    for url in args.db or []:
        try:
            Store(url).close()  # a malformed URL or an unreachable server: one line
        except StoreError as error:
            parser.error(str(error))
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    print(
        f"{GAME}, {args.bots} bots, {args.rounds} rounds x {args.per_round} matches per player"
        " count; median (min..max) over rounds"
    )
    with tempfile.TemporaryDirectory(prefix="arena-bench-coordinator-") as folder:
        for url in args.db or [f"sqlite:///{Path(folder) / 'arena.db'}"]:
            bench(url, args)


if __name__ == "__main__":
    main()
