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
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any, TypeVar

from arena.games.base import (
    JSON,
    Chance,
    Decision,
    Game,
    GameSpec,
    ReplayMismatch,
    VariantError,
    VariantOption,
)
from arena.games.krumme10.cards import (
    DECK_SIZE,
    FACE,
    TOP,
    Card,
    Entry,
    Kind,
    Side,
    card_from_view,
    deck_cards,
    deck_kinds,
    kinds,
    lying,
    name_lying,
    parse_card,
    side_name,
)
from arena.games.krumme10.moves import PASS, PLAYS, SCORES, STEALS, TAKES, Move
from arena.games.krumme10.sampling import (
    multiset_key,
    possible_downs,
    possible_in_pile,
    undersides,
)
from arena.games.krumme10.views import Krumme10Observation, ObservedParts
from arena.games.leylo.draws import shuffle

T = TypeVar("T")

#: Cards in front of every player (drawn back up to this).
HAND = 3
#: K3: the display's target, and the target after a flipped pink 4 (variant pink4).
TARGET, PINK_TARGET = 10, 15
#: K7: team of each seat, by player count (ABAB, ABCAB, ABABAB).
TEAMS: dict[int, tuple[int, ...]] = {4: (0, 1, 0, 1), 5: (0, 1, 2, 0, 1), 6: (0, 1, 0, 1, 0, 1)}

#: Phases; the observation's "phase" says which one asks a seat now.
PLAY, STEAL, TAKE, SCORE, OVER = "play", "steal", "take", "score", "over"


@lru_cache(maxsize=36)
def _others(seat: int, players: int) -> tuple[int, ...]:
    """The other seats in play order, starting at `seat`'s left."""
    return tuple((seat + k) % players for k in range(1, players))


def _team_total(scores: Sequence[int], team: int, teams: Sequence[int]) -> float:
    """K7: a team's points summed and divided by its size."""
    members = [s for s, member_of in enumerate(teams) if member_of == team]
    return sum(scores[s] for s in members) / len(members)


def team_of(players: int) -> tuple[int, ...]:
    """K7: the team of each seat when playing in teams (4-6 players)."""
    return TEAMS[players]


