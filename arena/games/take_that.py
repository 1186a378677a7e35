"""Take That: play to the row within ten, twist out a card's twin, or take the row.

Rules: ../shared/seeds/take-that.de.txt with rulings T1-T9 of RULINGS.md; the
English rules page for bot authors is protocol/games/take-that.md.

Version history:
    1: first version (rulings T1-T9, variants `rounds` and `pro`).
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right, insort
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, TypedDict

from arena.games.base import JSON, Decision, Game, GameSpec, VariantOption
from arena.games.observation import Field, Named, ObservationModel, V1Layout, register

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


#: The twin of every twistable card (toads have none).
TWINS: dict[int, int] = {c: twin(c) for c in DECK if c not in TOADS}
#: By card number: its twin, or 0 (no card) for a toad, which is never twistable.
TWIN_OR_NONE: list[int] = [TWINS.get(n, 0) for n in range(100)]
#: range(n) for every possible number of options: ``rng.choice(range(n))`` draws the
#: index that ``rng.choice`` of an n-element list would (it only looks at the length).
_RANGES: list[range] = [range(n) for n in range(2 * 9 + 2)]


def hand_size(players: int) -> int:
    """T2: nine cards with two or three players, eight with four."""
    return 8 if players == 4 else 9


def _deal(cards: list[int], count: int) -> list[int]:
    """Take `count` cards off the end of `cards` (already shuffled)."""
    dealt = cards[len(cards) - count :]
    del cards[len(cards) - count :]
    return dealt


def minus_points(card: int) -> int:
    """T7: what a card costs in a minus pile."""
    return 5 if card in TOADS else 1


# ----- the observation (T9) ------------------------------------------------
Seat = Annotated[int, Field(minimum=0, maximum=3)]
Card = Annotated[int, Field(minimum=12, maximum=98, **{"not": {"multipleOf": 10}}), Named("card")]
Cards = Annotated[list[Card], Named("cards")]
PerSeatCards = Annotated[list[Cards], Field(minItems=2, maxItems=4), Named("per_seat_cards")]


class TakeThatFields(TypedDict):
    """Take That's own fields of an observation."""

    round: Annotated[int, Field("The round (deal) being played, from 1.", minimum=1)]
    rounds: Annotated[int, Field("Rounds in the match (variant `rounds`).", minimum=1, maximum=10)]
    must_start_row: Annotated[
        bool,
        Field(
            "True right after this seat took the row: it must now open a new row with any "
            "hand card (T5)."
        ),
    ]
    hand: Annotated[Cards, Field("This seat's hand, ascending.")]
    row: Annotated[Cards, Field("The row, left to right; the last element is the rightmost card.")]
    hand_sizes: Annotated[
        list[Annotated[int, Field(minimum=0, maximum=9)]],
        Field("Cards in every seat's hand, by seat."),
    ]
    draw_pile: Annotated[int, Field("Cards left in the draw pile.", minimum=0, maximum=61)]
    plus: Annotated[
        PerSeatCards,
        Field("Every seat's plus pile (twisted pairs), in the order they were laid down."),
    ]
    minus_seen: Annotated[
        PerSeatCards,
        Field("Every seat's minus-pile cards that were taken from the row (everybody saw them)."),
    ]
    minus_unseen: Annotated[
        list[Annotated[int, Field(minimum=0)]],
        Field("By seat: how many unseen profi cards (variant `pro`) lie in the minus pile."),
    ]
    round_scores: Annotated[
        list[list[int]],
        Field("One entry per finished round: every seat's score in that round."),
    ]


class TakeThatObservation(TypedDict):
    """What one seat knows in a Take That match, in the envelope of protocol 2."""

    seat: Annotated[Seat, Field("The seat this observation is for (0-based).")]
    players: Annotated[
        int, Field("The number of players (seats 0..players-1).", minimum=2, maximum=4)
    ]
    phase: Annotated[
        Literal["start_row", "play", "over"],
        Field(
            "What the seat to move decides now: start_row = the row is empty (a round's "
            "first turn, or right after this seat took the row): any hand card opens it, "
            "only `play` is offered; play = play a card to the row, twist, or take the row; "
            "over = the match has ended."
        ),
    ]
    to_move: Annotated[
        list[Seat],
        Field(
            "The seats asked now: exactly one while the match runs, none once it is over.",
            maxItems=1,
        ),
    ]
    scores: Annotated[
        list[int],
        Field(
            "Every seat's total of the finished rounds (T7), by seat: the sums of `round_scores`."
        ),
    ]
    game: Annotated[TakeThatFields, Field("Take That's own fields.")]


