"""LEYLO round ends: the chances behind the doubling rule, computed from the unseen cards.

At the round end every face-down card counts its true value, and the ender's score
doubles unless it is strictly the lowest (L7). The greedy evaluation of leylo_plan
values face-down cards at their mean, which says nothing about that risk, so this
module gives it the distributions: the sum of `h` face-down cards (each drawn from
the unseen pool; independent draws, close enough for 16 cells out of ~50 unseen
cards), an opponent's final points after its last turn (it places the top discard
or a pile card where its expected points drop most, as a greedy player does), and
from these the value of ending the round now and of a last turn in a final lap.
Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

#: A distribution of integer points: probability by points (index).
Dist = list[float]
#: A grid's points as the round end counts them: (face-up points left after clearing the
#: complete lines, number of face-down cards).
Final = tuple[int, int]


def convolve(a: Dist, b: Dist) -> Dist:
    """The distribution of the sum of two independent integer variables."""
    out = [0.0] * (len(a) + len(b) - 1)
    for i, p in enumerate(a):
        if p:
            for j, q in enumerate(b):
                out[i + j] += p * q
    return out


class HiddenSums:
    """Distributions of the sum of h face-down cards, built once per observation."""

    def __init__(self, pool: dict[str, int], points: dict[str, float]) -> None:
        total = sum(pool.values())
        card: Dist = [0.0] * 13
        for name, k in pool.items():
            if k:
                card[int(points[name])] += k / total
        if not total:
            card[6] = 1.0  # nothing unseen: cannot happen with cells face down
        self.card = card
        self.sums: list[Dist] = [[1.0]]

    def of(self, h: int) -> Dist:
        """The distribution of the sum of `h` face-down cards."""
        while len(self.sums) <= h:
            self.sums.append(convolve(self.sums[-1], self.card))
        return self.sums[h]

    def mixture(self, outcomes: Sequence[tuple[float, Final]]) -> Dist:
        """The distribution of final points over weighted outcomes (face-up points, hidden)."""
        out: Dist = []
        for weight, (shown, hidden) in outcomes:
            dist = self.of(hidden)
            if len(out) < shown + len(dist):
                out.extend([0.0] * (shown + len(dist) - len(out)))
            for i, p in enumerate(dist):
                out[shown + i] += weight * p
        return out


def at_most(dist: Dist, points: float) -> float:
    """P(X <= points)."""
    limit = int(points + 1e-9)
    if limit < 0:
        return 0.0
    return sum(dist[: limit + 1])


def mean(dist: Dist) -> float:
    """The mean of a distribution."""
    return sum(i * p for i, p in enumerate(dist))


class LastTurn:
    """An opponent's last turn of a round, played greedily: it takes the top discard or
    draws, and puts the card where its expected points drop most (or discards it, which
    leaves the expectation where it was). `final` counts a grid as the round end does."""

    def __init__(
        self,
        grid: list[str],
        pile: dict[str, int],
        final: Callable[[list[str]], Final],
        sums: HiddenSums,
    ) -> None:
        self.grid = grid
        self.final = final
        self.sums = sums
        self.ev = mean(sums.card)
        self.pile = pile
        self.best: dict[str, Final] = {}

    def expected(self, outcome: Final) -> float:
        """Expected points of an outcome."""
        return outcome[0] + self.ev * outcome[1]

    def place(self, card: str) -> Final:
        """The outcome of putting `card` on its best cell (or not at all)."""
        known = self.best.get(card)
        if known is None:
            known = self.final(self.grid)
            for i, cell in enumerate(self.grid):
                if cell != "empty":
                    after = list(self.grid)
                    after[i] = card
                    outcome = self.final(after)
                    if self.expected(outcome) < self.expected(known):
                        known = outcome
            self.best[card] = known
        return known

    def outcomes(self, top: str | None) -> list[tuple[float, Final]]:
        """The weighted outcomes of the turn with `top` on the discard pile (None: draw)."""
        total = sum(self.pile.values())
        drawn = [(k / total, self.place(c)) for c, k in self.pile.items() if k] if total else []
        if top is None or top == "empty":
            return drawn or [(1.0, self.final(self.grid))]
        taken = self.place(top)
        drawn_mean = sum(w * self.expected(o) for w, o in drawn) if drawn else float("inf")
        return [(1.0, taken)] if self.expected(taken) <= drawn_mean else drawn

    def distribution(self, top: str | None) -> Dist:
        """The distribution of the opponent's final points."""
        return self.sums.mixture(self.outcomes(top))
