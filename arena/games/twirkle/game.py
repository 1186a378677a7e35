"""Twirkle: lay lines of one colour or one symbol, score every line you extend, shift at the end.

Rules: ../shared/seeds/twirkle.de.txt with rulings W1-W9 of RULINGS.md; the
English rules page for bot authors, protocol/games/twirkle.md, adds this
referee's own rulings T1-T13 (T11 is W9's idle guard, T13 the decision bound).

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
       Later, same version (no rule changed): the observation gained ``turn_action``,
       ``exchanged``, ``returned`` and ``shift.last_put``, what a seat remembers of
       the turn under way and of its own exchange, so that `determinize` is exact.
    3: the idle guard (T11) is ruling W9's safeguard, 30 x players turns without a
       placement instead of 5 x players, which ended games the rulebook plays on
       (issue 17); T13's bound grew with it. Replays of versions 1 and 2 are refused
       (the rules version differs), as version 1's were by version 2.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from arena.games.base import Decision, Game, GameSpec, ReplayMismatch
from arena.games.leylo.draws import inline_getrandbits, shuffle
from arena.games.twirkle import fast, sampling
from arena.games.twirkle.board import (
    RANK_STEP,
    STEP_NAME,
    Board,
    Cell,
    Pos,
    decode,
    encode,
    end_of,
)
from arena.games.twirkle.cards import (
    ALL_KINDS,
    HAND_SIZE,
    KIND_OF,
    NAMES,
    colour,
    full_deck,
    largest_line_set,
    line_points,
    symbol,
)
from arena.games.twirkle.moves import (
    END_EXCHANGE,
    END_PLACING,
    END_TURN,
    EXCHANGES,
    PASS,
    PICKS,
    Move,
    decision_of,
    describe,
    move_of,
)
from arena.games.twirkle.playout import Turns
from arena.games.twirkle.shifting import ShiftStarts, next_move, source_line
from arena.games.twirkle.state import (
    EXCHANGE_DRAW,
    IDLE_ROUNDS,
    MAX_DECISIONS,
    OUT_BONUS,
    TURN_DECISIONS,
)
from arena.games.twirkle.views import TwirkleObservation

#: The 108 cards in kind order, to check a recorded deal against.
FULL_DECK = full_deck()
#: The first card of the opening lies at (0, 0) (W8).
ORIGIN = encode((0, 0))


class Twirkle(Game):
    """The referee of one Twirkle match.

    Besides the `Game` interface, its public methods (`place`, `finish_placing`, ...
    `next_put`) are the package's internal interface for the whole-turn playouts,
    `state.TwirkleState` (see the package docstring): not for bots.
    """

    spec = GameSpec(
        id="twirkle",
        version=3,
        title="Twirkle",
        min_players=2,
        max_players=4,
        variants=(),
        max_decisions=MAX_DECISIONS,
        draw_probability=0.05,
    )

    hands: list[list[int]]  # each sorted
    bag: list[int]  # the top card is the last element
    board: Board
    scores: list[int]
    current: int
    phase: str
    start_seat: int
    opening_size: int
    placed_cells: list[Cell]
    placed_kinds: list[int]
    picked: int | None
    selected: list[int]
    exchanged: int
    turn_action: str
    turn_points: int
    shift_source: list[Cell]
    shift_direction: int | None
    shift_last: Cell | None
    lifted: tuple[int, Cell] | None
    pending_puts: list[int]
    moved: int
    returner: int | None  # whose given-back cards are surely in the bag (until the next draw)
    returned: list[int]  # those cards, sorted; replaced, never changed in place (clones share it)
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
        if sorted(bag + [k for h in hands for k in h]) != FULL_DECK:
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
        self.returner = None
        self.returned = []
        self.passes = 0
        self.idle = 0
        self.turns = 0
        self.last_turns = [None] * self.players
        self.end = None
        self._begin_turn("opening")
        self._reset_caches()

    def _random_deal(self, rng: random.Random) -> dict[str, Any]:
        """Shuffle the 108 cards: six for every hand, the rest is the bag (top card first)."""
        cards = [NAMES[k] for k in full_deck()]
        shuffle(rng, cards)  # `rng.shuffle`, with fewer Python calls (same order)
        size = HAND_SIZE
        hands = [cards[i * size : (i + 1) * size] for i in range(self.players)]
        return {"hands": hands, "bag": cards[self.players * size :]}

    def _begin_turn(self, phase: str) -> None:
        """Reset everything that belongs to one turn and enter `phase`."""
        self.phase = phase
        self.placed_cells = []
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

    def _reset_caches(self) -> None:
        """Forget every cached list (they are keyed by a step counter and the board)."""
        self._step = 0
        self._moves_key: tuple[int, int] = (-1, -1)
        self._moves_list: list[Move] = []
        self._legal_key: tuple[int, int] = (-1, -1)
        self._legal_list: list[Decision] = []
        self._starts: ShiftStarts | None = None
        self._open: tuple[Any, ...] = ()

    def changed(self) -> None:
        """Forget cached legal lists (the state changed behind them: a test editing it by
        hand, or `_playout`'s whole turns)."""
        self._step += 1
        self._starts = None
        self._open = ()

    @property
    def placed(self) -> list[Pos]:
        """This turn's placed cells as (x, y), in order."""
        return [decode(cell) for cell in self.placed_cells]

    # ----- whose turn and what they may do -------------------------------
    def _to_move(self) -> list[int]:
        """One seat at a time: the seat whose turn it is."""
        return [self.current]

    def _legal(self, seat: int) -> list[Decision]:
        """The options of the current step as decisions, cached until the state changes."""
        key = (self._step, self.board.version)
        if key != self._legal_key:
            self._legal_list = [decision_of(move) for move in self._moves()]
            self._legal_key = key
        return list(self._legal_list)

    def _moves(self) -> list[Move]:
        """The options of the current step in compact form, cached until the state changes."""
        key = (self._step, self.board.version)
        if key != self._moves_key:
            self._moves_list = self._options()
            self._moves_key = key
        return self._moves_list

    def _options(self) -> list[Move]:
        """The options of the current step, computed afresh, in the documented order."""
        phase = self.phase
        if phase in ("opening", "turn", "placing"):
            if self.picked is not None:  # the second half of a placement: the card's cells
                kind = self.picked
                return [("place", kind, cell) for cell in self._cells_for(kind)]
            moves: list[Move] = [PICKS[kind] for kind in self._pickable()]
            if phase == "placing":
                moves.append(END_PLACING)
            elif phase == "turn":
                if self.bag:
                    moves += self._exchange_options()
                moves.append(PASS)
            return moves
        if phase == "exchanging":
            if len(self.selected) < self.exchange_cap():
                options = self._exchange_options()
                options.append(END_EXCHANGE)
                return options
            return [END_EXCHANGE]
        if phase == "shifting":
            return self._shift_options()
        return []

    def _open_cells(self) -> list[tuple[Cell, int]]:
        """(cell, mask) for every cell the next card of this turn's placement may go to.

        A first card goes anywhere on the frontier (the opening's on (0, 0)); a second
        at either end of either line through the first card; then at the ends of theirs.
        """
        placed = self.placed_cells
        if not placed:
            if self.phase == "opening":
                return [(ORIGIN, ALL_KINDS)]
            return self.board.open_cells()
        # Asked twice per card (its pick, then its place): kept for this board and placement.
        board, kept = self.board, self._open
        if kept and kept[:4] == (board, board.version, placed, len(placed)):
            cells: list[tuple[Cell, int]] = kept[4]
            return cells
        cells = board.next_cells(placed)
        self._open = (board, board.version, placed, len(placed), cells)
        return cells

    def _cells_for(self, kind: int) -> list[Cell]:
        """The cells where `kind` fits as the next card of this turn's placement."""
        if not self.placed_cells and self.phase != "opening":
            return self.board.cells_taking(kind)
        return [cell for cell, mask in self._open_cells() if mask >> kind & 1]

    def _pickable(self) -> list[int]:
        """The distinct hand kinds that fit somewhere now, in card order."""
        hand = list(dict.fromkeys(self.hands[self.current]))  # the hand is sorted
        if self.phase == "opening":
            placed = self.placed_kinds
            hand = [k for k in hand if self._opening_fits([*placed, k])]
        elif not self.placed_cells:  # a turn's first card: anywhere on the frontier
            fits = self.board.fitting()
            return [k for k in hand if fits >> k & 1]
        fits = 0
        for _, mask in self._open_cells():
            fits |= mask
        return [k for k in hand if fits >> k & 1]

    def _opening_fits(self, kinds: list[int]) -> bool:
        """W2: these cards can still grow into a line of `opening_size` with the hand."""
        pool = set(self.hands[self.current]) | set(self.placed_kinds)
        first = kinds[0]
        for key in (colour, symbol):
            attribute = key(first)
            fits = all(key(k) == attribute for k in kinds)
            if fits and sum(1 for k in pool if key(k) == attribute) >= self.opening_size:
                return True
        return False

    def exchange_cap(self) -> int:
        """W5: at most six cards, and no more than the bag holds."""
        return min(HAND_SIZE, len(self.bag), len(self.hands[self.current]) + len(self.selected))

    def _exchange_options(self) -> list[Move]:
        """One `exchange` per distinct kind left in the hand (kept sorted: `dict.fromkeys`
        drops the repeats in order)."""
        return [EXCHANGES[k] for k in dict.fromkeys(self.hands[self.current])]

    def _shift_options(self) -> list[Move]:
        """W6: lift a leaf or the next source card, put the lifted card, or end the turn."""
        if self.lifted is not None:
            return [("put", end) for end in self.pending_puts]
        if self.moved == 0:
            return [*(("lift", leaf) for leaf in self.shift_starts().liftable()), END_TURN]
        if self.next_put() is None:
            return [END_TURN]
        return [("lift", self.shift_source[0]), END_TURN]

    def shift_starts(self) -> ShiftStarts:
        """The leaves that can start a shift, cached per board."""
        starts = self._starts
        if starts is None or starts.board is not self.board or starts.version != self.board.version:
            starts = self._starts = ShiftStarts(self.board)
        return starts

    def next_put(self) -> Cell | None:
        """The cell the next card of the source line would go to, or None if it cannot move."""
        if not self.shift_source or self.shift_last is None or self.shift_direction is None:
            return None
        return next_move(self.board, self.shift_source[0], self.shift_last, self.shift_direction)

    # ----- applying a decision -------------------------------------------
    def _apply(self, seat: int, decision: Decision) -> None:
        """Apply one checked decision, then take every step that has no choice."""
        self._remember(self._play(move_of(decision)))

    def _remember(self, options: list[Move]) -> None:
        """Keep `options` as the current step's list (what `_moves` would compute)."""
        self._moves_key = (self._step, self.board.version)
        self._moves_list = options

    def _playout(self, rng: random.Random, limit: int) -> int:
        """The plain random loop, whole turns at a time (`playout.Turns`, or the same turns
        in C: `fast`): the same lists, so the same choices. The step loop takes the opening
        and whatever turn is under way, and the last turn when fewer than `TURN_DECISIONS`
        of the limit are left."""
        made = self._step_playout(rng, limit, to_turn=True)
        if made < limit and self._at_turn_start():
            made += fast.play_turns(self, rng, limit - made)  # in C, when it is built
            turns = Turns(self, rng)
            while self._at_turn_start() and limit - made >= TURN_DECISIONS:
                made += turns.play()
            self.changed()  # the turns changed the state behind the cached lists
        return made + self._step_playout(rng, limit - made)

    def _at_turn_start(self) -> bool:
        """True when a seat's turn starts now (nothing picked, set aside or passed yet)."""
        return self.phase == "turn" and self.picked is None

    def _step_playout(self, rng: random.Random, limit: int, to_turn: bool = False) -> int:
        """The plain random loop one decision at a time on compact moves, stopping at the
        next turn's start with `to_turn`.

        `_play` hands back the next step's options, so no list is looked up twice.
        """
        getrandbits = inline_getrandbits(rng)
        made = 0
        history = self.history
        play = self._play
        moves = self._moves() if self.phase != "over" else []
        while made < limit and moves and not (to_turn and self._at_turn_start()):
            count = len(moves)
            if getrandbits is None:
                move = rng.choice(moves)
            else:  # `rng.choice(moves)`, inlined (see `leylo.draws`)
                width = count.bit_length()
                index = getrandbits(width)
                while index >= count:
                    index = getrandbits(width)
                move = moves[index]
            history.append((self.current, decision_of(move)))
            moves = play(move)
            made += 1
        self._remember(moves)  # `_play` keeps no cache: one write here, not one per step
        return made

    def _play(self, move: Move) -> list[Move]:
        """Apply one legal compact move, then take every step that has no choice; return the
        options of the step reached (empty once the game is over)."""
        self._step += 1
        action = move[0]
        if action == "pick":
            self.picked = move[1]
        elif action == "place":
            self.place(move[1], move[2])
        elif action == "exchange":
            self.hands[self.current].remove(move[1])
            self.selected.append(move[1])
            self.turn_action = "exchange"
            self.phase = "exchanging"
        elif action == "pass":
            self.turn_action = "pass"
            self.phase = "shifting"
        elif action == "lift":
            self.lift(move[1])
        elif action == "put":
            self.put(move[1])
        else:
            self._finisher(action)()
        return self._settle()

    def _finisher(self, action: str) -> Callable[[], None]:
        """The method of an "end" decision."""
        if action == "end_placing":
            return self.finish_placing
        if action == "end_exchange":
            return self.finish_exchange
        assert action == "end_turn", action
        return self.end_turn

    def _settle(self) -> list[Move]:
        """Take every step that has only its "end" option left; return the options of the step
        reached (for the caller to `_remember`), or [] once the game is over."""
        while self.phase != "over":
            self._step += 1
            options = self._options()
            if len(options) > 1:  # the common case: a real choice
                return options
            if self.phase == "opening" and not options:
                self.finish_placing()
            elif len(options) == 1 and options[0] in (END_PLACING, END_EXCHANGE, END_TURN):
                self._finisher(options[0][0])()
            else:
                return options
        return []

    def place(self, kind: int, cell: Cell) -> None:
        """Lay the picked hand card on the board as part of this turn's placement."""
        assert kind == self.picked, "the legal check lets only the picked card be placed"
        self.picked = None
        self.hands[self.current].remove(kind)
        self.board.place(cell, kind)
        self.placed_cells.append(cell)
        self.placed_kinds.append(kind)
        self.turn_action = "place"
        if self.phase == "turn":
            self.phase = "placing"

    def finish_placing(self) -> None:
        """W2/W4 scoring, refill from the bag, W7's end check, then the shift."""
        if self.phase == "opening":
            count = len(self.placed_cells)
            points = line_points(count) if count > 1 else count
        else:
            points = self.board.placement_points(self.placed_cells)
        self.turn_points = points
        self.scores[self.current] += points
        hand = self.hands[self.current]
        if len(hand) < HAND_SIZE and self.bag:
            self.returner = None  # a card leaves the bag: see `_observe`
            while len(hand) < HAND_SIZE and self.bag:
                hand.append(self.bag.pop())
        hand.sort()
        if not hand:
            self._record_turn()
            self._finish(first_out=self.current, reason="out")
            return
        self.phase = "shifting"

    def finish_exchange(self) -> None:
        """W5: draw as many cards as were chosen; then they go back and the bag is shuffled."""
        hand = self.hands[self.current]
        for _ in self.selected:
            hand.append(self.bag.pop())
        hand.sort()
        contents = sorted(self.bag + self.selected)
        if self.chance.simulated:  # nobody replays a simulation: shuffle the kinds themselves
            self.bag = self.chance.draw(EXCHANGE_DRAW, partial(_shuffled, contents))
            self.bag.reverse()
        else:
            drawn: list[list[int]] = []  # the kinds in their new order, when drawn here

            def make(rng: random.Random) -> list[str]:
                drawn.append(_shuffled(contents, rng))
                return list(map(NAMES.__getitem__, contents))

            order = self.chance.draw(EXCHANGE_DRAW, make)
            if drawn:  # recorded: `order` names these kinds
                self.bag = drawn[0]
                self.bag.reverse()
            else:  # replayed: check the recorded order
                if sorted(KIND_OF.get(name, -1) for name in order) != contents:
                    raise ReplayMismatch("recorded bag after an exchange has the wrong cards")
                self.bag = [KIND_OF[name] for name in reversed(order)]
        self.exchanged = len(self.selected)
        self.returner, self.returned = self.current, sorted(self.selected)
        self.selected = []
        self.phase = "shifting"

    def lift(self, cell: Cell) -> None:
        """W6: take a leaf off the board; the next decision puts it."""
        if self.moved == 0:
            self.pending_puts = self.shift_starts().puts(cell)
            self.shift_source = source_line(self.board, cell)[1:]
        else:
            target = self.next_put()
            assert target is not None and self.shift_direction is not None
            self.pending_puts = [end_of(target, self.shift_direction)]
            self.shift_source = self.shift_source[1:]
        self.lifted = (self.board.remove(cell), cell)

    def put(self, end: int) -> None:
        """W6: lay the lifted card at a line end, extending that line in the end's direction."""
        assert self.lifted is not None
        cell = end >> 2
        self.board.place(cell, self.lifted[0])
        self.lifted = None
        self.pending_puts = []
        self.shift_last = cell
        self.shift_direction = RANK_STEP[end & 3]
        self.moved += 1

    def _record_turn(self) -> None:
        """Keep a public summary of the turn that just ended."""
        action = self.turn_action or "pass"
        summary: dict[str, Any] = {"action": action, "cards": 0, "points": 0, "shifted": 0}
        if action == "place":
            summary["cards"] = len(self.placed_cells)
            summary["points"] = self.turn_points
        elif action == "exchange":
            summary["cards"] = self.exchanged
        summary["shifted"] = self.moved
        self.last_turns[self.current] = summary
        self.turns += 1

    def end_turn(self) -> None:
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

    # ----- search support (the sampling itself is in `sampling`) -----------
    def _copy_state(self, twin: Game) -> None:
        """Own copies of the hands, the board and every list (the dicts in them never change)."""
        assert isinstance(twin, Twirkle)
        twin.hands = [list(hand) for hand in self.hands]
        twin.bag = list(self.bag)
        twin.board = self.board.copy()
        twin.scores = list(self.scores)
        twin.placed_cells = list(self.placed_cells)
        twin.placed_kinds = list(self.placed_kinds)
        twin.selected = list(self.selected)
        twin.shift_source = list(self.shift_source)
        twin.pending_puts = list(self.pending_puts)
        twin.last_turns = list(self.last_turns)
        twin._starts = None  # it points at this state's board

    def _hidden(self, seat: int) -> dict[str, list[Any]]:
        """Other hands, the cards set aside in somebody else's exchange, and the bag."""
        places = {
            f"hand:{other}": [NAMES[k] for k in hand]
            for other, hand in enumerate(self.hands)
            if other != seat
        }
        if self.current != seat and self.selected:
            places["exchange"] = [NAMES[k] for k in self.selected]
        places["bag"] = [NAMES[k] for k in self.bag]
        return places

    def _ruled_out(self, seat: int) -> dict[str, list[Any]]:
        """W2: a start player opening a line of six holds exactly the rest of that line."""
        return sampling.ruled_out(self.observe(seat))

    @classmethod
    def _determinize(
        cls,
        observation: Mapping[str, Any],
        seat: int,
        players: int,
        variant: dict[str, Any],
        rng: random.Random,
    ) -> Game:
        """The public state from the observation, the hidden cards dealt by `sampling`."""
        state = cls.blank(players, variant, rng.getrandbits(64))
        assert isinstance(state, Twirkle)
        state._begin_turn(observation["phase"])  # every field of a turn reset, then filled
        sampling.restore(state, observation, rng)
        state._reset_caches()
        return state

    # ----- views and results ---------------------------------------------
    def _observe(self, seat: int) -> TwirkleObservation:
        """Own hand, the whole board, counts for everything hidden.

        Also what the seat remembers: the turn under way (its action, the cards an
        exchange swapped, where the shift's last card went; all public) and, only for
        their owner, the cards given back in an exchange while they are surely in the
        bag (`returner`: from that exchange until the next card is drawn from it).
        """
        mover = self.current
        shift: dict[str, Any] | None = None
        if self.phase == "shifting" and (self.moved or self.lifted):
            shift = {
                "source": [list(decode(cell)) for cell in self.shift_source],
                "direction": (
                    STEP_NAME[self.shift_direction] if self.shift_direction is not None else None
                ),
                "moved": self.moved,
                "lifted": self._lifted_view(),
                "last_put": None if self.shift_last is None else list(decode(self.shift_last)),
            }
        over = self.phase == "over"
        return {
            "seat": seat,
            "players": self.players,
            "phase": self.phase,  # type: ignore[typeddict-item]  # one of the six names
            "to_move": [] if over else [mover],
            "scores": list(self.scores),
            "game": {
                "start_seat": self.start_seat,
                "opening_size": self.opening_size,
                "hand": [NAMES[k] for k in self.hands[seat]],
                "picked": (
                    NAMES[self.picked] if seat == mover and self.picked is not None else None
                ),
                "exchange_selected": (
                    [NAMES[k] for k in sorted(self.selected)] if seat == mover else []
                ),
                "exchange_count": len(self.selected),
                "exchanged": self.exchanged,
                "returned": ([NAMES[k] for k in self.returned] if seat == self.returner else []),
                "board": self.board.card_views(),  # type: ignore[typeddict-item]
                "turn_action": self.turn_action or None,  # type: ignore[typeddict-item]
                "placed": [
                    _card_view(cell, kind)  # type: ignore[misc]
                    for cell, kind in zip(self.placed_cells, self.placed_kinds, strict=True)
                ],
                "placement_points": (
                    self.turn_points
                    if self.phase != "placing"
                    else self.board.placement_points(self.placed_cells)
                ),
                "shift": shift,  # type: ignore[typeddict-item]
                "bag": len(self.bag),
                "hand_sizes": [
                    len(h) + (len(self.selected) if s == mover else 0)
                    for s, h in enumerate(self.hands)
                ],
                "turns": self.turns,
                "passes": self.passes,
                "idle_turns": self.idle,
                "idle_limit": IDLE_ROUNDS * self.players,
                "last_turns": [dict(t) if t else None for t in self.last_turns],  # type: ignore[misc]
                "end": _end_view(self.end),
            },
        }

    def _lifted_view(self) -> dict[str, Any] | None:
        """The card in the air during a shift, as the observation shows it."""
        if self.lifted is None:
            return None
        return _card_view(self.lifted[1], self.lifted[0])

    def _is_over(self) -> bool:
        """True once W7's end (or the idle guard) was reached."""
        return self.phase == "over"

    def _scores(self) -> Sequence[float]:
        """The totals, end adjustments included."""
        return list(self.scores)

    def describe(self, seat: int, decision: Decision) -> str:
        """One human line, e.g. 'seat 1 places red-star at (2, 0)'."""
        return describe(seat, decision)


def _end_view(end: dict[str, Any] | None) -> Any:
    """The observation's copy of the game's end: its adjustments a list of its own, so
    that a caller changing an observation cannot change the referee's."""
    return {**end, "adjustments": list(end["adjustments"])} if end else None


def _shuffled(items: list[Any], rng: random.Random) -> list[Any]:
    """`Chance.shuffled`'s outcome, drawn with fewer calls: `items` (a fresh list) shuffled."""
    shuffle(rng, items)
    return items


def _card_view(cell: Cell, kind: int) -> dict[str, Any]:
    """A card on a cell as observations show it: ``{"x", "y", "card"}``."""
    x, y = decode(cell)
    return {"x": x, "y": y, "card": NAMES[kind]}
