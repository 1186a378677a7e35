"""Twirkle's compiled whole-turn engine (`_engine`, through `fast`) plays exactly the turns the
Python `Turns` play: the same history, generators, chance log, state and bookkeeping, from
the deal, from clones and determinized samples, in pieces, and near the board's edge."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from arena.games.twirkle import Twirkle, fast
from arena.games.twirkle.board import Board, decode, encode
from tests.games.test_twirkle_search import check_bookkeeping, determinized

#: Referee attributes holding other objects (compared on their own) or per-object caches.
NOT_COMPARED = {"board", "chance", "history", "_starts", "_open"}
#: Board caches of views, kept per version (rebuilt when asked).
BOARD_CACHES = {"_laid_out", "_views"}


@contextmanager
def python_turns() -> Iterator[None]:
    """Every turn played by the Python `Turns`, as ``ARENA_TWIRKLE_ENGINE=python`` says."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(fast.ENGINE_VARIABLE, "python")
        yield


class Spy:
    """Stands in for the compiled module, counting the calls that played turns."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.calls = self.played = self.handed_back = 0

    def play(self, *args: Any) -> Any:
        answer = self.engine.play(*args)
        self.calls += 1
        if answer is not None:
            self.played += answer[0] > 0
            budget, turn_decisions = args[4][5:7]
            # stopped at a turn's start with room for more: the margin was reached
            self.handed_back += answer[10] == "turn" and budget - answer[0] >= turn_decisions
        return answer


def twin_runs(
    make: Callable[[], Twirkle], play: Callable[[Twirkle, random.Random], object], seed: int
) -> tuple[Twirkle, Twirkle, random.Random, random.Random]:
    """`play` on two copies of `make()`'s game, with the engine and with Python turns."""
    engine, python = make(), make()
    engine_rng, python_rng = random.Random(seed), random.Random(seed)
    play(engine, engine_rng)
    with python_turns():
        play(python, python_rng)
    return engine, python, engine_rng, python_rng


def assert_same(a: Twirkle, b: Twirkle, rng_a: random.Random, rng_b: random.Random) -> None:
    """Everything a playout leaves is equal: history, generators, chance log, views, state."""
    assert a.history == b.history
    assert rng_a.getstate() == rng_b.getstate()
    chance_a, chance_b = a.chance.generator, b.chance.generator
    assert chance_a is not None and chance_b is not None
    assert chance_a.getstate() == chance_b.getstate()
    assert a.chance.log == b.chance.log
    assert [a.observe(s) for s in range(a.players)] == [b.observe(s) for s in range(b.players)]
    assert a.is_over() == b.is_over()
    if a.is_over():
        assert a.outcome() == b.outcome()
    fields = {k: v for k, v in vars(a).items() if k not in NOT_COMPARED}
    assert fields == {k: v for k, v in vars(b).items() if k not in NOT_COMPARED}
    board = {k: v for k, v in vars(a.board).items() if k not in BOARD_CACHES}
    assert board == {k: v for k, v in vars(b.board).items() if k not in BOARD_CACHES}
    check_bookkeeping(a.board)  # (it lays and lifts cards: both boards, to stay alike)
    check_bookkeeping(b.board)


def assert_same_onwards(a: Twirkle, b: Twirkle, seed: int, steps: int = 40) -> None:
    """Both go on alike through the public interface: the same lists, the same results."""
    rng_a, rng_b = random.Random(seed), random.Random(seed)
    for _ in range(steps):
        if a.is_over():
            break
        seat = a.to_move()[0]
        assert b.to_move() == [seat]
        legal = a.legal(seat)
        assert legal == b.legal(seat)
        a.apply_joint({seat: rng_a.choice(legal)})
        b.apply_joint({seat: rng_b.choice(legal)})
    assert_same(a, b, rng_a, rng_b)


def new_game(players: int, seed: int) -> Callable[[], Twirkle]:
    def make() -> Twirkle:
        game = Twirkle.new(players, seed)
        assert isinstance(game, Twirkle)
        return game

    return make


def playout(game: Twirkle, rng: random.Random) -> object:
    return game.playout(rng)


def test_the_engine_is_built_and_plays_the_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    """This checkout has the compiled module (a silent build failure fails here), and a
    playout from the deal plays its turns there."""
    engine = importlib.import_module("arena.games.twirkle._engine")
    assert fast._engine is engine and fast.available()
    spy = Spy(engine)
    monkeypatch.setattr(fast, "_engine", spy)
    game = new_game(3, 1)()
    made = game.playout(random.Random(1))
    assert game.is_over() and made == len(game.history)
    assert spy.calls == spy.played == 1 and spy.handed_back == 0


def test_the_python_turns_play_when_the_engine_is_off_or_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spy = Spy(fast._engine)
    monkeypatch.setattr(fast, "_engine", spy)
    with python_turns():
        switched_off = new_game(2, 4)()
        switched_off.playout(random.Random(4))
    assert spy.calls == 0
    monkeypatch.setattr(fast, "_engine", None)  # as where nothing was compiled
    assert not fast.available()
    missing = new_game(2, 4)()
    missing.playout(random.Random(4))
    monkeypatch.undo()
    compiled = new_game(2, 4)()
    compiled.playout(random.Random(4))
    assert switched_off.history == missing.history == compiled.history
    assert switched_off.outcome() == missing.outcome() == compiled.outcome()