OBSERVATION = register(
    ObservationModel(
        game="take-that",
        title="Take That observation",
        description=(
            "What one seat knows in a Take That match (ruling T9): its own hand, the row, every "
            "plus pile, the minus-pile cards taken from the row, counts of everything else."
        ),
        envelope=TakeThatObservation,
        v1=V1Layout(
            keys=(
                "seat",
                "players",
                "round",
                "rounds",
                "to_move",
                "must_start_row",
                "hand",
                "row",
                "hand_sizes",
                "draw_pile",
                "plus",
                "minus_seen",
                "minus_unseen",
                "round_scores",
            ),
            to_move_type=Annotated[
                int | None,
                Field("The seat to move; null once the match is over.", minimum=0, maximum=3),
            ],
        ),
    )
)


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
        """Plays in card order, then twists in card order, then taking the row (`_options`,
        inlined: a search asks for every decision's list)."""
        hand = self.hands[seat]  # ascending, always
        row = self.row
        if self.must_start_row or not row:
            return [{"action": "play", "card": c} for c in hand]
        last = row[-1]
        plays = hand[bisect_left(hand, last - REACH) : bisect_right(hand, last + REACH)]
        decisions: list[Decision] = [{"action": "play", "card": c} for c in plays]
        twists = {TWIN_OR_NONE[c] for c in row}.intersection(hand)
        if twists:
            decisions += [
                {"action": "twist", "card": c, "row_card": TWINS[c]} for c in sorted(twists)
            ]
        decisions.append({"action": "take"})
        return decisions

    def _options(self, seat: int) -> tuple[Sequence[int], list[int], bool]:
        """The cards `seat` may play, the cards it may twist with, and whether it may take.

        The legal list is exactly these, in this order (T3-T5); the plays may be the
        hand itself, so read them before the hand changes.
        """
        hand = self.hands[seat]  # ascending, always
        row = self.row
        if self.must_start_row or not row:
            return hand, [], False
        last = row[-1]
        plays = hand[bisect_left(hand, last - REACH) : bisect_right(hand, last + REACH)]
        wanted = {TWIN_OR_NONE[c] for c in row}
        return plays, sorted(wanted.intersection(hand)), True

    # ----- applying a decision -------------------------------------------
    def _apply(self, seat: int, decision: Decision) -> None:
        action = decision["action"]
        if action == "play":
            self._play(seat, decision["card"])
        elif action == "twist":
            self._twist(seat, decision["card"])
        else:
            self._take(seat)

    def _playout(self, rng: random.Random, limit: int) -> int:
        """The plain loop's choices (``rng.choice`` over as many options as `legal` lists),
        without building the decisions it does not take."""
        made = 0
        while made < limit and not self.over:
            seat = self.current
            plays, twists, may_take = self._options(seat)
            pick = rng.choice(_RANGES[len(plays) + len(twists) + may_take])
            decision: Decision
            if pick < len(plays):
                decision = {"action": "play", "card": plays[pick]}
                self._play(seat, plays[pick])
            elif pick < len(plays) + len(twists):
                card = twists[pick - len(plays)]
                decision = {"action": "twist", "card": card, "row_card": TWINS[card]}
                self._twist(seat, card)
            else:
                decision = {"action": "take"}
                self._take(seat)
            self.history.append((seat, decision))
            made += 1
        return made

    def _play(self, seat: int, card: int) -> None:
        """T3: the card goes to the right end of the row."""
        self.hands[seat].remove(card)
        self.row.append(card)
        self.must_start_row = False
        self._finish_turn(seat)

    def _twist(self, seat: int, card: int) -> None:
        """T4: the card and its twin from the row go to the plus pile."""
        self.hands[seat].remove(card)
        self.row.remove(TWINS[card])
        self.plus[seat] += [card, TWINS[card]]
        self.must_start_row = False
        self._finish_turn(seat)

    def _take(self, seat: int) -> None:
        """T5/T6: take the row; the taker opens the next row unless the round ends."""
        self._take_row(seat)
        if self._round_should_end():
            self._end_round()
        elif self.hands[seat]:
            self.must_start_row = True  # T5: same player opens the new row
        else:
            self._finish_turn(seat)

    def _take_row(self, seat: int) -> None:
        """T5/T8: the row goes face down to the taker's minus pile (plus a profi card)."""
        profi = self.variant["pro"] and len(self.row) == 1
        self.minus_seen[seat] += self.row
        self.row = []
        if profi and self.draw_pile:
            self.minus_unseen[seat].append(self.draw_pile.pop())

    def _finish_turn(self, seat: int) -> None:
        """Draw back up, then T6's end check, then the next seat (`hand_size` and
        `_round_should_end` inlined: this runs after every play and twist)."""
        draw_pile = self.draw_pile
        if draw_pile:
            hand = self.hands[seat]
            if len(hand) < (8 if self.players == 4 else 9):
                insort(hand, draw_pile.pop())
        if not draw_pile and not self.row:
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
    def _observe(self, seat: int) -> TakeThatObservation:
        """T9: own hand, the row, plus piles, seen minus cards, counts of everything else."""
        over = self.over
        round_scores = [list(r) for r in self.round_scores]
        players = self.players
        return {
            "seat": seat,
            "players": players,
            "phase": "over"
            if over
            else "start_row"
            if self.must_start_row or not self.row
            else "play",
            "to_move": [] if over else [self.current],
            "scores": [sum(r[s] for r in round_scores) for s in range(players)],
            "game": {
                "round": self.round,
                "rounds": self.variant["rounds"],
                "must_start_row": self.must_start_row,
                "hand": list(self.hands[seat]),
                "row": list(self.row),
                "hand_sizes": [len(h) for h in self.hands],
                "draw_pile": len(self.draw_pile),
                "plus": [list(p) for p in self.plus],
                "minus_seen": [list(m) for m in self.minus_seen],
                "minus_unseen": [len(m) for m in self.minus_unseen],
                "round_scores": round_scores,
            },
        }

    def _is_over(self) -> bool:
        return self.over

    def _scores(self) -> Sequence[float]:
        return [sum(r[s] for r in self.round_scores) for s in range(self.players)]

    # ----- search support -------------------------------------------------
    def _copy_state(self, twin: Game) -> None:
        """Fresh lists for everything a turn mutates (finished rounds' scores are never)."""
        assert isinstance(twin, TakeThat)
        twin.hands = [list(hand) for hand in self.hands]
        twin.row = list(self.row)
        twin.draw_pile = list(self.draw_pile)
        twin.plus = [list(pile) for pile in self.plus]
        twin.minus_seen = [list(pile) for pile in self.minus_seen]
        twin.minus_unseen = [list(pile) for pile in self.minus_unseen]
        twin.round_scores = list(self.round_scores)

    def _hidden(self, seat: int) -> dict[str, list[JSON]]:
        """T9: the other hands, the draw pile and every profi pile (hidden from its owner too)."""
        places: dict[str, list[JSON]] = {
            f"hand:{other}": list(hand) for other, hand in enumerate(self.hands) if other != seat
        }
        places["draw_pile"] = list(self.draw_pile)
        for owner, pile in enumerate(self.minus_unseen):
            places[f"minus_unseen:{owner}"] = list(pile)
        return places

    @classmethod
    def _determinize(
        cls,
        observation: Mapping[str, Any],
        seat: int,
        players: int,
        variant: dict[str, Any],
        rng: random.Random,
    ) -> Game:
        """Deal the round's unseen cards at random into the other hands, profi piles and pile.

        Nothing rules a card out of a place: taking is always allowed, so no decision
        tells anything about a hand, and every card that left a hand face up is shown.
        """
        state = cls.blank(players, variant, rng.getrandbits(64))
        assert isinstance(state, TakeThat)
        state._restore_public(observation)
        state.hands[seat] = list(observation["hand"])
        unseen = state._unseen_by(seat)
        rng.shuffle(unseen)
        for other in range(players):
            if other != seat:
                state.hands[other] = sorted(_deal(unseen, observation["hand_sizes"][other]))
        for owner, count in enumerate(observation["minus_unseen"]):
            state.minus_unseen[owner] = _deal(unseen, count)
        if len(unseen) != observation["draw_pile"]:
            raise ValueError("the observation's card counts do not add up to the deck")
        state.draw_pile = unseen
        return state

    def _restore_public(self, observation: Mapping[str, Any]) -> None:
        """Everything the observation shows to every seat (hands are dealt by the caller)."""
        self.round = observation["round"]
        self.round_scores = [list(scores) for scores in observation["round_scores"]]
        self.over = observation["to_move"] is None
        self.current = observation["to_move"] if not self.over else 0
        self.must_start_row = observation["must_start_row"]
        self.row = list(observation["row"])
        self.plus = [list(pile) for pile in observation["plus"]]
        self.minus_seen = [list(pile) for pile in observation["minus_seen"]]
        self.minus_unseen = [[] for _ in range(self.players)]
        self.hands = [[] for _ in range(self.players)]
        self.draw_pile = []

    def _unseen_by(self, seat: int) -> list[int]:
        """The cards of the deck `seat` does not see this round, ascending."""
        seen = set(self.hands[seat]) | set(self.row)
        for piles in (self.plus, self.minus_seen):
            for pile in piles:
                seen.update(pile)
        return [card for card in DECK if card not in seen]

    def describe(self, seat: int, decision: Decision) -> str:
        """One human line: 'seat 1 plays 34', 'seat 0 twists 49 with 94', 'seat 2 takes ...'."""
        action = decision.get("action")
        if action == "play":
            return f"seat {seat} plays {decision['card']}"
        if action == "twist":
            return f"seat {seat} twists {decision['row_card']} with {decision['card']}"
        return f"seat {seat} takes the row"
