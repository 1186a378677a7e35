"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS).

Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE
Transactions on Computational Intelligence and AI in Games 4(2), 2012. One tree is
grown from the searching seat's information set: every iteration samples a full
state consistent with what the seat sees (`Game.determinize`), walks down the tree
with the decisions legal in that sample, adds one node, plays on with a cheap
policy and backs the result up.

The tree holds the decisions of every seat that decides alone (an opponent's
decision is an edge too, chosen to be good for that opponent: otherwise the search
would assume helpful opponents), unless the profile has a model of the other seats
(`Profile.model`, e.g. a known opponent's policy): they then decide by it, and the
tree holds only the searcher's decisions. When several seats decide at once (LEYLO's
opening), only the searching seat's decision is an edge; the others are drawn by
the playout policy, since a tree edge would let them see what was decided beside
them. Below the root, children are selected by UCB1 over the children legal in the
current sample, with the *availability* count (how often a child was legal when its
parent was visited) in place of the parent's visit count, as SO-ISMCTS prescribes.

At the root, where every decision is legal in every sample, a Python search gets
only a few hundred iterations in 100 ms, so the root is a race (`halve`): sequential
halving with common random numbers, stopped early once decided. `Profile.root_selection
= "ucb1"` gives plain SO-ISMCTS instead.

Nothing here knows a game: what differs per game (playout policy, how far to play,
how to score a cut-off position, which decisions are worth searching) comes in a
`Profile` (see game_knowledge.py).
"""

from __future__ import annotations

import math
import operator
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import repeat
from typing import Any

Decision = dict[str, Any]
#: A decision as a hashable value, the same whatever the order of its keys.
Key = tuple[tuple[str, Any], ...]
#: A seat's policy inside playouts: (state, seat, legal, rng) -> one of legal.
Policy = Callable[[Any, int, list[Decision], random.Random], Decision]
#: A bot's own policy at the root: (observation, legal, rng, variant) -> one of legal.
RootPolicy = Callable[
    [Mapping[str, Any], list[Decision], random.Random, Mapping[str, Any]], Decision
]

ROOT_SEAT = -1
#: In a finished game the margin only breaks ties between equal ranks.
TERMINAL_MARGIN_WEIGHT = 0.1
#: The race at the root is decided when the leader's paired lead over every other
#: decision racing is this many standard errors (one in ~700 by chance, per look)...
RACE_Z = 3.0
#: ... after at least this many rounds, or when every result was the same for this many.
RACE_MIN_ROUNDS, RACE_TIED_ROUNDS = 6, 16
#: A decision replaces the policy's (`Profile.anchor`) only with a paired lead this many
#: standard errors wide.
ANCHOR_Z = 1.0


@dataclass(frozen=True)
class Profile:
    """What the search needs to know about one game; see game_knowledge.py."""

    #: Decisions in playouts (None: the game's own fast uniform playout).
    policy: Policy | None = None
    #: Decisions a playout makes before it stops and is scored by `estimate`, from the
    #: root observation (None: no limit).
    playout_limit: Callable[[Mapping[str, Any]], int | None] | None = None
    #: Decisions that mark progress (e.g. a row taken): a playout stops after
    #: `milestones` of them.
    milestone: Callable[[Decision], bool] | None = None
    milestones: int = 1
    #: A stage of the game (e.g. the round number): a playout stops after `stages`
    #: changes of it.
    stage: Callable[[Any], Any] | None = None
    stages: int = 1
    #: Every seat's score in a position cut off before the end.
    estimate: Callable[[Any], Sequence[float]] | None = None
    #: The decisions worth searching among the legal ones, (state, seat, legal) -> a
    #: non-empty subset (None: all); applied at the root and at every node of the tree.
    candidates: Callable[[Any, int, list[Decision]], list[Decision]] | None = None
    #: Keep the playout policy's own root decision unless the search clearly beats it
    #: (for games where a search gets few samples and the policy is good).
    anchor: bool = False
    #: The decision to anchor on, from the root observation: (observation, legal, rng,
    #: variant) -> one of legal (None: the playout policy's on one sample).
    root_policy: RootPolicy | None = None
    #: A score margin worth about three quarters of the margin part of a reward.
    margin_scale: float = 10.0
    #: The weight of the score margin in the reward of a cut-off playout (the rest is the
    #: rank); a finished game is rewarded by rank, the margin only breaking ties.
    margin_weight: float = 0.5
    #: UCB1's exploration constant (rewards lie in 0..1).
    exploration: float = 0.7
    #: How the root's decisions are compared: "halving" (`halve`) or "ucb1".
    root_selection: str = "halving"
    #: A model of the other seats (e.g. a known opponent's policy): when given, every
    #: seat but the searcher decides by it below the root (so the tree holds only the
    #: searcher's decisions) and in playouts (which then need a `policy` too).
    model: Policy | None = None


@dataclass(frozen=True)
class Limits:
    """When to stop searching: a time budget, an iteration count, or both (first one wins)."""

    budget_s: float = 0.1
    #: A fixed number of iterations makes the answer depend on the seed alone.
    iterations: int | None = None


@dataclass(frozen=True)
class Problem:
    """One decision to search: the asking seat's view and the game it is in."""

    game: Any  # a Game class from arena.games
    observation: Mapping[str, Any]
    legal: list[Decision]
    seat: int
    players: int
    variant: Mapping[str, Any]

    def sample(self, rng: random.Random) -> Any:
        """A full state consistent with the observation."""
        return self.sampler(rng)

    @cached_property
    def sampler(self) -> Callable[[random.Random], Any]:
        """`game.determinize` of this observation as a function of the rng: the game's own
        `determinizer` when it has one (it reads the observation once for every sample,
        drawing the very same states), else a call of `determinize` per sample."""
        determinizer = getattr(self.game, "determinizer", None)
        if determinizer is not None:
            sampler: Callable[[random.Random], Any] = determinizer(
                self.observation, self.seat, self.players, self.variant
            )
            return sampler
        game, observation, seat, players, variant = (
            self.game,
            self.observation,
            self.seat,
            self.players,
            self.variant,
        )
        return lambda rng: game.determinize(observation, seat, players, variant, rng)


