"""Rating finished matches with TrueSkill: pure functions, no storage.

One explicit `trueskill.TrueSkill` environment per game (never the package's
global `setup()`). Free-for-all from final ranks (ties shared); with teams, team
mates form one rating group and share its rank. The interface is small (Skill,
rate) so that another model (openskill) could replace trueskill in this file.
The caller applies matches in schedule order; a bot version seated twice in one
match is rated per seat and the caller keeps the last seat's result.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypeVar

import trueskill

from arena.games import load_game
from arena.skill import MU, SIGMA, Skill

#: TrueSkill's published defaults: mu 25, sigma 25/3 (the scale ratings are stored on,
#: arena.skill), beta 25/6, tau 25/300.
BETA = SIGMA / 2
TAU = SIGMA / 100


#: The least uncertainty a new version of a rated bot starts with: half the initial.
NEW_VERSION_SIGMA = SIGMA / 2


def inherited(previous: Skill) -> Skill:
    """Where a bot's new version starts: its previous version's mu, sigma raised.

    New code may play better or worse, but it is most often close to the code it
    replaces: the old mu is the best first guess, and sigma at least half the
    initial one (4.17: mu +- 2 sigma spans 16.7 points, more than the gap between
    a heuristic and a random bot) lets a few matches move it wherever it belongs.
    A barely played version's larger sigma is kept. The conservative rating
    (mu - 3 sigma) of the new version starts lower, so it cannot outrank on its
    predecessor's record alone; it rises as it plays.

    >>> inherited(Skill(30.0, 1.2))
    Skill(mu=30.0, sigma=4.166666666666667)
    >>> inherited(Skill(30.0, 6.0))
    Skill(mu=30.0, sigma=6.0)
    """
    return Skill(previous.mu, max(previous.sigma, NEW_VERSION_SIGMA))


@dataclass(frozen=True)
class Played:
    """One rated match as `event_skills` reads it: bot versions by seat, 1-based ranks,
    each seat's team (None: every seat for itself)."""

    versions: tuple[int, ...]
    ranks: tuple[int, ...]
    teams: tuple[int, ...] | None = None


def event_skills(game_id: str, matches: Iterable[Played]) -> dict[int, Skill]:
    """The rating each version earns from these matches alone, in the order given.

    Every version starts from `Skill.initial()`, whatever it did elsewhere: an event's
    own rating, not the all-time one (which carries every earlier match, and a new
    version's inherited start). A version seated twice keeps its last seat's result,
    as the store does. The same matches in the same order give the same floats.
    """
    skills: dict[int, Skill] = {}
    for match in matches:
        before = [skills.get(v, Skill.initial()) for v in match.versions]
        teams = list(match.teams) if match.teams is not None else None
        after = rate(game_id, before, list(match.ranks), teams)
        for version, skill in zip(match.versions, after, strict=True):
            skills[version] = skill
    return skills


Node = TypeVar("Node", int, tuple[str, int])


def pools(edges: Iterable[tuple[Node, Node]], members: Iterable[Node]) -> list[set[Node]]:
    """The connected components of the "has played" graph: sets of versions linked by
    matches (or by the events they played in), directly or through common opponents;
    largest first (then lowest node).

    Ratings from different pools were never compared by any match: their numbers
    share a starting point (mu 25), not a scale.

    >>> pools([(1, 2), (3, 4), (2, 5)], [1, 2, 3, 4, 5, 6])
    [{1, 2, 5}, {3, 4}, {6}]
    """
    parent: dict[Node, Node] = {v: v for v in members}

    def root(v: Node) -> Node:
        parent.setdefault(v, v)
        while parent[v] != v:
            parent[v] = parent[parent[v]]  # path halving keeps the trees flat
            v = parent[v]
        return v

    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    found: dict[Node, set[Node]] = {}
    for v in list(parent):
        found.setdefault(root(v), set()).add(v)
    return sorted(found.values(), key=lambda pool: (-len(pool), min(pool)))


@functools.cache
def environment(game_id: str) -> trueskill.TrueSkill:
    """The TrueSkill environment of one game."""
    draw = load_game(game_id).spec.draw_probability  # a fact of the game, in its module
    return trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, draw_probability=draw)


def rate(
    game_id: str, skills: list[Skill], ranks: list[int], teams: list[int] | None = None
) -> list[Skill]:
    """New skills, one per seat in seat order, from 1-based ranks (equal rank = tie).

    The very floats of `trueskill.TrueSkill.rate` (`rate_reference`), several times
    faster: `_rate_groups` repeats its arithmetic without its objects.
    """
    order, members, group_ranks = _groups(skills, ranks, teams)
    groups = [[(skills[s].mu, skills[s].sigma) for s in members[g]] for g in order]
    rated = _rate_groups(_model(game_id), groups, group_ranks)
    result = list(skills)
    for g, new_group in zip(order, rated, strict=True):
        for seat, (mu, sigma) in zip(members[g], new_group, strict=True):
            result[seat] = Skill(mu, sigma)
    return result


