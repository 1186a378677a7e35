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

import bisect
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from typing import Any, NamedTuple

from arena.games.base import (
    JSON,
    Decision,
    Game,
    GameSpec,
    ReplayMismatch,
    VariantError,
    VariantOption,
)

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


#: `Card.face` as a C-level key: a hand is sorted by what is visible only, so the
#: order leaks nothing (R2).
FACE: Callable[[Card], tuple[int, bool]] = attrgetter("top", "top_pink")
TOP: Callable[[Card], int] = attrgetter("top")


class _ViewCache(dict[Card, dict[str, Any]]):
    """`Card.view` of every card seen so far (a few dozen distinct ones): do not mutate."""

    def __missing__(self, card: Card) -> dict[str, Any]:
        view = self[card] = card.view()
        return view


VIEWS = _ViewCache()


class Entry(NamedTuple):
    """A card of the display, with who played it and whether it came flipped or stolen."""

    card: Card
    by: int
    flipped: bool
    stolen_from: int | None


@dataclass(frozen=True, slots=True)
class Move:
    """A decision as the referee handles it; every possible one is built once (below).

    `top` is -1 when the decision names no card, `victim` (the robbed seat of a steal)
    is -1 for any other decision, `flip` is None where the decision has none.
    """

    action: str
    top: int = -1
    pink: bool = False
    flip: bool | None = None
    victim: int = -1
    #: The decision as JSON, keys in the order the rules page shows (built once).
    json: Decision = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Build `json` once: legal lists copy it for every decision they offer."""
        decision: Decision = {"action": self.action}
        if self.victim >= 0:
            decision["from"] = self.victim
        if self.top >= 0:
            decision["top"] = self.top
        if self.pink:
            decision["pink"] = True
        if self.flip is not None:
            decision["flip"] = self.flip
        object.__setattr__(self, "json", decision)

    def decision(self) -> Decision:
        """A fresh copy of the decision as JSON (the caller may change it)."""
        return {**self.json}

    @staticmethod
    def of(decision: Decision) -> Move:
        """The move of a legal decision (JSON numbers and booleans compare alike)."""
        key = (
            decision["action"],
            decision.get("top", -1),
            bool(decision.get("pink", False)),
            decision.get("flip"),
            decision.get("from", -1),
        )
        return _MOVES[key]


#: Every visible face a card can show: the values, and the pink 4 (variant pink4).
FACES: tuple[tuple[int, bool], ...] = (*((value, False) for value in range(6)), (4, True))
#: Per face: playing it top side up, then flipped (so the legal list reads).
PLAYS = {face: (Move("play", *face, False), Move("play", *face, True)) for face in FACES}
#: Per face: scoring it as it lies, then flipped.
SCORES = {face: (Move("score", *face, False), Move("score", *face, True)) for face in FACES}
#: Per (victim, face): stealing a card showing that face from that seat (seats 0..5).
STEALS = {(seat, face): Move("steal", *face, None, seat) for seat in range(6) for face in FACES}
#: Taking the card as it lies, then flipped; passing (no steal, or no scoring).
TAKES = (Move("take", flip=False), Move("take", flip=True))
PASS = Move("pass")
_MOVES: dict[tuple[Any, ...], Move] = {
    (move.action, move.top, move.pink, move.flip, move.victim): move
    for move in (
        *(move for pair in PLAYS.values() for move in pair),
        *(move for pair in SCORES.values() for move in pair),
        *STEALS.values(),
        *TAKES,
        PASS,
    )
}


@lru_cache(maxsize=64)  # a deck has a dozen or so names; errors are not cached
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


#: One side of a card: its value and whether it is a pink 4.
Side = tuple[int, bool]
#: A physical card whichever side is up: its two sides, ascending.
Kind = tuple[Side, Side]


def kinds(cards: Iterable[Card]) -> Counter[Kind]:
    """The multiset of physical cards, whichever side is up."""
    return Counter(c.kind() for c in cards)


@lru_cache(maxsize=2)
def _deck(pink4: bool) -> tuple[Card, ...]:
    """`full_deck`, built once."""
    return tuple(full_deck(pink4))


@lru_cache(maxsize=36)
def _others(seat: int, players: int) -> tuple[int, ...]:
    """The other seats in play order, starting at `seat`'s left."""
    return tuple((seat + k) % players for k in range(1, players))