class Node:
    """One decision edge of the tree and the statistics of the subtree under it."""

    __slots__ = ("available", "children", "reward", "seat", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat  # who made the decision leading here; its rewards are summed
        self.children: dict[tuple[int, Key], Node] = {}
        self.visits = 0
        self.available = 0  # how often this decision was legal when its parent was visited
        self.reward = 0.0

    def mean(self) -> float:
        """The mean reward (-1 before the first visit)."""
        return self.reward / self.visits if self.visits else -1.0


@dataclass
class Result:
    """The chosen decision and how the search went (for tests and logs)."""

    decision: Decision
    iterations: int
    #: Per root decision searched: (visits, mean reward).
    stats: dict[Key, tuple[int, float]]


class Budget:
    """The time and iterations one search may use, and how much of them is spent."""

    def __init__(self, limits: Limits, clock: Callable[[], float]) -> None:
        self.limits = limits
        self.clock = clock
        self.start = clock()
        self.done = 0  # iterations run

    def within(self, share: float = 1.0) -> bool:
        """True while less than `share` of the time and of the iterations is spent."""
        if self.limits.iterations is not None and self.done >= self.limits.iterations * share:
            return False
        return self.clock() - self.start < self.limits.budget_s * share

    def samples_left(self, done: int, share: float = 1.0) -> bool:
        """True while another sample may start after `done` and less than `share` of the
        budget is spent (a search that counts its own samples, e.g. twirkle_plan's)."""
        self.done = done
        return self.within(share)


def decision_key(decision: Decision) -> Key:
    """A hashable name of a decision that ignores key order (values are numbers, strings,
    booleans or lists of numbers)."""
    key = tuple(sorted(decision.items()))
    try:
        hash(key)  # the common case: no list among the values
    except TypeError:
        return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in key))
    return key


