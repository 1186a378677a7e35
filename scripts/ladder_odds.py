"""How often a tournament's leaderboard ranks random < heuristic < search, by simulation.

Run: .venv/bin/python scripts/ladder_odds.py GAME --edge 0.71 [--deals 12 15 20]
         [--format gauntlet|round-robin] [--runs 2000] [--seed 1]

The bots are the three of a search table (bots/ismcts, the game's heuristic, random
play). The schedule is the tournament's own (`arena.tournament.formats`, entrants in
the order arena demo lists them: heuristic, search, random; every deal in both seat
orders), rated in schedule order with the game's own TrueSkill environment
(`arena.results.rating.rate`). A game between the search and the heuristic is won by the
search with probability `--edge` (its win rate from scripts/winrate.py; ties are
left out); random play loses every game to both, as it did in every measured game.
Printed per deal count: the share of `--runs` simulated tournaments whose
leaderboard order (mu - 3 sigma, as `arena leaderboard` sorts) is random < heuristic
< search, and the share by mu alone.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from pathlib import Path

from arena.games import load_game
from arena.results.rating import rate
from arena.store import Skill
from arena.tournament.formats import FORMATS

HEURISTIC, SEARCH, RANDOM = 0, 1, 2


def first_wins(a: int, b: int, edge: float, rng: random.Random) -> bool:
    """Whether seat 0's bot `a` beats `b`: random play always loses, the search wins
    against the heuristic with probability `edge`."""
    if RANDOM in (a, b):
        return b == RANDOM
    return (rng.random() < edge) == (a == SEARCH)


def ladder_holds(
    game: str, fmt: str, deals: int, edge: float, rng: random.Random
) -> tuple[bool, bool]:
    """One simulated tournament: (order by mu - 3 sigma holds, order by mu holds)."""
    skills = [Skill.initial()] * 3
    for pairing in FORMATS[fmt](3, 2, deals, rng.getrandbits(32)):
        a, b = pairing.seats
        a_wins = first_wins(a, b, edge, rng)
        new = rate(game, [skills[a], skills[b]], [1, 2] if a_wins else [2, 1])
        skills[a], skills[b] = new
    conservative = [s.conservative for s in skills]
    mu = [s.mu for s in skills]
    return (
        conservative[RANDOM] < conservative[HEURISTIC] < conservative[SEARCH],
        mu[RANDOM] < mu[HEURISTIC] < mu[SEARCH],
    )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked: a bad value exits 2 in one line."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--edge", type=float, required=True)
    parser.add_argument("--deals", type=int, nargs="+", default=[10])
    parser.add_argument("--format", default="gauntlet", choices=sorted(FORMATS))
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        load_game(args.game)
    except ValueError as error:  # UnknownGameError names the games there are
        parser.error(str(error))
    if not 0.0 <= args.edge <= 1.0:
        parser.error(f"--edge is a win rate between 0 and 1, got {args.edge}")
    if args.runs < 1 or min(args.deals) < 1:
        parser.error("--runs and --deals must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    for deals in args.deals:
        rng = random.Random(args.seed)
        held = [
            ladder_holds(args.game, args.format, deals, args.edge, rng) for _ in range(args.runs)
        ]
        by_rating = sum(c for c, _ in held) / args.runs
        by_mu = sum(m for _, m in held) / args.runs
        print(
            f"{args.game} {args.format} deals {deals} edge {args.edge:.2f}: ladder holds in "
            f"{by_rating:.1%} of {args.runs} runs by mu - 3 sigma, {by_mu:.1%} by mu"
        )


if __name__ == "__main__":
    main()