@lru_cache(maxsize=2)
def deck_kinds(pink4: bool) -> Counter[Kind]:
    """The physical cards of the whole deck (do not mutate: it is shared)."""
    return kinds(_deck(pink4))


def side_name(value: int, pink: bool) -> JSON:
    """A side as the search places list it: the value, or ``"4p"`` for a pink 4."""
    return "4p" if pink else value


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
        """A uniformly drawn deal: per face the down sides in random order, and the pile's kinds."""
        downs: dict[Side, list[Side]] = {}
        left = list(self.supply)
        state: tuple[int, ...] = ()
        for i, face in enumerate(self.faces):
            choices = self._choices(i, state)
            drawn = bisect.bisect_right(choices.running, rng.random() * choices.running[-1])
            split, state = choices.outcomes[min(drawn, len(choices.outcomes) - 1)]
            under: list[Side] = []
            for k, count in zip(self.adjacent[i], split, strict=True):
                left[k] -= count
                kind = self.kinds[k]
                under += [kind[1] if kind[0] == face else kind[0]] * count
            rng.shuffle(under)
            downs[face] = under
        pile = [kind for kind, count in zip(self.kinds, left, strict=True) for _ in range(count)]
        return downs, pile

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
            choices = _Choices([], [])
            total = 0.0
            for split, after, factor in self._steps(i, state):
                weight = factor * self._weight(i + 1, after)
                if weight > 0.0:
                    total += weight
                    choices.outcomes.append((split, after))
                    choices.running.append(total)
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
    """One step of the sampler: outcomes (split, next state) and their running weight sums."""

    outcomes: list[tuple[tuple[int, ...], tuple[int, ...]]]
    running: list[float]


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


@lru_cache(maxsize=64)
def _name_lying(card: Card, flipped: bool) -> str:
    """The name of `card` turned over or not (names never show whether a side was seen)."""
    return (card.flipped() if flipped else card).name()


def _key(counts: Mapping[Any, int]) -> tuple[tuple[Any, int], ...]:
    """A hashable, order-free form of a multiset, for the memo of `undersides`."""
    return tuple(sorted((item, n) for item, n in counts.items() if n > 0))


def _from_view(view: Mapping[str, Any]) -> Card:
    """A card as an observation shows it; an unseen down side is the placeholder -1."""
    pink = view["pink"]
    if view["down"] is None:
        return Card(view["top"], -1, pink == "top")
    return Card(view["top"], view["down"], pink == "top", pink == "down", True)


@lru_cache(maxsize=16)
def _lie(kind: Kind) -> tuple[Card, Card]:
    """A physical card lying with either side up, its down side unseen."""
    (a, a_pink), (b, b_pink) = kind
    return Card(a, b, a_pink, b_pink), Card(b, a, b_pink, a_pink)


def _possible_downs(needs: Counter[Side], supply: Counter[Kind], face: Side) -> set[Side]:
    """The sides some consistent deal puts under a card showing `face`."""
    possible = set()
    for kind in supply:
        if face in kind and supply[kind] > 0:
            fewer_needs, fewer = needs.copy(), supply.copy()
            fewer_needs[face] -= 1
            fewer[kind] -= 1
            if undersides(_key(fewer_needs), _key(fewer)).feasible():
                possible.add(kind[1] if kind[0] == face else kind[0])
    return possible


def _possible_in_pile(needs: Counter[Side], supply: Counter[Kind]) -> set[Side]:
    """The sides of the kinds some consistent deal leaves in the draw pile."""
    possible: set[Side] = set()
    for kind in supply:
        if supply[kind] > 0:
            fewer = supply.copy()
            fewer[kind] -= 1
            if undersides(_key(needs), _key(fewer)).feasible():
                possible.update(kind)
    return possible


