"""Benchmark: does the ladder rate a pool well, and do duplicate deals pay off?

Run: .venv/bin/python scripts/bench_ladder.py [--bots 50] [--groups 250 500 1225]
         [--deals 300] [--seed 1] [--skip-ladder] [--skip-duplicate]

Part 1, ladder vs round robin (a simulated outcome model, no referee: 50 bots
times thousands of matches of real play is too slow on 2 shared cores). Bot i
has a known true skill 25 + 0.6 (i - 24.5) (TrueSkill points: neighbours are 0.6
apart, the whole pool 29.4). A 2-player deal gives seat 0 a luck bonus d and seat
1 -d, d ~ N(0, 3); every group plays its deal in both seat orders, as arena does;
a bot performs at its skill + the deal's luck + N(0, beta) noise and the better
performance wins. The ladder is `arena.tournament.ladder.next_groups` (batches of
8 groups, rated in between with `arena.results.rating.rate`, the take-that environment),
compared after the same number of matches with uniformly random pairs and, at one
full round (every pair once, 1,225 groups for 50 bots), with the round robin of
`arena.tournament.formats`. Printed: Spearman's rho and Kendall's tau-b between
true skill and rated mu (computed here: a few lines, no scipy), and the longest
any bot sat out (groups).

Part 2, a new bot: after the ladder's last checkpoint a bot of true skill 30 (a
top-quarter bot) joins with the initial rating (25, 8.33); printed: the matches it
plays until its sigma is below 2, and the ladder matches that took. Then the same
for a new version of a settled bot (true skill + 3) starting from
`arena.results.rating.inherited` of its predecessor's rating.

Part 3, duplicate deals, real referee (Take That, 2 players, in-process): the
take-that heuristic against the same heuristic playing a uniformly random legal
move 10 % of the time. `--deals` deals are each played twice, seats swapped.
A game scores 1 for the heuristic's win (1/2 a shared first place, else 0).
Both designs estimate the same mean (each game is one seating of a deal), so the
effect is the mean of all games; they differ in spread. With independent deals
(seats rotated) a game's own sd counts; with duplicate deals the unit is the
pair, whose mean's sd is smaller when the deal's luck favours a seat (then the
two seatings' outcomes are negatively correlated). The games needed to separate
the two at 95 % (two-sided z test: the 95 % interval of the mean excludes an
even score) is n = (1.96 sd / (mean - 1/2))^2, for pairs 2 (1.96 sd_pair /
(mean - 1/2))^2; also for the score margin (heuristic minus the other).
"""

from __future__ import annotations

import argparse
import inspect
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.helpers

from arena.games import load_game  # noqa: E402
from arena.results.rating import BETA, environment, inherited, rate  # noqa: E402
from arena.store import Skill  # noqa: E402
from arena.tournament.formats import round_robin  # noqa: E402
from arena.tournament.ladder import next_groups  # noqa: E402
from tests.helpers import load_bot_module  # noqa: E402

GAME = "take-that"
DEAL_SD = 3.0
BATCH = 8
Z_95 = 1.959964


# ----- rank correlations ----------------------------------------------------------
def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing the mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's correlation of the ranks."""
    rx, ry = ranks(x), ranks(y)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / math.sqrt(vx * vy)


