"""Referee speed: random playouts per second, for every registered game and player count.

Usage: .venv/bin/python scripts/bench_referees.py [--game ID ...] [--players N ...]
       [--rounds 3] [--seconds 0.5]

Three subjects per game and player count (default variant), every seat choosing
``rng.choice(legal)``; no bots, pipes or database are involved:

- ``start``: ``Game.new(players, i).playout(random.Random(i))`` for i = 0, 1, 2, ...;
  the timed span includes building and dealing the new game.
- ``mid``: one seeded game is played halfway once (not timed); then
  ``position.clone(seed=i).playout(random.Random(i))`` is timed, clone included:
  what a search does from its current position.
- ``loop``: the plain public-interface loop a match makes, ``Game.new`` included:
  ``observe`` + ``legal`` for every seat to move, then ``apply_joint``.
- ``clone``: ``position.clone(seed=i)`` alone, at the same halfway position as ``mid``
  (clones per second; no decisions).
- ``determinize``: ``Game.determinize`` of the observation of the seat to move at that
  position (states per second; no decisions): what a search does once per iteration.

A measurement runs one subject for about `--seconds` (at least one playout) and
counts playouts. The subjects of a case are interleaved round by round (their order
rotating), `--rounds` rounds, so that load from other processes hits all of them
alike. Printed per subject: the median playouts/s over the rounds by wall time with
its min..max, the median by CPU time (``time.process_time``, this process only), and
the mean decisions per playout. A game without search support shows ``n/a`` for
``mid``. ``ARENA_TWIRKLE_ENGINE=python`` in the environment benches Twirkle's pure-Python
playouts instead of its compiled engine (arena/games/twirkle/fast.py).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from arena.games import Game, all_games, load_game

#: One timed playout, given its index; returns the number of decisions made.
Playout = Callable[[int], int]


def from_start(game_class: type[Game], players: int) -> Playout:
    """A fresh seeded game played out with `playout`."""

    def run(index: int) -> int:
        return game_class.new(players, index).playout(random.Random(index))

    return run


def from_middle(game_class: type[Game], players: int) -> Playout | None:
    """Clones of one position halfway through a seeded game; None without clone support."""
    position = halfway(game_class, players)
    if position is None:
        return None

    def run(index: int) -> int:
        return position.clone(seed=index).playout(random.Random(index))

    return run


def halfway(game_class: type[Game], players: int) -> Game | None:
    """One seeded game (seed 1) played halfway by random seats; None without clone support."""
    position = game_class.new(players, 1)
    try:
        length = position.clone().playout(random.Random(1))
    except NotImplementedError:
        return None
    position.playout(random.Random(1), length // 2)
    return position


def clones(game_class: type[Game], players: int) -> Playout | None:
    """Seeded clones of the halfway position, nothing played (0 decisions each)."""
    position = halfway(game_class, players)
    if position is None:
        return None

    def run(index: int) -> int:
        position.clone(seed=index)
        return 0

    return run


def determinizations(game_class: type[Game], players: int) -> Playout | None:
    """States sampled from the halfway observation of the seat to move (0 decisions each)."""
    position = halfway(game_class, players)
    if position is None:
        return None
    seat = position.to_move()[0]
    observation = position.observe(seat)

    def run(index: int) -> int:
        game_class.determinize(observation, seat, players, position.variant, random.Random(index))
        return 0

    return run


def public_loop(game_class: type[Game], players: int) -> Playout:
    """The loop a match makes: observe, legal, apply_joint through the public interface."""

    def run(index: int) -> int:
        game = game_class.new(players, index)
        rng = random.Random(index)
        decisions = 0
        while not game.is_over():
            choices = {}
            for seat in game.to_move():
                game.observe(seat)
                choices[seat] = rng.choice(game.legal(seat))
            game.apply_joint(choices)
            decisions += len(choices)
        return decisions

    return run


class Tally:
    """The measurements of one subject over the rounds."""

    def __init__(self) -> None:
        self.wall_rates: list[float] = []
        self.cpu_rates: list[float] = []
        self.playouts = 0
        self.decisions = 0

    def measure(self, playout: Playout, seconds: float) -> None:
        """Run `playout` for about `seconds` of wall time, from index 0 every round."""
        count = decisions = 0
        wall, cpu = time.perf_counter(), time.process_time()
        while count == 0 or time.perf_counter() - wall < seconds:
            decisions += playout(count)
            count += 1
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        self.wall_rates.append(count / wall)
        self.cpu_rates.append(count / max(cpu, 1e-9))
        self.playouts += count
        self.decisions += decisions

    def row(self) -> str:
        """Median (min..max) by wall time, median by CPU time, decisions per playout."""
        if not self.wall_rates:
            return f"{'n/a':>9}"
        per = f"{self.decisions / self.playouts:>10.0f}" if self.decisions else f"{'-':>10}"
        spread = f"{min(self.wall_rates):.0f}..{max(self.wall_rates):.0f}"
        return (
            f"{statistics.median(self.wall_rates):>9.0f} {spread:>15} "
            f"{statistics.median(self.cpu_rates):>9.0f} {per}"
        )


def bench_case(game_class: type[Game], players: int, rounds: int, seconds: float) -> None:
    """Interleave the subjects of one game and player count, then print a line each."""
    subjects: dict[str, Playout | None] = {
        "start": from_start(game_class, players),
        "mid": from_middle(game_class, players),
        "loop": public_loop(game_class, players),
        "clone": clones(game_class, players),
        "determinize": determinizations(game_class, players),
    }
    tallies = {name: Tally() for name in subjects}
    names = list(subjects)
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            playout = subjects[name]
            if playout is not None:
                tallies[name].measure(playout, seconds)
    for name in names:
        print(f"{game_class.spec.id:<10} {players:>7} {name:<11} {tallies[name].row()}", flush=True)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The filters, checked (a bad value exits 2 in one line); `games` are the selected
    games' classes."""
    parser = argparse.ArgumentParser(
        prog=Path(__file__).name,
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--game", action="append", default=[], help="game id (repeatable)")
    parser.add_argument("--players", action="append", type=int, default=[], help="(repeatable)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (>= 1)")
    parser.add_argument("--seconds", type=float, default=0.5, help="per measurement")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    try:
        args.games = [load_game(g) for g in args.game] or all_games()
    except ValueError as error:  # UnknownGameError names the games there are
        parser.error(str(error))
    return args


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the filters and bench every selected case."""
    args = parse_args(argv)
    print(
        f"{'game':<10} {'players':>7} {'timed':<11} {'wall/s':>9} {'min..max':>15} "
        f"{'cpu/s':>9} {'decisions':>10}"
    )
    for game_class in args.games:
        counts = range(game_class.spec.min_players, game_class.spec.max_players + 1)
        for players in counts:
            if not args.players or players in args.players:
                bench_case(game_class, players, args.rounds, args.seconds)


if __name__ == "__main__":
    main()
