"""The rating value, on the scale every rating is stored on: `Skill`, `MU`, `SIGMA`.

It lives on the ground floor because two wings share it without importing each other:
arena.results.rating rates in it (the rule), and the store (arena.store) keeps it and
hands it back (the rows), so that neither loads the other, and a seat's result
(arena.match.results) carries one before and after it is rated.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The rating scale, TrueSkill's published defaults: the belief in a version that
#: has not played (arena.results.rating builds its TrueSkill environment on it).
MU = 25.0
SIGMA = MU / 3


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
