"""Whole turns of a random playout in C (`_engine`), when it is built: the same playout, faster.

The referee's playout plays whole turns with `playout.Turns`; the compiled engine
plays the very same turns (the same lists in the same order, the same draws from
copies of the same generators, the same history entries) in a fraction of the time,
which search and the referee benchmark spend almost all theirs on. `play_turns`
hands it the state at a turn's start and writes back everything the turns changed
(the fields of `state.TwirkleState`), then the referee's playout goes on exactly as
after `Turns.play`. The Python referee stays the rules' authority: the engine copies
its lists, matches never use it, and the tests play thousands of playouts both ways.

The engine is optional. Without a C compiler at install time, or with
``ARENA_TWIRKLE_ENGINE=python`` in the environment, `play_turns` plays nothing and
the Python turns play instead; so does a generator that is not a plain
`random.Random` (its draws are its own), and a chance that replays a log.
"""

from __future__ import annotations

import os
import random
from typing import Any

from arena.games.leylo.draws import inline_getrandbits
from arena.games.twirkle.board import RANK_STEP, STEP_NAME, Board
from arena.games.twirkle.cards import NAMES
from arena.games.twirkle.state import (
    EXCHANGE_DRAW,
    IDLE_ROUNDS,
    MAX_DECISIONS,
    OUT_BONUS,
    TURN_DECISIONS,
    TwirkleState,
)

try:
    from arena.games.twirkle import _engine
except ImportError:  # not built here: the Python turns play
    _engine = None  # type: ignore[assignment]

#: Set to ``python`` to play every turn in Python (tests compare both; so can benchmarks).
ENGINE_VARIABLE = "ARENA_TWIRKLE_ENGINE"
#: The direction names of puts by line-end rank (`board.RANK_STEP`), as decisions say them.
DIRECTION_NAMES: tuple[str, ...] = tuple(STEP_NAME[step] for step in RANK_STEP)


def available() -> bool:
    """True when the compiled engine is built and not switched off."""
    return _engine is not None and os.environ.get(ENGINE_VARIABLE) != "python"


def play_turns(game: TwirkleState, rng: random.Random, budget: int) -> int:
    """Play whole turns from the turn starting now while `budget` leaves room for one more
    (`TURN_DECISIONS`), as `Turns.play` would; return the decisions made (0: none played,
    the caller's Python turns go on from here)."""
    source = game.chance.generator  # the chance draws the bag's order after an exchange
    if (
        budget < TURN_DECISIONS
        or not available()
        or source is None  # a replayed chance: its outcomes are checked in Python
        or source is rng
        or inline_getrandbits(rng) is None  # a generator of its own class draws otherwise
        or inline_getrandbits(source) is None
    ):
        return 0
    version, state, gauss = rng.getstate()
    chance_version, chance_state, chance_gauss = source.getstate()
    returner = -1 if game.returner is None else game.returner
    budget = min(budget, MAX_DECISIONS)  # a C int; no game gets that far
    numbers = (game.current, game.passes, game.idle, game.turns, returner, budget)
    rules = (TURN_DECISIONS, IDLE_ROUNDS * game.players, OUT_BONUS)
    recording = not game.chance.simulated
    answer = _engine.play(
        game.hands,
        game.bag,
        game.board.grid,
        game.scores,
        numbers + rules,
        state,
        chance_state,
        NAMES,
        DIRECTION_NAMES,
        recording,
    )
    if answer is None:  # a layout off the engine's window, or a hand-made state too big
        return 0
    made: int = answer[0]
    entries, orders, rng_state, chance_after = answer[1:5]
    if rng_state is not None:
        rng.setstate((version, rng_state, gauss))
    if chance_after is not None:
        source.setstate((chance_version, chance_after, chance_gauss))
    game.history.extend(entries)
    if recording:  # what `Chance.draw` logs for each shuffle
        game.chance.log.extend({"chance": EXCHANGE_DRAW, "outcome": order} for order in orders)
    _write_back(game, answer[5:])
    return made


def _write_back(game: TwirkleState, changed: tuple[Any, ...]) -> None:
    """Store what the engine's turns changed into the referee (see `_engine.play`)."""
    hands, bag, parts, scores, counters, phase, turn, summaries, returned, end = changed
    for hand, now in zip(game.hands, hands, strict=True):
        hand[:] = now
    game.bag[:] = bag
    game.scores[:] = scores
    _restore_board(game.board, parts)
    game.current, game.passes, game.idle, game.turns, game.returner = counters
    if returned is not None:  # replaced, never changed in place (clones share it)
        game.returned = returned
    for seat, summary in enumerate(summaries):
        if summary is not None:
            game.last_turns[seat] = summary
    game.phase = phase
    if end is not None:
        game.end = end
    # `_begin_turn`'s fields: reset at a turn's start, the last turn's once the game is over
    (
        game.placed_cells,
        game.placed_kinds,
        game.exchanged,
        game.turn_action,
        game.turn_points,
        game.shift_source,
        game.shift_direction,
        game.shift_last,
        game.moved,
    ) = turn
    # none of these outlives a turn: every turn the engine plays ends
    game.picked = None
    game.selected = []
    game.lifted = None
    game.pending_puts = []


def _restore_board(board: Board, parts: tuple[Any, ...]) -> None:
    """Give `board` the engine's layout with all its bookkeeping, as laying and lifting
    those cards one by one would have left it (`version` counts them too)."""
    (
        board.grid,
        board.row_kinds,
        board.column_kinds,
        board.frontier,
        board.degrees,
        board.leaf_cells,
        board.end_ranks,
        board.masks,
        board.end_masks,
        changes,
    ) = parts
    board.version += changes
