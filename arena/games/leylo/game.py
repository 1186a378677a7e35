"""The LEYLO referee: rounds of 4x4 face-down grids, lines, jokers and action-card claims.

Rules: ``seeds/leylo.de.txt`` with rulings L1-L11 of RULINGS.md; the English rules
page for bot authors is ``protocol/games/leylo.md``. Every compound move is split
into small decisions: the opening flips one card per decision (all seats at
once), a turn as draw-then-place, clearing one line per decision, and claims
offered to one eligible seat at a time in priority order.

Version history: 1 - first version.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from itertools import chain, compress, repeat
from typing import Any

from arena.games.base import Decision, Game, GameSpec, ReplayMismatch, VariantOption
from arena.games.leylo.cards import (
    ACTION,
    ADJACENT,
    ALL_CELLS,
    CELLS,
    CLAIM,
    CLEAR,
    EMPTY,
    FLIP,
    FULL_LINES,
    JOKERS,
    LINE_CELLS,
    LINES,
    NAMES,
    OPENING_FLIPS,
    OVER,
    PLACE,
    TURN,
    TURNS_PER_PLAYER,
    card_value,
    codes_from_names,
    full_deck,
    is_line,
    shows_action,
    up_mask,
)
from arena.games.leylo.decisions import (
    CLAIMS,
    CLEARS,
    DRAWS,
    FLIPS,
    KEEP,
    PASS,
    REPLACES,
    REVEALS,
    SWAP_BY_PAIR,
    SWAPS,
)
from arena.games.leylo.draws import shuffle
from arena.games.leylo.playout import random_playout
from arena.games.leylo.search import fill_from_observation, hidden_places, ruled_out_places
from arena.games.leylo.views import SHOWN, LeyloObservation, ViewParts, copy_result

#: The deck's codes in table order (what a deal shuffles), and sorted (what a replayed
#: deal must hold).
DECK: tuple[int, ...] = tuple(full_deck())
SORTED_DECK: list[int] = sorted(DECK)
#: Points of every card code (L6) with more than 2 players ([False]) and with 2 ([True]);
#: an EMPTY cell (-1, the last index) counts 0.
POINTS = tuple((*map(card_value, range(len(NAMES)), repeat(players)), 0) for players in (3, 2))
#: By player count and next mover: who is offered a claim, in order (L5). Priority runs
#: clockwise from the seat after the next mover; the player who just moved is last.
CLAIM_ORDER: dict[int, list[tuple[int, ...]]] = {
    n: [tuple((first + k) % n for k in range(1, n - 1)) for first in range(n)] for n in range(2, 7)
}


def _max_decisions() -> int:
    """A safe bound on decisions in a match: 6 players, 5 rounds, the L10 guard.

    A round has 2n flips and at most 61n turns (the guard, or a final lap started
    before it); a turn has at most 3 decisions plus its clears, a gap between
    turns at most n - 2 claim offers and one keep; a grid can be cleared 4 times.
    """
    n, rounds = 6, 5
    turns = (TURNS_PER_PLAYER + 1) * n
    return rounds * (OPENING_FLIPS * n + turns * (3 + n - 1) + 4 * n * 2)


class Leylo(Game):
    """LEYLO for 2-6 players: lowest total after 3-5 rounds wins.

    Besides the `Game` interface, its public methods (`flip`, `draw`, ... `has_line`)
    are the package's internal interface for the fast playout, `state.LeyloState`
    (see the package docstring): not for bots.
    """

    spec = GameSpec(
        id="leylo",
        version=1,
        title="LEYLO",
        min_players=2,
        max_players=6,
        variants=(VariantOption("rounds", 3, "number of rounds", minimum=3, maximum=5),),
        max_decisions=_max_decisions(),
        higher_score_wins=False,
        draw_probability=0.05,
    )

    # State of the match.
    round_no: int
    totals: list[int]
    results: list[dict[str, Any]]
    # State of the round.
    dealer: int
    start_seat: int | None
    cards: list[list[int]]
    up: list[list[bool]]
    pile: list[int]
    discard: list[int]
    pile_known: bool
    phase: str
    flips: list[int]
    current: int
    turns: int
    ender: int | None
    final_left: int
    held: int | None
    held_source: str | None
    actor: int
    clear_context: str
    next_seat: int
    claimant: int
    claim_queue: list[int]
    #: The observation's parts as last built (views.py); made on the first `_observe`.
    _parts: ViewParts | None = None

    # ----- setup and round flow ----------------------------------------
    def _setup(self) -> None:
        """Start round 1."""
        self.round_no = 0
        self.totals = [0] * self.players
        self.results = []
        self._start_round()

    def _start_round(self) -> None:
        """Shuffle all 111 cards, deal the grids, the discard and the draw pile (L2)."""
        n = self.players
        self.round_no += 1
        self.dealer = (self.round_no - 1) % n

        drawn: list[list[int]] = []  # the order `make` shuffled, unless the deal is replayed

        def make(rng: random.Random) -> dict[str, Any]:
            order = list(DECK)
            shuffle(rng, order)  # the permutation a shuffle of the names would give
            drawn.append(order)
            names = list(map(NAMES.__getitem__, order))
            return {
                "grids": [names[CELLS * s : CELLS * (s + 1)] for s in range(n)],
                "discard": names[CELLS * n],
                "draw_pile": names[CELLS * n + 1 :],
            }

        deal = self.chance.draw("deal", make)
        order = drawn[0] if drawn else self._replayed_deal(deal)
        self.cards = [order[CELLS * s : CELLS * (s + 1)] for s in range(n)]
        self.up = [[False] * CELLS for _ in range(n)]
        self.discard = [order[CELLS * n]]
        self.pile = order[: CELLS * n : -1]  # top of the pile is the last element
        self.pile_known = False
        self.phase = FLIP
        self.flips = [0] * n
        self.start_seat = None
        self.current = self.dealer
        self.turns = 0
        self.ender = None
        self.final_left = 0
        self.held = None
        self.held_source = None
        self.actor = self.claimant = self.next_seat = self.dealer
        self.clear_context = "turn"
        self.claim_queue = []

    def _replayed_deal(self, deal: Any) -> list[int]:
        """The codes of a recorded deal (grids, discard, pile top first), checked."""
        try:
            grids = [codes_from_names(grid) for grid in deal["grids"]]
            order = [*chain.from_iterable(grids), *codes_from_names([deal["discard"]])]
            order += codes_from_names(deal["draw_pile"])
        except (KeyError, TypeError, ValueError) as error:
            raise ReplayMismatch(f"malformed LEYLO deal: {error}") from None
        if len(grids) != self.players or any(len(grid) != CELLS for grid in grids):
            raise ReplayMismatch("a LEYLO deal must give every player 16 cards")
        if sorted(order) != SORTED_DECK:
            raise ReplayMismatch("a LEYLO deal must use the whole deck once")
        return order

    def _choose_start(self) -> int:
        """L2: highest visible sum starts; ties go to the first from the dealer's left."""
        sums = [self._points(seat, face_up_only=True) for seat in range(self.players)]
        order = [(self.dealer + 1 + k) % self.players for k in range(self.players)]
        return max(order, key=lambda seat: sums[seat])

    def _begin_turn(self, seat: int) -> None:
        """Give `seat` its turn, refilling an empty draw pile first (L9)."""
        self.current = seat
        if not self.pile and len(self.discard) >= 2:
            top = self.discard[-1]
            rest = [NAMES[code] for code in self.discard[:-1]]
            order = self.chance.shuffled("reshuffle", rest)
            try:
                new_pile = codes_from_names(order)
            except (TypeError, ValueError) as error:
                raise ReplayMismatch(f"malformed LEYLO reshuffle: {error}") from None
            if sorted(new_pile) != sorted(self.discard[:-1]):
                raise ReplayMismatch("a LEYLO reshuffle must use the discard pile below its top")
            self.pile = new_pile[::-1]
            self.discard = [top]
            self.pile_known = True
        self.phase = TURN

    def after_action(self, seat: int, context: str) -> None:
        """Offer line clearing to `seat` if it has a complete line, else go on (L4)."""
        if self.has_line(seat):
            self.phase = CLEAR
            self.actor = seat
            self.clear_context = context
        else:
            self.go_on(context)

    def go_on(self, context: str) -> None:
        """Continue after a turn's action or after a claim."""
        if context == "turn":
            self.end_turn()
        else:
            self._begin_turn(self.next_seat)

    def end_turn(self) -> None:
        """Count the turn; end the round (L6, L10) or open the claim gap (L5)."""
        n = self.players
        cur = self.current
        self.turns += 1
        if self.ender is None:
            if self.face_down_count(cur) == 0:
                self.ender = cur
                self.final_left = n - 1
            elif self.turns >= TURNS_PER_PLAYER * n:
                self._end_round()
                return
        else:
            self.final_left -= 1
            if self.final_left == 0:
                self._end_round()
                return
        self.next_seat = (cur + 1) % n
        self.claim_queue = list(CLAIM_ORDER[n][self.next_seat])
        self.offer_claim()

    def offer_claim(self) -> None:
        """Ask the next eligible seat of the queue about a claim, or start the next turn."""
        queue = self.claim_queue
        while queue:
            seat = queue.pop(0)
            if shows_action(self.cards[seat], self.up[seat]):
                self.phase = CLAIM
                self.claimant = seat
                return
        self._begin_turn(self.next_seat)

    def _end_round(self) -> None:
        """Turn everything up, score (L6, L7), and deal the next round or finish."""
        n = self.players
        for seat in range(n):
            self.up[seat] = [code != EMPTY for code in self.cards[seat]]
        points = [self._points(seat, face_up_only=False) for seat in range(n)]
        scores = list(points)
        doubled = False
        ender = self.ender
        if ender is not None and points[ender] > 0:
            strictly_lowest = all(points[ender] < points[o] for o in range(n) if o != ender)
            if not strictly_lowest:
                scores[ender] *= 2
                doubled = True
        for seat in range(n):
            self.totals[seat] += scores[seat]
        self.results.append(
            {
                "round": self.round_no,
                "ender": ender,
                "guard": ender is None,
                "doubled": doubled,
                "points": points,
                "scores": scores,
                "grids": [list(map(SHOWN.__getitem__, grid)) for grid in self.cards],
            }
        )
        if self.round_no >= self.variant["rounds"]:
            self.phase = OVER
        else:
            self._start_round()

    # ----- helpers ------------------------------------------------------
    def _points(self, seat: int, face_up_only: bool) -> int:
        """Sum of the card values in a grid (L6), optionally of face-up cards only."""
        values = POINTS[self.players == 2]
        cards = self.cards[seat]
        counted = compress(cards, self.up[seat]) if face_up_only else cards
        return sum(map(values.__getitem__, counted))

    def face_down_count(self, seat: int) -> int:
        """Number of face-down cards in a grid (an empty cell is never face up)."""
        return self.up[seat].count(False) - self.cards[seat].count(EMPTY)

    def line_indexes(self, seat: int, mask: int | None = None) -> list[int]:
        """Indexes into LINES of the lines that may be cleared now (L4), rows first; `mask`
        is the grid's face-up mask if the caller keeps it (the random playout does)."""
        cards = self.cards[seat]
        return [
            index
            for index in FULL_LINES[up_mask(self.up[seat]) if mask is None else mask]
            if is_line(map(cards.__getitem__, LINE_CELLS[index]))
        ]

    def has_line(self, seat: int, mask: int | None = None) -> bool:
        """True when the grid holds a line that may be cleared now (`mask` as above)."""
        return bool(self.line_indexes(seat, mask))

    def swap_pairs(self, seat: int) -> Sequence[tuple[int, int]]:
        """The adjacent pairs of non-empty cells a turn may swap (L3), ascending."""
        cards = self.cards[seat]
        if EMPTY not in cards:
            return ADJACENT
        return [(a, b) for a, b in ADJACENT if cards[a] != EMPTY and cards[b] != EMPTY]

    def filled_cells(self, seat: int) -> Sequence[int]:
        """The non-empty cells of a grid, ascending."""
        cards = self.cards[seat]
        if EMPTY not in cards:
            return ALL_CELLS
        return [cell for cell in ALL_CELLS if cards[cell] != EMPTY]

    def face_down_cells(self, seat: int) -> list[int]:
        """The face-down cells of a grid, ascending (an empty cell is never face up)."""
        cards, up = self.cards[seat], self.up[seat]
        return [cell for cell in ALL_CELLS if not up[cell] and cards[cell] != EMPTY]

    def claim_cells(self, seat: int) -> list[int]:
        """The cells of the face-up action cards a claim may exchange (L5, R8), ascending."""
        cards = self.cards[seat]
        return [cell for cell in compress(ALL_CELLS, self.up[seat]) if cards[cell] == ACTION]

    # ----- hooks ----------------------------------------------------------
    def _to_move(self) -> list[int]:
        """Every seat still flipping, else the one seat asked in this phase."""
        if self.phase == FLIP:
            return [s for s in range(self.players) if self.flips[s] < OPENING_FLIPS]
        if self.phase == CLEAR:
            return [self.actor]
        if self.phase == CLAIM:
            return [self.claimant]
        return [self.current]

    def _legal(self, seat: int) -> list[Decision]:
        """The decisions of the phase, in a fixed order (see the rules page); the decisions
        are shared objects (decisions.py), the list is new."""
        if self.phase == FLIP:
            return list(map(FLIPS.__getitem__, self.face_down_cells(seat)))
        if self.phase == TURN:
            draws = DRAWS[bool(self.pile), bool(self.discard)]
            if EMPTY not in self.cards[seat]:
                return [*draws, *SWAPS]
            return [*draws, *map(SWAP_BY_PAIR.__getitem__, self.swap_pairs(seat))]
        if self.phase == PLACE:
            return [
                *map(REPLACES.__getitem__, self.filled_cells(seat)),
                *map(REVEALS.__getitem__, self.face_down_cells(seat)),
            ]
        if self.phase == CLEAR:
            return [*map(CLEARS.__getitem__, self.line_indexes(seat)), KEEP]
        # CLAIM
        return [*map(CLAIMS.__getitem__, self.claim_cells(seat)), PASS]

    def _apply(self, seat: int, decision: Decision) -> None:
        """Apply one checked decision."""
        action = decision["action"]
        if action == "flip":
            self.flip(seat, decision["cell"])
        elif action == "draw":
            self.draw(decision["source"])
        elif action == "swap":
            a, b = decision["cells"]
            self._swap(seat, a, b)
            self.after_action(seat, "turn")
        elif action == "replace":
            self.place(seat, decision["cell"], replace=True)
            self.after_action(seat, "turn")
        elif action == "discard":
            self.place(seat, decision["reveal"], replace=False)
            self.after_action(seat, "turn")
        elif action == "clear":
            kind = "row" if "row" in decision else "column"
            number = decision[kind]
            self.clear_line(seat, next(i for i, ln in enumerate(LINES) if ln[:2] == (kind, number)))
        elif action == "keep":
            self.go_on(self.clear_context)
        elif action == "claim":
            self.claim(seat, decision["cell"])
            self.after_action(seat, "claim")
        else:  # pass
            self.offer_claim()

    def flip(self, seat: int, cell: int) -> None:
        """Turn up `cell` in the opening (L2); the last flip of all starts the first turn."""
        self.up[seat][cell] = True
        self.flips[seat] += 1
        if all(f >= OPENING_FLIPS for f in self.flips):
            self.start_seat = self._choose_start()
            self._begin_turn(self.start_seat)

    def clear_line(self, seat: int, index: int) -> None:
        """Clear the line LINES[index] of the grid (L4): its cards go onto the discard pile,
        jokers on top, the cells stay empty; go on once the grid holds no other line."""
        cards, up = self.cards[seat], self.up[seat]
        cells = LINE_CELLS[index]
        cleared = [cards[c] for c in cells]
        self.discard.extend(c for c in cleared if c not in JOKERS)
        self.discard.extend(c for c in cleared if c in JOKERS)  # jokers on top (L4)
        for c in cells:
            cards[c] = EMPTY
            up[c] = False
        if not self.has_line(seat):
            self.go_on(self.clear_context)

    # The parts of a turn (L3); the caller goes on with `after_action`.
    def _swap(self, seat: int, a: int, b: int) -> None:
        """Swap two cells with their face states."""
        cards, up = self.cards[seat], self.up[seat]
        cards[a], cards[b] = cards[b], cards[a]
        up[a], up[b] = up[b], up[a]

    def draw(self, source: str) -> None:
        """Take the top card of the draw pile or the discard pile into the hand."""
        self.held_source = source
        self.held = self.pile.pop() if source == "pile" else self.discard.pop()
        self.phase = PLACE

    def place(self, seat: int, cell: int, replace: bool) -> None:
        """Put the held card into `cell` (its card is discarded), or discard it and turn
        `cell` up; either way `cell` ends face up."""
        assert self.held is not None
        cards = self.cards[seat]
        if replace:
            self.discard.append(cards[cell])
            cards[cell] = self.held
        else:
            self.discard.append(self.held)
        self.up[seat][cell] = True
        self.held = self.held_source = None

    def claim(self, seat: int, cell: int) -> None:
        """Take the top discard into the face-up action card's `cell`, which goes onto the
        discard pile; that closes the gap (L5). The caller goes on with `after_action`."""
        self.cards[seat][cell] = self.discard.pop()
        self.discard.append(ACTION)
        self.claim_queue = []

    def _is_over(self) -> bool:
        """True after the last round was scored."""
        return self.phase == OVER

    def _scores(self) -> Sequence[float]:
        """Total points of every seat (lowest wins)."""
        return list(self.totals)

    # ----- search support ---------------------------------------------
    def _copy_state(self, twin: Game) -> None:
        """Give the twin its own lists (results are never changed once written: shared)."""
        assert isinstance(twin, Leylo)
        twin.totals = list(self.totals)
        twin.results = list(self.results)
        twin.cards = [list(grid) for grid in self.cards]
        twin.up = [list(grid) for grid in self.up]
        twin.pile = list(self.pile)
        twin.discard = list(self.discard)
        twin.flips = list(self.flips)
        twin.claim_queue = list(self.claim_queue)
        twin._parts = None  # kept parts are one state's: the twin builds its own

    def _playout(self, rng: random.Random, limit: int) -> int:
        """The plain random loop without building legal lists (playout.py)."""
        return random_playout(self, rng, limit)

    @classmethod
    def _determinize(
        cls,
        observation: Mapping[str, Any],
        seat: int,
        players: int,
        variant: dict[str, Any],
        rng: random.Random,
    ) -> Game:
        """A state built from the observation, the unseen cards dealt at random (search.py)."""
        state = cls.blank(players, variant, rng.getrandbits(64))
        assert isinstance(state, Leylo)
        fill_from_observation(state, observation, rng)
        return state

    def _hidden(self, seat: int) -> dict[str, list[Any]]:
        """Every face-down cell, a card drawn by another seat, and the draw pile."""
        return hidden_places(self, seat)

    def _ruled_out(self, seat: int) -> dict[str, list[Any]]:
        """What a public pile (after a reshuffle) rules out of the cells and the pile."""
        return ruled_out_places(self, seat)

    # ----- observation ------------------------------------------------
    def _observe(self, seat: int) -> LeyloObservation:
        """What `seat` knows (L11): face-up cards, the discard pile, counts; no face-down card.

        The grids and piles come from the parts kept between calls (views.py), copied.
        """
        n = self.players
        parts = self._parts
        if parts is None:
            parts = self._parts = ViewParts()
        grids, face_down = parts.grid_views(self.cards, self.up)
        in_gap = self.phase == CLAIM or (self.phase == CLEAR and self.clear_context == "claim")
        in_turn = self.phase in (TURN, PLACE, CLEAR) and not in_gap
        gap = {"after": self.current, "before": self.next_seat} if in_gap else None
        return {
            "seat": seat,
            "players": n,
            "phase": self.phase,  # type: ignore[typeddict-item]  # one of the six names
            "to_move": self.to_move(),
            "scores": list(self.totals),
            "game": {
                "round": self.round_no,
                "rounds": self.variant["rounds"],
                "dealer": self.dealer,
                "start_seat": self.start_seat,
                "current": self.current if in_turn else None,
                "gap": gap,  # type: ignore[typeddict-item]  # after, before
                "turns_taken": self.turns,
                "turn_limit": TURNS_PER_PLAYER * n,
                "ender": self.ender,
                "final_turns_left": self.final_left if self.ender is not None else None,
                "action_card_value": card_value(ACTION, n),  # type: ignore[typeddict-item]
                "grids": list(map(list, grids)),  # type: ignore[arg-type]  # cell names
                "face_down": list(face_down),
                "discard": list(parts.discard_names(self.discard)),  # type: ignore[arg-type]
                "draw_pile_size": len(self.pile),
                "draw_pile_known": self._known_pile_view(seat, parts),  # type: ignore[typeddict-item]
                "holding": self._holding_view(seat),  # type: ignore[typeddict-item]
                "results": list(map(copy_result, self.results)),  # type: ignore[arg-type]
            },
        }

    def _known_pile_view(self, seat: int, parts: ViewParts) -> list[str] | None:
        """The pile's cards, sorted, once a reshuffle made them public (L9); else None."""
        if not self.pile_known:
            return None
        known = list(self.pile)
        if self.held is not None and self.held_source == "pile" and seat != self.current:
            known.append(self.held)  # the others do not know which pile card was drawn
        return list(parts.known_names(known))

    def _holding_view(self, seat: int) -> dict[str, Any] | None:
        """The card in hand during `place`; one drawn from the pile only its drawer sees (R4)."""
        if self.held is None or self.held_source is None:
            return None
        shown = seat == self.current or self.held_source == "discard"
        return {"source": self.held_source, "card": NAMES[self.held] if shown else "hidden"}

    def describe(self, seat: int, decision: Decision) -> str:
        """A short human line for a decision, e.g. "seat 2 clears row 1"."""
        action = decision.get("action")
        if action == "flip":
            text = f"turns up cell {decision['cell']}"
        elif action == "draw":
            text = (
                "draws from the pile" if decision["source"] == "pile" else "takes the top discard"
            )
        elif action == "swap":
            text = f"swaps cells {decision['cells'][0]} and {decision['cells'][1]}"
        elif action == "replace":
            text = f"puts the card into cell {decision['cell']}"
        elif action == "discard":
            text = f"discards the card and turns up cell {decision['reveal']}"
        elif action == "clear":
            kind = "row" if "row" in decision else "column"
            text = f"clears {kind} {decision[kind]}"
        elif action == "keep":
            text = "keeps the line"
        elif action == "claim":
            text = f"claims the top discard into cell {decision['cell']}"
        elif action == "pass":
            text = "does not claim"
        else:
            return super().describe(seat, decision)
        return f"seat {seat} {text}"
