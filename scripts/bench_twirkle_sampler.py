"""Twirkle's sampler speed: `Twirkle.determinize` calls per second, early and halfway.

Usage: .venv/bin/python scripts/bench_twirkle_sampler.py [--players N ...] [--games 20]
       [--samples 5] [--rounds 5]

Positions come from `--games` seeded games per player count (game i dealt from seed
i), played as issue 37's probe played them: every seat but the start player passes
its first turn, every other decision is `rng.choice(legal)` with `random.Random(i)`.

- ``early``: every decision of the first two rounds, from the observation of every
  seat: where hands are still the dealt ones (the opening, a first turn, the pass and
  its shift, a second turn after a pass), so W2's bound and the start player's draw
  are in play;
- ``mid``: the position halfway through each game (by decisions), from the
  observation of every seat (``scripts/bench_referees.py`` times the seat to move's).

Each observation is determinized `--samples` times in a row; a round times every
observation once so, and the best of `--rounds` rounds (the one least slowed by other
processes on the machine) is printed, in samples per second of this process's CPU
time (``time.process_time``) and microseconds a sample.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.games.twirkle import Twirkle

PASS = {"action": "pass"}


def probe_game(players: int, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The early and halfway observations of one game played as the probe plays."""
    game = Twirkle.new(players, seed)
    assert isinstance(game, Twirkle)
    rng = random.Random(seed)
    early: list[dict[str, Any]] = []
    positions: list[list[dict[str, Any]]] = []
    first_turn_done = {game.start_seat}
    while not game.is_over():
        seat = game.to_move()[0]
        if game.turns < 2 * players:
            early.extend(game.observe(other) for other in range(players))
        positions.append([game.observe(other) for other in range(players)])
        legal = game.legal(seat)
        if seat not in first_turn_done and PASS in legal:
            decision = PASS
            first_turn_done.add(seat)
        else:
            decision = rng.choice(legal)
        game.apply(seat, decision)
    return early, positions[len(positions) // 2]


def samples_per_second(observations: list[dict[str, Any]], players: int, samples: int) -> float:
    """One round: every observation determinized `samples` times; samples per CPU second."""
    rng = random.Random(1)
    started = time.process_time()
    for observation in observations:
        seat = observation["seat"]
        for _ in range(samples):
            Twirkle.determinize(observation, seat, players, None, rng)
    return len(observations) * samples / (time.process_time() - started)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The options, checked (a bad value exits 2 in one line)."""
    parser = argparse.ArgumentParser(
        prog=Path(__file__).name,
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--players", action="append", type=int, default=[], help="(repeatable)")
    parser.add_argument("--games", type=int, default=20, help="seeded games per player count")
    parser.add_argument("--samples", type=int, default=5, help="samples per observation")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds (>= 1)")
    args = parser.parse_args(argv)
    for name in ("games", "samples", "rounds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    low, high = Twirkle.spec.min_players, Twirkle.spec.max_players
    for players in args.players:
        if not low <= players <= high:
            parser.error(f"--players must be between {low} and {high}, not {players}")
    args.players = args.players or list(range(low, high + 1))
    return args


def main(argv: Sequence[str] | None = None) -> None:
    """Build the positions, then time the sampler on them."""
    args = parse_args(argv)
    print(
        f"{'players':>7} {'positions':<9} {'observations':>12} {'samples/s':>10} {'us/sample':>10}"
    )
    for players in args.players:
        early: list[dict[str, Any]] = []
        mid: list[dict[str, Any]] = []
        for seed in range(args.games):
            found, halfway = probe_game(players, seed)
            early += found
            mid += halfway
        for name, observations in (("early", early), ("mid", mid)):
            rates = [
                samples_per_second(observations, players, args.samples) for _ in range(args.rounds)
            ]
            rate = max(rates)
            print(
                f"{players:>7} {name:<9} {len(observations):>12} {rate:>10,.0f} {1e6 / rate:>10.0f}"
            )


if __name__ == "__main__":
    main()
