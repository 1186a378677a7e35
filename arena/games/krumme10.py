"""Krumme10: double-sided cards, a shared display that should add up to exactly 10.

Rules: ``seeds/krumme10.de.txt`` with rulings K1-K8 of RULINGS.md and this
referee's rulings R1-R12; the English rules page for bot authors is
``protocol/games/krumme10.md``. A turn is split into small decisions: play a
card (top side or flipped), then optional steals while a 1 shows, then the
taking of points on an exact hit or the scoring of the other players on an
overrun, one decision each. Draws are automatic.

Hidden information (K2): nobody knows a card's down side until it was seen
(the card was flipped). Observations describe cards only by what is visible
(top side, a seen down side, a visible pink 4), never by an id, and hands are
listed in an order computed from visible sides only.

Version history:
    1: first version (rulings K1-K8, R1-R12; variants pink4, teams, long, showdown).
       Later, without a version change (no rule of play, score or order changed):
       with `teams` the ranks count teams (1, 2, 1, 2), no longer seats (1, 3, 1, 3).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any, NamedTuple

from arena.games.base import Decision, Game, GameSpec, ReplayMismatch, VariantError, VariantOption

#: K1: the six kinds of card (unordered side pairs), nine copies of each.
PAIRS: tuple[tuple[int, int], ...] = ((0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0))
COPIES = 9
DECK_SIZE = len(PAIRS) * COPIES
#: K1 (variant pink4): the 4 of two 3|4 cards and of two 4|5 cards is pink.
PINK_COPIES = 2
#: Cards in front of every player (drawn back up to this).
HAND = 3
#: K3: the display's target, and the target after a flipped pink 4 (variant pink4).
TARGET, PINK_TARGET = 10, 15
#: K7: team of each seat, by player count (ABAB, ABCAB, ABABAB).
TEAMS: dict[int, tuple[int, ...]] = {4: (0, 1, 0, 1), 5: (0, 1, 2, 0, 1), 6: (0, 1, 0, 1, 0, 1)}

#: Phases; the observation's "phase" says which one asks a seat now.
PLAY, STEAL, TAKE, SCORE, OVER = "play", "steal", "take", "score", "over"


class Card(NamedTuple):
    """A card as it lies now: top and down side, pink flags, whether the down side was seen."""

    top: int
    down: int
    top_pink: bool = False
    down_pink: bool = False
    known: bool = False

    def flipped(self) -> Card:
        """The card turned over; both sides are now known to everybody (K2)."""
        return Card(self.down, self.top, self.down_pink, self.top_pink, True)

    def face(self) -> tuple[int, bool]:
        """The visible face: top value and whether it is a pink 4."""
        return (self.top, self.top_pink)

    def kind(self) -> tuple[tuple[int, bool], tuple[int, bool]]:
        """The physical card regardless of which side is up (for conservation checks)."""
        a, b = (self.top, self.top_pink), (self.down, self.down_pink)
        return (a, b) if a <= b else (b, a)

    def name(self) -> str:
        """Replay name, top side first: ``"3/4"``, ``"4p/5"`` (p = pink 4).

        >>> Card(4, 5, top_pink=True).name()
        '4p/5'
        """
        return (
            f"{self.top}{'p' if self.top_pink else ''}/{self.down}{'p' if self.down_pink else ''}"
        )

    def view(self) -> dict[str, Any]:
        """What everybody sees of the card: the top side, a seen down side, a visible pink 4."""
        pink = "top" if self.top_pink else "down" if self.known and self.down_pink else None
        return {"top": self.top, "down": self.down if self.known else None, "pink": pink}


class Entry(NamedTuple):
    """A card of the display, with who played it and whether it came flipped or stolen."""

    card: Card
    by: int
    flipped: bool
    stolen_from: int | None


def parse_card(name: str) -> Card:
    """A card from its replay name (``"3/4"``, ``"4p/5"``); ValueError if malformed.

    >>> parse_card("5/4p")
    Card(top=5, down=4, top_pink=False, down_pink=True, known=False)
    """
    sides = name.split("/")
    if len(sides) != 2:
        raise ValueError(f"bad card name {name!r}")
    values = []
    for side in sides:
        pink = side.endswith("p")
        value = int(side[:-1] if pink else side)
        if not 0 <= value <= 5 or (pink and value != 4):
            raise ValueError(f"bad card name {name!r}")
        values.append((value, pink))
    return Card(values[0][0], values[1][0], values[0][1], values[1][1])


def full_deck(pink4: bool) -> list[Card]:
    """K1: the 54 cards (side a up), with the pink 4s when `pink4` is on."""
    cards = []
    for a, b in PAIRS:
        for copy in range(COPIES):
            pink = pink4 and copy < PINK_COPIES and 4 in (a, b)
            cards.append(Card(a, b, pink and a == 4, pink and b == 4))
    return cards


def kinds(cards: Sequence[Card]) -> Counter[tuple[tuple[int, bool], tuple[int, bool]]]:
    """The multiset of physical cards, whichever side is up."""
    return Counter(c.kind() for c in cards)


def team_of(players: int) -> tuple[int, ...]:
    """K7: the team of each seat when playing in teams (4-6 players)."""
    return TEAMS[players]


def _max_decisions() -> int:
    """A bound on decisions: every turn with drawing uses up a pile card (the thief draws).

    At most 54 - 6 + 54 turns with drawing (`long` reshuffles at most 54 cards), 18
    showdown turns; a turn has one play, at most 15 steals, 5 takes (last card plus 4
    pink 4s) or 5 scorings.
    """
    return (DECK_SIZE * 2 + 18) * (1 + 15 + 5)


class Krumme10(Game):
    """Krumme10 for 2-6 players: bring the display to exactly 10, most points win."""

    spec = GameSpec(
        id="krumme10",
        version=1,
        title="Krumme10",
        min_players=2,
        max_players=6,
        variants=(
            VariantOption("pink4", False, "Die pinke 4: a flipped pink 4 raises the target to 15"),
            VariantOption("teams", False, "Teamplay (4-6 players): ABAB, ABCAB, ABABAB"),
            VariantOption("long", False, "Zu kurz?: the discard pile is reshuffled once"),
            VariantOption(
                "showdown", False, "Showdown: play on without drawing until hands are empty"
            ),
        ),
        max_decisions=_max_decisions(),
        has_teams=True,
    )

    hands: list[list[Card]]
    pile: list[Card]  # the top card is the last element
    discard: list[Card]
    points: list[list[Card]]
    display: list[Entry]
    target: int
    phase: str
    current: int
    to_take: list[Card]
    scorer: int
    score_queue: list[int]
    score_highest: bool
    reshuffled: bool
    drawing: bool

    # ----- set-up -------------------------------------------------------
    def _check_variant(self) -> None:
        """K7: teams need 4-6 players."""
        if self.variant["teams"] and self.players not in TEAMS:
            raise VariantError(f"variant teams needs 4-6 players, not {self.players}")

    def _setup(self) -> None:
        """K1/K8: shuffle the 54 cards with random sides up, deal three each, seat 0 starts."""
        deck = full_deck(self.variant["pink4"])
        names = self.chance.draw("deal", lambda rng: self._shuffled_names(rng, deck))
        cards = self._parse_pile(names, deck, "deal")
        n = self.players
        self.hands = [cards[HAND * s : HAND * (s + 1)] for s in range(n)]
        self.pile = cards[HAND * n :][::-1]
        self.discard = []
        self.points = [[] for _ in range(n)]
        self.display = []
        self.target = TARGET
        self.current = 0
        self.phase = PLAY
        self.to_take = []
        self.scorer = 0
        self.score_queue = []
        self.score_highest = False
        self.reshuffled = False
        self.drawing = True

    @staticmethod
    def _shuffled_names(rng: random.Random, cards: Sequence[Card]) -> list[str]:
        """Shuffle the cards and turn each a random side up; names listed top of the pile first."""
        order = list(cards)
        rng.shuffle(order)
        return [
            (c.flipped() if rng.random() < 0.5 else c)._replace(known=False).name() for c in order
        ]

    @staticmethod
    def _parse_pile(names: Any, expected: Sequence[Card], label: str) -> list[Card]:
        """Cards from recorded names; ReplayMismatch unless they are exactly `expected`."""
        try:
            cards = [parse_card(name) for name in names]
        except (TypeError, ValueError, AttributeError) as error:
            raise ReplayMismatch(f"malformed Krumme10 {label}: {error}") from None
        if kinds(cards) != kinds(expected):
            raise ReplayMismatch(f"a Krumme10 {label} must hold exactly the expected cards")
        return cards

    # ----- helpers ------------------------------------------------------
    def _order_from(self, seat: int) -> list[int]:
        """The other seats in play order, starting at `seat`'s left."""
        return [(seat + k) % self.players for k in range(1, self.players)]

    def _same_team(self, a: int, b: int) -> bool:
        """True when a and b are the same seat or team mates (variant teams)."""
        if a == b:
            return True
        return bool(self.variant["teams"]) and team_of(self.players)[a] == team_of(self.players)[b]

    def _faces(self, hand: Sequence[Card]) -> list[tuple[int, bool]]:
        """The distinct visible faces of a hand, ascending (pink 4 after plain 4)."""
        return sorted({c.face() for c in hand})

    @staticmethod
    def _take_face(hand: list[Card], top: int, pink: bool) -> Card:
        """Remove and return the first card of `hand` showing that face."""
        for i, card in enumerate(hand):
            if card.top == top and card.top_pink == pink:
                return hand.pop(i)
        raise AssertionError("no such face in hand")  # legal() offered it

    @staticmethod
    def _face_decision(action: str, top: int, pink: bool, flip: bool | None = None) -> Decision:
        """A decision naming a card by its face; "pink" appears only for a pink 4."""
        decision: Decision = {"action": action, "top": top}
        if pink:
            decision["pink"] = True
        if flip is not None:
            decision["flip"] = flip
        return decision

    def _steal_targets(self, thief: int) -> list[int]:
        """K5: the other seats that have a card to steal, in play order from the thief's left."""
        return [s for s in self._order_from(thief) if self.hands[s]]

    def _display_sum(self) -> int:
        """K3: the sum of the display's top sides (with the cards being taken, R5)."""
        return sum(e.card.top for e in self.display) + sum(c.top for c in self.to_take)

    def all_cards(self) -> list[Card]:
        """Every card of the game wherever it lies (the conservation check uses it)."""
        cards = list(self.pile) + list(self.discard) + [e.card for e in self.display]
        cards += list(self.to_take)
        for hand in self.hands:
            cards += hand
        for pile in self.points:
            cards += pile
        return cards

    # ----- whose turn and what they may do -------------------------------
    def _to_move(self) -> list[int]:
        """The scorer during overrun scoring, else the player whose turn it is."""
        return [self.scorer] if self.phase == SCORE else [self.current]

    def _legal(self, seat: int) -> list[Decision]:
        """The decisions of the phase in a fixed order (see the rules page)."""
        if self.phase == PLAY:
            return [
                self._face_decision("play", top, pink, flip=flip)
                for top, pink in self._faces(self.hands[seat])
                for flip in (False, True)
            ]
        if self.phase == STEAL:
            steals = [
                {"action": "steal", "from": victim, **self._face_decision("steal", top, pink)}
                for victim in self._steal_targets(seat)
                for top, pink in self._faces(self.hands[victim])
            ]
            return [*steals, {"action": "pass"}]
        if self.phase == TAKE:
            return [{"action": "take", "flip": False}, {"action": "take", "flip": True}]
        # SCORE: one of the lowest (highest after a pink-4 overrun) cards, or pass.
        hand = self.hands[seat]
        best = (max if self.score_highest else min)(c.top for c in hand)
        scores = [
            self._face_decision("score", top, pink, flip=flip)
            for top, pink in self._faces(hand)
            if top == best
            for flip in (False, True)
        ]
        return [*scores, {"action": "pass"}]

    # ----- applying a decision -------------------------------------------
    def _apply(self, seat: int, decision: Decision) -> None:
        """Apply one checked decision."""
        action = decision["action"]
        pink = bool(decision.get("pink", False))
        if action == "play":
            card = self._take_face(self.hands[seat], decision["top"], pink)
            flip = bool(decision["flip"])
            self._lay(Entry(card.flipped() if flip else card, seat, flip, None))
        elif action == "steal":
            victim = decision["from"]
            card = self._take_face(self.hands[victim], decision["top"], pink)
            self._lay(Entry(card.flipped(), seat, True, victim))
        elif action == "take":
            card = self.to_take.pop(0)
            self.points[seat].append(card.flipped() if decision["flip"] else card)
            if not self.to_take:
                self._clear_display()
                self._draw_all_and_end()
        elif action == "score":
            card = self._take_face(self.hands[seat], decision["top"], pink)
            self.points[seat].append(card.flipped() if decision["flip"] else card)
            self._refill(seat)
            self._next_scorer()
        elif self.phase == STEAL:  # pass: no (further) steal
            self._settle()
        else:  # pass in SCORE: this seat does not score, but draws in its place
            self._refill(seat)
            self._next_scorer()

    def _lay(self, entry: Entry) -> None:
        """Put a card into the display; a pink 4 that came up by flipping raises the target."""
        self.display.append(entry)
        card = entry.card
        if self.variant["pink4"] and entry.flipped and card.top_pink:
            self.target = PINK_TARGET
        if card.top == 1 and self._steal_targets(self.current):
            self.phase = STEAL
        else:
            self._settle()

    def _settle(self) -> None:
        """K3: evaluate the display once the play and its chain of 1s are complete."""
        total = self._display_sum()
        if total == self.target:
            last = self.display.pop()
            self.to_take = [last.card]
            if self.target == PINK_TARGET:
                self.to_take += [e.card for e in self.display if e.card.top_pink]
                self.display = [e for e in self.display if not e.card.top_pink]
            self.phase = TAKE
        elif total > self.target:
            self.score_highest = self.target == PINK_TARGET
            self._clear_display()
            self.score_queue = self._order_from(self.current)
            self._next_scorer()
        else:
            self._draw_all_and_end()

    def _clear_display(self) -> None:
        """The display goes to the discard pile; the next display aims at 10 again."""
        self.discard += [e.card for e in self.display]
        self.display = []
        self.target = TARGET

    def _next_scorer(self) -> None:
        """K3/K5: ask the next eligible scorer; seats passed over draw at their place."""
        while self.score_queue:
            seat = self.score_queue.pop(0)
            if not self._same_team(seat, self.current) and self.hands[seat]:
                self.phase = SCORE
                self.scorer = seat
                return
            self._refill(seat)
        self._refill(self.current)
        self._end_turn()

    def _draw_all_and_end(self) -> None:
        """K5: the others draw in play order from the thief's left, the thief last."""
        for seat in self._order_from(self.current):
            self._refill(seat)
        self._refill(self.current)
        self._end_turn()

    def _refill(self, seat: int) -> None:
        """Draw back up to three cards while drawing goes on (K6: impossible draws are skipped)."""
        hand = self.hands[seat]
        while self.drawing and len(hand) < HAND:
            if not self.pile:
                self._reshuffle()
                if not self.pile:
                    return
            hand.append(self.pile.pop())

    def _reshuffle(self) -> None:
        """Variant long (R8): when the pile first runs out, the discard pile becomes the pile."""
        if not self.variant["long"] or self.reshuffled:
            return
        self.reshuffled = True
        if not self.discard:
            return
        old = [c._replace(known=False) for c in self.discard]
        names = self.chance.draw("reshuffle", lambda rng: self._shuffled_names(rng, old))
        self.pile = self._parse_pile(names, old, "reshuffle")[::-1]
        self.discard = []

    def _end_turn(self) -> None:
        """K6: end the game when the pile is used up (or showdown), else the next player moves."""
        if self.drawing and not self.pile:
            self._reshuffle()
            if not self.pile:
                if not self.variant["showdown"]:
                    self.phase = OVER
                    return
                self.drawing = False
        if not self.drawing and not any(self.hands):
            self._clear_display()  # R10: a showdown's unfinished display is discarded
            self.phase = OVER
            return
        seat = self.current
        for _ in range(self.players):
            seat = (seat + 1) % self.players
            if self.hands[seat]:
                break
        self.current = seat
        self.phase = PLAY

    # ----- views and results ---------------------------------------------
    def _observe(self, seat: int) -> dict[str, Any]:
        """Everything visible (K2): top sides, seen down sides, visible pink 4s, counts."""
        teams = self._teams()
        team_scores: list[float] | None = None
        if teams is not None:
            team_scores = [self._team_score(team, teams) for team in range(max(teams) + 1)]
        return {
            "seat": seat,
            "players": self.players,
            "variant": dict(self.variant),
            "phase": self.phase,
            "to_move": None if self.phase == OVER else self._to_move()[0],
            "turn": self.current,
            "target": self.target,
            "sum": self._display_sum(),
            "display": [
                {
                    "card": e.card.view(),
                    "by": e.by,
                    "flipped": e.flipped,
                    "stolen_from": e.stolen_from,
                }
                for e in self.display
            ],
            "to_take": [c.view() for c in self.to_take],
            "score_highest": self.score_highest if self.phase == SCORE else None,
            "hands": [self._hand_view(hand) for hand in self.hands],
            "draw_pile": len(self.pile),
            "discard": [c.view() for c in self.discard],
            "points": [[c.view() for c in pile] for pile in self.points],
            "scores": [self._points(s) for s in range(self.players)],
            "teams": list(teams) if teams is not None else None,
            "team_scores": team_scores,
            "reshuffled": self.reshuffled,
            "drawing": self.drawing,
        }

    @staticmethod
    def _hand_view(hand: Sequence[Card]) -> list[dict[str, Any]]:
        """A hand sorted by what is visible only, so the order leaks nothing (R2)."""
        return [c.view() for c in sorted(hand, key=Card.face)]

    def _points(self, seat: int) -> int:
        """K4: the top sides of a seat's points pile."""
        return sum(c.top for c in self.points[seat])

    def _team_score(self, team: int, teams: Sequence[int]) -> float:
        """K7: a team's points summed and divided by its size."""
        members = [s for s in range(self.players) if teams[s] == team]
        return sum(self._points(s) for s in members) / len(members)

    def _is_over(self) -> bool:
        """True once the pile is used up (K6) or, in a showdown, every hand is empty."""
        return self.phase == OVER

    def _scores(self) -> Sequence[float]:
        """Points per seat; in teams every member gets the team's score (K7)."""
        teams = self._teams()
        if teams is None:
            return [self._points(s) for s in range(self.players)]
        return [self._team_score(teams[s], teams) for s in range(self.players)]

    def _teams(self) -> tuple[int, ...] | None:
        """K7: ABAB, ABCAB, ABABAB when the variant teams is on."""
        return team_of(self.players) if self.variant["teams"] else None

    def describe(self, seat: int, decision: Decision) -> str:
        """A short human line, e.g. "seat 1 plays 3 flipped", "seat 0 steals a 2 from seat 2"."""
        action = decision.get("action")
        face = f"{decision.get('top')}{' (pink)' if decision.get('pink') else ''}"
        flip = " flipped" if decision.get("flip") else ""
        if action == "play":
            return f"seat {seat} plays {face}{flip}"
        if action == "steal":
            return f"seat {seat} steals a {face} from seat {decision['from']}"
        if action == "take":
            return f"seat {seat} takes the card to points{flip}"
        if action == "score":
            return f"seat {seat} scores {face}{flip}"
        if action == "pass":
            return f"seat {seat} passes"
        return super().describe(seat, decision)
