"""How often the ISMCTS bot's nearly complete LEYLO lines get completed, by the race.

Usage: .venv/bin/python scripts/leylo_line_odds.py [--games 300] [--first-seed 500000]
           [--workers 2] [--iterations 60]

Plays the ISMCTS bot against leylo-heuristic in 2 players (game i dealt from seed
FIRST_SEED + i, the bot at seat i % 2, as scripts/winrate.py does; a fixed number of
iterations a decision, so a run replays). At each of the bot's turns before a final
lap it notes every line of its grid with three or two of four cards matching (a number
and the jokers of its colour, as the bot counts them) and whether the bot clears that
line before the round ends. The table is by the race: the fewest face-down cards of
the two seats at that turn. It also prints the line shares the rates imply, which
bots/ismcts/leylo_plan.py uses (NEAR_BY_RACE, HALF_BY_RACE): a 3-of-4 line is worth
the rate times its three matching cards, a 2-of-4 line the rate times four cards (its
two other cards are cleared with it), both in units of the matching card's points.
The rates are those of the bot that plays: a change of the shares changes them.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import winrate

from arena.games import load_game

#: Race buckets: at most 1, 2-3, 4-7, 8 or more face-down cards (leylo_plan.RACE_LIMITS).
BUCKETS = ("<= 1", "2-3", "4-7", ">= 8")
#: Cards a completed line clears, per matching card counted (see the docstring).
CLEARED = {3: 3, 2: 4}


def setup_for(iterations: int) -> winrate.Setup:
    """The games this script plays."""
    return winrate.Setup("leylo", 2, {}, "ismcts", "leylo-heuristic", 100.0, iterations, True)


def matching(cells: list[str], colour: dict[str, str]) -> int:
    """The most cards of one line that match (a number with the jokers of its colour)."""
    if "empty" in cells:
        return 0
    numbers = [c for c in cells if c in colour and not c.startswith("joker")]
    jokers = [colour[c] for c in cells if c.startswith("joker")]
    return max((numbers.count(n) + jokers.count(colour[n]) for n in set(numbers)), default=0)


def bucket(race: int, limits: tuple[int, ...]) -> int:
    """The race bucket of a turn (`limits`: leylo_plan.RACE_LIMITS, whose buckets BUCKETS
    names)."""
    return sum(race > limit for limit in limits)


def play(args: tuple[int, int, int]) -> Counter[tuple[int, int, bool]]:
    """Game `index`: (matching, bucket, completed) -> lines counted at the bot's turns."""
    index, first_seed, iterations = args
    setup = setup_for(iterations)
    bot = winrate.policy_for("ismcts", setup)
    heuristic = winrate.policy_for("leylo-heuristic", setup)
    plan: Any = sys.modules["leylo_plan"]  # loaded with the bot
    seed, seat = first_seed + index, index % 2
    game: Any = load_game("leylo").new(2, seed, {})  # the LEYLO referee: its `results`
    rngs = [random.Random(seed * 1000 + s) for s in range(2)]
    counts: Counter[tuple[int, int, bool]] = Counter()
    open_lines: list[tuple[int, int, int]] = []  # (line, matching, bucket)
    cleared: set[int] = set()
    while not game.is_over():
        joint = {}
        for s in game.to_move():
            obs = game.observe(s)  # what this script reads: version 1's shape
            # the bots speak protocol 2: they are shown the envelope
            decision = (bot if s == seat else heuristic)(
                game.observation(s), game.legal(s), rngs[s]
            )
            if s == seat and obs["phase"] == "turn" and obs["ender"] is None:
                grid = obs["grids"][s]
                race = bucket(min(obs["face_down"]), plan.RACE_LIMITS)
                for number, line in enumerate(plan.LINES):
                    match = matching([grid[c] for c in line], plan.COLOUR)
                    if match in CLEARED:
                        open_lines.append((number, match, race))
            if s == seat and decision["action"] == "clear":
                cleared.add(decision["row"] if "row" in decision else 4 + decision["column"])
            joint[s] = decision
        rounds = len(game.results)
        game.apply_joint(joint)
        if len(game.results) > rounds:  # the round ended: which lines went?
            for number, match, race in open_lines:
                counts[(match, race, number in cleared)] += 1
            open_lines, cleared = [], set()
    return counts


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked: a bad value exits 2 in one line."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--first-seed", type=int, default=500000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=60)
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.iterations < 1:
        parser.error("--games, --workers and --iterations must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    """Play the games and print the table."""
    args = parse_args(argv)
    jobs = [(i, args.first_seed, args.iterations) for i in range(args.games)]
    total: Counter[tuple[int, int, bool]] = Counter()
    with ProcessPoolExecutor(args.workers) as pool:
        for counts in pool.map(play, jobs):
            total.update(counts)
    print(f"{args.games} games from seed {args.first_seed}, lines seen at the bot's turns")
    for match, cards in CLEARED.items():
        print(f"{match} of 4 matching     race  lines  completed  share")
        for race, name in enumerate(BUCKETS):
            done, kept = total[(match, race, True)], total[(match, race, False)]
            seen = done + kept
            rate = done / seen if seen else 0.0
            print(f"{'':20s}{name:>5s}  {seen:5d}  {rate:8.1%}  {cards * rate:5.2f}")


if __name__ == "__main__":
    main()
