"""Win rate of one bundled bot against another (or against uniformly random seats), in-process.

Usage: .venv/bin/python scripts/winrate.py GAME --bot BOT [--against OTHER] [--games 200]
           [--players 2 3 4] [--workers 2] [--budget-ms 100] [--iterations N] [--cpu-clock]
           [--variant KEY=VALUE ...] [--first-seed 10000] [--progress N]

BOT and OTHER are folders under bots/ whose bot.py has the pure policy
`choose(observation, legal, rng[, variant][, game, budget_s, iterations])` (its `main`
only speaks the protocol, so playing the policy in-process is the same bot without
the pipes; it is shown the observation its bot.toml's `protocol` gives, version 2's
envelope or version 1's); OTHER may also be `random` (the default), a seat that picks
`rng.choice(legal)`. BOT sits at one seat, OTHER at every other seat. Game i is dealt
from seed FIRST_SEED + i and BOT sits at seat i % players, so seats rotate and two
runs with the same options play the same deals. `--budget-ms`, `--iterations` and
`--cpu-clock` reach a search bot (ismcts); the others ignore them.

A game scores 1 when BOT ranks first alone, 1/k when it shares first place with k - 1
other seats (a tie counts as half a win in two players), else 0. The win rate is the
mean of that; its 95 % confidence interval is the Wilson score interval (E. B. Wilson,
"Probable inference, the law of succession, and statistical inference", JASA 22, 1927),
taking the half-counted ties as half successes. Ties are also reported apart, and so
is the rate an OTHER seat wins in the same games. `--workers` plays games in parallel
processes; times are per BOT decision as measured in-process (no pipes).
"""

from __future__ import annotations

import argparse
import inspect
import math
import random
import sys
import time
import tomllib
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.helpers

from arena.games import load_game  # noqa: E402
from tests.helpers import load_bot_module  # noqa: E402

Policy = Callable[[dict[str, Any], list[dict[str, Any]], random.Random], dict[str, Any]]
Z_95 = 1.959964


@dataclass(frozen=True)
class Setup:
    """Everything a worker needs to play one game."""

    game: str
    players: int
    variant: dict[str, Any]
    bot: str
    against: str
    budget_ms: float
    iterations: int | None
    cpu_clock: bool


@dataclass(frozen=True)
class GameResult:
    """One game as BOT saw it."""

    share: float  # 1, 1/k for a k-way shared first place, 0
    tied_first: bool
    other_share: float  # the same for the seat after BOT's
    margin: float  # BOT's score minus the mean of the others'
    bot_decisions: int
    bot_seconds: float
    slowest: float


def random_policy(observation: dict[str, Any], legal: list[Any], rng: random.Random) -> Any:
    """A uniformly random seat."""
    return rng.choice(legal)


def speaks_v2(folder: str) -> bool:
    """True when the bot's bot.toml says protocol 2: its `choose` reads the envelope."""
    if folder == "random":
        return False
    manifest = tomllib.loads((ROOT / "bots" / folder / "bot.toml").read_text(encoding="utf-8"))
    return bool(manifest.get("protocol", 1) >= 2)


def load_policy(folder: str, setup: Setup) -> Policy:
    """The bot's `choose`, with the match's facts bound where it takes them."""
    if folder == "random":
        return random_policy
    choose = load_bot_module(folder).choose
    offered = {
        "variant": setup.variant,
        "game": setup.game,
        "budget_s": setup.budget_ms / 1000,
        "iterations": setup.iterations,
        "clock": time.process_time if setup.cpu_clock else time.perf_counter,
    }
    wanted = inspect.signature(choose).parameters
    bound = {key: value for key, value in offered.items() if key in wanted}
    return lambda obs, legal, rng: choose(obs, legal, rng, **bound)


_POLICIES: dict[str, Policy] = {}


def policy_for(folder: str, setup: Setup) -> Policy:
    """One loaded policy per worker process and folder."""
    if folder not in _POLICIES:
        _POLICIES[folder] = load_policy(folder, setup)
    return _POLICIES[folder]


def first_share(ranks: tuple[int, ...], seat: int) -> float:
    """1/k when `seat` is one of k seats ranked first, else 0."""
    if ranks[seat] != 1:
        return 0.0
    return 1.0 / sum(1 for rank in ranks if rank == 1)


