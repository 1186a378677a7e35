"""A fast random playout of LEYLO: the plain ``rng.choice(legal)`` loop, without the lists.

Random seats swap in most turns (a turn offers 2 draws and 24 swaps), so a
random game is about a thousand quiet turns: a swap, no line, nobody able to
claim, the next seat moves. This loop picks every decision as an index into the
legal list the referee would build, in its order and drawing from the generator
exactly as ``rng.choice`` would, and plays a quiet turn itself. Whenever
anything else can happen (a line, a claim gap, the end of a round or of a final
lap, a reshuffle) it hands over to the referee's steps (`state.LeyloState`: the
internal interface the package docstring describes), so every rule still lives
in the referee; this module only knows which turns are quiet and which index of
a legal list means what. The history gets the same decisions as the plain
loop's; the common ones are shared objects (see `SWAP_ENTRIES`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from arena.games.base import Decision
from arena.games.leylo.cards import (
    ACTION,
    ADJACENT,
    ALL_CELLS,
    ALL_UP,
    BITS,
    CLAIM,
    EMPTY,
    FLIP,
    FULL_LINES,
    OVER,
    PLACE,
    TURN,
    TURNS_PER_PLAYER,
    cells_down,
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
    SWAPS,
)
from arena.games.leylo.draws import WIDTHS, index_picker, inline_getrandbits
from arena.games.leylo.state import LeyloState

#: The history entries of a random turn, shared by all playouts (a history is only ever
#: read, never changed: sharing spares building ~1,000 tuples per game). By seat: the
#: draw from each source, and the swap of each pair of ADJACENT. The decisions are the
#: ones the legal lists hold (decisions.py).
DRAW_ENTRIES: tuple[dict[str, tuple[int, Decision]], ...] = tuple(
    {decision["source"]: (seat, decision) for decision in DRAWS[True, True]} for seat in range(6)
)
SWAP_ENTRIES: tuple[tuple[tuple[int, Decision], ...], ...] = tuple(
    tuple((seat, swap) for swap in SWAPS) for seat in range(6)
)


#: By player count, then by seat: the next seat, and the seats a claim is offered to
#: after that seat's turn (all but the mover and the next one, L5).
FOLLOWING: dict[int, tuple[int, ...]] = {
    n: tuple((seat + 1) % n for seat in range(n)) for n in range(2, 7)
}
ASKABLE: dict[int, tuple[int, ...]] = {
    n: tuple(~(BITS[seat] | BITS[(seat + 1) % n]) for seat in range(n)) for n in range(2, 7)
}

#: By player count, then by the mask of seats that may claim: for each mover, True when
#: none of them is asked after its turn.
CALM: dict[int, tuple[tuple[bool, ...], ...]] = {
    n: tuple(tuple(not claimers & askable for askable in ASKABLE[n]) for claimers in range(1 << n))
    for n in range(2, 7)
}


def random_playout(game: LeyloState, rng: random.Random, limit: int) -> int:
    """Play on with random decisions (see `Game.playout`); return how many were made."""
    return _Playout(game, rng).run(limit)


class _Playout:
    """One random playout: the generator, per-seat constants, and what it keeps about
    the grids between decisions, as bit masks.

    A swap keeps the masks up to date itself; after any other decision the playout
    recounts the grids that decision may have changed (all of them after a new deal).
    """

    def __init__(self, game: LeyloState, rng: random.Random) -> None:
        self.game = game
        self.pick = index_picker(rng)
        #: The generator's own draw, for `index_by_bits` inlined in the turn loop.
        self.getrandbits = inline_getrandbits(rng)
        n = game.players
        #: The referee checks the end of a turn once the count reaches this (L10).
        self.last_quiet_turn = TURNS_PER_PLAYER * n - 1
        self.following = FOLLOWING[n]
        #: The round's grids (a new deal replaces the list) and each one's face-up mask.
        self.deal = game.cards
        self.masks = [0] * n
        #: Seats with a face-up action card (they may claim), and seats with an empty cell.
        self.claimers = self.holed = 0
        self.recount(range(n))

    def recount(self, seats: Iterable[int]) -> None:
        """Count the grids of `seats` anew."""
        game = self.game
        for seat in seats:
            cards, up = game.cards[seat], game.up[seat]
            self.masks[seat] = up_mask(up)
            bit = BITS[seat]
            self.claimers = self.claimers | bit if shows_action(cards, up) else self.claimers & ~bit
            self.holed = self.holed | bit if EMPTY in cards else self.holed & ~bit

    def recount_if_dealt(self) -> bool:
        """Recount every grid if a new round was dealt since the last count."""
        if self.game.cards is self.deal:
            return False
        self.deal = self.game.cards
        self.recount(range(self.game.players))
        return True

    def run(self, limit: int) -> int:
        """Play up to `limit` decisions or to the end; return how many were made."""
        game = self.game
        made = 0
        while made < limit:
            phase = game.phase
            if phase in (TURN, PLACE):
                made += self.turns(limit - made)
            elif phase == CLAIM:
                made += self.claim_step()
            elif phase == FLIP:
                made += self.flips()
            elif phase == OVER:
                break
            else:  # CLEAR
                made += self.clear_step()
        return made

    def flips(self) -> int:
        """One joint step of the opening: every seat still flipping turns up a random
        face-down cell (what its legal list offers); return the decisions made.

        The seats pick in `to_move` order, all from the state before the step (as the
        plain loop does); then the referee applies the flips in that order, one `flip`
        each (what its `_apply_joint` does).
        """
        game = self.game
        seats = game.to_move()
        cells = [self.pick_cell(self.cells_down(seat)) for seat in seats]
        history, cards, masks = game.history, game.cards, self.masks
        for seat, cell in zip(seats, cells, strict=True):
            game.flip(seat, cell)
            history.append((seat, FLIPS[cell]))
            masks[seat] |= BITS[cell]  # the one change to the grid: keep its counts
            if cards[seat][cell] == ACTION:
                self.claimers |= BITS[seat]
        return len(seats)

    def pick_cell(self, cells: Sequence[int]) -> int:
        """A random one of `cells`, picked as ``rng.choice`` would."""
        return cells[self.pick(len(cells))]

    def cells_down(self, seat: int) -> Sequence[int]:
        """The face-down cells of a grid, ascending (from its mask while it has no hole)."""
        if self.holed & BITS[seat]:
            return self.game.face_down_cells(seat)
        return cells_down(self.masks[seat])

    def claim_step(self) -> int:
        """One seat's answer in a claim gap: a random face-up action card's cell or a pass
        (the `claim` legal list by index); return 1."""
        game = self.game
        seat = game.claimant
        cells = game.claim_cells(seat)
        index = self.pick(len(cells) + 1)
        if index == len(cells):
            game.history.append((seat, PASS))
            game.offer_claim()
            return 1
        game.history.append((seat, CLAIMS[cells[index]]))
        game.claim(seat, cells[index])
        game.after_action(seat, "claim")
        if not self.recount_if_dealt():
            self.recount((seat,))
        return 1

    def clear_step(self) -> int:
        """One decision of clearing (rare): a random line of the grid's to clear or keeping
        them (the `clear` legal list by index); return 1."""
        game = self.game
        seat = game.actor
        lines = game.line_indexes(seat)
        index = self.pick(len(lines) + 1)
        if index == len(lines):
            game.go_on(game.clear_context)
            game.history.append((seat, KEEP))
        else:
            game.clear_line(seat, lines[index])
            game.history.append((seat, CLEARS[lines[index]]))
        if not self.recount_if_dealt():
            self.recount((seat,))
        return 1

    def turns(self, budget: int) -> int:
        """Play turns (a swap, or a draw and its placing) while they end quietly, at most
        `budget` decisions; return the decisions made.

        A quiet end of turn is what `after_action` does when there is no line to
        offer, the mover keeps a face-down card, no final lap runs, the guard is not
        reached, nobody may claim and the next turn needs no reshuffle: count the turn
        and give the next seat its turn. The turn count and the mover live in locals
        meanwhile and are written back before the referee is called or on return.
        Everything the loop reads is a local: most decisions of a game are made here.
        """
        game = self.game
        getrandbits, append, masks = self.getrandbits, game.history.append, self.masks
        deal, ups, following = game.cards, game.up, self.following
        bits, widths, swap_entries, full_lines = BITS, WIDTHS, SWAP_ENTRIES, FULL_LINES
        adjacent = ADJACENT
        last_quiet_turn = self.last_quiet_turn
        pile, discard = game.pile, game.discard
        draws = (1 if pile else 0) + (1 if discard else 0)
        offers = draws + len(ADJACENT)  # the legal list's length in a grid without holes
        width = widths[offers]
        calm, holed = self.calm_seats(), self.holed
        seat, turns = game.current, game.turns
        start_turns = turns
        placing = game.phase == PLACE
        made = 0
        while True:
            cards, up = deal[seat], ups[seat]
            if placing:  # the card drawn by this turn goes into the grid
                placing = False
                made += 1
                append((seat, self.place(seat)))
                game.phase = TURN  # the action is done (`after_action` sets the phase anyway)
                calm = self.calm_seats()
                hole = holed & bits[seat]
                draws = (1 if pile else 0) + (1 if discard else 0)
                offers = draws + len(ADJACENT)
                width = widths[offers]
            else:
                hole = holed & bits[seat]
                if hole or getrandbits is None:
                    pairs = game.swap_pairs(seat) if hole else adjacent
                    index = self.pick(draws + len(pairs))
                else:  # `index_by_bits`, inlined
                    pairs = adjacent
                    index = getrandbits(width)
                    while index >= offers:
                        index = getrandbits(width)
                made += 1
                if index < draws:  # the pile comes first in the legal list
                    source = "pile" if pile and index == 0 else "discard"
                    append(DRAW_ENTRIES[seat][source])
                    game.draw(source)
                    placing = True
                    if made < budget:
                        continue
                    break
                index -= draws
                a, b = pairs[index]
                if hole:  # its pairs are not ADJACENT's: no shared entry
                    append((seat, {"action": "swap", "cells": [a, b]}))
                else:
                    append(swap_entries[seat][index])
                cards[a], cards[b] = cards[b], cards[a]
                if up[a] != up[b]:
                    up[a], up[b] = up[b], up[a]
                    masks[seat] ^= bits[a] | bits[b]
            # The turn's action is done. A grid without holes and without a face-up line
            # keeps a face-down card and offers no line; other grids are checked in full.
            settled = not (hole or full_lines[masks[seat]]) or self.keeps_quiet(seat)
            if settled and calm[seat] and turns < last_quiet_turn:
                turns += 1
                seat = following[seat]
                if made < budget:
                    continue
                self.write_back(seat, turns, start_turns)
                return made
            self.write_back(seat, turns, start_turns)
            if settled:  # no line to offer: `after_action` would end the turn
                game.end_turn()
            else:
                game.after_action(seat, "turn")
            self.recount_if_dealt()
            return made
        self.write_back(seat, turns, start_turns)
        return made

    def calm_seats(self) -> tuple[bool, ...]:
        """By mover: True when nothing around the grids stops its turn from ending quietly
        (no final lap, no reshuffle due, nobody who may claim after it)."""
        game = self.game
        if game.ender is not None or (not game.pile and len(game.discard) >= 2):
            return (False,) * game.players
        return CALM[game.players][self.claimers]

    def keeps_quiet(self, seat: int) -> bool:
        """True when the grid of `seat` keeps a face-down card and holds no line to clear."""
        game = self.game
        if self.holed & BITS[seat]:  # count the grid itself
            return game.face_down_count(seat) != 0 and not game.has_line(seat)
        # Without a hole the kept mask tells both: all cells up means none face down.
        mask = self.masks[seat]
        return mask != ALL_UP and not game.has_line(seat, mask)

    def write_back(self, seat: int, turns: int, start_turns: int) -> None:
        """Leave the state as the referee would after the quiet turns counted in `turns`."""
        game = self.game
        game.current = seat
        if turns != start_turns:
            game.turns = turns
            game.next_seat = seat
            if game.claim_queue:  # the referee empties it in every gap
                game.claim_queue = []

    def place(self, seat: int) -> Decision:
        """Replace or discard-and-reveal at random (the `place` legal list by index), and
        keep the grid's counts: the cell ends face up, and only an action card leaving
        or arriving there can change whether the seat may claim."""
        game = self.game
        if self.holed & BITS[seat]:
            filled: Sequence[int] = game.filled_cells(seat)
            face_down: Sequence[int] = game.face_down_cells(seat)
        else:  # the usual grid: no hole, its face-down cells known from its mask
            filled, face_down = ALL_CELLS, cells_down(self.masks[seat])
        index = self.pick(len(filled) + len(face_down))
        replace = index < len(filled)
        cell = filled[index] if replace else face_down[index - len(filled)]
        cards = game.cards[seat]
        was_action = cards[cell] == ACTION
        game.place(seat, cell, replace)
        self.masks[seat] |= BITS[cell]
        if was_action or cards[cell] == ACTION:
            self.recount((seat,))
        return REPLACES[cell] if replace else REVEALS[cell]