def search(
    problem: Problem,
    profile: Profile,
    limits: Limits,
    rng: random.Random,
    clock: Callable[[], float] = time.perf_counter,
) -> Result:
    """Search until the budget or the iteration count is used up (or the race at the root
    is decided) and return the chosen root decision."""
    root = Node(ROOT_SEAT)
    budget = Budget(limits, clock)
    limit = None if profile.playout_limit is None else profile.playout_limit(problem.observation)
    arms, anchor = root_decisions(problem, profile, rng)
    if profile.root_selection == "ucb1":
        while budget.within():
            iterate(root, problem.sample(rng), None, problem.seat, profile, limit, rng)
            budget.done += 1
        children = [root.children.get((problem.seat, key)) for key in arms]
        searched = [child for child in children if child is not None and child.visits]
        best = max(searched, key=lambda child: child.visits, default=None)
    else:
        race = Race(root, problem, list(arms.items()), anchor)
        race.run(profile, limit, rng, budget)
        best = race.winner()
    stats = {
        key: (child.visits, child.mean())
        for (seat, key), child in root.children.items()
        if seat == problem.seat and child.visits
    }
    if best is None:  # no time for a single iteration
        fallback = arms[anchor] if anchor is not None else rng.choice(problem.legal)
        return Result(fallback, budget.done, stats)
    key = next(k for (seat, k), child in root.children.items() if child is best)
    return Result(arms[key], budget.done, stats)


def root_decisions(
    problem: Problem, profile: Profile, rng: random.Random
) -> tuple[dict[Key, Decision], Key | None]:
    """The offered decisions worth searching, by key, and the decision to anchor on when
    the profile anchors: its root policy's (from the observation) or else its playout
    policy's. Candidates and the playout policy's pick are read from one sample of the
    position, so they may only use what the seat sees."""
    arms: dict[Key, Decision] = {}
    for decision in problem.legal:
        arms.setdefault(decision_key(decision), decision)
    if len(arms) == 1 or (profile.candidates is None and not profile.anchor):
        return arms, None
    sample = problem.sample(rng)
    if profile.candidates is not None:
        wanted = {decision_key(d) for d in profile.candidates(sample, problem.seat, problem.legal)}
        arms = {key: d for key, d in arms.items() if key in wanted} or arms
    anchor = None
    if profile.anchor and profile.root_policy is not None:
        chosen = profile.root_policy(problem.observation, problem.legal, rng, problem.variant)
        anchor = decision_key(chosen)
    elif profile.anchor and profile.policy is not None:
        anchor = decision_key(profile.policy(sample, problem.seat, problem.legal, rng))
    if anchor is not None and anchor not in arms:
        arms[anchor] = next(d for d in problem.legal if decision_key(d) == anchor)
    return arms, anchor