#: The plays offered to a hand, by its cards' faces in hand order (`_moves`: the plays of
#: the distinct faces, ascending); at most 7 + 49 + 343 hands of faces. Shared lists.
_PLAYS_BY_FACES: dict[tuple[tuple[int, bool], ...], list[Move]] = {}


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
    #: The observation's card lists as last built (made on first use; a clone gets its own).
    _parts: ObservedParts | None = None

    # ----- set-up -------------------------------------------------------
    def _check_variant(self) -> None:
        """K7: teams need 4-6 players."""
        if self.variant["teams"] and self.players not in TEAMS:
            raise VariantError(f"variant teams needs 4-6 players, not {self.players}")

    def _setup(self) -> None:
        """K1/K8: shuffle the 54 cards with random sides up, deal three each, seat 0 starts."""
        deck = deck_cards(self.variant["pink4"])
        names = self.chance.draw("deal", lambda rng: self._shuffled_names(rng, deck))
        cards = self._parse_pile(names, deck_kinds(self.variant["pink4"]), "deal")
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
        return [name_lying(c, rng.random() < 0.5) for c in order]

    @staticmethod
    def _parse_pile(names: Any, expected: Counter[Kind], label: str) -> list[Card]:
        """Cards from recorded names; ReplayMismatch unless they are exactly the `expected`
        physical cards."""
        try:
            cards = [parse_card(name) for name in names]
        except (TypeError, ValueError, AttributeError) as error:
            raise ReplayMismatch(f"malformed Krumme10 {label}: {error}") from None
        if kinds(cards) != expected:
            raise ReplayMismatch(f"a Krumme10 {label} must hold exactly the expected cards")
        return cards

    # ----- helpers ------------------------------------------------------
    def _order_from(self, seat: int) -> list[int]:
        """The other seats in play order, starting at `seat`'s left."""
        return list(_others(seat, self.players))

    def _same_team(self, a: int, b: int) -> bool:
        """True when a and b are the same seat or team mates (variant teams)."""
        if a == b:
            return True
        return bool(self.variant["teams"]) and team_of(self.players)[a] == team_of(self.players)[b]

    def _faces(self, hand: Sequence[Card]) -> list[tuple[int, bool]]:
        """The distinct visible faces of a hand, ascending (pink 4 after plain 4)."""
        return sorted(set(map(FACE, hand)))

    @staticmethod
    def _take_face(hand: list[Card], top: int, pink: bool) -> Card:
        """Remove and return the first card of `hand` showing that face."""
        for i, card in enumerate(hand):
            if card.top == top and card.top_pink == pink:
                return hand.pop(i)
        raise AssertionError("no such face in hand")  # legal() offered it

    def _steal_targets(self, thief: int) -> list[int]:
        """K5: the other seats that have a card to steal, in play order from the thief's left."""
        hands = self.hands
        return [s for s in _others(thief, self.players) if hands[s]]

    def _display_sum(self) -> int:
        """K3: the sum of the display's top sides (with the cards being taken, R5)."""
        return sum(entry.card.top for entry in self.display) + sum(map(TOP, self.to_take))

    def all_cards(self) -> list[Card]:
        """Every card of the game wherever it lies (the conservation check uses it)."""
        return self.pile + self.cards_outside_pile()

    def cards_outside_pile(self) -> list[Card]:
        """Every card that lies open (top side up): hands, display, discard, points."""
        cards = [e.card for e in self.display] + self.to_take + self.discard
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
        return [move.decision() for move in self._moves(seat)]

    def _legal_keys(self, seat: int) -> list[tuple[tuple[tuple[str, Any], ...], Decision]]:
        """`_legal`'s list for a search's tree, each decision with its items sorted by name
        (a name of it that ignores key order, built once per move), by which the tree
        looks it up. The decisions are the moves' own (`Move.json`, shared by every state:
        never change one), which `_apply_joint` recognises without reading them."""
        return [(move.key, move.json) for move in self._moves(seat)]

    def _moves(self, seat: int) -> Sequence[Move]:
        """The legal list as moves, in its order (do not mutate: it may be shared)."""
        if self.phase == PLAY:
            shown = tuple(map(FACE, self.hands[seat]))
            plays = _PLAYS_BY_FACES.get(shown)
            if plays is None:
                plays = _PLAYS_BY_FACES[shown] = [
                    move for face in sorted(set(shown)) for move in PLAYS[face]
                ]
            return plays
        if self.phase == STEAL:
            hands = self.hands
            steals = [
                STEALS[victim, face]
                for victim in self._steal_targets(seat)
                for face in self._faces(hands[victim])
            ]
            steals.append(PASS)
            return steals
        if self.phase == TAKE:
            return TAKES
        # SCORE: one of the lowest (highest after a pink-4 overrun) cards, or pass.
        faces = self._faces(self.hands[seat])
        best = faces[-1][0] if self.score_highest else faces[0][0]
        scores = [move for face in faces if face[0] == best for move in SCORES[face]]
        scores.append(PASS)
        return scores

    # ----- applying a decision -------------------------------------------
    def _apply(self, seat: int, decision: Decision) -> None:
        """Apply one checked decision."""
        self._make(seat, Move.of(decision))

    def _apply_joint(self, decisions: Mapping[int, Decision]) -> None:
        """One decision at a time, in order (the base class's, without a call per decision)."""
        for seat, decision in decisions.items():
            self._make(seat, Move.of(decision))

    def _playout(self, rng: random.Random, limit: int) -> int:
        """The plain loop's choices (``rng.choice`` over the moves, listed as `legal` lists
        them), building only the chosen decision."""
        made = 0
        while made < limit and self.phase != OVER:
            seat = self.scorer if self.phase == SCORE else self.current
            move = rng.choice(self._moves(seat))
            self._make(seat, move)
            self.history.append((seat, move.decision()))
            made += 1
        return made

    def _make(self, seat: int, move: Move) -> None:
        """Apply one legal move."""
        action = move.action
        if action == "play":
            card = self._take_face(self.hands[seat], move.top, move.pink)
            flip = bool(move.flip)
            self._lay(Entry(card.flipped() if flip else card, seat, flip, None))
        elif action == "steal":
            card = self._take_face(self.hands[move.victim], move.top, move.pink)
            self._lay(Entry(card.flipped(), seat, True, move.victim))
        elif action == "take":
            card = self.to_take.pop(0)
            self.points[seat].append(card.flipped() if move.flip else card)
            if not self.to_take:
                self._clear_display()
                self._draw_all_and_end()
        elif action == "score":
            card = self._take_face(self.hands[seat], move.top, move.pink)
            self.points[seat].append(card.flipped() if move.flip else card)
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
        for seat in _others(self.current, self.players):
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
        self.pile = self._parse_pile(names, kinds(old), "reshuffle")[::-1]
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
    def _observe(self, seat: int) -> Krumme10Observation:
        """Everything visible (K2): top sides, seen down sides, visible pink 4s, counts."""
        return self._envelope(seat, fresh=True)

    def _observe_shared(self, seat: int) -> Krumme10Observation:
        return self._envelope(seat, fresh=False)

    def _envelope(self, seat: int, fresh: bool) -> Krumme10Observation:
        """The observation; its card lists come from `ObservedParts`, which rebuilds only
        the lists whose cards changed since the last call, handed out as fresh copies if
        `fresh`, else shared (copying them was half of the observation's CPU).
        """
        parts = self._parts
        if parts is None:
            parts = self._parts = ObservedParts(self.players)
        scores = parts.scores(self.points)
        teams = self._teams()
        team_scores: list[float] | None = None
        if teams is not None:
            team_scores = [_team_total(scores, team, teams) for team in range(max(teams) + 1)]
        phase = self.phase
        return {
            "seat": seat,
            "players": self.players,
            "phase": phase,  # type: ignore[typeddict-item]  # one of the five names
            "to_move": [] if phase == OVER else self._to_move(),
            "scores": scores,
            "game": {
                "variant": dict(self.variant) if fresh else self.variant,  # type: ignore[typeddict-item]  # the four keys
                "turn": self.current,
                "target": self.target,  # type: ignore[typeddict-item]  # 10 or 15
                "sum": self._display_sum(),
                "display": parts.display.update(self.display).shown(fresh),
                "to_take": parts.to_take.update(self.to_take).shown(fresh),
                "score_highest": self.score_highest if phase == SCORE else None,
                "hands": parts.hand_views(self.hands, fresh),
                "draw_pile": len(self.pile),
                "discard": parts.discard.update(self.discard).shown(fresh),
                "points": parts.point_views(self.points, fresh),
                "teams": list(teams) if teams is not None else None,
                "team_scores": team_scores,
                "reshuffled": self.reshuffled,
                "drawing": self.drawing,
            },
        }

    def _points(self, seat: int) -> int:
        """K4: the top sides of a seat's points pile."""
        return sum(map(TOP, self.points[seat]))

    def _team_score(self, team: int, teams: Sequence[int]) -> float:
        """K7: a team's points summed and divided by its size."""
        return _team_total([self._points(s) for s in range(self.players)], team, teams)

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

    # ----- search support -------------------------------------------------
    def _copy_state(self, twin: Game) -> None:
        """Fresh lists for everything a decision mutates; cards and entries are immutable."""
        assert isinstance(twin, Krumme10)
        twin.hands = [list(hand) for hand in self.hands]
        twin.pile = list(self.pile)
        twin.discard = list(self.discard)
        twin.points = [list(pile) for pile in self.points]
        twin.display = list(self.display)
        twin.to_take = list(self.to_take)
        twin.score_queue = list(self.score_queue)
        twin._parts = None  # shared parts would be correct (checked by content) but churn

    def _outside_pile(self) -> Iterator[tuple[str, Card]]:
        """Every card outside the draw pile, named by where the observation lists it."""
        for seat, hand in enumerate(self.hands):
            for index, card in enumerate(sorted(hand, key=FACE)):
                yield f"hand:{seat}:{index}", card
        for index, entry in enumerate(self.display):
            yield f"display:{index}", entry.card
        for index, card in enumerate(self.to_take):
            yield f"to_take:{index}", card
        for index, card in enumerate(self.discard):
            yield f"discard:{index}", card
        for seat, pile in enumerate(self.points):
            for index, card in enumerate(pile):
                yield f"points:{seat}:{index}", card

    def _hidden(self, seat: int) -> dict[str, list[JSON]]:
        """K2: each unseen down side is a place (hidden from all), and the pile's sides."""
        places: dict[str, list[JSON]] = {
            f"{place}:down": [side_name(card.down, card.down_pink)]
            for place, card in self._outside_pile()
            if not card.known
        }
        places["draw_pile"] = [
            side_name(value, pink)
            for card in self.pile
            for value, pink in ((card.top, card.top_pink), (card.down, card.down_pink))
        ]
        return places

    def _ruled_out(self, seat: int) -> dict[str, list[JSON]]:
        """K1 by counting: the sides no deal consistent with the visible cards puts there.

        A card showing 3 hides a 2 or a 4 (or a pink 4), so 0, 1, 3 and 5 are ruled
        out; a side is ruled out too when every unseen card that has it must lie
        elsewhere (e.g. both 3|pink-4 cards were seen).
        """
        needs, supply = self._unseen()
        every = {side for kind in deck_kinds(self.variant["pink4"]) for side in kind}
        ruled: dict[str, list[JSON]] = {}
        for place, card in self._outside_pile():
            if not card.known:
                possible = possible_downs(needs, supply, card.face())
                ruled[f"{place}:down"] = [side_name(*s) for s in sorted(every - possible)]
        if self.pile:
            possible = possible_in_pile(needs, supply)
            ruled["draw_pile"] = [side_name(*s) for s in sorted(every - possible)]
        return ruled

    def _unseen(self) -> tuple[Counter[Side], Counter[Kind]]:
        """The faces whose down side nobody saw, and the physical cards not seen whole."""
        outside = self.cards_outside_pile()
        needs = Counter((c.top, c.top_pink) for c in outside if not c.known)
        supply = deck_kinds(self.variant["pink4"]).copy()
        supply.subtract(kinds(c for c in outside if c.known))
        return needs, supply

    @classmethod
    def _determinize(
        cls,
        observation: Mapping[str, Any],
        seat: int,
        players: int,
        variant: dict[str, Any],
        rng: random.Random,
    ) -> Game:
        """Lay the visible cards as observed, then draw the unseen down sides and the pile."""
        return Determinizer(cls, observation, players, variant)(rng)

    @classmethod
    def determinizer(
        cls,
        observation: Mapping[str, Any],
        seat: int,
        players: int,
        variant: Mapping[str, Any] | None,
    ) -> Determinizer:
        """`determinize` for many samples of one observation: ``determinizer(observation,
        seat, players, variant)(rng)`` is ``determinize(observation, seat, players, variant,
        rng)``, the same state from the same draws of `rng`, but what the observation
        shows is read and counted once (a search samples one observation again and
        again). ValueError when no deal fits the observation."""
        return Determinizer(cls, observation, players, cls.spec.resolve_variant(variant))

    def _restore_public(self, observation: Mapping[str, Any]) -> None:
        """Everything the observation shows; unseen down sides stay placeholders (-1)."""
        self.hands = [[card_from_view(v) for v in hand] for hand in observation["hands"]]
        self.display = [
            Entry(card_from_view(e["card"]), e["by"], e["flipped"], e["stolen_from"])
            for e in observation["display"]
        ]
        self.to_take = [card_from_view(v) for v in observation["to_take"]]
        self.discard = [card_from_view(v) for v in observation["discard"]]
        self.points = [[card_from_view(v) for v in pile] for pile in observation["points"]]
        self.pile = []
        self.target = observation["target"]
        self.phase = observation["phase"]
        self.current = observation["turn"]
        self.score_highest = bool(observation["score_highest"])
        self.reshuffled = observation["reshuffled"]
        self.drawing = observation["drawing"]
        self.scorer, self.score_queue = 0, []
        if self.phase == SCORE:  # the seats after the scorer in order from the culprit's left
            self.scorer = observation["to_move"]
            order = self._order_from(self.current)
            self.score_queue = order[order.index(self.scorer) + 1 :]

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


