"""Krumme10's determinization: count every deal consistent with the visible cards, sample one.

`Undersides` counts exactly how the unseen physical cards can lie (under the
cards whose down side nobody saw, and in the draw pile) and draws one such deal
uniformly; `possible_downs` and `possible_in_pile` tell which sides some
consistent deal puts where (the search places' ruled-out sides).
"""

from __future__ import annotations

import bisect
import math
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from arena.games.krumme10.cards import Kind, Side
from arena.games.leylo.draws import shuffle


class Undersides:
    """Every way the unseen physical cards can lie, counted exactly, and a uniform sampler.

    The unseen cards are the deck minus the cards whose both sides were seen. Each card
    showing face f with an unseen down side is one of them with an f side; the rest
    form the draw pile. An allocation, x[f][k] cards of kind k under face f and y[k] in
    the pile, stands for prod_f n_f!/prod_k x[f][k]! * P!/prod_k y[k]! equally likely
    deals (a uniform shuffle with random sides up), so its weight is
    prod_k 1/(x[a][k]! x[b][k]! y[k]!) over a kind's sides a, b. A dynamic program over
    the faces in ascending order sums these weights; the kinds of the cycle 0|1 ... 5|0
    make at most three kinds "open" (one side done) at a time, so it stays small.
    """

    def __init__(self, needs: Mapping[Side, int], supply: Mapping[Kind, int]) -> None:
        """`needs`: visible faces with an unseen down side; `supply`: the unseen kinds."""
        self.kinds = sorted(k for k, count in supply.items() if count > 0)
        self.supply = [supply[k] for k in self.kinds]
        faces = {side for kind in self.kinds for side in kind} | {f for f, n in needs.items() if n}
        self.faces = sorted(faces)
        self.needs = [needs.get(face, 0) for face in self.faces]
        index = {face: i for i, face in enumerate(self.faces)}
        first = [index[kind[0]] for kind in self.kinds]
        last = [index[kind[1]] for kind in self.kinds]
        #: Per face: the kinds with that side; the kinds whose other side comes later.
        self.adjacent = [
            [k for k in range(len(self.kinds)) if i in (first[k], last[k])]
            for i in range(len(self.faces))
        ]
        self.closing = [[k for k in self.adjacent[i] if last[k] == i] for i in range(len(faces))]
        self.open_after = [
            tuple(k for k in range(len(self.kinds)) if first[k] <= i < last[k])
            for i in range(len(self.faces))
        ]
        #: (face index, state) -> the splits of that face, where each leads, and the
        #: running sums of their weights (times the weight of completing from there).
        self._memo: dict[tuple[int, tuple[int, ...]], _Choices] = {}

    def feasible(self) -> bool:
        """True when at least one deal fits."""
        return self._weight(0, ()) > 0.0

    def sample(self, rng: random.Random) -> tuple[dict[Side, list[Side]], list[Kind]]:
        """A uniformly drawn deal: per face the down sides in random order, and the pile's kinds.

        Per face, one `rng.random()` picks a split by its weight and `rng.shuffle` orders
        the down sides it puts there (`_Choices.plans` keeps, per split drawn, those down
        sides as listed before the shuffle and the step it leads to).
        """
        downs: dict[Side, list[Side]] = {}
        left = list(self.supply)
        step = self._choices(0, ()) if self.faces else None
        for i, face in enumerate(self.faces):
            assert step is not None
            running = step.running
            drawn = bisect.bisect_right(running, rng.random() * running[-1])
            if drawn >= len(running):
                drawn = len(running) - 1
            plan = step.plans[drawn]
            if plan is None:
                plan = step.plans[drawn] = self._plan(i, step.outcomes[drawn])
            taken, sides, step = plan
            for k, count in taken:
                left[k] -= count
            under = list(sides)
            if len(under) > 1:  # a shorter list is shuffled without drawing
                shuffle(rng, under)
            downs[face] = under
        pile = [kind for kind, count in zip(self.kinds, left, strict=True) for _ in range(count)]
        return downs, pile

    def _plan(self, i: int, outcome: tuple[tuple[int, ...], tuple[int, ...]]) -> _Plan:
        """What a split of face i does: the (kind, count) pairs it takes, the down sides it
        puts under the face (as listed before their shuffle), the next face's step."""
        split, after = outcome
        face = self.faces[i]
        taken: list[tuple[int, int]] = []
        under: list[Side] = []
        for k, count in zip(self.adjacent[i], split, strict=True):
            if count:
                taken.append((k, count))
            kind = self.kinds[k]
            under += [kind[1] if kind[0] == face else kind[0]] * count
        step = self._choices(i + 1, after) if i + 1 < len(self.faces) else None
        return tuple(taken), tuple(under), step

    def _weight(self, i: int, state: tuple[int, ...]) -> float:
        """The summed weight of every way to complete faces i.. from `state`."""
        if i == len(self.faces):
            return 1.0
        running = self._choices(i, state).running
        return running[-1] if running else 0.0

    def _choices(self, i: int, state: tuple[int, ...]) -> _Choices:
        """The splits of face i with positive weight, from `state` (memoised)."""
        key = (i, state)
        if key not in self._memo:
            choices = _Choices([], [], [])
            total = 0.0
            for split, after, factor in self._steps(i, state):
                weight = factor * self._weight(i + 1, after)
                if weight > 0.0:
                    total += weight
                    choices.outcomes.append((split, after))
                    choices.running.append(total)
                    choices.plans.append(None)
            self._memo[key] = choices
        return self._memo[key]

    def _steps(
        self, i: int, state: tuple[int, ...]
    ) -> Iterator[tuple[tuple[int, ...], tuple[int, ...], float]]:
        """Each split of face i's needs over its kinds: (split, next state, weight factor).

        `state` holds how many cards of each kind open before face i are used.
        """
        before = dict(zip(self.open_after[i - 1], state, strict=True)) if i else {}
        adjacent = self.adjacent[i]
        caps = [self.supply[k] - before.get(k, 0) for k in adjacent]
        for split in _splits(self.needs[i], caps):
            used = dict(before)
            factor = 1.0
            for k, count in zip(adjacent, split, strict=True):
                used[k] = used.get(k, 0) + count
                factor /= math.factorial(count)
            for k in self.closing[i]:
                factor /= math.factorial(self.supply[k] - used[k])
            yield split, tuple(used.get(k, 0) for k in self.open_after[i]), factor