def test_a_python_that_cannot_import_the_engine_plays_on_in_python() -> None:
    """The import itself failing (a Python of another ABI, a copy without the module)."""
    script = (
        "import random, sys\n"
        "sys.modules['arena.games.twirkle._engine'] = None  # `import` raises ImportError\n"
        "from arena.games.twirkle import Twirkle, fast\n"
        "game = Twirkle.new(2, 4)\n"
        "print(fast._engine, fast.available(), game.playout(random.Random(4)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    expected = new_game(2, 4)()
    made = expected.playout(random.Random(4))
    assert done.stdout.split() == ["None", "False", str(made)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playouts_from_the_deal_are_the_python_turns(players: int) -> None:
    """A recording chance: the bag's shuffles after exchanges are logged alike."""
    for seed in range(40):
        a, b, rng_a, rng_b = twin_runs(new_game(players, seed), playout, seed)
        assert a.is_over()
        assert_same(a, b, rng_a, rng_b)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playouts_of_clones_are_the_python_turns(players: int) -> None:
    """Clones with a simulated chance (what search plays out), from every kind of moment:
    a turn's start, a placement, an exchange or a shift under way."""
    for seed in range(60):
        position = new_game(players, seed)()
        position.playout(random.Random(seed), 20 + 7 * seed)
        if position.is_over():
            continue

        def make(position: Twirkle = position, seed: int = seed) -> Twirkle:
            clone = position.clone(seed=seed)
            assert isinstance(clone, Twirkle)
            return clone

        a, b, rng_a, rng_b = twin_runs(make, playout, seed + 1000)
        assert_same(a, b, rng_a, rng_b)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playouts_in_pieces_are_the_python_turns_and_play_on_alike(players: int) -> None:
    """Limits that cut the engine's run short (it plays whole turns only), then the public
    interface from where each piece stopped."""
    for seed in range(25):

        def pieces(game: Twirkle, rng: random.Random, seed: int = seed) -> None:
            sizes = random.Random(seed)
            for _ in range(4):
                game.playout(rng, sizes.randrange(1, 140))

        a, b, rng_a, rng_b = twin_runs(new_game(players, seed), pieces, seed)
        assert_same(a, b, rng_a, rng_b)
        assert_same_onwards(a, b, seed)


def test_playouts_of_determinized_samples_are_the_python_turns() -> None:
    """What ISMCTS plays out: states rebuilt from one seat's observation."""
    for seed in range(30):
        players = 2 + seed % 3
        position = new_game(players, seed)()
        position.playout(random.Random(seed), 30 + 5 * seed)
        if position.is_over():
            continue
        seat = position.to_move()[0]

        def make(position: Twirkle = position, seat: int = seat, seed: int = seed) -> Twirkle:
            return determinized(position, seat, random.Random(seed))

        a, b, rng_a, rng_b = twin_runs(make, playout, seed)
        assert_same(a, b, rng_a, rng_b)


def moved_board(game: Twirkle, dx: int) -> Twirkle:
    """A clone of `game` with every card `dx` cells further right (the rules only see
    where cards lie relative to each other after the opening)."""
    twin = game.clone()
    assert isinstance(twin, Twirkle)
    cells = {decode(cell): kind for cell, kind in game.board.grid.items()}
    twin.board = Board({(x + dx, y): kind for (x, y), kind in cells.items()})
    twin.placed_cells = [encode((x + dx, y)) for x, y in map(decode, game.placed_cells)]
    twin.changed()
    return twin


@pytest.mark.parametrize("inside", [True, False])
def test_near_the_edge_of_its_window_the_engine_hands_over_to_python(
    inside: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine's board is a window around the origin: a layout off it is left to Python,
    one reaching its margin during the run is handed back at a turn's start."""
    spy = Spy(fast._engine)
    limit = fast._engine.SIDE // 2 - fast._engine.MARGIN  # x from -limit to limit - 1
    for seed in range(12):
        position = new_game(2, seed)()
        position.playout(random.Random(seed), 60)
        right = max(decode(cell)[0] for cell in position.board.grid)
        position = moved_board(position, limit - 3 - right if inside else 150)
        monkeypatch.setattr(fast, "_engine", spy)  # (the position's own playout not counted)

        def make(position: Twirkle = position, seed: int = seed) -> Twirkle:
            clone = position.clone(seed=seed)
            assert isinstance(clone, Twirkle)
            return clone

        a, b, rng_a, rng_b = twin_runs(make, playout, seed)
        assert_same(a, b, rng_a, rng_b)
        monkeypatch.undo()
    assert spy.calls >= 6
    if inside:
        assert spy.played > 0 and spy.handed_back > 0
    else:
        assert spy.played == 0
