"""Win rate of a bundled heuristic bot against uniformly random seats, in-process.

Usage: .venv/bin/python scripts/winrate.py GAME BOT [--games 200] [--players 2 3 4]
                                           [--variant KEY=VALUE ...]

BOT is a folder under bots/ whose bot.py has the pure policy
`choose(observation, legal, rng[, variant])` (its `main` only speaks the protocol,
so playing the policy in-process is the same bot without the pipes). One game per
seed 10_000 + i; the heuristic sits at seat i % players, the other seats pick
`rng.choice(legal)`. A win is rank 1, a shared first place included; the random
baseline is what a random seat gets in the same games.
"""

from __future__ import annotations

import argparse
import inspect
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.helpers

from arena.games import Game, load_game  # noqa: E402
from tests.helpers import load_bot_module  # noqa: E402

Policy = Callable[[dict[str, Any], list[dict[str, Any]], random.Random], dict[str, Any]]


def load_policy(folder: str, variant: dict[str, Any]) -> Policy:
    """The bot's `choose`, with the match variant bound when it takes one."""
    module = load_bot_module(folder)
    choose = module.choose
    if "variant" in inspect.signature(choose).parameters:
        return lambda obs, legal, rng: choose(obs, legal, rng, variant=variant)
    return choose  # type: ignore[no-any-return]


def play(
    game_class: type[Game],
    players: int,
    seed: int,
    variant: dict[str, Any],
    policies: dict[int, Policy],
) -> Game:
    """One seeded game: seats in `policies` use them, the others play at random."""
    game = game_class.new(players, seed, variant)
    rngs = [random.Random(seed * 1000 + s) for s in range(players)]
    while not game.is_over():
        decisions = {}
        for seat in game.to_move():
            legal = game.legal(seat)
            policy = policies.get(seat)
            if policy is None:
                decisions[seat] = rngs[seat].choice(legal)
            else:
                decisions[seat] = policy(game.observe(seat), legal, rngs[seat])
        game.apply_joint(decisions)
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("game")
    parser.add_argument("bot")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, nargs="+")
    parser.add_argument("--variant", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    game_class = load_game(args.game)
    variant = game_class.spec.resolve_variant(dict(v.split("=", 1) for v in args.variant))
    policy = load_policy(args.bot, variant)
    counts = args.players or range(game_class.spec.min_players, game_class.spec.max_players + 1)
    for players in counts:
        start = time.perf_counter()
        wins = random_wins = 0
        own = other = 0.0
        for index in range(args.games):
            seat = index % players
            outcome = play(game_class, players, 10_000 + index, variant, {seat: policy}).outcome()
            wins += outcome.ranks[seat] == 1
            random_wins += outcome.ranks[(seat + 1) % players] == 1
            own += outcome.scores[seat]
            other += (sum(outcome.scores) - outcome.scores[seat]) / (players - 1)
        n = args.games
        print(
            f"{args.game} {players} players, {n} games: {args.bot} wins {wins / n:.1%} "
            f"(a random seat in the same games: {random_wins / n:.1%}, uniform {1 / players:.1%}); "
            f"mean score {own / n:.1f} vs random {other / n:.1f} "
            f"[{time.perf_counter() - start:.1f} s]"
        )


if __name__ == "__main__":
    main()
