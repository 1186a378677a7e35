"""The Twirkle referee's fast paths (bookkeeping laid card by card, the shift starts found
in one loop, the playout loop) play exactly the game the public interface plays."""

from __future__ import annotations

import random

import pytest

from arena.games.twirkle import Twirkle
from arena.games.twirkle.board import _set_accepts, line_mask
from arena.games.twirkle.shifting import ShiftStarts
from tests.games.test_twirkle_search import check_bookkeeping


def plain_loop(game: Twirkle, rng: random.Random) -> None:
    """The loop a caller writes: ``rng.choice(legal)`` through the public interface."""
    while not game.is_over():
        seat = game.to_move()[0]
        game.apply(seat, rng.choice(game.legal(seat)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playout_from_the_deal_is_the_plain_loop(players: int) -> None:
    for seed in range(6):
        fast, plain = Twirkle.new(players, seed), Twirkle.new(players, seed)
        assert isinstance(fast, Twirkle) and isinstance(plain, Twirkle)
        fast.playout(random.Random(seed))
        plain_loop(plain, random.Random(seed))
        assert fast.history == plain.history, seed
        assert fast.chance.log == plain.chance.log, seed
        assert fast.outcome() == plain.outcome(), seed
        assert [fast.observe(s) for s in range(players)] == [
            plain.observe(s) for s in range(players)
        ]
        check_bookkeeping(fast.board)


def test_shift_starts_are_the_leaves_with_a_put() -> None:
    """`liftable` (one loop over the leaves) agrees with `puts` for every leaf."""
    checked = 0
    for seed in range(3):
        game = Twirkle.new(3, seed)
        assert isinstance(game, Twirkle)
        rng = random.Random(seed)
        while not game.is_over():
            if game.phase == "shifting" and game.moved == 0 and game.lifted is None:
                starts = ShiftStarts(game.board)
                leaves = sorted(game.board.leaf_cells)
                assert starts.liftable() == [leaf for leaf in leaves if starts.puts(leaf)]
                checked += 1
            game.playout(rng, limit=1)
    assert checked >= 30


def test_the_accepted_kinds_of_a_set_are_line_masks() -> None:
    """`run_accepts` by bit operations is `line_mask` of the set's kinds, lines or not."""
    rng = random.Random(3)
    lines = [[6 * c + s for s in range(6)] for c in range(6)]
    lines += [[6 * c + s for c in range(6)] for s in range(6)]
    for _ in range(3000):
        pool = rng.choice(lines) if rng.random() < 0.7 else list(range(36))
        kinds = rng.sample(pool, rng.randrange(0, 7))
        seen = sum(1 << kind for kind in kinds)
        assert _set_accepts(seen) == line_mask(kinds), kinds
