"""Benchmark: protocol cost per decision round trip against a raw pipe echo, and referee speed.

Run: .venv/bin/python scripts/bench_protocol.py [--n 20000]

Every figure is measured in this one run, side by side:
- raw: `cat` echoing the same request line back over plain pipes (blocking os.write/os.read):
  the floor for a round trip.
- arena + first-legal (C): BotProcess.decide against bots/first-legal, which answers at once.
- arena + random (Python): BotProcess.decide against bots/random.
Each is measured with all processes on one core (pinned) and unpinned (across cores).
Then games per second of every registered game with in-process random seats (the referee alone).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import protocol  # noqa: E402
from arena.games import all_games  # noqa: E402
from arena.manifest import find_bot, prepare  # noqa: E402
from arena.players.process import BotProcess  # noqa: E402


def sample_request() -> dict[str, object]:
    """A real Take That decide request from the middle of a game."""
    game_cls = next(g for g in all_games() if g.spec.id == "take-that")
    game = game_cls.new(3, 42)
    rng = random.Random(1)
    for _ in range(12):
        seat = game.to_move()[0]
        game.apply(seat, rng.choice(game.legal(seat)))
    seat = game.to_move()[0]
    return protocol.decide_message(1, game.observe(seat), game.legal(seat), 1000)


def raw_echo(line: bytes, n: int) -> list[float]:
    """Round trips of `line` through `cat`: the floor."""
    cat = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert cat.stdin and cat.stdout
    out, inp = cat.stdin.fileno(), cat.stdout.fileno()
    times = []
    for _ in range(n):
        began = time.perf_counter()
        os.write(out, line)
        got = b""
        while not got.endswith(b"\n"):
            got += os.read(inp, 65536)
        times.append(time.perf_counter() - began)
    cat.stdin.close()
    cat.wait()
    return times


def arena_round_trips(bot_name: str, request: dict[str, object], n: int) -> list[float]:
    """Round trips of the request through BotProcess.decide, answer checked for legality."""
    manifest = find_bot(bot_name)
    bot = BotProcess(bot_name, prepare(manifest), manifest.folder)
    bot.spawn()
    start = protocol.start_message(
        match="bench",
        game="take-that",
        game_version=1,
        variant={},
        players=3,
        seat=0,
        seed=1,
        decision_timeout_ms=1000,
    )
    bot.start_match(start, time.monotonic() + 10)
    legal = request["legal"]
    assert isinstance(legal, list)
    times = []
    for i in range(n):
        message = dict(request, id=i + 1)
        began = time.perf_counter()
        answer = bot.decide(message, time.monotonic() + 1.0)
        assert protocol.find_legal(answer, legal) is not None
        times.append(time.perf_counter() - began)
    bot.close()
    return times


def summary(times: list[float]) -> tuple[float, float]:
    """(median, mean) in microseconds, after dropping the first 5% as warm-up."""
    kept = times[len(times) // 20 :]
    return statistics.median(kept) * 1e6, statistics.fmean(kept) * 1e6


def bench_round_trips(n: int) -> None:
    request = sample_request()
    line = protocol.encode(request)
    print(f"request line: {len(line)} bytes; {n} round trips each; median / mean in us")
    all_cores = os.sched_getaffinity(0)
    for label, cores in (("one core", {min(all_cores)}), ("unpinned", all_cores)):
        os.sched_setaffinity(0, cores)  # children inherit it
        raw = summary(raw_echo(line, n))
        c_bot = summary(arena_round_trips("first-legal", request, n))
        py_bot = summary(arena_round_trips("random", request, n))
        print(f"[{label}]")
        print(f"  raw pipe echo (cat)        {raw[0]:8.1f} {raw[1]:8.1f}")
        print(
            f"  arena + first-legal (C)    {c_bot[0]:8.1f} {c_bot[1]:8.1f}"
            f"   ratio {c_bot[0] / raw[0]:.2f}x median, {c_bot[1] / raw[1]:.2f}x mean"
        )
        print(
            f"  arena + random (Python)    {py_bot[0]:8.1f} {py_bot[1]:8.1f}"
            f"   ratio {py_bot[0] / raw[0]:.2f}x median, {py_bot[1] / raw[1]:.2f}x mean"
        )
    os.sched_setaffinity(0, all_cores)


def bench_referees(seconds: float) -> None:
    print("referee alone, in-process random seats (games per second):")
    for game_cls in all_games():
        spec = game_cls.spec
        for players in sorted({spec.min_players, spec.max_players}):
            rng = random.Random(0)
            games = decisions = 0
            began = time.perf_counter()
            while time.perf_counter() - began < seconds:
                game = game_cls.new(players, games)
                while not game.is_over():
                    choices = {s: rng.choice(game.legal(s)) for s in game.to_move()}
                    game.apply_joint(choices)
                    decisions += len(choices)
                games += 1
            took = time.perf_counter() - began
            print(
                f"  {spec.id:10s} {players} players: {games / took:8.1f} games/s "
                f"({decisions / games:.0f} decisions a game, {decisions / took:,.0f} decisions/s)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000, help="round trips per measurement")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per referee figure")
    args = parser.parse_args()
    bench_round_trips(args.n)
    bench_referees(args.seconds)


if __name__ == "__main__":
    main()