class Race:
    """Sequential halving at the root (Karnin, Koren and Somekh, ICML 2013) with common
    random numbers, stopped early once decided.

    The budget is split into log2(decisions) phases; in each, every decision still in
    the race is searched on the same sampled states with the same playout seeds (so
    their results differ by the decision, not by the deal), and the worse half drops
    out. Below the root the tree is SO-ISMCTS as usual. UCB1 at the root spreads a few
    hundred iterations almost evenly over the decisions and then picks by a noisy
    count; halving spends them where the choice is close, and stopping a decided race
    (`decided`) leaves time unused where the choice is plain.
    """

    def __init__(
        self,
        root: Node,
        problem: Problem,
        racing: list[tuple[Key, Decision]],
        anchor: Key | None,
    ) -> None:
        self.root = root
        self.problem = problem
        self.racing = racing
        self.anchor = anchor  # never drops out; see `winner`
        self.results: dict[Key, list[float]] = {key: [] for key, _ in racing}
        #: Per (leader, other): rounds summed so far, the sum of the leads and of their
        #: squares (see `behind`).
        self.sums: dict[tuple[Key, Key], tuple[int, float, float]] = {}

    def child(self, key: Key) -> Node | None:
        """The root's node of a decision."""
        return self.root.children.get((self.problem.seat, key))

    def run(self, profile: Profile, limit: int | None, rng: random.Random, budget: Budget) -> None:
        """Race until the budget is spent or the race is decided."""
        phases = max(1, math.ceil(math.log2(len(self.racing))))
        for phase in range(phases):
            share = (phase + 1) / phases
            while budget.within(share):
                if not self.round(profile, limit, rng, budget):
                    return  # the whole budget is out
                if self.decided():
                    return
            if phase < phases - 1:
                self.halve()

    def round(
        self, profile: Profile, limit: int | None, rng: random.Random, budget: Budget
    ) -> bool:
        """Search every decision racing once on one sample with one playout seed; False
        when the budget ran out before the round was complete."""
        state = self.problem.sample(rng)
        seed = rng.getrandbits(64)
        for arm in self.racing:
            if not budget.within():
                return False
            seat = self.problem.seat
            reward = iterate(
                self.root, state.clone(), arm, seat, profile, limit, random.Random(seed)
            )
            self.results[arm[0]].append(reward)
            budget.done += 1
        return True

    def decided(self) -> bool:
        """`decided` of the results racing: the same answer, but for the other decisions
        whose running sums show them far behind the leader (`behind`), without summing
        every round again (that was a seventh of a Krumme10 search's time)."""
        keys = [key for key, _ in self.racing]
        results = [self.results[key] for key in keys]
        rounds = len(results[0])
        if rounds < RACE_MIN_ROUNDS or len(results) > 8:
            return False
        first = max(range(len(results)), key=lambda i: sum(results[i]))  # max(key=sum)'s
        leader = results[first]
        for i, other in enumerate(results):
            if i == first:
                continue
            if other == leader:
                if rounds < RACE_TIED_ROUNDS:
                    return False
            elif self.behind(keys[first], keys[i]) or paired_lead(leader, other) <= RACE_Z:
                return False
        return True

    def behind(self, leader: Key, other: Key) -> bool:
        """True when `other` is surely within RACE_Z standard errors of `leader`, so that
        `paired_lead` would say so too: by running sums of the leads and their squares
        (a few rounding errors off `paired_lead`'s two passes over every round, the
        exact figure), far enough below RACE_Z to be sure.

        Rewards lie in 0..1 (leads in -1..1). Over n <= 10**6 rounds with Q (the sum of
        squared deviations) above 1e-3 S2 (the sum of squares), the running sums put the
        mean within ~1e-5 standard errors of its exact value and Q within a relative
        1e-6 of it, so a score 1e-3 below RACE_Z is below it whichever way it is summed.
        Otherwise (Q that small means a lead of dozens of standard errors) False: ask
        `paired_lead`."""
        mine, theirs = self.results[leader], self.results[other]
        rounds = len(mine)
        done, total, squares = self.sums.get((leader, other), (0, 0.0, 0.0))
        for a, b in zip(mine[done:], theirs[done:], strict=True):
            lead = a - b
            total += lead
            squares += lead * lead
        self.sums[(leader, other)] = (rounds, total, squares)
        if rounds < 2 or rounds > 10**6:
            return False
        deviations = squares - total * total / rounds
        if not deviations > 1e-3 * squares:
            return False
        score = (total / rounds) / math.sqrt(deviations / (rounds - 1) / rounds)
        return score < RACE_Z - 1e-3

    def halve(self) -> None:
        """Drop the worse half of the decisions racing (the anchor stays)."""

        def mean(arm: tuple[Key, Decision]) -> float:
            node = self.child(arm[0])
            return -1.0 if node is None else node.mean()

        ranked = sorted(self.racing, key=mean, reverse=True)
        kept = ranked[: math.ceil(len(ranked) / 2)]
        self.racing = kept + [arm for arm in ranked if arm[0] == self.anchor and arm not in kept]

    def winner(self) -> Node | None:
        """The root node of the decision with the best mean among those still racing;
        the anchor's unless that one leads it by ANCHOR_Z standard errors."""
        nodes = [(key, self.child(key)) for key, _ in self.racing]
        searched = [(key, node) for key, node in nodes if node is not None and node.visits]
        if not searched:
            return None
        key, best = max(searched, key=lambda pair: (pair[1].mean(), pair[1].visits))
        if self.anchor is None or key == self.anchor:
            return best
        anchor = self.child(self.anchor)
        if anchor is None or not anchor.visits:
            return best
        rounds = min(len(self.results[key]), len(self.results[self.anchor]))
        lead = paired_lead(self.results[key][:rounds], self.results[self.anchor][:rounds])
        return best if lead > ANCHOR_Z else anchor