class SeededChance(Chance):
    """`Chance.simulation(seed)` whose generator is made at its first draw: a Krumme10
    state draws chance only when variant long reshuffles, and a search makes and clones
    thousands of states that never do (seeding a `random.Random` per sample and copying
    its state per clone were some 4 % of a search's time). It draws exactly what
    `Chance.simulation(seed)` draws, and so does its clone."""

    def __init__(self, seed: int) -> None:
        """A simulation seeded by `seed`, its generator not made yet."""
        self._seed = seed
        self._rng = None
        self._script = []
        self._next = 0
        self.log = []
        self.simulated = True

    def _made(self) -> random.Random:
        if self._rng is None:
            self._rng = random.Random(self._seed)
        return self._rng

    @property
    def generator(self) -> random.Random | None:
        """The generator (made now if need be)."""
        return self._made()

    def draw(self, label: str, make: Callable[[random.Random], T]) -> T:
        """`make(generator)`: a simulation keeps no log."""
        return make(self._made())

    def clone(self) -> Chance:
        """A copy that draws the same from now on (before any draw: the same seed)."""
        if self._rng is None:
            return SeededChance(self._seed)
        return super().clone()


class Determinizer:
    """`Krumme10.determinize` for one observation: the visible cards are laid once, with
    placeholders (-1) for the unseen down sides, and the deals that fit are counted once;
    each call draws one state from `rng` as `determinize` did, in the same order: the
    state's chance seed (64 bits), the deal (`Undersides.sample`), a side up per pile
    card, the pile's shuffle. The unseen down sides are filled in the order `determinize`
    filled them (hands by seat, the display, the cards being taken, the discard, points
    by seat; each card taking the last down side left for its face)."""

    def __init__(
        self,
        cls: type[Krumme10],
        observation: Mapping[str, Any],
        players: int,
        variant: dict[str, Any],
    ) -> None:
        template = cls.blank(players, variant, 0)
        assert isinstance(template, Krumme10)
        template._restore_public(observation)
        needs, supply = template._unseen()
        self.deals = undersides(multiset_key(needs), multiset_key(supply))
        if not self.deals.feasible():
            raise ValueError("no deal of the 54 cards fits this Krumme10 observation")
        self.cls = cls
        #: Every field a sample shares with the template (immutable values, the variant).
        self.fields = {
            name: value
            for name, value in template.__dict__.items()
            if name not in _DEALT and name not in ("chance", "history", "_offered")
        }
        self.hands = template.hands
        self.display = template.display
        self.to_take = template.to_take
        self.discard = template.discard
        self.points = template.points
        self.score_queue = template.score_queue
        #: The placeholders in filling order: (list number, index, face); list numbers
        #: count the hands, then the display, to_take, discard and the points piles.
        lists: list[Sequence[Any]] = [*self.hands, [e.card for e in self.display]]
        lists += [self.to_take, self.discard, *self.points]
        #: Each with the card (an entry in the display) it becomes per down side, as made.
        self.slots: list[tuple[int, int, Side, dict[Side, Any]]] = [
            (number, index, (card.top, card.top_pink), {})
            for number, cards in enumerate(lists)
            for index, card in enumerate(cards)
            if not card.known
        ]
        self.display_list = players  # the list number of the display
        self.sides = {kind: lying(kind) for kind in self.deals.kinds}

    def _filled(self, number: int, index: int, down: Side) -> Card | Entry:
        """A placeholder with its down side: the card (cards are immutable: samples share
        them), or in the display the entry holding it."""
        if number == self.display_list:
            entry = self.display[index]
            card = entry.card
            return entry._replace(card=Card(card.top, down[0], card.top_pink, down[1]))
        lists: list[list[Card]] = [*self.hands, [], self.to_take, self.discard, *self.points]
        card = lists[number][index]
        return Card(card.top, down[0], card.top_pink, down[1])

    def __call__(self, rng: random.Random) -> Krumme10:
        """One state consistent with the observation, drawn from `rng`."""
        cls = self.cls
        state = cls.__new__(cls)
        state.__dict__.update(self.fields)
        state.chance = SeededChance(rng.getrandbits(64))
        state.history = []
        state._offered = {}
        downs, kinds_in_pile = self.deals.sample(rng)
        hands = [list(hand) for hand in self.hands]
        display = list(self.display)
        to_take, discard = list(self.to_take), list(self.discard)
        points = [list(pile) for pile in self.points]
        lists: list[list[Any]] = [*hands, display, to_take, discard, *points]
        for number, index, face, filled in self.slots:
            down = downs[face].pop()
            laid = filled.get(down)
            if laid is None:
                laid = filled[down] = self._filled(number, index, down)
            lists[number][index] = laid
        state.hands, state.display, state.to_take = hands, display, to_take
        state.discard, state.points = discard, points
        state.score_queue = list(self.score_queue)
        sides = self.sides
        pile = [sides[kind][rng.random() < 0.5] for kind in kinds_in_pile]
        shuffle(rng, pile)  # `rng.shuffle(pile)`, with fewer Python calls
        state.pile = pile
        return state


#: The fields a sample gets its own (filled) copy of: the ones a move mutates.
_DEALT = frozenset(("hands", "display", "to_take", "discard", "points", "pile", "score_queue"))
