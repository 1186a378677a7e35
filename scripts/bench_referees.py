"""Referee speed: games per second with in-process random seats, for every registered game.

Usage: .venv/bin/python scripts/bench_referees.py [--seconds 2] [--game ID ...]

For each game and player count, plays seeded games (default variant) for about
`--seconds` with every seat choosing `rng.choice(legal)`, twice: the referee alone
(legal + apply), and the way a match drives it (observe + legal + apply for every
seat to move, the observation being what a bot is sent). Prints games/s and
decisions/s for both; no bots, pipes or database are involved.
"""

from __future__ import annotations

import argparse
import random
import time

from arena.games import Game, all_games, load_game


def play(game_class: type[Game], players: int, seed: int, observe: bool) -> int:
    """One random game; returns the number of decisions made."""
    game = game_class.new(players, seed)
    rng = random.Random(seed)
    decisions = 0
    while not game.is_over():
        choices = {}
        for seat in game.to_move():
            if observe:
                game.observe(seat)
            choices[seat] = rng.choice(game.legal(seat))
        game.apply_joint(choices)
        decisions += len(choices)
    return decisions


def measure(
    game_class: type[Game], players: int, seconds: float, observe: bool
) -> tuple[float, float]:
    """(games/s, decisions/s) over at least `seconds` of play."""
    games = decisions = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds or games == 0:
        decisions += play(game_class, players, games, observe)
        games += 1
    return games / elapsed, decisions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--game", action="append", default=[])
    args = parser.parse_args()
    games = [load_game(g) for g in args.game] or all_games()
    print(
        f"{'game':<10} {'players':>7} {'games/s':>9} {'decisions/s':>12} "
        f"{'+observe games/s':>17} {'decisions/s':>12}"
    )
    for game_class in games:
        for players in range(game_class.spec.min_players, game_class.spec.max_players + 1):
            bare = measure(game_class, players, args.seconds, observe=False)
            full = measure(game_class, players, args.seconds, observe=True)
            print(
                f"{game_class.spec.id:<10} {players:>7} {bare[0]:>9.1f} {bare[1]:>12.0f} "
                f"{full[0]:>17.1f} {full[1]:>12.0f}"
            )


if __name__ == "__main__":
    main()