def paired_lead(mine: list[float], other: list[float]) -> float:
    """How many standard errors the mean round-by-round difference is above zero."""
    rounds = len(mine)
    if rounds < 2:
        return 0.0
    if len(other) != rounds:
        raise ValueError("paired results of unequal length")
    # The same operations in the same order as [a - b for ...], sum((d - average) ** 2
    # for d in lead), by C-level maps: `decided` asks this after every round.
    lead = list(map(operator.sub, mine, other))
    average = sum(lead) / rounds
    spread = sum(map(pow, map(operator.sub, lead, repeat(average)), repeat(2))) / (rounds - 1)
    if spread == 0.0:
        return math.inf if average > 0 else 0.0
    return average / math.sqrt(spread / rounds)


def decided(results: list[list[float]]) -> bool:
    """True when one decision is clearly ahead of all others racing, compared round by
    round on the same samples (racing, after Maron and Moore's Hoeffding races, NIPS
    1993), or when none made any difference for RACE_TIED_ROUNDS rounds."""
    rounds = len(results[0])
    if rounds < RACE_MIN_ROUNDS or len(results) > 8:
        return False
    leader = max(results, key=sum)
    for other in results:
        if other is leader:
            continue
        if other == leader:  # no difference at all so far
            if rounds < RACE_TIED_ROUNDS:
                return False
        elif paired_lead(leader, other) <= RACE_Z:
            return False
    return True


def iterate(
    root: Node,
    state: Any,
    first: tuple[Key, Decision] | None,
    searcher: int,
    profile: Profile,
    limit: int | None,
    rng: random.Random,
) -> float:
    """One iteration on a sampled `state`: select and expand from `root` (the searcher's
    first decision is `first` when given), play out, back the rewards up; the searcher's
    reward."""
    path = descend(root, state, searcher, first, profile, rng)
    rewards = playout(state, profile, limit, rng, searcher)
    for node in path:
        node.visits += 1
        node.reward += rewards[node.seat]
    return rewards[searcher]