def rate_reference(
    game_id: str, skills: list[Skill], ranks: list[int], teams: list[int] | None = None
) -> list[Skill]:
    """`rate` through the trueskill package itself: what `rate` must equal, float for float."""
    env = environment(game_id)
    order, members, group_ranks = _groups(skills, ranks, teams)
    rating_groups = [
        tuple(env.create_rating(skills[s].mu, skills[s].sigma) for s in members[g]) for g in order
    ]
    rated = env.rate(rating_groups, ranks=group_ranks)
    result = list(skills)
    for g, new_group in zip(order, rated, strict=True):
        for seat, new in zip(members[g], new_group, strict=True):
            result[seat] = Skill(float(new.mu), float(new.sigma))
    return result


def _groups(
    skills: list[Skill], ranks: list[int], teams: list[int] | None
) -> tuple[list[int], dict[int, list[int]], list[int]]:
    """The rating groups (a seat each, or a team each): their ids in order, their seats, ranks."""
    groups = list(range(len(skills))) if teams is None else list(teams)
    order = sorted(set(groups))
    members = {g: [s for s in range(len(skills)) if groups[s] == g] for g in order}
    return order, members, [min(ranks[s] for s in members[g]) for g in order]


# ----- a float-for-float port of trueskill's `TrueSkill.rate` -------------------
#: trueskill's `DELTA`: message passing stops once no message moves more than this.
_MIN_DELTA = trueskill.DELTA


class _Var:
    """A variable of the factor graph: its Gaussian (pi, tau) and the message each
    factor last sent it (trueskill's `factorgraph.Variable`, without the objects)."""

    __slots__ = ("msgs", "pi", "tau")

    def __init__(self) -> None:
        # ints, as trueskill starts them: the same expressions then give the same floats
        self.pi: float = 0
        self.tau: float = 0
        self.msgs: dict[int, tuple[float, float]] = {}

    def set(self, pi: float, tau: float) -> float:
        """Take a new value; how far it moved (trueskill's `Variable.set`/`delta`)."""
        pi_delta = abs(self.pi - pi)
        delta = 0.0 if pi_delta == math.inf else max(abs(self.tau - tau), math.sqrt(pi_delta))
        self.pi, self.tau = pi, tau
        return delta

    def message(self, factor: int, pi: float, tau: float) -> float:
        """A factor's new message (`update_message`): value / old message * new one."""
        old_pi, old_tau = self.msgs[factor]
        self.msgs[factor] = (pi, tau)
        return self.set(self.pi - old_pi + pi, self.tau - old_tau + tau)

    def value(self, factor: int, pi: float, tau: float) -> float:
        """A factor sets the value itself (`update_value`): its message follows."""
        old_pi, old_tau = self.msgs[factor]
        self.msgs[factor] = (pi + old_pi - self.pi, tau + old_tau - self.tau)
        return self.set(pi, tau)

    def without(self, factor: int) -> tuple[float, float]:
        """The value divided by one factor's message (`var / var[factor]`)."""
        pi, tau = self.msgs[factor]
        return self.pi - pi, self.tau - tau


def _mu(pi: float, tau: float) -> float:
    """trueskill's `Gaussian.mu`, zero (the precision itself) for no precision."""
    return pi and tau / pi


def _sigma(pi: float) -> float:
    """trueskill's `Gaussian.sigma`."""
    return math.sqrt(1 / pi) if pi else math.inf


@dataclass
class _Model:
    """One game's environment as `_rate_groups` needs it (draw margins computed once)."""

    env: trueskill.TrueSkill
    margins: dict[int, float] = field(default_factory=dict)

    def margin(self, size: int) -> float:
        """The draw margin between two neighbouring groups of `size` players together."""
        found = self.margins.get(size)
        if found is None:
            found = trueskill.calc_draw_margin(self.env.draw_probability, size, self.env)
            self.margins[size] = found
        return found


@functools.cache
def _model(game_id: str) -> _Model:
    return _Model(environment(game_id))


