"""A fast Take That opponent model: the heuristic bot's decision, read from a sampled state.

take_that_heuristic.py (a copy of bots/take-that-heuristic/bot.py) decides from an
observation and costs 100-400 us a decision in Python: too slow for a search that
plays every seat by it. This module makes the same decision from the referee state
of a sampled world, for any seat, using only what that seat would see there (its own
hand, the row, the plus and seen minus piles, the counts): the cards that seat has not
seen are the other hands, the draw pile and the profi cards of the sample. Counting
is done by bisection over the sorted unseen cards instead of loops over the deck, but
every value is computed with the same arithmetic in the same order as the heuristic's
`evaluate`, so the values are equal and so are the decisions (ties broken by `rng`);
tests/test_ismcts.py checks that on positions of seeded matches. Two shortcuts keep
the values and cut a decision from about 20 us to 16 (tests/test_ismcts_take_that.py
checks both): taking is first held against a bound that needs no card's `rest`
(`loose_take_bound`), and a play or an opening is rated by `added`, which reads the
row's twins once per seat instead of once per decision.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from typing import Any

# the heuristic's own constants and weights: one source for both
from take_that_heuristic import (
    FLEX,
    GROWTH,
    KEEP_TWIN,
    REACH,
    SELF_RISK,
    TOADS,
    TWIST_GAIN,
    p_none,
)

Decision = dict[str, Any]

#: By card number: its twin, or 0 for a toad (never twistable) or a non-card.
TWIN = [0 if n % 11 == 0 or n % 10 == 0 else (n % 10) * 10 + n // 10 for n in range(100)]
#: By card number: what it costs when taken (5 for a toad, else 1).
PENALTY = [5 if n in TOADS else 1 for n in range(100)]


#: p_none by (unseen, good, drawn): a search asks the same few hundred again and again.
P_NONE: dict[tuple[int, int, int], float] = {}
#: KEEP_TWIN added k times, as the heuristic's loop adds it.
KEPT = [0.0]
for _ in range(12):
    KEPT.append(KEPT[-1] + KEEP_TWIN)


class Seen:
    """What one seat of a sampled state knows, in the heuristic's terms.

    Every value the heuristic computes is a `leave` of some row with the hand minus one
    card (played, twisted, or opening a new row after a take), so the parts that depend
    only on that rest of the hand are computed once per card (`rest`).
    """

    __slots__ = (
        "covered_all",
        "draw_pile",
        "hand",
        "hand_set",
        "kept_all",
        "n",
        "next_size",
        "others",
        "pro",
        "rests",
        "row",
        "row_hand",
        "row_penalties",
        "row_twins",
        "unseen",
        "unseen_set",
    )

    def __init__(self, state: Any, seat: int) -> None:
        players: int = state.players
        unseen = list(state.draw_pile)
        for other, hand in enumerate(state.hands):
            if other != seat:
                unseen += hand
        for pile in state.minus_unseen:
            unseen += pile
        unseen.sort()
        self.unseen = unseen
        self.unseen_set = set(unseen)
        self.n = len(unseen)
        self.hand: list[int] = state.hands[seat]
        self.hand_set = set(self.hand)
        self.row: list[int] = state.row
        self.row_penalties = sum(PENALTY[c] for c in self.row)
        self.draw_pile = len(state.draw_pile)
        self.pro = bool(state.variant["pro"])
        self.next_size = len(state.hands[(seat + 1) % players])
        self.others = players - 1
        self.rests: dict[int, tuple[float, int]] = {}
        self.covered_all = -1  # not computed yet
        unseen_set = self.unseen_set
        #: The unseen twins of the row's cards, and the hand cards that twin a row card.
        self.row_twins = [t for r in self.row if (t := TWIN[r]) and t in unseen_set]
        self.row_hand = {TWIN[r] for r in self.row}.intersection(self.hand_set)
        self.kept_all = 0

    def mean_penalty(self) -> float:
        """The mean penalty of an unseen card (the pro variant's hidden extra card)."""
        return sum(PENALTY[c] for c in self.unseen) / self.n if self.unseen else 1.0

    def count(self, low: int, high: int) -> int:
        """Unseen cards in low..high."""
        return bisect_right(self.unseen, high) - bisect_left(self.unseen, low)

    def covered(self, hand: list[int]) -> int:
        """Unseen cards within REACH of some card of `hand` (ascending)."""
        total = 0
        start = end = -100
        for c in hand:
            if c - REACH > end:
                if end >= start:
                    total += self.count(start, end)
                start = c - REACH
            end = c + REACH
        if hand:
            total += self.count(start, end)
        return total

    def rest(self, card: int) -> tuple[float, int]:
        """For the hand without `card`: the heuristic's `hand_value`, and how many unseen
        cards it covers (all the hand covers but what only `card` covers)."""
        parts = self.rests.get(card)
        if parts is None:
            hand, unseen_set = self.hand, self.unseen_set
            if self.covered_all < 0:  # the first card asked: the whole hand's figures
                self.covered_all = self.covered(hand)
                self.kept_all = sum(1 for c in hand if c not in TOADS and TWIN[c] in unseen_set)
            i = hand.index(card)
            low, high = card - REACH, card + REACH  # what no neighbour covers too
            if i > 0:
                low = max(low, hand[i - 1] + REACH + 1)
            if i < len(hand) - 1:
                high = min(high, hand[i + 1] - REACH - 1)
            covered = self.covered_all - (self.count(low, high) if low <= high else 0)
            kept = self.kept_all - (card not in TOADS and TWIN[card] in unseen_set)
            value = KEPT[kept]
            if len(hand) > 1:
                value += FLEX * covered / max(1, self.n) * (len(hand) - 1)
            parts = self.rests[card] = (value, covered)
        return parts

    def leave(self, row: list[int], penalties: int, card: int) -> float:
        """The heuristic's `leave`: the worth of leaving `row` (whose penalties add up to
        `penalties`) while keeping the hand without `card`."""
        hand_value, covered = self.rest(card)
        if not row:
            return hand_value
        last = row[-1]
        unseen_set = self.unseen_set
        escape = self.count(last - REACH, last + REACH)
        for r in row:
            t = TWIN[r]
            if t and t in unseen_set and (t - last > REACH or last - t > REACH):
                escape += 1
        twins = {TWIN[r] for r in row}
        twins.discard(card)
        twinned = not twins.isdisjoint(self.hand_set)
        return self._worth(hand_value, covered, escape, penalties, len(row) == 1, twinned)

    def added(
        self, card: int, row_twins: list[int], row_hand: set[int], penalties: int, single: bool
    ) -> float:
        """`leave` of a row that ends with `card` just added from the hand (a play, or an
        opening when the row was empty): the same arithmetic in the same order, with the
        old row's unseen twins (`row_twins`), the hand cards twinning it (`row_hand`),
        its penalties plus the card's (`penalties`) and whether it is the card alone."""
        hand_value, covered = self.rest(card)
        unseen = self.unseen
        escape = bisect_right(unseen, card + REACH) - bisect_left(unseen, card - REACH)
        for t in row_twins:
            if t - card > REACH or card - t > REACH:
                escape += 1
        t = TWIN[card]
        if t and t in self.unseen_set and (t - card > REACH or card - t > REACH):
            escape += 1
        twinned = t in self.hand_set or len(row_hand) > (card in row_hand)
        return self._worth(hand_value, covered, escape, penalties, single, twinned)

    def _worth(
        self,
        hand_value: float,
        covered: int,
        escape: int,
        penalties: int,
        single: bool,
        twinned: bool,
    ) -> float:
        """The rest of `leave` once the row's `escape` count is known: the chance the next
        seat must take it, the risk of being stuck with it (none when the hand keeps a
        twin of a row card: `twinned`), the kept hand's worth. `single`: a row of one."""
        size = self.next_size
        if size == 0:
            p_next = 1.0
        else:
            key = (self.n, escape, size)
            p_next = P_NONE.get(key, -1.0)
            if p_next < 0.0:
                p_next = P_NONE[key] = p_none(*key)
        cost = float(penalties)
        if single and self.pro and self.draw_pile > 0:
            cost += self.mean_penalty()
        gain = p_next * cost
        others = self.others
        passes: float = (1.0 - p_next) * (1.0 - 0.5 * p_next) ** (others - 1)
        later_cost = float(penalties) + GROWTH * others
        if len(self.hand) == 1:
            stuck = 1.0
        elif not self.n or twinned:
            stuck = 0.0
        else:
            stuck = 1.0 - covered / self.n
        risk = passes * stuck * later_cost
        return gain - SELF_RISK * risk + hand_value

    def open_value(self) -> float:
        """The heuristic's `open_value` (only the value)."""
        best: float | None = None
        no_twins: list[int] = []
        no_hits: set[int] = set()
        for c in self.hand:
            value = self.added(c, no_twins, no_hits, PENALTY[c], True)
            if best is None or value > best:
                best = value
        assert best is not None
        return best

    def take_bound(self) -> float:
        """An upper bound of `evaluate` for taking the row (see `best_decisions`)."""
        if self.draw_pile == 0 or (self.pro and len(self.row) == 1 and self.draw_pile == 1):
            return float("inf")  # taking ends the round: rated exactly, it is cheap
        extra = self.mean_penalty() if self.pro else 0.0
        opening = max(PENALTY[c] + self.rest(c)[0] for c in self.hand) + extra
        return opening - float(self.row_penalties) + 1e-6

    def loose_take_bound(self) -> float:
        """A cheaper, looser upper bound than `take_bound` (no card's `rest` is computed):
        the rest of the hand keeps at most the whole hand's twins and cover."""
        if self.draw_pile == 0 or (self.pro and len(self.row) == 1 and self.draw_pile == 1):
            return float("inf")
        hand = self.hand
        if self.covered_all < 0:
            self.covered_all = self.covered(hand)
            self.kept_all = sum(1 for c in hand if c not in TOADS and TWIN[c] in self.unseen_set)
        value = KEPT[self.kept_all]
        if len(hand) > 1:
            value += FLEX * self.covered_all / max(1, self.n) * (len(hand) - 1)
        extra = self.mean_penalty() if self.pro else 0.0
        worst = 5 if not TOADS.isdisjoint(self.hand_set) else 1
        return worst + value + extra - float(self.row_penalties) + 1e-6

    def evaluate(self, decision: Decision) -> float:
        """The heuristic's `evaluate`."""
        action = decision["action"]
        row = self.row
        if action == "take":
            cost = float(self.row_penalties)
            if self.pro and len(row) == 1 and self.draw_pile > 0:
                cost += self.mean_penalty()
            if self.draw_pile == 0 or (self.pro and len(row) == 1 and self.draw_pile == 1):
                return -cost
            return -cost + self.open_value()
        card = decision["card"]
        if action == "play":
            return self.added(
                card, self.row_twins, self.row_hand, self.row_penalties + PENALTY[card], not row
            )
        gone = decision["row_card"]
        rest = [c for c in row if c != gone]
        if not rest and self.draw_pile <= 1:
            return TWIST_GAIN
        return TWIST_GAIN + self.leave(rest, self.row_penalties - PENALTY[gone], card)


def best_decisions(state: Any, seat: int, legal: list[Decision]) -> list[Decision]:
    """The decisions the heuristic bot rates best for `seat` in `state` (its ties).

    Taking (always the last decision offered) is rated only when it may be among the
    best: opening the new row is worth at most the opening card's cost to the next
    seat plus what the rest of the hand is worth (the risk only lowers it)."""
    seen = Seen(state, seat)
    best: list[Decision] = []
    best_value = float("-inf")
    for decision in legal:
        if (
            best
            and decision["action"] == "take"
            and (
                seen.loose_take_bound() < best_value - 1e-9 or seen.take_bound() < best_value - 1e-9
            )
        ):
            continue
        value = seen.evaluate(decision)
        if value > best_value + 1e-9:
            best, best_value = [decision], value
        elif abs(value - best_value) <= 1e-9:
            best.append(decision)
    return best


def heuristic_policy(state: Any, seat: int, legal: list[Decision], rng: random.Random) -> Decision:
    """The heuristic bot's decision for `seat` in a sampled `state` (ties at random)."""
    best = best_decisions(state, seat, legal)
    return best[0] if len(best) == 1 else rng.choice(best)