def descend(
    root: Node,
    state: Any,
    searcher: int,
    first: tuple[Key, Decision] | None,
    profile: Profile,
    rng: random.Random,
) -> list[Node]:
    """Walk down from `root` applying decisions to `state` until a node is added (or the
    game ends); return the nodes passed, the new one included."""
    node = root
    path: list[Node] = []
    exploration = profile.exploration
    # A game may list its legal decisions with their keys (`_legal_keys`: decision_key's
    # of each, built once per kind of decision), where no candidates filter them.
    keyed = getattr(state, "_legal_keys", None) if profile.candidates is None else None
    while not state._is_over():
        movers = state._to_move()
        tree_seat = searcher if searcher in movers else movers[0] if len(movers) == 1 else None
        if profile.model is not None and tree_seat != searcher:
            tree_seat = None
        joint: dict[int, Decision] = {}
        added = False
        for seat in movers:
            if seat == tree_seat and keyed is not None:
                # The same steps as below, with keys the game built (`decision_key`'s).
                pairs = keyed(seat)
                if len(pairs) == 1:
                    joint[seat] = pairs[0][1]
                elif node is root and first is not None:
                    node, joint[seat], added = enter(root, seat, first)
                    path.append(node)
                else:
                    node, joint[seat], added = choose_child(node, seat, pairs, exploration, rng)
                    path.append(node)
                continue
            legal = state._legal(seat)
            if seat == tree_seat and len(legal) > 1 and profile.candidates is not None:
                legal = profile.candidates(state, seat, legal)
            if seat != tree_seat or len(legal) == 1:
                joint[seat] = (
                    legal[0]
                    if len(legal) == 1
                    else pick(profile, state, seat, legal, rng, seat != searcher)
                )
            elif node is root and first is not None:
                node, joint[seat], added = enter(root, seat, first)
                path.append(node)
            else:
                node, joint[seat], added = select(node, seat, legal, exploration, rng)
                path.append(node)
        state._apply_joint(joint)
        if added:
            break
    return path


def enter(root: Node, seat: int, first: tuple[Key, Decision]) -> tuple[Node, Decision, bool]:
    """The root child of a decision chosen beforehand (added when new)."""
    key, decision = first
    child = root.children.get((seat, key))
    if child is None:
        child = root.children[(seat, key)] = Node(seat)
    child.available += 1
    return child, decision, child.visits == 0


def pick(
    profile: Profile,
    state: Any,
    seat: int,
    legal: list[Decision],
    rng: random.Random,
    other: bool = False,
) -> Decision:
    """The playout policy's decision (uniform when the profile has none); an `other`
    seat's by the profile's model when it has one."""
    if other and profile.model is not None:
        return profile.model(state, seat, legal, rng)
    if profile.policy is None:
        return rng.choice(legal)
    return profile.policy(state, seat, legal, rng)


def select(
    node: Node, seat: int, legal: list[Decision], exploration: float, rng: random.Random
) -> tuple[Node, Decision, bool]:
    """The child to follow: an untried legal decision if any (added to the tree, chosen
    at random), else the legal child with the best UCB1 score. Returns (child, decision,
    added)."""
    return choose_child(node, seat, [(decision_key(d), d) for d in legal], exploration, rng)


def choose_child(
    node: Node,
    seat: int,
    legal: list[tuple[Key, Decision]],
    exploration: float,
    rng: random.Random,
) -> tuple[Node, Decision, bool]:
    """`select` with every legal decision given with its key."""
    untried: list[tuple[Key, Decision]] = []
    tried: list[tuple[Node, Decision]] = []
    children = node.children
    for key, decision in legal:
        child = children.get((seat, key))
        if child is None:
            untried.append((key, decision))
        else:
            child.available += 1
            tried.append((child, decision))
    if untried:
        key, decision = untried[rng.randrange(len(untried))]
        child = children[(seat, key)] = Node(seat)
        child.available = 1
        return child, decision, True
    # max(tried, key=ucb1 of the child): the first of the best scores, `ucb1` inlined.
    log, sqrt = math.log, math.sqrt
    best, decision = tried[0]
    top = best.reward / best.visits + exploration * sqrt(log(best.available) / best.visits)
    for child, offered in tried[1:]:
        visits = child.visits
        score = child.reward / visits + exploration * sqrt(log(child.available) / visits)
        if score > top:
            best, decision, top = child, offered, score
    return best, decision, False


def ucb1(child: Node, exploration: float) -> float:
    """Mean reward plus the exploration bonus, counted over the child's availability."""
    mean = child.reward / child.visits
    return mean + exploration * math.sqrt(math.log(child.available) / child.visits)