def play_one(setup: Setup, index: int, first_seed: int) -> GameResult:
    """Game `index`: BOT at seat index % players, OTHER at the rest."""
    seed = first_seed + index
    bot_seat = index % setup.players
    policies = {s: policy_for(setup.against, setup) for s in range(setup.players)}
    policies[bot_seat] = policy_for(setup.bot, setup)
    # Each seat sees the observation its protocol gives: the envelope for version 2.
    envelope = {s: speaks_v2(setup.against) for s in range(setup.players)}
    envelope[bot_seat] = speaks_v2(setup.bot)
    game = load_game(setup.game).new(setup.players, seed, setup.variant)
    rngs = [random.Random(seed * 1000 + s) for s in range(setup.players)]
    clock = time.process_time if setup.cpu_clock else time.perf_counter
    decisions, spent, slowest = 0, 0.0, 0.0
    while not game.is_over():
        joint = {}
        for seat in game.to_move():
            start = clock()
            view = game.observation(seat) if envelope[seat] else game.observe(seat)
            joint[seat] = policies[seat](view, game.legal(seat), rngs[seat])
            if seat == bot_seat:
                took = clock() - start
                decisions, spent, slowest = decisions + 1, spent + took, max(slowest, took)
        game.apply_joint(joint)
    outcome = game.outcome()
    others = [s for s in range(setup.players) if s != bot_seat]
    mean_other = sum(outcome.scores[s] for s in others) / len(others)
    return GameResult(
        share=first_share(outcome.ranks, bot_seat),
        tied_first=outcome.ranks[bot_seat] == 1 and outcome.ranks.count(1) > 1,
        other_share=first_share(outcome.ranks, others[0]),
        margin=outcome.scores[bot_seat] - mean_other,
        bot_decisions=decisions,
        bot_seconds=spent,
        slowest=slowest,
    )


def wilson(successes: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (successes may be fractional)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def report(setup: Setup, results: list[GameResult], seconds: float) -> str:
    """One paragraph: the win rate with its interval, ties, the rival's rate, margins, times."""
    n = len(results)
    wins = sum(r.share for r in results)
    low, high = wilson(wins, n)
    ties = sum(r.tied_first for r in results)
    other = sum(r.other_share for r in results) / n
    margin = sum(r.margin for r in results) / n
    decisions = sum(r.bot_decisions for r in results)
    mean_ms = 1000 * sum(r.bot_seconds for r in results) / max(1, decisions)
    slowest_ms = 1000 * max(r.slowest for r in results)
    return (
        f"{setup.game} {setup.players} players, {n} games: {setup.bot} vs {setup.against}: "
        f"wins {wins / n:.1%} (95% CI {low:.1%}-{high:.1%}; shared first places {ties}, "
        f"counted 1/k), an {setup.against} seat wins {other:.1%}, uniform "
        f"{1 / setup.players:.1%}; mean score margin {margin:+.1f}; {setup.bot} "
        f"{mean_ms:.1f} {'CPU ' if setup.cpu_clock else ''}ms/decision (slowest "
        f"{slowest_ms:.0f} ms) [{seconds:.0f} s]"
    )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked (a bad value exits 2 in one line); `spec` and `variant`
    are the game's spec and the variant resolved from the KEY=VALUE settings."""
    parser = argparse.ArgumentParser(
        prog=Path(__file__).name,
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game")
    parser.add_argument("--bot", required=True)
    parser.add_argument("--against", default="random")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, nargs="+")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--budget-ms", type=float, default=100.0)
    parser.add_argument("--iterations", type=int, default=None)
    parser.add_argument(
        "--cpu-clock",
        action="store_true",
        help="time a search bot's budget in CPU seconds of its process (a loaded machine "
        "then does not shorten its search)",
    )
    parser.add_argument(
        "--progress",
        type=int,
        default=0,
        metavar="N",
        help="print the figures so far to stderr after every N games (games 0..k-1 in "
        "order: a run stopped early still has a fair, seat-rotated sample)",
    )
    parser.add_argument("--first-seed", type=int, default=10_000)
    parser.add_argument("--variant", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    for setting in args.variant:
        if "=" not in setting:
            parser.error(f"--variant takes KEY=VALUE, got {setting!r}")
    try:
        args.spec = load_game(args.game).spec
        args.variant = args.spec.resolve_variant(dict(v.split("=", 1) for v in args.variant))
    except ValueError as error:  # an unknown game, a bad variant (GameError is one)
        parser.error(str(error))
    for folder in (args.bot, args.against):
        if folder != "random" and not (ROOT / "bots" / folder / "bot.py").is_file():
            parser.error(
                f"bots/{folder}/bot.py not found: BOT and OTHER play in-process, so "
                "each must be a Python bot folder with a pure choose() (or random)"
            )
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    spec, variant = args.spec, args.variant
    counts = args.players or range(spec.min_players, spec.max_players + 1)
    for players in counts:
        setup = Setup(
            args.game,
            players,
            variant,
            args.bot,
            args.against,
            args.budget_ms,
            args.iterations,
            args.cpu_clock,
        )
        start = time.perf_counter()
        indices = range(args.games)
        results: list[GameResult] = []
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            games = pool.map(
                play_one, [setup] * args.games, indices, [args.first_seed] * args.games
            )
            for result in games:
                results.append(result)
                if args.progress and len(results) % args.progress == 0 < args.games - len(results):
                    elapsed = time.perf_counter() - start
                    print(
                        "  so far: " + report(setup, results, elapsed), file=sys.stderr, flush=True
                    )
        print(report(setup, results, time.perf_counter() - start), flush=True)


if __name__ == "__main__":
    main()
