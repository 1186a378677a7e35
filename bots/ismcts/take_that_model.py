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
tests/test_ismcts.py checks that on positions of seeded matches.

`Seen` is that computation written plainly, one method per part of the heuristic's
(`rest`, `leave`, `added`, `_worth`, `evaluate`); `best_decisions` (the search's hot
path, `_rated`) is the same arithmetic inlined into one function over local variables,
about 10 us a decision where `Seen` took 19 (tests/test_ismcts_take_that.py checks
both give every decision the same value, float for float). Besides the inlining it
holds the seat's unseen cards as bytes (sorted by two `bytes.translate` over the deck,
no sort and no set: bisect and `in` work on bytes), reads `p_none` from a table by
(unseen, next hand size), and rates taking only as far as it may matter: not at all
when a bound that needs no card's `rest` is below the best so far
(`Seen.loose_take_bound`), and then only the openings whose own bound (the next
seat's chance of taking it times its cost, plus the hand's worth at its whole cover)
reaches the best. A take it skips cannot be among the best, so the decisions and
their ties stay the heuristic's. `Observed` lets the same model decide from an
observation (the root's anchor) in some 20 us instead of the heuristic's 400.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from typing import Any

# the heuristic's own constants and weights: one source for both
from take_that_heuristic import (
    DECK,
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
#: TWIN as a bytes.translate table.
TWIN_BYTES = bytes(TWIN + [0] * 156)
#: The deck's card numbers, ascending, and the toads', one byte each.
DECK_BYTES = bytes(DECK)
TOAD_BYTES = bytes(sorted(TOADS))
#: By card number: what it costs when taken (5 for a toad, else 1).
PENALTY = [5 if n in TOADS else 1 for n in range(100)]


#: By (unseen, drawn): p_none(unseen, good, drawn) by good, -1.0 until first asked.
P_NONE: dict[tuple[int, int], list[float]] = {}
#: KEEP_TWIN added k times, as the heuristic's loop adds it.
KEPT = [0.0]
for _ in range(12):
    KEPT.append(KEPT[-1] + KEEP_TWIN)


def p_next_row(unseen: int, drawn: int) -> list[float]:
    """`p_none(unseen, good, drawn)` by `good` (0..unseen), filled in as asked (-1.0: not
    yet): a search asks the same few hundred again and again."""
    row = P_NONE.get((unseen, drawn))
    if row is None:
        row = P_NONE[(unseen, drawn)] = [-1.0] * (unseen + 1)
    return row


class Seen:
    """What one seat of a sampled state knows, in the heuristic's terms.

    Every value the heuristic computes is a `leave` of some row with the hand minus one
    card (played, twisted, or opening a new row after a take), so the parts that depend
    only on that rest of the hand are computed once per card (`rest`), and those of the
    whole hand once (`covered_all`, `kept_all`).
    """

    __slots__ = (
        "covered_all",
        "draw_pile",
        "growth",
        "hand",
        "hand_set",
        "kept_all",
        "mean",
        "n",
        "next_size",
        "others",
        "p_next",
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
        hands: list[list[int]] = state.hands
        pile: list[int] = state.draw_pile
        if players == 2:
            unseen = pile + hands[1 - seat]
        else:
            unseen = pile + [c for other, hand in enumerate(hands) if other != seat for c in hand]
        for profi in state.minus_unseen:
            if profi:
                unseen += profi
        unseen.sort()
        n = len(unseen)
        unseen_set = set(unseen)
        self.unseen = unseen
        self.unseen_set = unseen_set
        self.n = n
        hand: list[int] = hands[seat]
        self.hand = hand
        self.hand_set = hand_set = set(hand)
        row: list[int] = state.row
        self.row = row
        # a toad costs 5 = 1 + 4: the same integer sums as the heuristic's
        self.row_penalties = len(row) + 4 * len(TOADS.intersection(row))
        #: The mean penalty of an unseen card (the pro variant's hidden extra card).
        self.mean = (n + 4 * len(TOADS.intersection(unseen_set))) / n if n else 1.0
        self.draw_pile = len(pile)
        self.pro = bool(state.variant["pro"])
        size = self.next_size = len(hands[(seat + 1) % players])
        self.p_next = p_next_row(n, size)
        self.others = players - 1
        self.growth = GROWTH * self.others
        self.rests: dict[int, tuple[float, int]] = {}
        #: The unseen twins of the row's cards, and the hand cards that twin a row card.
        self.row_twins = [t for r in row if (t := TWIN[r]) and t in unseen_set]
        self.row_hand = {TWIN[r] for r in row}.intersection(hand_set)
        #: The whole hand's cover (unseen cards within REACH of some card of it) and its
        #: cards whose twin is unseen (a toad's TWIN, 0, never is).
        total = 0
        if hand:
            start, end = hand[0] - REACH, hand[0] + REACH
            for c in hand:
                if c - REACH > end:
                    total += bisect_right(unseen, end) - bisect_left(unseen, start)
                    start = c - REACH
                end = c + REACH
            total += bisect_right(unseen, end) - bisect_left(unseen, start)
        self.covered_all = total
        self.kept_all = len(unseen_set.intersection([TWIN[c] for c in hand]))

    def mean_penalty(self) -> float:
        """The mean penalty of an unseen card (the pro variant's hidden extra card)."""
        return self.mean

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
            hand, unseen = self.hand, self.unseen
            size = len(hand)
            i = hand.index(card)
            low, high = card - REACH, card + REACH  # what no neighbour covers too
            if i > 0 and hand[i - 1] + REACH + 1 > low:
                low = hand[i - 1] + REACH + 1
            if i < size - 1 and hand[i + 1] - REACH - 1 < high:
                high = hand[i + 1] - REACH - 1
            covered = self.covered_all
            if low <= high:
                covered -= bisect_right(unseen, high) - bisect_left(unseen, low)
            value = KEPT[self.kept_all - (TWIN[card] in self.unseen_set)]
            if size > 1:
                value += FLEX * covered / (self.n or 1) * (size - 1)
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
        p_next = self.p_next[escape]
        if p_next < 0.0:  # p_none of no cards drawn (an empty next hand) is 1.0
            p_next = self.p_next[escape] = p_none(self.n, escape, self.next_size)
        cost = float(penalties)
        if single and self.pro and self.draw_pile > 0:
            cost += self.mean
        gain = p_next * cost
        others = self.others
        passes: float = (1.0 - p_next) * (1.0 - 0.5 * p_next) ** (others - 1)
        later_cost = float(penalties) + self.growth
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
        extra = self.mean if self.pro else 0.0
        opening = max(PENALTY[c] + self.rest(c)[0] for c in self.hand) + extra
        return opening - float(self.row_penalties) + 1e-6

    def loose_take_bound(self) -> float:
        """A cheaper, looser upper bound than `take_bound` (no card's `rest` is computed):
        the rest of the hand keeps at most the whole hand's twins and cover."""
        if self.draw_pile == 0 or (self.pro and len(self.row) == 1 and self.draw_pile == 1):
            return float("inf")
        hand = self.hand
        value = KEPT[self.kept_all]
        if len(hand) > 1:
            value += FLEX * self.covered_all / (self.n or 1) * (len(hand) - 1)
        extra = self.mean if self.pro else 0.0
        worst = 5 if not TOADS.isdisjoint(self.hand_set) else 1
        return worst + value + extra - float(self.row_penalties) + 1e-6

    def evaluate(self, decision: Decision) -> float:
        """The heuristic's `evaluate`."""
        action = decision["action"]
        row = self.row
        if action == "take":
            cost = float(self.row_penalties)
            if self.pro and len(row) == 1 and self.draw_pile > 0:
                cost += self.mean
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
    """The decisions the heuristic bot rates best for `seat` in `state` (its ties, kept
    in `legal`'s order as the heuristic keeps them): `Seen.evaluate` of each decision in
    turn, inlined into one function over local variables (`_rated`, the model's hot path;
    tests/test_ismcts_take_that.py checks both give the same values and decisions)."""
    return _rated(state, seat, legal, None)


def _rated(
    state: Any, seat: int, legal: list[Decision], values: list[float | None] | None
) -> list[Decision]:
    """`best_decisions`; `values`, when given, gets every decision's rating: the value
    `Seen.evaluate` gives it, float for float, but for a take below the best so far,
    which may be rated from some openings only, or not at all (None). The same
    arithmetic in the same order as `Seen`'s methods, named in the comments."""
    hands: list[list[int]] = state.hands
    players: int = state.players
    pile: list[int] = state.draw_pile
    if players == 2:
        hidden = pile + hands[1 - seat]
    else:
        hidden = pile + [c for other, hand in enumerate(hands) if other != seat for c in hand]
    for profi in state.minus_unseen:
        if profi:
            hidden += profi
    # the cards the seat sees, then those it does not, ascending, one byte each (bisect
    # and `in` work on bytes as on a list and a set; the translations run in C)
    seen = DECK_BYTES.translate(None, bytes(hidden))
    unseen = DECK_BYTES.translate(None, seen)
    n = len(unseen)
    hand: list[int] = hands[seat]
    hand_bytes = bytes(hand)
    row: list[int] = state.row
    draw_pile = len(pile)
    pro: bool = state.variant["pro"]
    # `Seen.mean` (read only in the pro variant): n + 4 per toad unseen, over n
    toads = n - len(unseen.translate(None, TOAD_BYTES)) if pro else 0
    mean = (n + 4 * toads) / n if n else 1.0
    size = len(hands[(seat + 1) % players])
    p_next = P_NONE.get((n, size)) or p_next_row(n, size)
    power = players - 2  # of `passes`
    growth = GROWTH * (players - 1)
    alone = len(hand) == 1
    flex_cards = len(hand) - 1
    divisor = n or 1
    row_penalties = len(row) + 4 * len(TOADS.intersection(row))
    # `Seen.__init__`: the whole hand's cover and kept twins
    covered_all = 0
    if hand:
        start, end = hand[0] - REACH, hand[0] + REACH
        for c in hand:
            if c - REACH > end:
                covered_all += bisect_right(unseen, end) - bisect_left(unseen, start)
                start = c - REACH
            end = c + REACH
        covered_all += bisect_right(unseen, end) - bisect_left(unseen, start)
    # the hand's twins (TWIN_BYTES: 0 for a toad) less those seen (and the toads')
    seen_or_none = seen + b"\0"
    kept_all = len(hand_bytes.translate(TWIN_BYTES).translate(None, seen_or_none))
    # the row's twins, those unseen, and how many are in the hand (`Seen.row_hand`)
    row_bytes = bytes(row).translate(TWIN_BYTES)
    row_twins = row_bytes.translate(None, seen_or_none)
    hits = len(row_bytes) - len(row_bytes.translate(None, hand_bytes))
    rests: dict[int, tuple[float, int]] = {}

    def rest(card: int) -> tuple[float, int]:
        """`Seen.rest`."""
        i = hand.index(card)
        low, high = card - REACH, card + REACH
        if i > 0 and hand[i - 1] + REACH + 1 > low:
            low = hand[i - 1] + REACH + 1
        if i < flex_cards and hand[i + 1] - REACH - 1 < high:
            high = hand[i + 1] - REACH - 1
        covered = covered_all
        if low <= high:
            covered -= bisect_right(unseen, high) - bisect_left(unseen, low)
        value = KEPT[kept_all - (TWIN[card] in unseen)]
        if flex_cards > 0:
            value += FLEX * covered / divisor * flex_cards
        parts = rests[card] = (value, covered)
        return parts

    best: list[Decision] = []
    best_value = -math.inf
    for decision in legal:
        action = decision["action"]
        if action == "play":  # `Seen.added` and `Seen._worth`
            card = decision["card"]
            hand_value, covered = rests.get(card) or rest(card)
            escape = bisect_right(unseen, card + REACH) - bisect_left(unseen, card - REACH)
            for t in row_twins:
                if t - card > REACH or card - t > REACH:
                    escape += 1
            t = TWIN[card]
            if t and (t - card > REACH or card - t > REACH) and t in unseen:
                escape += 1
            p = p_next[escape]
            if p < 0.0:
                p = p_next[escape] = p_none(n, escape, size)
            penalties = float(row_penalties + PENALTY[card])
            cost = penalties + mean if not row and pro and draw_pile > 0 else penalties
            passes = (1.0 - p) * (1.0 - 0.5 * p) ** power if power else 1.0 - p
            if alone:
                stuck = 1.0
            elif not n or t in hand_bytes or hits > (card in row_bytes):
                stuck = 0.0
            else:
                stuck = 1.0 - covered / n
            value = p * cost - SELF_RISK * (passes * stuck * (penalties + growth)) + hand_value
        elif action == "twist":  # `Seen.evaluate` and `Seen.leave`
            card, gone = decision["card"], decision["row_card"]
            left = [c for c in row if c != gone]
            if not left and draw_pile <= 1:
                value = TWIST_GAIN
            else:
                hand_value, covered = rests.get(card) or rest(card)
                if not left:
                    value = TWIST_GAIN + hand_value
                else:
                    last = left[-1]
                    escape = bisect_right(unseen, last + REACH) - bisect_left(unseen, last - REACH)
                    twinned = False
                    for r in left:
                        t = TWIN[r]
                        if t and (t - last > REACH or last - t > REACH) and t in unseen:
                            escape += 1
                        if t != card and t in hand_bytes:
                            twinned = True
                    p = p_next[escape]
                    if p < 0.0:
                        p = p_next[escape] = p_none(n, escape, size)
                    penalties = float(row_penalties - PENALTY[gone])
                    single = len(left) == 1
                    cost = penalties + mean if single and pro and draw_pile > 0 else penalties
                    passes = (1.0 - p) * (1.0 - 0.5 * p) ** power if power else 1.0 - p
                    if alone:
                        stuck = 1.0
                    elif not n or twinned:
                        stuck = 0.0
                    else:
                        stuck = 1.0 - covered / n
                    risk = passes * stuck * (penalties + growth)
                    value = TWIST_GAIN + (p * cost - SELF_RISK * risk + hand_value)
        else:  # `Seen.evaluate` of taking, as far as it may matter
            cost = float(row_penalties)
            if pro and len(row) == 1 and draw_pile > 0:
                cost += mean
            if draw_pile == 0 or (pro and len(row) == 1 and draw_pile == 1):
                value = -cost
            else:
                threshold = best_value - 1e-9 if best else -math.inf
                extra = mean if pro else 0.0
                taken = float(row_penalties)
                # `Seen.loose_take_bound`: the rest of the hand keeps at most the whole
                # hand's twins and cover, and the opening card costs at most `worst`
                flex_all = FLEX * covered_all / divisor * flex_cards if flex_cards > 0 else 0.0
                worst = 5 if not TOADS.isdisjoint(hand) else 1
                top: float | None = None
                if worst + (KEPT[kept_all] + flex_all) + extra - taken + 1e-6 >= threshold:
                    for card in hand:  # `Seen.open_value`, `Seen.added` inlined
                        escape = bisect_right(unseen, card + REACH) - bisect_left(
                            unseen, card - REACH
                        )
                        t = TWIN[card]
                        twin_unseen = t in unseen
                        if twin_unseen and (t - card > REACH or card - t > REACH):
                            escape += 1
                        p = p_next[escape]
                        if p < 0.0:
                            p = p_next[escape] = p_none(n, escape, size)
                        penalties = float(PENALTY[card])
                        gain = p * (penalties + extra)
                        # at most the gain plus the rest of the hand at the whole hand's cover
                        # (the risk only lowers it): below `threshold`, this opening cannot
                        # make taking reach it
                        if gain + (KEPT[kept_all - twin_unseen] + flex_all) - taken + 1e-6 < (
                            threshold
                        ):
                            continue
                        hand_value, covered = rests.get(card) or rest(card)
                        passes = (1.0 - p) * (1.0 - 0.5 * p) ** power if power else 1.0 - p
                        if alone:
                            stuck = 1.0
                        elif not n or t in hand_bytes:
                            stuck = 0.0
                        else:
                            stuck = 1.0 - covered / n
                        risk = passes * stuck * (penalties + growth)
                        opening = gain - SELF_RISK * risk + hand_value
                        if top is None or opening > top:
                            top = opening
                if top is None:
                    if values is not None:
                        values.append(None)
                    continue
                value = -cost + top
        if values is not None:
            values.append(value)
        if value > best_value + 1e-9:
            best, best_value = [decision], value
        elif abs(value - best_value) <= 1e-9:
            best.append(decision)
    return best


class Observed:
    """The fields of a sampled state the model reads, from a seat's observation: the cards
    the seat has not seen fill the other hands, the profi piles and the draw pile (in
    no particular order: the model reads only which cards they are, how many lie in the
    draw pile and in the next hand), so that `heuristic_policy` makes the heuristic
    bot's decision from an observation too, without a sample."""

    def __init__(self, observation: Mapping[str, Any], variant: Mapping[str, Any]) -> None:
        seat = observation["seat"]
        self.players: int = observation["players"]
        self.row: list[int] = list(observation["row"])
        self.variant = {"pro": bool(variant.get("pro", False))}  # as the heuristic reads it
        seen = set(observation["hand"]) | set(self.row)
        for piles in (observation["plus"], observation["minus_seen"]):
            for pile in piles:
                seen.update(pile)
        unseen = [c for c in DECK if c not in seen]
        self.hands: list[list[int]] = []
        for other, size in enumerate(observation["hand_sizes"]):
            self.hands.append(sorted(observation["hand"]) if other == seat else unseen[:size])
            if other != seat:
                del unseen[:size]
        self.minus_unseen: list[list[int]] = []
        for count in observation["minus_unseen"]:
            self.minus_unseen.append(unseen[:count])
            del unseen[:count]
        if len(unseen) != observation["draw_pile"]:
            raise ValueError("the observation's card counts do not add up to the deck")
        self.draw_pile = unseen


def heuristic_policy(state: Any, seat: int, legal: list[Decision], rng: random.Random) -> Decision:
    """The heuristic bot's decision for `seat` in a sampled `state` (ties at random)."""
    best = _rated(state, seat, legal, None)
    return best[0] if len(best) == 1 else rng.choice(best)
