"""Win rate of the LEYLO heuristic bot against uniformly random seats, and referee speed.

Plays seeded games in-process: the heuristic seat (rotating with the game index)
decides with `choose` from bots/leylo-heuristic/bot.py, every other seat picks a
uniformly random legal decision. A win is rank 1 (a shared first place counts).
Also measures games per second with random seats only.

Usage: .venv/bin/python scripts/winrate_leylo.py [--games 200] [--players 2 3 4]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.games.leylo import Leylo

ROOT = Path(__file__).resolve().parents[1]


def load_bot() -> ModuleType:
    """Import the heuristic bot's module from its file (it is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "leylo_heuristic_bot", ROOT / "bots" / "leylo-heuristic" / "bot.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def play(players: int, seed: int, heuristic_seat: int | None, choose: Any) -> Leylo:
    """One seeded game; `heuristic_seat` uses `choose`, the others play at random."""
    game = Leylo.new(players, seed)
    assert isinstance(game, Leylo)
    rngs = [random.Random(seed * 1000 + s) for s in range(players)]
    while not game.is_over():
        decisions = {}
        for seat in game.to_move():
            legal = game.legal(seat)
            if seat == heuristic_seat:
                decisions[seat] = choose(game.observe(seat), legal, rngs[seat])
            else:
                decisions[seat] = rngs[seat].choice(legal)
        game.apply_joint(decisions)
    return game


def win_rate(players: int, games: int, choose: Any) -> tuple[float, float, float]:
    """(win rate, mean heuristic total, mean random total) over `games` seeded games."""
    wins = 0
    own = other = 0.0
    for index in range(games):
        seat = index % players
        outcome = play(players, 10_000 + index, seat, choose).outcome()
        wins += outcome.ranks[seat] == 1
        own += outcome.scores[seat]
        other += (sum(outcome.scores) - outcome.scores[seat]) / (players - 1)
    return wins / games, own / games, other / games


def main() -> None:
    """Print win rates per player count and the random-play speed."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--speed-games", type=int, default=20)
    args = parser.parse_args()
    choose = load_bot().choose
    for players in args.players:
        start = time.perf_counter()
        rate, own, other = win_rate(players, args.games, choose)
        seconds = time.perf_counter() - start
        print(
            f"{players} players: heuristic wins {rate:.1%} of {args.games} games "
            f"(random baseline {1 / players:.1%}); mean total {own:.1f} vs random {other:.1f}"
            f" [{seconds:.1f} s]"
        )
    for players in range(2, 7):
        start = time.perf_counter()
        decisions = 0
        for seed in range(args.speed_games):
            decisions += len(play(players, seed, None, None).history)
        seconds = time.perf_counter() - start
        print(
            f"speed, {players} random seats: {args.speed_games / seconds:.1f} games/s "
            f"({decisions / args.speed_games:.0f} decisions per game)"
        )


if __name__ == "__main__":
    main()
