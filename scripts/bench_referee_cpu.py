"""Referee CPU per decision in real matches: the calls a match runner makes, timed alone.

Usage: .venv/bin/python scripts/bench_referee_cpu.py [--game ID ...] [--players N ...]
       [--matches 20] [--rounds 5] [--profile GAME:PLAYERS]

First (not timed) it plays `--matches` seeded matches per game and player count with
the bundled bots in-process: the game's heuristic bot in every seat but one, which is
`random` (seat i % players in match i), and keeps every decision as the JSON a bot
would print (decoded again, so no decision is the referee's own object).

Then it replays those matches through exactly the calls `arena.match.run` makes per
decision: `to_move`, then per seat asked `legal` and `observe`, matching the bot's
answer with `messages.find_legal`, then `apply_joint`, and `is_over`. Timed per
round: all matches of a case, `Game.new` (the deal) included; per decision =
time / decisions. Cases are interleaved round by round (order rotating), so load from
other processes hits every case alike. Printed per case: the median CPU microseconds
per decision (``time.process_time``, this process only) with min..max over the rounds,
the median wall microseconds beside it, and decisions per match.

`--profile GAME:PLAYERS` instead profiles that case's replay once (cProfile) and prints
the functions with the most own time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.helpers

from arena.games import Game, all_games, load_game  # noqa: E402
from arena.protocol import messages  # noqa: E402
from tests.helpers import load_bot_module  # noqa: E402

HEURISTIC = {
    "take-that": "take-that-heuristic",
    "leylo": "leylo-heuristic",
    "twirkle": "twirkle-heuristic",
    "krumme10": "krumme10-heuristic",
}


@dataclass(frozen=True)
class Recorded:
    """One real match: its seed and, per turn, the decisions as a bot printed them."""

    seed: int
    turns: list[dict[int, Any]]


def record(game_class: type[Game], players: int, matches: int) -> list[Recorded]:
    """Play `matches` matches of heuristic bots and one random seat; keep their decisions."""
    heuristic = load_bot_module(HEURISTIC[game_class.spec.id]).choose
    result = []
    for index in range(matches):
        seed = 1000 + index
        game = game_class.new(players, seed)
        rngs = [random.Random(seed * 10 + s) for s in range(players)]
        odd = index % players
        turns: list[dict[int, Any]] = []
        while not game.is_over():
            joint = {}
            for seat in game.to_move():
                legal = game.legal(seat)
                if seat == odd:
                    joint[seat] = rngs[seat].choice(legal)
                else:
                    joint[seat] = heuristic(game.observation(seat), legal, rngs[seat])
            game.apply_joint(joint)
            turns.append({seat: orjson.loads(orjson.dumps(d)) for seat, d in joint.items()})
        result.append(Recorded(seed, turns))
    return result


def replay(game_class: type[Game], players: int, matches: list[Recorded]) -> int:
    """The runner's calls over every recorded match; returns the decisions made."""
    decisions = 0
    for match in matches:
        game = game_class.new(players, match.seed)
        for answers in match.turns:
            choices = {}
            for seat in game.to_move():
                legal = game.legal(seat)
                game.observe(seat)
                found = messages.find_legal(answers[seat], legal)
                assert found is not None, "a recorded decision was not offered again"
                choices[seat] = found
            game.apply_joint(choices)
            decisions += len(choices)
            game.is_over()
        assert game.is_over(), "a replayed match did not end"
    return decisions


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked: an unknown game or a bad --profile exits 2 in one line."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.split("\n")[0])
    parser.add_argument("--game", nargs="*", default=[g.spec.id for g in all_games()])
    parser.add_argument("--players", nargs="*", type=int, help="default: fewest and most")
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", metavar="GAME:PLAYERS")
    args = parser.parse_args(argv)
    try:
        for name in [*args.game, *([args.profile.split(":")[0]] if args.profile else [])]:
            load_game(name)
    except ValueError as error:  # UnknownGameError names the games there are
        parser.error(str(error))
    if args.profile and not args.profile.partition(":")[2].isdigit():
        parser.error(f"--profile takes GAME:PLAYERS, got {args.profile!r}")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.profile:
        name, _, players = args.profile.partition(":")
        game_class = load_game(name)
        matches = record(game_class, int(players), args.matches)
        profiler = cProfile.Profile()
        profiler.runcall(replay, game_class, int(players), matches)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(18)
        return

    cases = []
    for name in args.game:
        game_class = load_game(name)
        spec = game_class.spec
        counts = args.players or sorted({spec.min_players, spec.max_players})
        for players in counts:
            if spec.min_players <= players <= spec.max_players:
                cases.append((game_class, players, record(game_class, players, args.matches)))

    cpu: dict[int, list[float]] = {i: [] for i in range(len(cases))}
    wall: dict[int, list[float]] = {i: [] for i in range(len(cases))}
    made: dict[int, int] = {}
    for round_ in range(args.rounds):
        order = list(range(len(cases)))
        order = order[round_ % len(order) :] + order[: round_ % len(order)]
        for i in order:
            game_class, players, matches = cases[i]
            wall_start, cpu_start = time.perf_counter(), time.process_time()
            made[i] = replay(game_class, players, matches)
            cpu[i].append((time.process_time() - cpu_start) / made[i] * 1e6)
            wall[i].append((time.perf_counter() - wall_start) / made[i] * 1e6)

    print(f"referee CPU per decision, {args.matches} matches per case, {args.rounds} rounds")
    print(f"{'game':<10} {'players':>7} {'CPU us (min..max)':>24} {'wall us':>8} {'dec/match':>9}")
    for i, (game_class, players, matches) in enumerate(cases):
        span = f"{min(cpu[i]):.1f}..{max(cpu[i]):.1f}"
        print(
            f"{game_class.spec.id:<10} {players:>7} "
            f"{statistics.median(cpu[i]):>8.1f} ({span:>13}) "
            f"{statistics.median(wall[i]):>8.1f} {made[i] / len(matches):>9.0f}"
        )


if __name__ == "__main__":
    main()
