"""Random playouts a whole turn at a time: the plain loop's choices without its per-step machinery.

`Twirkle.playout` must choose exactly as ``rng.choice(legal)`` per decision would. The
referee answers one decision at a time (list the step's options, apply one, take the
steps that have no choice, cache the next list), which costs more than the choice
itself. Here a turn is one call: each step's options are listed in the referee's
order straight from what the step needs (never as a list of moves), the index is
drawn as ``rng.choice`` draws it, the decision goes to the history and is applied
through the referee's own steps (`place`, `lift`, `finish_exchange` ...: the internal
interface `state.TwirkleState` that the package docstring describes), so the rules
live in one place; only the listing is repeated here, and the tests play whole games
both ways.

Only whole turns are played here (`Turns.play` needs at least `TURN_DECISIONS` of the
limit): the referee's step loop takes the partial turns at either end. Where the compiled
engine is built (`fast`, `_engine.c`), it plays these same turns in C, and `Turns` plays
whatever it leaves; the tests hold the engine to `Turns`.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from arena.games.leylo.draws import inline_getrandbits
from arena.games.twirkle.moves import card_decision, lift_decision, place_decision, put_decision
from arena.games.twirkle.state import TwirkleState


def index_drawer(rng: random.Random) -> Callable[[int], int]:
    """``draw(k)``: the index ``rng.choice`` picks from a list of k options (any k >= 1)."""
    getrandbits = inline_getrandbits(rng)
    if getrandbits is None:  # a generator that draws otherwise: ask it
        choice = rng.choice
        return lambda count: choice(range(count))
    bits: Callable[[int], int] = getrandbits  # (not None, also inside `draw`)

    def draw(count: int) -> int:
        width = count.bit_length()
        index = bits(width)
        while index >= count:
            index = bits(width)
        return index

    return draw


class Turns:
    """Plays whole turns of one referee with one generator, appending to its history."""

    def __init__(self, game: TwirkleState, rng: random.Random):
        """Turns of `game`, each choice drawn from `rng`."""
        self.game = game
        self.draw = index_drawer(rng)
        self.history = game.history

    def play(self) -> int:
        """Play the turn that starts now (phase ``turn``) to its end; return its decisions."""
        game = self.game
        seat = game.current
        hand = game.hands[seat]
        kinds = list(dict.fromkeys(hand))  # the distinct kinds, in card order
        fits = game.board.fitting()
        picks = [kind for kind in kinds if fits >> kind & 1]
        exchanges = len(kinds) if game.bag else 0
        index = self.draw(len(picks) + exchanges + 1)
        if index < len(picks):
            made = self._placement(seat, picks[index])
        elif index < len(picks) + exchanges:
            made = self._exchange(seat, kinds[index - len(picks)])
        else:
            self.history.append((seat, {"action": "pass"}))
            game.turn_action = "pass"
            game.phase = "shifting"
            made = 1
        if game.phase == "shifting":  # not when the placement emptied the hand
            made += self._shift(seat)
        return made

    def _placement(self, seat: int, kind: int) -> int:
        """Pick and place cards from `kind` on until the seat ends (or no card fits)."""
        game, draw, record = self.game, self.draw, self.history.append
        hand, board = game.hands[seat], game.board
        cells = board.cells_taking(kind)
        made = 0
        while True:
            record((seat, card_decision("pick", kind)))
            cell = cells[draw(len(cells))]
            record((seat, place_decision(kind, cell)))
            made += 2
            game.picked = kind
            game.place(kind, cell)
            open_cells = board.next_cells(game.placed_cells)
            fits = 0
            for _, mask in open_cells:
                fits |= mask
            picks = [k for k in dict.fromkeys(hand) if fits >> k & 1]
            if not picks:
                break  # only end_placing is left: the referee takes it
            index = draw(len(picks) + 1)
            if index == len(picks):
                record((seat, {"action": "end_placing"}))
                made += 1
                break
            kind = picks[index]
            cells = [cell for cell, mask in open_cells if mask >> kind & 1]
        game.finish_placing()
        return made

    def _exchange(self, seat: int, kind: int) -> int:
        """Set cards aside from `kind` on until the seat ends (or may set no more aside)."""
        game, draw, record = self.game, self.draw, self.history.append
        hand, selected = game.hands[seat], game.selected
        game.turn_action = "exchange"
        game.phase = "exchanging"
        made = 0
        while True:
            record((seat, card_decision("exchange", kind)))
            made += 1
            hand.remove(kind)
            selected.append(kind)
            if len(selected) >= game.exchange_cap():
                break  # only end_exchange is left: the referee takes it
            kinds = list(dict.fromkeys(hand))
            index = draw(len(kinds) + 1)
            if index == len(kinds):
                record((seat, {"action": "end_exchange"}))
                made += 1
                break
            kind = kinds[index]
        game.finish_exchange()
        return made

    def _shift(self, seat: int) -> int:
        """W6: lift and put cards until the seat ends the turn (or no card may move)."""
        game, draw, record = self.game, self.draw, self.history.append
        made = 0
        # The cards that may be lifted: any of these leaves first, then only the next card
        # of the source line; end_turn comes last, and alone the referee takes it.
        cards = game.shift_starts().liftable()
        while cards:
            index = draw(len(cards) + 1)
            if index == len(cards):
                record((seat, {"action": "end_turn"}))
                made += 1
                break
            record((seat, lift_decision(cards[index])))
            game.lift(cards[index])
            puts = game.pending_puts
            end = puts[draw(len(puts))]
            record((seat, put_decision(end)))
            game.put(end)
            made += 2
            cards = [] if game.next_put() is None else game.shift_source[:1]
        game.end_turn()
        return made