def kendall(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b (O(n^2): fine for 50 bots)."""
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    n0 = concordant + discordant
    return (concordant - discordant) / math.sqrt((n0 + ties_x) * (n0 + ties_y))


# ----- part 1 and 2: the simulated pool ---------------------------------------------
class Pool:
    """True skills, current ratings, and the simulated outcome of a group's two deals."""

    def __init__(self, true: list[float], seed: int) -> None:
        self.true = list(true)
        self.skills = [Skill.initial() for _ in true]
        self.rng = random.Random(seed)
        self.matches = [0] * len(true)

    def play(self, group: tuple[int, ...]) -> None:
        """One deal in both seat orders, rated match by match."""
        a, b = group
        luck = self.rng.gauss(0, DEAL_SD)
        for first, second in ((a, b), (b, a)):
            perf_first = self.true[first] + luck + self.rng.gauss(0, BETA)
            perf_second = self.true[second] - luck + self.rng.gauss(0, BETA)
            order = [1, 2] if perf_first > perf_second else [2, 1]
            new = rate(GAME, [self.skills[first], self.skills[second]], order)
            self.skills[first], self.skills[second] = new
            self.matches[first] += 1
            self.matches[second] += 1

    def correlation(self) -> tuple[float, float]:
        mus = [s.mu for s in self.skills]
        return spearman(self.true, mus), kendall(self.true, mus)


class Ladder:
    """A ladder over a pool, batch by batch, remembering who played when."""

    def __init__(self, pool: Pool, seed: int, max_gap: int) -> None:
        self.pool, self.seed, self.max_gap = pool, seed, max_gap
        self.last = [-1] * len(pool.true)
        self.done = 0
        self.longest_wait = 0

    def add(self, true: float, skill: Skill) -> int:
        self.pool.true.append(true)
        self.pool.skills.append(skill)
        self.pool.matches.append(0)
        self.last.append(self.done - 1)
        return len(self.last) - 1

    def step(self, until: Callable[[], bool], limit: int) -> None:
        env = environment(GAME)
        while self.done < limit and not until():
            count = min(BATCH, limit - self.done)
            batch = next_groups(
                self.pool.skills,
                self.last,
                [True] * len(self.last),
                start=self.done,
                count=count,
                players=2,
                max_gap=self.max_gap,
                seed=self.seed,
                env=env,
            )
            for offset, group in enumerate(batch):
                g = self.done + offset
                for e in group:
                    self.longest_wait = max(self.longest_wait, g - self.last[e] - 1)
                    self.last[e] = g
                self.pool.play(group)
            self.done += len(batch)


def part_ladder(bots: int, checkpoints: list[int], seed: int) -> Ladder:
    true = [25 + 0.6 * (i - (bots - 1) / 2) for i in range(bots)]
    print(f"== 1. ladder vs round robin: {bots} bots of known skill (simulated outcomes)")
    print(f"{'matches':>8} {'ladder rho':>11} {'tau':>6} {'random rho':>11} {'tau':>6}")
    ladder = Ladder(Pool(true, seed), seed, 2 * bots)
    randomly = Pool(true, seed + 1)
    pick = random.Random(seed + 2)
    for checkpoint in checkpoints:
        ladder.step(lambda: False, checkpoint)
        while sum(randomly.matches) // 4 < checkpoint:
            randomly.play(tuple(pick.sample(range(bots), 2)))
        rho, tau = ladder.pool.correlation()
        r_rho, r_tau = randomly.correlation()
        print(f"{2 * checkpoint:>8} {rho:>11.3f} {tau:>6.3f} {r_rho:>11.3f} {r_tau:>6.3f}")
    full = len(round_robin(bots, 2, 1, seed)) // 2
    robin = Pool(true, seed + 3)
    for pairing in round_robin(bots, 2, 1, seed)[::2]:
        robin.play(pairing.seats)
    rho, tau = robin.correlation()
    print(f"round robin, one full round ({2 * full} matches): rho {rho:.3f} tau {tau:.3f}")
    if checkpoints[-1] != full:
        print(f"  (compare with the ladder at {2 * full} matches: --groups ... {full})")
    print(f"ladder: longest any bot sat out: {ladder.longest_wait} groups (bound {2 * bots - 1})")
    return ladder


def standing(pool: Pool, bot: int) -> str:
    """Its place by rated mu and by true skill (1 = best)."""
    by_mu = 1 + sum(s.mu > pool.skills[bot].mu for s in pool.skills)
    by_true = 1 + sum(t > pool.true[bot] for t in pool.true)
    return f"placed {by_mu} by rating, {by_true} by true skill, of {len(pool.true)}"


def part_newcomer(ladder: Ladder) -> None:
    print("== 2. a new bot joins the settled ladder")
    limit = ladder.done + 5000
    started = ladder.done
    new = ladder.add(30.0, Skill.initial())
    ladder.step(lambda: ladder.pool.skills[new].sigma < 2, limit)
    print(
        f"new bot (true 30, starts 25 +- 8.33): sigma < 2 after {ladder.pool.matches[new]} of its "
        f"matches, {2 * (ladder.done - started)} ladder matches; "
        f"{standing(ladder.pool, new)}"
    )
    # a new version of the bot ranked in the middle, 3 points better than before
    middle = len(ladder.pool.true) // 2 - 1
    before = ladder.pool.skills[middle]
    started = ladder.done
    version = ladder.add(ladder.pool.true[middle] + 3, inherited(before))
    ladder.step(lambda: ladder.pool.skills[version].sigma < 2, limit)
    print(
        f"new version (true {ladder.pool.true[version]:.1f}, starts {before.mu:.1f} +- "
        f"{inherited(before).sigma:.2f}): sigma < 2 after {ladder.pool.matches[version]} of its "
        f"matches, {2 * (ladder.done - started)} ladder matches; "
        f"{standing(ladder.pool, version)}"
    )


# ----- part 3: duplicate deals with the real referee ----------------------------------
Policy = Callable[[dict[str, Any], list[dict[str, Any]], random.Random], dict[str, Any]]


def heuristic(noise: float) -> Policy:
    choose = load_bot_module("take-that-heuristic").choose
    wanted = inspect.signature(choose).parameters
    bound = {k: v for k, v in {"game": GAME, "variant": {}}.items() if k in wanted}

    def policy(obs: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> Any:
        if noise and rng.random() < noise:
            return rng.choice(legal)
        return choose(obs, legal, rng, **bound)

    return policy


def play(deal: int, policies: list[Policy]) -> tuple[float, float]:
    """Seat 0's share of first place and its score minus seat 1's."""
    game = load_game(GAME).new(2, deal, {})
    rngs = [random.Random(deal * 10 + s) for s in range(2)]
    while not game.is_over():
        game.apply_joint(
            {s: policies[s](game.observation(s), game.legal(s), rngs[s]) for s in game.to_move()}
        )
    outcome = game.outcome()
    first = [s for s in range(2) if outcome.ranks[s] == 1]
    share = 1 / len(first) if 0 in first else 0.0
    return share, float(outcome.scores[0] - outcome.scores[1])


def needed(games: list[float], pairs: list[float], even: float) -> str:
    """Games to separate at 95 %: independent deals vs duplicate pairs, the same effect.

    Both designs estimate the same mean (every game is one seating of a deal), so the
    effect is the mean of all games; only the spread differs: a game's own sd for
    independent deals, the pair mean's sd (x 2 games a pair) for duplicate deals.
    """
    effect = statistics.fmean(games) - even
    sd_game, sd_pair = statistics.stdev(games), statistics.stdev(pairs)
    if effect == 0:
        return f"mean {effect + even:.3f}: never"
    independent = (Z_95 * sd_game / effect) ** 2
    duplicate = 2 * (Z_95 * sd_pair / effect) ** 2
    return (
        f"mean {effect + even:.3f}; independent deals: sd {sd_game:.3f} -> "
        f"{math.ceil(independent)} games; duplicate pairs: sd {sd_pair:.3f} -> "
        f"{math.ceil(duplicate)} games ({duplicate / independent:.0%})"
    )


def part_duplicate(deals: int, seed: int) -> None:
    print(f"== 3. duplicate deals, {GAME} referee: heuristic vs heuristic with 10 % random moves")
    strong, weak = heuristic(0.0), heuristic(0.1)
    shares: list[float] = []
    margins: list[float] = []
    pair_share, pair_margin = [], []
    began = time.perf_counter()
    for k in range(deals):
        deal = 1_000_000 + seed * 100_000 + k
        share_a, margin_a = play(deal, [strong, weak])  # heuristic at seat 0
        share_b, margin_b = play(deal, [weak, strong])  # seats swapped, same deal
        share_b, margin_b = 1 - share_b, -margin_b  # as the heuristic saw it
        shares += [share_a, share_b]
        margins += [margin_a, margin_b]
        pair_share.append((share_a + share_b) / 2)
        pair_margin.append((margin_a + margin_b) / 2)
    seconds = time.perf_counter() - began
    print(f"{deals} deals x 2 seatings, {seconds:.0f} s")
    print(f"win share:    {needed(shares, pair_share, 0.5)}")
    print(f"score margin: {needed(margins, pair_margin, 0.0)}")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (argparse exits 2 on a bad one)."""
    parser = argparse.ArgumentParser(
        prog=Path(__file__).name,
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--groups", type=int, nargs="+", default=[250, 500, 1225])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-ladder", action="store_true")
    parser.add_argument("--skip-duplicate", action="store_true")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if not args.skip_ladder:
        began = time.perf_counter()
        ladder = part_ladder(args.bots, sorted(args.groups), args.seed)
        part_newcomer(ladder)
        print(f"[parts 1-2: {time.perf_counter() - began:.0f} s]")
    if not args.skip_duplicate:
        part_duplicate(args.deals, args.seed)


if __name__ == "__main__":
    main()
