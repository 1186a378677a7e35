"""Take That: play to the row within ten, twist out a card's twin, or take the row.

Rules: ../shared/seeds/take-that.de.txt with rulings T1-T9 of RULINGS.md; the
English rules page for bot authors is protocol/games/take-that.md.

Version history:
    1: first version (rulings T1-T9, variants `rounds` and `pro`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.games.base import Decision, Game, GameSpec, VariantOption

#: T1: 12..98 without the multiples of ten.
DECK: tuple[int, ...] = tuple(n for n in range(12, 99) if n % 10 != 0)
#: T1: the toads, worth -5 when taken and never twistable.
TOADS: frozenset[int] = frozenset(11 * d for d in range(2, 9))
#: T3: a card may be played when it is within this distance of the rightmost card.
REACH = 10


def twin(card: int) -> int:
    """The card with the digits swapped (a toad is its own twin).

    >>> twin(49), twin(94), twin(33)
    (94, 49, 33)
    """
    return (card % 10) * 10 + card // 10


def hand_size(players: int) -> int:
    """T2: nine cards with two or three players, eight with four."""
    return 8 if players == 4 else 9


def minus_points(card: int) -> int:
    """T7: what a card costs in a minus pile."""
    return 5 if card in TOADS else 1


class TakeThat(Game):
    """The referee of one match of Take That (all its rounds)."""

    spec = GameSpec(
        id="take-that",
        version=1,
        title="Take That",
        min_players=2,
        max_players=4,
        variants=(
            VariantOption(
                "rounds", 2, "rounds (deals) in a match; the total decides", minimum=1, maximum=10
            ),
            VariantOption(
                "pro",
                False,
                "Profivariante: taking a one-card row costs the top card of the draw pile too",
            ),
        ),
        max_decisions=10 * 2 * len(DECK),
    )

    hands: list[list[int]]
    row: list[int]
    draw_pile: list[int]  # the top card is the last element
    plus: list[list[int]]
    minus_seen: list[list[int]]
    minus_unseen: list[list[int]]
    round_scores: list[list[int]]
    current: int
    must_start_row: bool
    round: int
    over: bool

    # ----- set-up -------------------------------------------------------
    def _setup(self) -> None:
        """Deal the first round."""
        self.round_scores = []
        self.over = False
        self.round = 0
        self._deal_round()

    def _deal_round(self) -> None:
        """T2: shuffle all 79 cards, deal the hands, the rest is the draw pile."""
        self.round += 1
        size = hand_size(self.players)
        deal = self.chance.draw(f"deal round {self.round}", lambda rng: self._random_deal(rng))
        self.hands = [sorted(hand) for hand in deal["hands"]]
        self.draw_pile = list(reversed(deal["draw_pile"]))
        if len(self.hands) != self.players or any(len(h) != size for h in self.hands):
            raise ValueError("recorded deal does not fit the number of players")
        self.row = []
        self.plus = [[] for _ in range(self.players)]
        self.minus_seen = [[] for _ in range(self.players)]
        self.minus_unseen = [[] for _ in range(self.players)]
        self.current = (self.round - 1) % self.players
        self.must_start_row = False

    def _random_deal(self, rng: Any) -> dict[str, Any]:
        cards = list(DECK)
        rng.shuffle(cards)
        size = hand_size(self.players)
        hands = [cards[i * size : (i + 1) * size] for i in range(self.players)]
        return {"hands": hands, "draw_pile": cards[self.players * size :]}

    # ----- whose turn and what they may do -------------------------------
    def _to_move(self) -> list[int]:
        return [self.current]

    def _legal(self, seat: int) -> list[Decision]:
        """Plays in card order, then twists in card order, then taking the row."""
        hand = self.hands[seat]
        if self.must_start_row or not self.row:
            return [{"action": "play", "card": c} for c in hand]
        last = self.row[-1]
        decisions: list[Decision] = [
            {"action": "play", "card": c} for c in hand if abs(c - last) <= REACH
        ]
        in_row = set(self.row)
        decisions += [
            {"action": "twist", "card": c, "row_card": twin(c)}
            for c in hand
            if c not in TOADS and twin(c) in in_row
        ]
        decisions.append({"action": "take"})
        return decisions

    # ----- applying a decision -------------------------------------------
    def _apply(self, seat: int, decision: Decision) -> None:
        action = decision["action"]
        if action == "take":
            self._take_row(seat)
            if self._round_should_end():
                self._end_round()
            elif self.hands[seat]:
                self.must_start_row = True  # T5: same player opens the new row
            else:
                self._finish_turn(seat)
            return
        card = decision["card"]
        self.hands[seat].remove(card)
        if action == "play":
            self.row.append(card)
        else:  # twist
            self.row.remove(decision["row_card"])
            self.plus[seat] += [card, decision["row_card"]]
        self.must_start_row = False
        self._finish_turn(seat)

    def _take_row(self, seat: int) -> None:
        """T5/T8: the row goes face down to the taker's minus pile (plus a profi card)."""
        profi = self.variant["pro"] and len(self.row) == 1
        self.minus_seen[seat] += self.row
        self.row = []
        if profi and self.draw_pile:
            self.minus_unseen[seat].append(self.draw_pile.pop())

    def _finish_turn(self, seat: int) -> None:
        """Draw back up, then T6's end check, then the next seat."""
        if self.draw_pile and len(self.hands[seat]) < hand_size(self.players):
            self.hands[seat].append(self.draw_pile.pop())
            self.hands[seat].sort()
        if self._round_should_end():
            self._end_round()
        else:
            self.current = (seat + 1) % self.players

    def _round_should_end(self) -> bool:
        """T6: the draw pile is empty and the row was just left empty."""
        return not self.draw_pile and not self.row

    def _end_round(self) -> None:
        self.round_scores.append([self._round_score(s) for s in range(self.players)])
        if self.round >= self.variant["rounds"]:
            self.over = True
        else:
            self._deal_round()

    def _round_score(self, seat: int) -> int:
        """T7: +1 per plus card, -1 per minus card, -5 per toad (unseen profi cards too)."""
        minus = self.minus_seen[seat] + self.minus_unseen[seat]
        return len(self.plus[seat]) - sum(minus_points(c) for c in minus)

    # ----- views and results ---------------------------------------------
    def _observe(self, seat: int) -> dict[str, Any]:
        """T9: own hand, the row, plus piles, seen minus cards, counts of everything else."""
        return {
            "seat": seat,
            "players": self.players,
            "round": self.round,
            "rounds": self.variant["rounds"],
            "to_move": None if self.over else self.current,
            "must_start_row": self.must_start_row,
            "hand": list(self.hands[seat]),
            "row": list(self.row),
            "hand_sizes": [len(h) for h in self.hands],
            "draw_pile": len(self.draw_pile),
            "plus": [list(p) for p in self.plus],
            "minus_seen": [list(m) for m in self.minus_seen],
            "minus_unseen": [len(m) for m in self.minus_unseen],
            "round_scores": [list(r) for r in self.round_scores],
        }

    def _is_over(self) -> bool:
        return self.over

    def _scores(self) -> Sequence[float]:
        return [sum(r[s] for r in self.round_scores) for s in range(self.players)]

    def describe(self, seat: int, decision: Decision) -> str:
        """One human line: 'seat 1 plays 34', 'seat 0 twists 49 with 94', 'seat 2 takes ...'."""
        action = decision.get("action")
        if action == "play":
            return f"seat {seat} plays {decision['card']}"
        if action == "twist":
            return f"seat {seat} twists {decision['row_card']} with {decision['card']}"
        return f"seat {seat} takes the row"