@lru_cache(maxsize=64)
def undersides(
    needs: tuple[tuple[Side, int], ...], supply: tuple[tuple[Kind, int], ...]
) -> Undersides:
    """The (memoised) counting of one public situation: a search samples it again and again."""
    return Undersides(dict(needs), dict(supply))


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
        deck = _deck(self.variant["pink4"])
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
        return [_name_lying(c, rng.random() < 0.5) for c in order]

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

    def _moves(self, seat: int) -> Sequence[Move]:
        """The legal list as moves, in its order (do not mutate: it may be shared)."""
        if self.phase == PLAY:
            return [move for face in self._faces(self.hands[seat]) for move in PLAYS[face]]
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
    def _observe(self, seat: int) -> dict[str, Any]:
        """Everything visible (K2): top sides, seen down sides, visible pink 4s, counts."""
        teams = self._teams()
        team_scores: list[float] | None = None
        if teams is not None:
            team_scores = [self._team_score(team, teams) for team in range(max(teams) + 1)]
        views = VIEWS  # card -> its view; every card gets a fresh copy
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
                    "card": {**views[e.card]},
                    "by": e.by,
                    "flipped": e.flipped,
                    "stolen_from": e.stolen_from,
                }
                for e in self.display
            ],
            "to_take": [{**views[card]} for card in self.to_take],
            "score_highest": self.score_highest if self.phase == SCORE else None,
            "hands": [[{**views[card]} for card in sorted(hand, key=FACE)] for hand in self.hands],
            "draw_pile": len(self.pile),
            "discard": [{**views[card]} for card in self.discard],
            "points": [[{**views[card]} for card in pile] for pile in self.points],
            "scores": [self._points(s) for s in range(self.players)],
            "teams": list(teams) if teams is not None else None,
            "team_scores": team_scores,
            "reshuffled": self.reshuffled,
            "drawing": self.drawing,
        }

    def _points(self, seat: int) -> int:
        """K4: the top sides of a seat's points pile."""
        return sum(map(TOP, self.points[seat]))

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
                possible = _possible_downs(needs, supply, card.face())
                ruled[f"{place}:down"] = [side_name(*s) for s in sorted(every - possible)]
        if self.pile:
            possible = _possible_in_pile(needs, supply)
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
        state = cls.blank(players, variant, rng.getrandbits(64))
        assert isinstance(state, Krumme10)
        state._restore_public(observation)
        needs, supply = state._unseen()
        deals = undersides(_key(needs), _key(supply))
        if not deals.feasible():
            raise ValueError("no deal of the 54 cards fits this Krumme10 observation")
        downs, pile = deals.sample(rng)
        state._turn_down(downs)
        state.pile = [_lie(kind)[rng.random() < 0.5] for kind in pile]
        rng.shuffle(state.pile)
        return state

    def _restore_public(self, observation: Mapping[str, Any]) -> None:
        """Everything the observation shows; unseen down sides stay placeholders (-1)."""
        self.hands = [[_from_view(v) for v in hand] for hand in observation["hands"]]
        self.display = [
            Entry(_from_view(e["card"]), e["by"], e["flipped"], e["stolen_from"])
            for e in observation["display"]
        ]
        self.to_take = [_from_view(v) for v in observation["to_take"]]
        self.discard = [_from_view(v) for v in observation["discard"]]
        self.points = [[_from_view(v) for v in pile] for pile in observation["points"]]
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

    def _turn_down(self, downs: dict[Side, list[Side]]) -> None:
        """Give every placeholder card a down side from `downs` (per face, in random order)."""

        def fill(card: Card) -> Card:
            if card.known:
                return card
            value, pink = downs[card.top, card.top_pink].pop()
            return Card(card.top, value, card.top_pink, pink)

        self.hands = [[fill(card) for card in hand] for hand in self.hands]
        self.display = [entry._replace(card=fill(entry.card)) for entry in self.display]
        self.to_take = [fill(card) for card in self.to_take]
        self.discard = [fill(card) for card in self.discard]
        self.points = [[fill(card) for card in pile] for pile in self.points]

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