def _rate_groups(
    model: _Model, groups: list[list[tuple[float, float]]], ranks: list[int]
) -> list[list[tuple[float, float]]]:
    """trueskill's `TrueSkill.rate(groups, ranks)` (weights 1), on (mu, sigma) pairs.

    Every arithmetic step is trueskill 0.4.5's, in its order and on the same types
    (its factor graph, message schedule and stopping rule; its v/w functions and draw
    margin are called as they are), so the results are the same floats; only the
    Gaussian and factor objects are left out. tests/test_rating.py compares the two.
    """
    if len(groups) < 2:
        raise ValueError("need multiple rating groups")  # as trueskill
    order = sorted(range(len(groups)), key=lambda g: ranks[g])  # stable, as trueskill's
    ranked = [groups[g] for g in order]
    graph = _Graph(model, ranked, [ranks[g] for g in order])
    graph.run()
    results = graph.results()
    unsorted: list[list[tuple[float, float]]] = [[] for _ in groups]
    for g, result in zip(order, results, strict=True):
        unsorted[g] = result
    return unsorted


class _Graph:
    """trueskill's factor graph for one match, groups sorted by rank.

    Factors are numbers (the keys of their messages): prior i, likelihood n + i,
    team performance 2n + t, team difference 2n + g + t, truncation 2n + 2g - 1 + t
    (n seats, g groups). trueskill makes the last two kinds after the first pass
    down; their messages start at zero either way.
    """

    def __init__(self, model: _Model, groups: list[list[tuple[float, float]]], ranks: list[int]):
        self.model, self.groups, self.ranks = model, groups, ranks
        self.seats = [skill for group in groups for skill in group]
        n, g = len(self.seats), len(groups)
        self.ratings = [_Var() for _ in range(n)]
        self.perfs = [_Var() for _ in range(n)]
        self.teams = [_Var() for _ in range(g)]
        self.diffs = [_Var() for _ in range(g - 1)]
        self.members: list[list[int]] = []
        for group in groups:
            start = sum(len(m) for m in self.members)
            self.members.append(list(range(start, start + len(group))))
        self.lik, self.team, self.diff, self.trunc = n, 2 * n, 2 * n + g, 2 * n + 2 * g - 1
        for i in range(n):
            self.ratings[i].msgs[i] = self.ratings[i].msgs[n + i] = (0, 0)
            self.perfs[i].msgs[n + i] = (0, 0)
        for t, seats in enumerate(self.members):
            self.teams[t].msgs[self.team + t] = (0, 0)
            for i in seats:
                self.perfs[i].msgs[self.team + t] = (0, 0)
        for t, var in enumerate(self.diffs):
            var.msgs[self.diff + t] = var.msgs[self.trunc + t] = (0, 0)
            self.teams[t].msgs[self.diff + t] = self.teams[t + 1].msgs[self.diff + t] = (0, 0)

    def run(self) -> None:
        """trueskill's `run_schedule`: down, then to and fro between the differences
        until no truncation moves more than `_MIN_DELTA` (at most 10 times), then up."""
        for i in range(len(self.seats)):
            self._prior(i)
        for i in range(len(self.seats)):
            self._likelihood_down(i)
        for t, seats in enumerate(self.members):
            self._sum(
                self.team + t, self.teams[t], [self.perfs[i] for i in seats], [1] * len(seats)
            )
        last = len(self.diffs) - 1
        for _ in range(10):
            if last == 0:
                self._diff_down(0)
                delta = self._truncate(0)
            else:
                delta = 0
                for x in range(last):
                    self._diff_down(x)
                    delta = max(delta, self._truncate(x))
                    self._diff_up(x, 1)
                for x in range(last, 0, -1):
                    self._diff_down(x)
                    delta = max(delta, self._truncate(x))
                    self._diff_up(x, 0)
            if delta <= _MIN_DELTA:
                break
        self._diff_up(0, 0)
        self._diff_up(last, 1)
        for t, seats in enumerate(self.members):
            for index in range(len(seats)):
                self._team_up(t, index)
        for i in range(len(self.seats)):
            self._likelihood_up(i)

    def results(self) -> list[list[tuple[float, float]]]:
        """The new (mu, sigma) per group, as trueskill returns them and arena reads them.

        trueskill returns `Rating(mu, sigma)` (precision and precision-adjusted mean
        again) and `rate` reads its mu and sigma back: both round trips are kept.
        """
        out = []
        for seats in self.members:
            group = []
            for i in seats:
                var = self.ratings[i]
                mu, sigma = float(_mu(var.pi, var.tau)), float(_sigma(var.pi))
                pi = sigma**-2
                group.append((float(_mu(pi, pi * mu)), float(_sigma(pi))))
            out.append(group)
        return out

    def _prior(self, i: int) -> None:
        """`PriorFactor.down`: the skill before, its uncertainty grown by tau."""
        mu, sigma = self.seats[i]
        if sigma == 0:
            raise ValueError("sigma**2 should be greater than 0")
        pi = sigma**-2  # the Rating that `create_rating` makes, read back
        value_mu, value_sigma = _mu(pi, pi * mu), _sigma(pi)
        grown = math.sqrt(value_sigma**2 + self.model.env.tau**2)
        grown_pi = grown**-2
        self.ratings[i].value(i, grown_pi, grown_pi * value_mu)

    def _likelihood_down(self, i: int) -> None:
        pi, tau = self.ratings[i].without(self.lik + i)
        a = 1.0 / (1.0 + self.model.env.beta**2 * pi)
        self.perfs[i].message(self.lik + i, a * pi, a * tau)

    def _likelihood_up(self, i: int) -> None:
        pi, tau = self.perfs[i].without(self.lik + i)
        a = 1.0 / (1.0 + self.model.env.beta**2 * pi)
        self.ratings[i].message(self.lik + i, a * pi, a * tau)

    def _team_up(self, t: int, index: int) -> None:
        """`SumFactor.up(index)` of team t's performance: towards one member."""
        terms = [self.perfs[i] for i in self.members[t]]
        coeffs = [1.0 / 1 if x == index else -1 / 1 for x in range(len(terms))]
        target = terms[index]
        terms[index] = self.teams[t]
        self._sum(self.team + t, target, terms, coeffs)

    def _diff_down(self, t: int) -> None:
        self._sum(self.diff + t, self.diffs[t], [self.teams[t], self.teams[t + 1]], [+1, -1])

    def _diff_up(self, t: int, index: int) -> None:
        """`SumFactor.up(index)` of difference t (team t minus team t + 1)."""
        if index == 0:  # coefficients [1 / 1, -(-1) / 1]
            self._sum(self.diff + t, self.teams[t], [self.diffs[t], self.teams[t + 1]], [1.0, 1.0])
        else:  # [-(+1) / -1, 1 / -1]
            self._sum(self.diff + t, self.teams[t + 1], [self.teams[t], self.diffs[t]], [1.0, -1.0])

    @staticmethod
    def _sum(factor: int, target: _Var, terms: list[_Var], coeffs: list[float]) -> float:
        """`SumFactor.update`: the weighted sum of the terms' values without this
        factor's messages, sent to `target` (`_Var.without` and `message` inlined:
        this runs some 100 times per 6-player match)."""
        pi_inv: float = 0
        mu: float = 0
        for var, coeff in zip(terms, coeffs, strict=True):
            old_pi, old_tau = var.msgs[factor]
            pi, tau = var.pi - old_pi, var.tau - old_tau
            mu += coeff * (pi and tau / pi)
            if pi_inv == math.inf:
                continue
            try:
                pi_inv += coeff**2 / pi  # trueskill's float(pi): pi is a float or int 0 here
            except ZeroDivisionError:
                pi_inv = math.inf
        new_pi = 1.0 / pi_inv
        return target.message(factor, new_pi, new_pi * mu)

    def _truncate(self, t: int) -> float:
        """`TruncateFactor.up`: the difference t as the ranks say (a win or a tie)."""
        env, var = self.model.env, self.diffs[t]
        pi, tau = var.without(self.trunc + t)
        size = len(self.groups[t]) + len(self.groups[t + 1])
        sqrt_pi = math.sqrt(pi)
        args = (tau / sqrt_pi, self.model.margin(size) * sqrt_pi)
        if self.ranks[t] == self.ranks[t + 1]:
            v, w = _draw(env, *args)
        else:
            v, w = _win(env, *args)
        denom = 1.0 - w
        return var.value(self.trunc + t, pi / denom, (tau + sqrt_pi * v) / denom)


