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
from dataclasses import dataclass

import trueskill

from arena.games import load_game

#: TrueSkill's published defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300.
MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
TAU = SIGMA / 100


@dataclass(frozen=True)
class Skill:
    """A TrueSkill belief: mean and uncertainty."""

    mu: float
    sigma: float

    @classmethod
    def initial(cls) -> Skill:
        """The rating of a version that has not played yet."""
        return cls(MU, SIGMA)

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: the leaderboard's sort key (trueskill's `expose` with defaults).

        >>> Skill.initial().conservative
        0.0
        """
        return self.mu - 3 * self.sigma


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


@functools.cache
def environment(game_id: str) -> trueskill.TrueSkill:
    """The TrueSkill environment of one game."""
    draw = load_game(game_id).spec.draw_probability  # a fact of the game, in its module
    return trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, draw_probability=draw)


def rate(
    game_id: str, skills: list[Skill], ranks: list[int], teams: list[int] | None = None
) -> list[Skill]:
    """New skills, one per seat in seat order, from 1-based ranks (equal rank = tie)."""
    env = environment(game_id)
    groups = list(range(len(skills))) if teams is None else list(teams)
    order = sorted(set(groups))
    members = {g: [s for s in range(len(skills)) if groups[s] == g] for g in order}
    rating_groups = [
        tuple(env.create_rating(skills[s].mu, skills[s].sigma) for s in members[g]) for g in order
    ]
    group_ranks = [min(ranks[s] for s in members[g]) for g in order]
    rated = env.rate(rating_groups, ranks=group_ranks)
    result = list(skills)
    for g, new_group in zip(order, rated, strict=True):
        for seat, new in zip(members[g], new_group, strict=True):
            result[seat] = Skill(float(new.mu), float(new.sigma))
    return result