def playout(
    state: Any, profile: Profile, limit: int | None, rng: random.Random, searcher: int = -1
) -> list[float]:
    """Play on from `state` by the profile's policy (or uniformly) until the game ends,
    `limit` decisions are made, or the profile's milestones or stages are met, and reward
    every seat. (Milestones count from the start of the playout: counting the tree's
    too made Take That worse, 49 % against its heuristic instead of 62 %.)"""
    if profile.policy is None:
        state.playout(rng, limit)
    else:
        play_on(state, profile, limit, rng, searcher)
    if state._is_over():
        scores: Sequence[float] = state._scores()
        weight = TERMINAL_MARGIN_WEIGHT
    else:
        assert profile.estimate is not None, "a playout that can stop early needs an estimate"
        scores = profile.estimate(state)
        weight = profile.margin_weight
    teams = state._teams()
    return rewards(scores, state.spec.higher_score_wins, teams, weight, profile.margin_scale)


def play_on(
    state: Any, profile: Profile, limit: int | None, rng: random.Random, searcher: int = -1
) -> None:
    """The playout loop with the profile's policy (the other seats': its model, when it
    has one) and stopping rules."""
    assert profile.policy is not None
    policy, stage, milestone = profile.policy, profile.stage, profile.milestone
    model = profile.model
    made = marks = changes = 0
    last = None if stage is None else stage(state)
    while not state._is_over() and (limit is None or made < limit):
        joint = {}
        for seat in state._to_move():
            legal = state._legal(seat)
            if len(legal) == 1:
                joint[seat] = legal[0]
            elif model is not None and seat != searcher:
                joint[seat] = model(state, seat, legal, rng)
            else:
                joint[seat] = policy(state, seat, legal, rng)
        state._apply_joint(joint)
        made += len(joint)
        if milestone is not None:
            marks += sum(1 for decision in joint.values() if milestone(decision))
            if marks >= profile.milestones:
                return
        if stage is not None and not state._is_over() and (now := stage(state)) != last:
            last, changes = now, changes + 1
            if changes >= profile.stages:
                return


def rewards(
    scores: Sequence[float],
    higher_wins: bool,
    teams: Sequence[int] | None,
    weight: float,
    scale: float,
) -> list[float]:
    """Every seat's reward in 0..1: its rank (1 first, 0 last, ties share) and, with
    `weight`, its score margin over the mean rival (squashed by tanh over `scale`).

    In a team game the teams are the rivals (team mates share a score, so they get the
    same reward: the team's).
    """
    sign = 1.0 if higher_wins else -1.0
    if teams is None:  # every seat is a unit: the same sums as below, without the dicts
        values = [sign * score for score in scores]
        if len(values) < 2:
            return [0.5] * len(scores)
        result = []
        for seat, mine in enumerate(values):
            rivals = values[:seat] + values[seat + 1 :]
            beaten = 0.0  # a sum of halves and ones: exact in any order
            for v in rivals:
                if mine > v:
                    beaten += 1.0
                elif mine == v:
                    beaten += 0.5
            margin = math.tanh((mine - sum(rivals) / len(rivals)) / scale)
            result.append((1 - weight) * beaten / len(rivals) + weight * 0.5 * (1 + margin))
        return result
    units = list(teams)
    value: dict[int, float] = {}
    for seat, unit in enumerate(units):
        value.setdefault(unit, sign * scores[seat])
    if len(value) < 2:
        return [0.5] * len(scores)
    by_unit = {}
    for unit, mine in value.items():
        rivals = [v for u, v in value.items() if u != unit]
        beaten = sum(1.0 if mine > v else 0.5 if mine == v else 0.0 for v in rivals)
        margin = math.tanh((mine - sum(rivals) / len(rivals)) / scale)
        by_unit[unit] = (1 - weight) * beaten / len(rivals) + weight * 0.5 * (1 + margin)
    return [by_unit[unit] for unit in units]