def _win(env: trueskill.TrueSkill, diff: float, margin: float) -> tuple[float, float]:
    """trueskill's `v_win` and `w_win` at once (`w_win` would compute `v_win` again)."""
    x = diff - margin
    denom = env.cdf(x)
    v = (env.pdf(x) / denom) if denom else -x
    w = v * (v + x)
    if 0 < w < 1:
        return v, w
    raise FloatingPointError(_IMPRECISE)


def _draw(env: trueskill.TrueSkill, diff: float, margin: float) -> tuple[float, float]:
    """trueskill's `v_draw` and `w_draw` at once, each density computed once."""
    abs_diff = abs(diff)
    a, b = margin - abs_diff, -margin - abs_diff
    denom = env.cdf(a) - env.cdf(b)
    pdf_a, pdf_b = env.pdf(a), env.pdf(b)
    size = (pdf_b - pdf_a) / denom if denom else a
    v = size * (-1 if diff < 0 else +1)
    if not denom:
        raise FloatingPointError(_IMPRECISE)
    # `w_draw` squares `v_draw(abs_diff)`: the same size times +1
    return v, (size * +1) ** 2 + (a * pdf_a - b * pdf_b) / denom


#: trueskill's message when its floats are not precise enough (ratings far apart).
_IMPRECISE = 'Cannot calculate correctly, set backend to "mpmath"'
