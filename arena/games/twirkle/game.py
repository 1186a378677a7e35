"""Twirkle: lay lines of one colour or one symbol, score every line you extend, shift at the end.

Rules: ../shared/seeds/twirkle.de.txt with rulings W1-W8 of RULINGS.md; the
English rules page for bot authors, protocol/games/twirkle.md, adds this
referee's own rulings T1-T13 (T11 is the idle guard, T13 the decision bound).

Every compound move is a sequence of small decisions, so that every legal
list stays short; the seat to move stays to move until its turn is over:

- ``opening``: the start player places its largest line set one card at a time.
- ``turn``: ``pick`` a first card to place, choose a first card to exchange, or pass.
- ``placing``: ``pick`` another card for the same line, or ``end_placing``.
- every ``pick`` is followed by a ``place`` of that card on one of its cells
  (in ``opening``, ``turn`` and ``placing`` alike; only cards with a cell are offered).
- ``exchanging``: choose another card, or ``end_exchange``.
- ``shifting``: ``lift`` a card, then ``put`` it; or ``end_turn``.

A step whose only option would be the "end" decision is taken automatically
(no further card fits, the exchange is at its maximum, no shift is possible).

Version history:
    1: first version (rulings W1-W8, T1-T13).
    2: a placement is two decisions per card, ``pick`` (the card) then ``place``
       (its cell), instead of one ``place`` per (card, cell) pair; the observation
       shows the picked card. Same rules, same reachable positions; the longest
       legal list over 1000 random games fell from 95 to 25 (T13's bound grew).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from arena.games.base import Decision, Game, GameSpec, ReplayMismatch
from arena.games.twirkle.board import DIRECTION_NAME, DIRECTIONS, Board, Pos
from arena.games.twirkle.cards import (
    HAND_SIZE,
    KIND_OF,
    NAMES,
    colour,
    full_deck,
    largest_line_set,
    line_points,
    symbol,
)
from arena.games.twirkle.shifting import Put, first_moves, next_move, source_line

#: W7: the bonus of the first player out of cards.
OUT_BONUS = 6
#: T11, the idle guard against endless exchanging (the rulebook has none): the game
#: ends like the all-pass end after IDLE_ROUNDS * players turns without a placement.
IDLE_ROUNDS = 5
#: T13: at most 108 placing turns with fewer than IDLE_ROUNDS * 4 idle turns before,
#: between and after them; a turn takes at most 22 decisions (6 picks, 6 places and
#: end_placing, then at most 4 lifts, 4 puts and end_turn), rounded up to 25.
MAX_DECISIONS = 110 * (IDLE_ROUNDS * 4 + 1) * 25

_STEPS: tuple[Pos, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _cell(decision: Decision) -> Pos:
    """The (x, y) cell a decision names."""
    return (int(decision["x"]), int(decision["y"]))


class Twirkle(Game):
    """The referee of one Twirkle match."""

    spec = GameSpec(
        id="twirkle",
        version=2,
        title="Twirkle",
        min_players=2,
        max_players=4,
        variants=(),
        max_decisions=MAX_DECISIONS,
        draw_probability=0.05,
    )

    hands: list[list[int]]
    bag: list[int]  # the top card is the last element
    board: Board
    scores: list[int]
    current: int
    phase: str
    start_seat: int
    opening_size: int
    placed: list[Pos]
    placed_kinds: list[int]
    picked: int | None
    selected: list[int]
    exchanged: int
    turn_action: str
    turn_points: int
    shift_source: list[Pos]
    shift_direction: Pos | None
    shift_last: Pos | None
    lifted: tuple[int, Pos] | None
    pending_puts: list[Put]
    moved: int
    passes: int
    idle: int
    turns: int
    last_turns: list[dict[str, Any] | None]
    end: dict[str, Any] | None

    # ----- set-up -------------------------------------------------------
    def _setup(self) -> None:
        """W1/W2: shuffle the bag, deal six each, find the start player."""
        deal = self.chance.draw("deal", self._random_deal)
        hands = [[KIND_OF[name] for name in hand] for hand in deal["hands"]]
        bag = [KIND_OF[name] for name in deal["bag"]]
        if len(hands) != self.players or any(len(h) != HAND_SIZE for h in hands):
            raise ReplayMismatch("recorded deal does not fit the number of players")
        if Counter(bag + [k for h in hands for k in h]) != Counter(full_deck()):
            raise ReplayMismatch("recorded deal is not the 108 Twirkle cards")
        self.hands = [sorted(h) for h in hands]
        self.bag = list(reversed(bag))
        self.board = Board()
        self.scores = [0] * self.players
        sizes = [largest_line_set(h) for h in self.hands]
        best = max(sizes)
        tied = [seat for seat in range(self.players) if sizes[seat] == best]
        starter = tied[0]
        if len(tied) > 1:
            starter = self.chance.draw(
                f"start player among seats {tied}", lambda rng: rng.choice(tied)
            )
            if starter not in tied:
                raise ReplayMismatch(f"recorded start player {starter} is not among {tied}")
        self.start_seat = starter
        self.current = starter
        self.opening_size = best
        self.passes = 0
        self.idle = 0
        self.turns = 0
        self.last_turns = [None] * self.players
        self.end = None
        self._begin_turn("opening")
        self._step = 0
        self._legal_key: tuple[int, int] = (-1, -1)
        self._legal_list: list[Decision] = []
        self._moves_key = -1
        self._moves: dict[Pos, list[Put]] = {}

    def _random_deal(self, rng: random.Random) -> dict[str, Any]:
        """Shuffle the 108 cards: six for every hand, the rest is the bag (top card first)."""
        cards = [NAMES[k] for k in full_deck()]
        rng.shuffle(cards)
        size = HAND_SIZE
        hands = [cards[i * size : (i + 1) * size] for i in range(self.players)]
        return {"hands": hands, "bag": cards[self.players * size :]}

    def _begin_turn(self, phase: str) -> None:
        """Reset everything that belongs to one turn and enter `phase`."""
        self.phase = phase
        self.placed = []
        self.placed_kinds = []
        self.picked = None
        self.selected = []
        self.exchanged = 0
        self.turn_action = ""
        self.turn_points = 0
        self.shift_source = []
        self.shift_direction = None
        self.shift_last = None
        self.lifted = None
        self.pending_puts = []
        self.moved = 0

    def changed(self) -> None:
        """Forget cached legal lists (for tests that edit the state by hand)."""
        self._step += 1

    # ----- whose turn and what they may do -------------------------------
    def _to_move(self) -> list[int]:
        """One seat at a time: the seat whose turn it is."""
        return [self.current]

    def _legal(self, seat: int) -> list[Decision]:
        """The options of the current step, cached until the state changes."""
        key = (self._step, self.board.version)
        if key != self._legal_key:
            self._legal_list = self._options()
            self._legal_key = key
        return list(self._legal_list)

    def _options(self) -> list[Decision]:
        """The decisions of the current step, computed afresh."""
        phase = self.phase
        if phase in ("opening", "turn", "placing"):
            pairs = self._place_options()
            if self.picked is not None:  # the second half of a placement: the picked card's cells
                name = NAMES[self.picked]
                return [
                    {"action": "place", "card": name, "x": x, "y": y}
                    for kind, (x, y) in pairs
                    if kind == self.picked
                ]
            decisions: list[Decision] = [
                {"action": "pick", "card": NAMES[kind]}
                for kind in sorted({kind for kind, _ in pairs})
            ]
            if phase == "placing":
                decisions.append({"action": "end_placing"})
            elif phase == "turn":
                if self.bag:
                    decisions += self._exchange_options()
                decisions.append({"action": "pass"})
            return decisions
        if phase == "exchanging":
            options = self._exchange_options() if len(self.selected) < self._exchange_cap() else []
            return [*options, {"action": "end_exchange"}]
        if phase == "shifting":
            return self._shift_options()
        return []

    def _place_options(self) -> list[tuple[int, Pos]]:
        """(kind, cell) pairs for the next card of this turn's placement, by kind then cell."""
        hand = sorted(set(self.hands[self.current]))
        board = self.board
        if not self.placed:
            if self.phase == "opening":
                return [(k, (0, 0)) for k in hand if self._opening_fits([k])]
            cells = board.frontier()
        else:
            first = self.placed[0]
            if len(self.placed) == 1:
                steps = _STEPS
            else:
                steps = ((1, 0), (-1, 0)) if self.placed[1][1] == first[1] else ((0, 1), (0, -1))
            cells = sorted({board.beyond(first, s) for s in steps}, key=lambda p: (p[1], p[0]))
        masks = [(cell, board.mask(cell)) for cell in cells]
        options = [(k, cell) for k in hand for cell, mask in masks if mask >> k & 1]
        if self.phase == "opening":
            placed_kinds = [board.cells[p] for p in self.placed]
            options = [(k, c) for k, c in options if self._opening_fits([*placed_kinds, k])]
        return options

    def _opening_fits(self, kinds: list[int]) -> bool:
        """W2: these cards can still grow into a line of `opening_size` with the hand."""
        pool = set(self.hands[self.current]) | {self.board.cells[p] for p in self.placed}
        first = kinds[0]
        for key in (colour, symbol):
            attribute = key(first)
            fits = all(key(k) == attribute for k in kinds)
            if fits and sum(1 for k in pool if key(k) == attribute) >= self.opening_size:
                return True
        return False

    def _exchange_cap(self) -> int:
        """W5: at most six cards, and no more than the bag holds."""
        return min(HAND_SIZE, len(self.bag), len(self.hands[self.current]) + len(self.selected))

    def _exchange_options(self) -> list[Decision]:
        """One `exchange` decision per distinct kind left in the hand."""
        return [
            {"action": "exchange", "card": NAMES[k]} for k in sorted(set(self.hands[self.current]))
        ]

    def _shift_options(self) -> list[Decision]:
        """W6: lift a leaf or the next source card, put the lifted card, or end the turn."""
        if self.lifted is not None:
            return [
                {
                    "action": "put",
                    "x": put.cell[0],
                    "y": put.cell[1],
                    "direction": DIRECTION_NAME[put.direction],
                }
                for put in self.pending_puts
            ]
        end: Decision = {"action": "end_turn"}
        if self.moved == 0:
            return [
                *({"action": "lift", "x": x, "y": y} for x, y in self._first_moves()),
                end,
            ]
        if self._next_put() is None:
            return [end]
        x, y = self.shift_source[0]
        return [{"action": "lift", "x": x, "y": y}, end]

    def _first_moves(self) -> dict[Pos, list[Put]]:
        """The leaves that can start a shift with their target cells, cached per board version."""
        key = self.board.version
        if self._moves_key != key:
            self._moves = first_moves(self.board)
            self._moves_key = key
        return self._moves

    def _next_put(self) -> Pos | None:
        """The cell the next card of the source line would go to, or None if it cannot move."""
        if not self.shift_source or self.shift_last is None or self.shift_direction is None:
            return None
        return next_move(self.board, self.shift_source[0], self.shift_last, self.shift_direction)

    # ----- applying a decision -------------------------------------------
    def _apply(self, seat: int, decision: Decision) -> None:
        """Apply one checked decision, then take every step that has no choice."""
        self._step += 1
        action = decision["action"]
        if action == "pick":
            self.picked = KIND_OF[decision["card"]]
        elif action == "place":
            self._place(KIND_OF[decision["card"]], _cell(decision))
        elif action == "end_placing":
            self._finish_placing()
        elif action == "exchange":
            self.hands[seat].remove(KIND_OF[decision["card"]])
            self.selected.append(KIND_OF[decision["card"]])
            self.turn_action = "exchange"
            self.phase = "exchanging"
        elif action == "end_exchange":
            self._finish_exchange()
        elif action == "pass":
            self.turn_action = "pass"
            self.phase = "shifting"
        elif action == "lift":
            self._lift(_cell(decision))
        elif action == "put":
            self._put(_cell(decision), DIRECTIONS[decision["direction"]])
        elif action == "end_turn":
            self._end_turn()
        else:  # pragma: no cover - the legal check refuses anything else
            raise AssertionError(action)
        self._settle()

    def _settle(self) -> None:
        """Take every step that has only its "end" option left."""
        finishers = {
            "end_placing": self._finish_placing,
            "end_exchange": self._finish_exchange,
            "end_turn": self._end_turn,
        }
        while self.phase != "over":
            self._step += 1
            options = self._legal(self.current)
            if self.phase == "opening" and not options:
                self._finish_placing()
            elif len(options) == 1 and options[0]["action"] in finishers:
                finishers[options[0]["action"]]()
            else:
                return

    def _place(self, kind: int, cell: Pos) -> None:
        """Lay the picked hand card on the board as part of this turn's placement."""
        assert kind == self.picked, "the legal check lets only the picked card be placed"
        self.picked = None
        self.hands[self.current].remove(kind)
        self.board.put(cell, kind)
        self.placed.append(cell)
        self.placed_kinds.append(kind)
        self.turn_action = "place"
        if self.phase == "turn":
            self.phase = "placing"

    def _finish_placing(self) -> None:
        """W2/W4 scoring, refill from the bag, W7's end check, then the shift."""
        if self.phase == "opening":
            count = len(self.placed)
            points = line_points(count) if count > 1 else count
        else:
            points = self.board.placement_points(self.placed)
        self.turn_points = points
        self.scores[self.current] += points
        hand = self.hands[self.current]
        while len(hand) < HAND_SIZE and self.bag:
            hand.append(self.bag.pop())
        hand.sort()
        if not hand:
            self._record_turn()
            self._finish(first_out=self.current, reason="out")
            return
        self.phase = "shifting"

    def _finish_exchange(self) -> None:
        """W5: draw as many cards as were chosen; then they go back and the bag is shuffled."""
        hand = self.hands[self.current]
        for _ in self.selected:
            hand.append(self.bag.pop())
        hand.sort()
        contents = sorted(self.bag + self.selected)
        order = self.chance.shuffled("bag after exchange", [NAMES[k] for k in contents])
        if sorted(KIND_OF.get(name, -1) for name in order) != contents:
            raise ReplayMismatch("recorded bag after an exchange has the wrong cards")
        self.bag = [KIND_OF[name] for name in reversed(order)]
        self.exchanged = len(self.selected)
        self.selected = []
        self.phase = "shifting"

    def _lift(self, cell: Pos) -> None:
        """W6: take a leaf off the board; the next decision puts it."""
        if self.moved == 0:
            self.pending_puts = self._first_moves()[cell]
            self.shift_source = source_line(self.board, cell)[1:]
        else:
            target = self._next_put()
            assert target is not None and self.shift_direction is not None
            self.pending_puts = [Put(target, self.shift_direction)]
            self.shift_source = self.shift_source[1:]
        self.lifted = (self.board.lift(cell), cell)

    def _put(self, cell: Pos, direction: Pos) -> None:
        """W6: lay the lifted card at a line end, extending that line along `direction`."""
        assert self.lifted is not None
        self.board.put(cell, self.lifted[0])
        self.lifted = None
        self.pending_puts = []
        self.shift_last = cell
        self.shift_direction = direction
        self.moved += 1

    def _record_turn(self) -> None:
        """Keep a public summary of the turn that just ended."""
        action = self.turn_action or "pass"
        summary: dict[str, Any] = {"action": action, "cards": 0, "points": 0, "shifted": 0}
        if action == "place":
            summary["cards"] = len(self.placed)
            summary["points"] = self.turn_points
        elif action == "exchange":
            summary["cards"] = self.exchanged
        summary["shifted"] = self.moved
        self.last_turns[self.current] = summary
        self.turns += 1

    def _end_turn(self) -> None:
        """W7's all-pass end and the idle guard, else the next seat's turn."""
        self._record_turn()
        action = self.turn_action or "pass"
        self.passes = self.passes + 1 if action == "pass" else 0
        self.idle = 0 if action == "place" else self.idle + 1
        if self.passes >= self.players:
            self._finish(first_out=None, reason="all_passed")
        elif self.idle >= IDLE_ROUNDS * self.players:
            self._finish(first_out=None, reason="idle")
        else:
            self.current = (self.current + 1) % self.players
            self._begin_turn("turn")

    def _finish(self, first_out: int | None, reason: str) -> None:
        """W7: +6 for the first player out, -1 per card left for everyone else."""
        adjustments = [
            OUT_BONUS if seat == first_out else -len(self.hands[seat])
            for seat in range(self.players)
        ]
        for seat, delta in enumerate(adjustments):
            self.scores[seat] += delta
        self.end = {"reason": reason, "first_out": first_out, "adjustments": adjustments}
        self.phase = "over"

    # ----- views and results ---------------------------------------------
    def _observe(self, seat: int) -> dict[str, Any]:
        """Own hand, the whole board, counts for everything hidden."""
        board = self.board.cells
        mover = self.current
        shift: dict[str, Any] | None = None
        if self.phase == "shifting" and (self.moved or self.lifted):
            shift = {
                "source": [[x, y] for x, y in self.shift_source],
                "direction": (
                    DIRECTION_NAME[self.shift_direction] if self.shift_direction else None
                ),
                "moved": self.moved,
                "lifted": (
                    {"card": NAMES[self.lifted[0]], "x": self.lifted[1][0], "y": self.lifted[1][1]}
                    if self.lifted
                    else None
                ),
            }
        return {
            "seat": seat,
            "players": self.players,
            "phase": self.phase,
            "to_move": None if self.phase == "over" else mover,
            "start_seat": self.start_seat,
            "opening_size": self.opening_size,
            "hand": [NAMES[k] for k in self.hands[seat]],
            "picked": (NAMES[self.picked] if seat == mover and self.picked is not None else None),
            "exchange_selected": (
                [NAMES[k] for k in sorted(self.selected)] if seat == mover else []
            ),
            "exchange_count": len(self.selected),
            "board": [
                {"x": x, "y": y, "card": NAMES[board[(x, y)]]}
                for x, y in sorted(board, key=lambda p: (p[1], p[0]))
            ],
            "placed": [
                {"x": x, "y": y, "card": NAMES[kind]}
                for (x, y), kind in zip(self.placed, self.placed_kinds, strict=True)
            ],
            "placement_points": (
                self.turn_points
                if self.phase != "placing"
                else self.board.placement_points(self.placed)
            ),
            "shift": shift,
            "bag": len(self.bag),
            "hand_sizes": [
                len(h) + (len(self.selected) if s == mover else 0) for s, h in enumerate(self.hands)
            ],
            "scores": list(self.scores),
            "turns": self.turns,
            "passes": self.passes,
            "idle_turns": self.idle,
            "idle_limit": IDLE_ROUNDS * self.players,
            "last_turns": [dict(t) if t else None for t in self.last_turns],
            "end": dict(self.end) if self.end else None,
        }

    def _is_over(self) -> bool:
        """True once W7's end (or the idle guard) was reached."""
        return self.phase == "over"

    def _scores(self) -> Sequence[float]:
        """The totals, end adjustments included."""
        return list(self.scores)

    def describe(self, seat: int, decision: Decision) -> str:
        """One human line, e.g. 'seat 1 places red-star at (2, 0)'."""
        action = decision.get("action")
        if action == "pick":
            return f"seat {seat} picks {decision['card']} to place"
        if action == "place":
            return f"seat {seat} places {decision['card']} at ({decision['x']}, {decision['y']})"
        if action == "exchange":
            return f"seat {seat} puts {decision['card']} aside to exchange"
        if action == "lift":
            return f"seat {seat} lifts the card at ({decision['x']}, {decision['y']})"
        if action == "put":
            return (
                f"seat {seat} puts it at ({decision['x']}, {decision['y']}),"
                f" extending a line {decision['direction']}"
            )
        words = {
            "end_placing": "ends placing",
            "end_exchange": "ends the exchange",
            "pass": "passes",
            "end_turn": "ends the turn",
        }
        return f"seat {seat} {words.get(str(action), str(action))}"
