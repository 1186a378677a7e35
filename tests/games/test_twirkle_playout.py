"""The Twirkle referee's fast paths (bookkeeping laid card by card, the shift starts found
in one loop, the playout loop) play exactly the game the public interface plays."""

from __future__ import annotations

import random

import pytest

from arena.games.twirkle import Twirkle
from arena.games.twirkle.board import (
    DOWN,
    RIGHT,
    STEPS,
    Cell,
    _set_accepts,
    end_of,
    line_mask,
    run_accepts,
)
from arena.games.twirkle.cards import is_line
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


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playout_in_pieces_is_the_plain_loop(players: int) -> None:
    """Playouts cut at any limit (inside a turn, or where the whole-turn loop hands back to
    the step loop) go on as one playout would: the generator is never drawn ahead."""
    for seed in range(3):
        fast, plain = Twirkle.new(players, seed), Twirkle.new(players, seed)
        assert isinstance(fast, Twirkle)
        rng, pieces = random.Random(seed), random.Random(seed + 100)
        while not fast.is_over():
            limit = pieces.randrange(1, 80)
            assert fast.playout(rng, limit) == limit or fast.is_over()
        plain_loop(plain, random.Random(seed))
        assert fast.history == plain.history, seed
        assert fast.chance.log == plain.chance.log, seed
        check_bookkeeping(fast.board)


def test_playout_with_another_generator_class_is_the_plain_loop() -> None:
    """A generator class of its own is asked for its choices (nothing inlined)."""

    class Generator(random.Random):
        """A subclass: `leylo.draws` does not inline its draws."""

    fast, plain = Twirkle.new(3, 5), Twirkle.new(3, 5)
    assert isinstance(fast, Twirkle) and isinstance(plain, Twirkle)
    fast.playout(Generator(5))
    plain_loop(plain, Generator(5))
    assert fast.history == plain.history
    assert fast.outcome() == plain.outcome()


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


def brute_force_puts(grid: dict[Cell, int], leaf: Cell) -> list[int]:
    """W6 by brute force: with the card on `leaf` lifted, every line end (an empty cell just
    beyond two or more cards in a row) of a line other than the leaf's, where the card
    keeps both lines through the cell valid."""
    kind, rest = grid[leaf], dict(grid)
    del rest[leaf]
    along = next(step for step in STEPS if leaf + step in grid)  # its line runs that way
    own = run(rest, leaf + along, along)  # the rest of its line
    found = []
    for cell in {card + step for card in rest for step in STEPS} - set(rest):
        for step in STEPS:
            line = []
            near = cell - step
            while near in rest:
                line.append(near)
                near -= step
            if len(line) < 2 or (step in (along, -along) and line[0] in own):
                continue  # no line ends here, or the leaf's own line does
            rest[cell] = kind
            if all(is_line([rest[c] for c in run(rest, cell, axis)]) for axis in (RIGHT, DOWN)):
                found.append(end_of(cell, step))
            del rest[cell]
    return sorted(found)


def run(grid: dict[Cell, int], cell: Cell, axis: int) -> list[Cell]:
    """The cards in a row with `cell` along `axis`, `cell` included."""
    cells = [cell]
    for step in (axis, -axis):
        near = cell + step
        while near in grid:
            cells.append(near)
            near += step
    return cells


def test_shift_starts_and_puts_are_w6_by_brute_force() -> None:
    """The puts (every line end the kind fits, plus those the lift opens beside the leaf or
    beyond its line) and the leaves having one are what W6 gives, found the long way."""
    checked = 0
    for seed in range(4):
        game = Twirkle.new(2 + seed % 3, seed)
        assert isinstance(game, Twirkle)
        rng = random.Random(seed)
        while not game.is_over():
            if game.phase == "shifting" and game.moved == 0 and game.lifted is None:
                starts, grid = ShiftStarts(game.board), game.board.grid
                puts = {leaf: brute_force_puts(grid, leaf) for leaf in game.board.leaf_cells}
                assert starts.liftable() == sorted(leaf for leaf in puts if puts[leaf])
                for leaf, expected in puts.items():
                    assert starts.puts(leaf) == expected, (seed, leaf)
                checked += len(puts)
            game.playout(rng, limit=1)
    assert checked >= 500


def test_the_accepted_kinds_of_a_set_are_line_masks() -> None:
    """`run_accepts` (its table, and the bit operations it is built with) is `line_mask` of
    the set's kinds, lines or not."""
    rng = random.Random(3)
    lines = [[6 * c + s for s in range(6)] for c in range(6)]
    lines += [[6 * c + s for c in range(6)] for s in range(6)]
    for _ in range(3000):
        pool = rng.choice(lines) if rng.random() < 0.7 else list(range(36))
        kinds = rng.sample(pool, rng.randrange(0, 7))
        seen = sum(1 << kind for kind in kinds)
        assert _set_accepts(seen) == line_mask(kinds), kinds
        assert run_accepts(seen) == line_mask(kinds), kinds  # the table, complete
