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
from collections.abc import Sequence
from typing import Any

from arena.games.base import Decision, Game, GameSpec, ReplayMismatch, VariantOption
from arena.games.leylo.cards import (
    ACTION,
    ADJACENT,
    EMPTY,
    JOKERS,
    LINES,
    NAMES,
    card_value,
    codes_from_names,
    full_deck,
    is_line,
)

#: Phases of a round; the observation's "phase" says which one asks the seats now.
FLIP, TURN, PLACE, CLEAR, CLAIM, OVER = "flip", "turn", "place", "clear", "claim", "over"
#: Cards every player turns up before the first turn (L2).
OPENING_FLIPS = 2
#: L10: a round also ends after this many turns per player (unless its final lap runs).
TURNS_PER_PLAYER = 60
#: Cells of a grid.
CELLS = 16


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
    """LEYLO for 2-6 players: lowest total after 3-5 rounds wins."""

    spec = GameSpec(
        id="leylo",
        version=1,
        title="LEYLO",
        min_players=2,
        max_players=6,
        variants=(VariantOption("rounds", 3, "number of rounds (L8)", minimum=3, maximum=5),),
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
        names = [NAMES[code] for code in full_deck()]

        def make(rng: random.Random) -> dict[str, Any]:
            order = list(names)
            rng.shuffle(order)
            return {
                "grids": [order[CELLS * s : CELLS * (s + 1)] for s in range(n)],
                "discard": order[CELLS * n],
                "draw_pile": order[CELLS * n + 1 :],
            }

        deal = self.chance.draw("deal", make)
        try:
            grids = [codes_from_names(grid) for grid in deal["grids"]]
            discard = codes_from_names([deal["discard"]])
            pile = codes_from_names(deal["draw_pile"])
        except (KeyError, TypeError, ValueError) as error:
            raise ReplayMismatch(f"malformed LEYLO deal: {error}") from None
        dealt = [code for grid in grids for code in grid] + discard + pile
        if len(grids) != n or any(len(g) != CELLS for g in grids):
            raise ReplayMismatch("a LEYLO deal must give every player 16 cards")
        if sorted(dealt) != full_deck():
            raise ReplayMismatch("a LEYLO deal must use the whole deck once")
        self.cards = grids
        self.up = [[False] * CELLS for _ in range(n)]
        self.discard = discard
        self.pile = pile[::-1]  # top of the pile is the last element
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

    def _after_action(self, seat: int, context: str) -> None:
        """Offer line clearing to `seat` if it has a complete line, else go on (L4)."""
        if self._complete_lines(seat):
            self.phase = CLEAR
            self.actor = seat
            self.clear_context = context
        else:
            self._go_on(context)

    def _go_on(self, context: str) -> None:
        """Continue after a turn's action or after a claim."""
        if context == "turn":
            self._end_turn()
        else:
            self._begin_turn(self.next_seat)

    def _end_turn(self) -> None:
        """Count the turn; end the round (L6, L10) or open the claim gap (L5)."""
        n = self.players
        cur = self.current
        self.turns += 1
        if self.ender is None:
            if self._face_down(cur) == 0:
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
        # Priority runs clockwise from the seat after the next mover; the mover is last.
        self.claim_queue = [(self.next_seat + k) % n for k in range(1, n - 1)]
        self._offer_claim()

    def _offer_claim(self) -> None:
        """Ask the next eligible seat of the queue about a claim, or start the next turn."""
        while self.claim_queue:
            seat = self.claim_queue.pop(0)
            if any(
                code == ACTION and up
                for code, up in zip(self.cards[seat], self.up[seat], strict=True)
            ):
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
                "grids": [[NAMES[c] if c != EMPTY else "empty" for c in g] for g in self.cards],
            }
        )
        if self.round_no >= self.variant["rounds"]:
            self.phase = OVER
        else:
            self._start_round()

    # ----- helpers ------------------------------------------------------
    def _points(self, seat: int, face_up_only: bool) -> int:
        """Sum of the card values in a grid (L6), optionally of face-up cards only."""
        return sum(
            card_value(code, self.players)
            for code, up in zip(self.cards[seat], self.up[seat], strict=True)
            if code != EMPTY and (up or not face_up_only)
        )

    def _face_down(self, seat: int) -> int:
        """Number of face-down cards in a grid."""
        return sum(
            1
            for code, up in zip(self.cards[seat], self.up[seat], strict=True)
            if code != EMPTY and not up
        )

    def _complete_lines(self, seat: int) -> list[tuple[str, int, tuple[int, int, int, int]]]:
        """The lines of a grid that may be cleared now (L4), rows first."""
        cards, up = self.cards[seat], self.up[seat]
        return [
            line
            for line in LINES
            if all(up[c] for c in line[2]) and is_line([cards[c] for c in line[2]])
        ]

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
        """The decisions of the phase, in a fixed order (see the rules page)."""
        cards, up = self.cards[seat], self.up[seat]
        if self.phase == FLIP:
            return [{"action": "flip", "cell": i} for i in range(CELLS) if not up[i]]
        if self.phase == TURN:
            legal: list[Decision] = []
            if self.pile:
                legal.append({"action": "draw", "source": "pile"})
            if self.discard:
                legal.append({"action": "draw", "source": "discard"})
            legal.extend(
                {"action": "swap", "cells": [a, b]}
                for a, b in ADJACENT
                if cards[a] != EMPTY and cards[b] != EMPTY
            )
            return legal
        if self.phase == PLACE:
            return [{"action": "replace", "cell": i} for i in range(CELLS) if cards[i] != EMPTY] + [
                {"action": "discard", "reveal": i}
                for i in range(CELLS)
                if cards[i] != EMPTY and not up[i]
            ]
        if self.phase == CLEAR:
            lines: list[Decision] = [
                {"action": "clear", kind: index} for kind, index, _ in self._complete_lines(seat)
            ]
            return [*lines, {"action": "keep"}]
        # CLAIM
        claims: list[Decision] = [
            {"action": "claim", "cell": i} for i in range(CELLS) if cards[i] == ACTION and up[i]
        ]
        return [*claims, {"action": "pass"}]

    def _apply(self, seat: int, decision: Decision) -> None:
        """Apply one checked decision."""
        action = decision["action"]
        cards, up = self.cards[seat], self.up[seat]
        if action == "flip":
            up[decision["cell"]] = True
            self.flips[seat] += 1
            if all(f >= OPENING_FLIPS for f in self.flips):
                self.start_seat = self._choose_start()
                self._begin_turn(self.start_seat)
        elif action == "draw":
            self.held_source = decision["source"]
            self.held = self.pile.pop() if self.held_source == "pile" else self.discard.pop()
            self.phase = PLACE
        elif action == "swap":
            a, b = decision["cells"]
            cards[a], cards[b] = cards[b], cards[a]
            up[a], up[b] = up[b], up[a]
            self._after_action(seat, "turn")
        elif action in ("replace", "discard"):
            assert self.held is not None
            if action == "replace":
                cell = decision["cell"]
                self.discard.append(cards[cell])
                cards[cell] = self.held
            else:
                cell = decision["reveal"]
                self.discard.append(self.held)
            up[cell] = True
            self.held = self.held_source = None
            self._after_action(seat, "turn")
        elif action == "clear":
            kind = "row" if "row" in decision else "column"
            line = next(ln for ln in LINES if ln[0] == kind and ln[1] == decision[kind])
            cleared = [cards[c] for c in line[2]]
            self.discard.extend(c for c in cleared if c not in JOKERS)
            self.discard.extend(c for c in cleared if c in JOKERS)  # jokers on top (L4)
            for c in line[2]:
                cards[c] = EMPTY
                up[c] = False
            if not self._complete_lines(seat):
                self._go_on(self.clear_context)
        elif action == "keep":
            self._go_on(self.clear_context)
        elif action == "claim":
            cell = decision["cell"]
            cards[cell] = self.discard.pop()
            self.discard.append(ACTION)
            self.claim_queue = []
            self._after_action(seat, "claim")
        else:  # pass
            self._offer_claim()

    def _is_over(self) -> bool:
        """True after the last round was scored."""
        return self.phase == OVER

    def _scores(self) -> Sequence[float]:
        """Total points of every seat (lowest wins)."""
        return list(self.totals)

    # ----- observation ------------------------------------------------
    def _observe(self, seat: int) -> dict[str, Any]:
        """What `seat` knows (L11): face-up cards, the discard pile, counts; no face-down card."""
        n = self.players
        in_gap = self.phase == CLAIM or (self.phase == CLEAR and self.clear_context == "claim")
        in_turn = self.phase in (TURN, PLACE, CLEAR) and not in_gap
        gap = {"after": self.current, "before": self.next_seat} if in_gap else None
        holding: dict[str, Any] | None = None
        pile_known: list[str] | None = None
        if self.pile_known:
            known = list(self.pile)
            if self.held is not None and self.held_source == "pile" and seat != self.current:
                known.append(self.held)  # the others do not know which pile card was drawn
            pile_known = [NAMES[c] for c in sorted(known)]
        if self.held is not None and self.held_source is not None:
            shown = seat == self.current or self.held_source == "discard"
            holding = {
                "source": self.held_source,
                "card": NAMES[self.held] if shown else "hidden",
            }
        return {
            "seat": seat,
            "players": n,
            "round": self.round_no,
            "rounds": self.variant["rounds"],
            "dealer": self.dealer,
            "start_seat": self.start_seat,
            "phase": self.phase,
            "to_move": self.to_move(),
            "current": self.current if in_turn else None,
            "gap": gap,
            "turns_taken": self.turns,
            "turn_limit": TURNS_PER_PLAYER * n,
            "ender": self.ender,
            "final_turns_left": self.final_left if self.ender is not None else None,
            "action_card_value": card_value(ACTION, n),
            "grids": [
                [
                    "empty" if code == EMPTY else NAMES[code] if up else "hidden"
                    for code, up in zip(self.cards[s], self.up[s], strict=True)
                ]
                for s in range(n)
            ],
            "face_down": [self._face_down(s) for s in range(n)],
            "discard": [NAMES[c] for c in self.discard],
            "draw_pile_size": len(self.pile),
            "draw_pile_known": pile_known,
            "holding": holding,
            "totals": list(self.totals),
            "results": [dict(r) for r in self.results],
        }

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
