"""How long Twirkle's legal lists get: the largest list seen in seeded random games.

Every compound move (a placement of several cards, an exchange, a shift) is a
sequence of small decisions (version 2: a `pick` of the card, then its `place`);
this measures the longest legal list per step (the phase and the first decision
offered, e.g. ``turn/pick`` or ``turn/place``) and overall, over `--games`
uniformly random games (player counts 2, 3, 4 in turn), plus the longest game in
decisions.

Usage: .venv/bin/python scripts/twirkle_list_sizes.py [--games 1000]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from arena.games.twirkle import Twirkle


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (argparse exits 2 on a bad one)."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    """Play the games and print the largest list per step."""
    args = parse_args(argv)
    largest: Counter[str] = Counter()
    where: dict[str, tuple[int, int]] = {}
    sizes: Counter[int] = Counter()
    longest_game = 0
    start = time.perf_counter()
    for index in range(args.games):
        players = 2 + index % 3
        game = Twirkle.new(players, index)
        assert isinstance(game, Twirkle)
        rng = random.Random(index)
        while not game.is_over():
            seat = game.to_move()[0]
            legal = game.legal(seat)
            sizes[len(legal)] += 1
            step = f"{game.phase}/{legal[0]['action']}"
            if len(legal) > largest[step]:
                largest[step] = len(legal)
                where[step] = (players, index)
            game.apply(seat, rng.choice(legal))
        longest_game = max(longest_game, len(game.history))
    seconds = time.perf_counter() - start
    total = sum(sizes.values())
    below = 0
    p99 = 0
    for size in sorted(sizes):
        below += sizes[size]
        if below >= 0.99 * total:
            p99 = size
            break
    print(f"{args.games} random games (2-4 players) in {seconds:.0f} s, {total} decisions")
    print(f"largest legal list: {max(largest.values())}; 99% of lists have <= {p99} entries")
    for step, size in largest.most_common():
        players, seed = where[step]
        print(f"  {step:<18} {size:4d}  (first seen: {players} players, seed {seed})")
    print(f"longest game: {longest_game} decisions (max_decisions {Twirkle.spec.max_decisions})")


if __name__ == "__main__":
    main()
