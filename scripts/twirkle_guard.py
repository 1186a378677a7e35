"""How often Twirkle's idle guard (T11, ruling W9) ends a game of random play.

W9 wants the guard to be a safeguard that random play almost never reaches, not a
rule that shapes normal games. This plays `--games` seeded games of uniformly
random legal decisions (game i: 2 + i % 3 players, deal seed i, decisions from
``random.Random(i)``, as in scripts/twirkle_list_sizes.py; `Game.playout` makes
exactly the choices of ``rng.choice(game.legal(seat))``) and prints, per player
count and in all, how the games ended and how many reached the guard.

It also prints how many games had a run of 5 x players turns without a placement
that did not end in W7's all-pass end: the guard of rules versions 1 and 2 would
have ended exactly those games there (a game is the same under both limits until
that run reaches the old one).

Usage: .venv/bin/python scripts/twirkle_guard.py [--games 1000]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from arena.games.twirkle import Twirkle
from arena.games.twirkle.state import IDLE_ROUNDS

#: The idle guard of rules versions 1 and 2: 5 x players turns without a placement.
OLD_IDLE_ROUNDS = 5


def play(index: int) -> tuple[int, str, int, bool]:
    """Game `index`: its player count, how it ended, its longest run of idle turns, and
    whether the old guard would have ended it (W7's all-pass end comes first on a turn
    that reaches both)."""
    players = 2 + index % 3
    game = Twirkle.new(players, index)
    assert isinstance(game, Twirkle)
    rng = random.Random(index)
    longest = 0
    old_cut = False
    while not game.is_over():
        game.playout(rng, 1)
        longest = max(longest, game.idle)
        if game.idle >= OLD_IDLE_ROUNDS * players and not old_cut:
            old_cut = game.end is None or game.end["reason"] != "all_passed"
    assert game.end is not None
    return players, str(game.end["reason"]), longest, old_cut


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (argparse exits 2 on a bad one)."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    """Play the games and print the figures."""
    args = parse_args(argv)
    ends: dict[int, Counter[str]] = {players: Counter() for players in (2, 3, 4)}
    old_cut: Counter[int] = Counter()
    longest: Counter[int] = Counter()
    start = time.perf_counter()
    for index in range(args.games):
        players, reason, run, cut = play(index)
        ends[players][reason] += 1
        ends[players]["games"] += 1
        old_cut[players] += cut
        longest[players] = max(longest[players], run)
    seconds = time.perf_counter() - start
    print(
        f"{args.games} seeded random games (uniform random legal decisions; game i: "
        f"2 + i % 3 players, seed i) in {seconds:.0f} s; guard {IDLE_ROUNDS} x players turns"
    )
    old_column = f"ended by the old guard ({OLD_IDLE_ROUNDS} x players)"
    columns = ["players", "games", "out", "all_passed", "idle (guard)", "longest idle run"]
    columns.append(old_column)
    print("  ".join(columns))
    widths = [len(column) for column in columns]
    total: Counter[str] = Counter()
    for players, counts in ends.items():
        total.update(counts)
        streak = f"{longest[players]} of {IDLE_ROUNDS * players}"
        row: list[object] = [players, counts["games"], counts["out"], counts["all_passed"]]
        row += [counts["idle"], streak, old_cut[players]]
        print("  ".join(f"{v:>{w}}" for v, w in zip(row, widths, strict=True)))
    games, idle, old = total["games"], total["idle"], sum(old_cut.values())
    row = ["all", games, total["out"], total["all_passed"], idle, max(longest.values()), old]
    print("  ".join(f"{v:>{w}}" for v, w in zip(row, widths, strict=True)))
    print(
        f"ended by the idle guard: {idle} of {games} ({100 * idle / games:.1f} %); "
        f"the old guard would have ended {old} ({100 * old / games:.1f} %)"
    )


if __name__ == "__main__":
    main()