class _Choices(NamedTuple):
    """One step of the sampler: outcomes (split, next state) and their running weight sums,
    and per outcome its `_plan` once drawn."""

    outcomes: list[tuple[tuple[int, ...], tuple[int, ...]]]
    running: list[float]
    plans: list[_Plan | None]


#: A split's (kind, count) pairs, down sides (before their shuffle) and next step.
_Plan = tuple[tuple[tuple[int, int], ...], tuple[Side, ...], "_Choices | None"]


def _splits(total: int, caps: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every way to write `total` as a sum of len(caps) parts, each within its cap.

    >>> list(_splits(2, [1, 2]))
    [(0, 2), (1, 1)]
    """
    if len(caps) <= 1:
        if (caps[0] if caps else 0) >= total:
            yield (total,) if caps else ()
        return
    for first in range(min(total, caps[0]) + 1):
        for rest in _splits(total - first, caps[1:]):
            yield (first, *rest)


def multiset_key(counts: Mapping[Any, int]) -> tuple[tuple[Any, int], ...]:
    """A hashable, order-free form of a multiset, for the memo of `undersides`."""
    return tuple(sorted((item, n) for item, n in counts.items() if n > 0))


def possible_downs(needs: Counter[Side], supply: Counter[Kind], face: Side) -> set[Side]:
    """The sides some consistent deal puts under a card showing `face`."""
    possible = set()
    for kind in supply:
        if face in kind and supply[kind] > 0:
            fewer_needs, fewer = needs.copy(), supply.copy()
            fewer_needs[face] -= 1
            fewer[kind] -= 1
            if undersides(multiset_key(fewer_needs), multiset_key(fewer)).feasible():
                possible.add(kind[1] if kind[0] == face else kind[0])
    return possible


def possible_in_pile(needs: Counter[Side], supply: Counter[Kind]) -> set[Side]:
    """The sides of the kinds some consistent deal leaves in the draw pile."""
    possible: set[Side] = set()
    for kind in supply:
        if supply[kind] > 0:
            fewer = supply.copy()
            fewer[kind] -= 1
            if undersides(multiset_key(needs), multiset_key(fewer)).feasible():
                possible.update(kind)
    return possible


@lru_cache(maxsize=64)
def undersides(
    needs: tuple[tuple[Side, int], ...], supply: tuple[tuple[Kind, int], ...]
) -> Undersides:
    """The (memoised) counting of one public situation: a search samples it again and again."""
    return Undersides(dict(needs), dict(supply))
