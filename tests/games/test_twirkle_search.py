"""Twirkle's search support: determinized states, W2's public inference, the fast playout.

The conformance kit (tests/games/test_search_support.py) checks a few random
positions; these tests visit every kind of step (an exchange, a shift with a card
in the air, the opening) and the inferences the rules page's "Search support"
section states, and the positions where a sampler without `turn_action`,
`exchanged`, `returned` and `shift.last_put` had to guess.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import orjson

from arena.games.twirkle import Twirkle
from arena.games.twirkle.board import (
    DOWN,
    RIGHT,
    RUN_REPEATS,
    STEPS,
    WIDTH,
    Board,
    Cell,
    encode,
    end_of,
)
from arena.games.twirkle.cards import (
    ALL_KINDS,
    KIND_OF,
    NAMES,
    full_deck,
    is_line,
    largest_line_set,
    run_mask,
)
from arena.games.twirkle.sampling import returner
from arena.games.twirkle.shifting import next_move

REDS = [f"red-{s}" for s in ("swirl", "star", "pyramid", "clover", "rosette", "crystal")]


def step_kind(game: Twirkle) -> str:
    """A name for the kind of step the game is at (what determinize must rebuild)."""
    if game.phase == "shifting":
        if game.moved:
            return "shift-on-" + ("lifted" if game.lifted else "down")
        if game.lifted:
            return "shift-first-lifted"
        return "shift-after-" + game.turn_action
    if game.phase == "opening" and game.placed_cells:
        return "opening-started"
    return game.phase


def positions(players: int, seeds: range, per_kind: int) -> Iterator[Twirkle]:
    """Up to `per_kind` positions of every kind of step from seeded random games."""
    seen: Counter[str] = Counter()
    for seed in seeds:
        game = Twirkle.new(players, seed)
        assert isinstance(game, Twirkle)
        rng = random.Random(seed)
        while not game.is_over():
            kind = step_kind(game)
            if seen[kind] < per_kind and rng.random() < 0.2:
                seen[kind] += 1
                yield game
            seat = game.to_move()[0]
            game.apply(seat, rng.choice(game.legal(seat)))


def determinized(game: Twirkle, seat: int, rng: random.Random) -> Twirkle:
    observation = orjson.loads(orjson.dumps(game.observe(seat)))
    sample = Twirkle.determinize(observation, seat, game.players, None, rng)
    assert isinstance(sample, Twirkle)
    return sample


def random_steps(players: int, seeds: range) -> Iterator[Twirkle]:
    """Every position of seeded random games."""
    for seed in seeds:
        game = Twirkle.new(players, seed)
        assert isinstance(game, Twirkle)
        rng = random.Random(seed)
        while not game.is_over():
            yield game
            seat = game.to_move()[0]
            game.apply(seat, rng.choice(game.legal(seat)))


def test_every_kind_of_step_is_rebuilt_for_every_seat() -> None:
    rng = random.Random(1)
    kinds: Counter[str] = Counter()
    for players in (2, 3, 4):
        for index, game in enumerate(positions(players, range(3), per_kind=2)):
            kinds[step_kind(game)] += 1
            for seat in range(players):
                sample = determinized(game, seat, rng)
                assert sample.observe(seat) == game.observe(seat)
                assert sample.to_move() == game.to_move()
                assert sample.legal(seat) == game.legal(seat)
                if game.phase == "shifting":  # the mover's list is public there
                    assert sample.legal(game.current) == game.legal(game.current)
                assert (sample.turn_action, sample.exchanged) == (game.turn_action, game.exchanged)
                assert sample.shift_last == game.shift_last
                sizes = {place: len(cards) for place, cards in sample.hidden(seat).items()}
                assert sizes == {place: len(cards) for place, cards in game.hidden(seat).items()}
                if seat == index % players:  # playing every sample out would be slow
                    sample.playout(random.Random(seat))
                    assert sample.is_over()
    assert {"exchanging", "shift-first-lifted", "shift-after-exchange"} <= set(kinds)


def test_a_hand_still_as_dealt_holds_no_larger_set_than_the_opening() -> None:
    # W2: the start player had the largest line set; so nobody else had a larger one, and
    # until their first turn ends their hand is the dealt one.
    rng = random.Random(2)
    for seed in range(6):
        game = Twirkle.new(4, seed)
        assert isinstance(game, Twirkle)
        size, starter = game.opening_size, game.start_seat
        for seat in range(4):
            for _ in range(20):
                sample = determinized(game, seat, rng)
                for other in range(4):
                    held = largest_line_set(sample.hands[other])
                    assert held == size if other == starter else held <= size


def opening_of_six(laid: int) -> Twirkle:
    """Seat 0 opens a red line of six and has laid `laid` of the reds; seat 1 holds blues."""
    game = Twirkle.new(2, seed=1)
    assert isinstance(game, Twirkle)
    cells = [encode((x, 0)) for x in range(laid)]
    game.board = Board({(x, 0): KIND_OF[REDS[x]] for x in range(laid)})
    game.hands = [
        sorted(KIND_OF[name] for name in REDS[laid:]),
        sorted(KIND_OF[f"blue-{name.split('-')[1]}"] for name in REDS),
    ]
    game.start_seat = game.current = 0
    game.opening_size = 6
    game.last_turns = [None, None]
    game._begin_turn("opening")
    game.placed_cells = cells
    game.placed_kinds = [KIND_OF[name] for name in REDS[:laid]]
    used = Counter(game.hands[0] + game.hands[1] + game.placed_kinds)
    game.bag = [k for k in range(36) for _ in range(3 - used[k])]
    game.changed()
    return game


def test_a_start_player_opening_a_six_holds_exactly_the_rest_of_its_line() -> None:
    game = opening_of_six(laid=2)
    rest = sorted(KIND_OF[name] for name in REDS[2:])
    ruled = game.ruled_out(1)["hand:0"]
    assert set(ruled) == {NAMES[k] for k in range(36)} - {NAMES[k] for k in rest}
    rng = random.Random(3)
    for _ in range(5):
        sample = determinized(game, 1, rng)
        assert sample.hands[0] == rest
        assert sample.legal(0) == game.legal(0)


# ----- what the observation carries so that a sample is exact -------------------------------
def fitting_target_ends(game: Twirkle) -> list[Cell]:
    """The cells the last card put in the running shift may lie on, by the board and the
    shift's direction alone: what a sampler guessed among before `shift.last_put`.

    A line end along the direction with an empty cell beyond, at least two cards besides
    the moved ones, whose moved cards form one line with the rest of the source line
    (they were one), and where the next card (in the air, or the next source card) fits.
    """
    board, step, moved = game.board, game.shift_direction, game.moved
    assert step is not None and moved
    grid = board.grid
    source = [grid[cell] for cell in game.shift_source]
    if game.lifted is not None:
        source.append(game.lifted[0])
    found = []
    for cell in sorted(grid):
        if cell + step in grid or board.run_length(cell, step) < 2 + moved:
            continue
        if not is_line([grid[cell - i * step] for i in range(moved)] + source):
            continue
        if game.lifted is not None:
            if not board.mask_at(cell + step) >> game.lifted[0] & 1:
                continue
        elif next_move(board, game.shift_source[0], cell, step) is None:
            continue
        found.append(cell)
    return found


def with_target_end(game: Twirkle, cell: Cell) -> Twirkle:
    """The same position, but the shift's last card lying on `cell`."""
    other = game.clone()
    assert isinstance(other, Twirkle) and other.shift_direction is not None
    other.shift_last = cell
    if other.lifted is not None:
        target = other.board.beyond(cell, other.shift_direction)
        other.pending_puts = [end_of(target, other.shift_direction)]
    other.changed()
    return other


def test_a_running_shift_is_rebuilt_where_several_target_lines_fit() -> None:
    # Before `shift.last_put`, a sample picked among the lines that fit, and with a card in
    # the air after a put it could offer the mover another `put` than the true one. Every
    # seat sees the whole shift, so every seat's sample offers the mover the true list.
    found: Counter[str] = Counter()
    rng = random.Random(7)
    for players in (2, 3, 4):
        for game in random_steps(players, range(10)):
            if not (game.phase == "shifting" and game.moved):
                continue
            ends = fitting_target_ends(game)
            assert game.shift_last in ends
            if len(ends) < 2:
                continue
            mover, legal = game.current, game.legal(game.current)
            guesses = [with_target_end(game, cell).legal(mover) for cell in ends]
            differs = any(guess != legal for guess in guesses)
            found[("lifted" if game.lifted else "down") + (" differs" if differs else "")] += 1
            for seat in range(players):
                for _ in range(3):
                    sample = determinized(game, seat, rng)
                    assert sample.observe(seat) == game.observe(seat)
                    assert sample.shift_last == game.shift_last
                    assert sample.legal(mover) == legal
    # Between moves every fitting line offers the same `lift`; with a card in the air not.
    assert found["lifted differs"] >= 5 and found["down"] >= 5, found


def test_a_shift_after_a_pass_or_an_exchange_ends_as_the_true_one() -> None:
    # T10: a pass that completes a round of passes ends the game at `end_turn`, an
    # exchange does not; and the turn summary counts the exchanged cards. Every sample
    # knows which it was (`turn_action`, `exchanged`), so `end_turn` shows the seat
    # the same next observation as the true game.
    found: Counter[str] = Counter()
    rng = random.Random(8)
    for players in (2, 3):
        for game in random_steps(players, range(12)):
            if game.phase != "shifting" or game.lifted is not None:
                continue
            if game.turn_action not in ("pass", "exchange") or game.passes < players - 1:
                continue
            truth = game.clone()
            truth.apply(game.current, {"action": "end_turn"})
            found[game.turn_action + (" ends the game" if truth.is_over() else "")] += 1
            for seat in range(players):
                sample = determinized(game, seat, rng)
                sample.apply(game.current, {"action": "end_turn"})
                assert sample.is_over() == truth.is_over()
                assert sample.observe(seat) == truth.observe(seat)
    assert found["pass ends the game"] >= 3 and found["exchange"] >= 3, found


def test_given_back_cards_are_in_every_samples_bag_until_the_next_draw() -> None:
    # T6: only their owner knows which cards it gave back; until the next card is drawn
    # from the bag they are surely in it, and its samples put them there. The others know
    # how many (the turn summaries), and their samples hold as many of the sampled bag.
    rng = random.Random(9)
    ruled = checked = 0
    for players in (2, 3, 4):
        for index, game in enumerate(random_steps(players, range(3))):
            owner = game.returner
            views = [game.observe(seat) for seat in range(players)]
            for seat, view in enumerate(views):
                mine = [NAMES[k] for k in game.returned] if seat == owner else []
                assert view["returned"] == mine
                assert returner(view) == (None if owner is None else (owner, len(game.returned)))
            if owner is None:
                continue
            assert not Counter(game.returned) - Counter(game.bag)  # they are in the bag
            if index % 5:
                continue
            checked += 1
            for seat in range(players):
                sample = determinized(game, seat, rng)
                assert sample.returner == owner and len(sample.returned) == len(game.returned)
                assert not Counter(sample.returned) - Counter(sample.bag)
                if seat == owner:
                    assert sample.returned == game.returned
                # A given-back card with no other unseen copy is in no other place.
                unseen = Counter(full_deck())
                unseen.subtract(game.board.grid.values())
                unseen.subtract(game.hands[seat] + (game.selected if seat == game.current else []))
                if game.lifted is not None:
                    unseen.subtract([game.lifted[0]])
                sure = {
                    NAMES[k]
                    for k in set(game.returned)
                    if seat == owner and unseen[k] == game.returned.count(k)
                }
                places = [place for place in game.hidden(seat) if place != "bag"]
                expected = {place: sure for place in places} if sure else {}
                assert {p: set(c) for p, c in game.ruled_out(seat).items()} == expected
                for place in places:
                    assert not sure & set(sample.hidden(seat)[place])
                ruled += bool(sure)
    assert checked >= 30 and ruled >= 5, (checked, ruled)


def test_the_fast_playout_is_the_plain_loop_also_for_a_simulation() -> None:
    for players in (2, 3, 4):
        game = Twirkle.new(players, 9)
        game.playout(random.Random(1), limit=40)
        fast, plain = game.clone(seed=5), game.clone(seed=5)
        fast.playout(random.Random(2))
        rng = random.Random(2)
        while not plain.is_over():
            seat = plain.to_move()[0]
            plain.apply(seat, rng.choice(plain.legal(seat)))
        assert fast.history == plain.history and fast.outcome() == plain.outcome()


def walked_mask(board: Board, cell: Cell) -> int:
    """The kinds the empty `cell` accepts, from the cards met walking each axis (no caches)."""
    mask = ALL_KINDS
    for step in (RIGHT, DOWN):
        kinds = [
            board.grid[c] for c in board.cells_along(cell, step) + board.cells_along(cell, -step)
        ]
        if kinds:
            mask &= run_mask(kinds)
    return mask


def check_bookkeeping(board: Board) -> None:
    """What the board keeps card by card (runs, line ends, masks) and the unions read off it
    are what a full recount gives."""
    grid = board.grid
    assert set(board.masks) <= board.frontier
    for cell in board.frontier:
        assert board.masks.get(cell, 0) == walked_mask(board, cell), cell
    assert board.end_masks == {c: m for c, m in board.masks.items() if c in board.end_ranks}
    touching = {cell: [step for step in STEPS if cell + step in grid] for cell in grid}
    touching.update({cell: [s for s in STEPS if cell + s in grid] for cell in board.frontier})
    assert board.frontier == {cell + step for cell in grid for step in STEPS} - set(grid)
    assert board.degrees == {cell: len(steps) for cell, steps in touching.items() if steps}
    assert board.leaf_cells == {
        c: steps[0] for c, steps in touching.items() if c in grid and len(steps) == 1
    }
    ends = {
        end_of(cell, step)
        for cell in board.frontier
        for step in STEPS
        if cell - step in grid and cell - 2 * step in grid
    }
    assert board.ends == ends
    for cell in grid:
        for step, runs in ((RIGHT, board.row_kinds), (DOWN, board.column_kinds)):
            kinds = [grid[c] for c in board.run_cells(cell, step)]
            assert board.run_length(cell, step) == len(kinds)
            repeats = len(set(kinds)) < len(kinds)
            assert runs[cell] == (RUN_REPEATS if repeats else sum(1 << k for k in set(kinds)))
    fits = [board.mask_at(cell) for cell in board.frontier]
    assert board.fitting() == sum(1 << k for k in range(36) if any(m >> k & 1 for m in fits))
    taken = [board.mask_at(end >> 2) for end in ends]
    assert board.ends_taking() == sum(1 << k for k in range(36) if any(m >> k & 1 for m in taken))
    for leaf in list(board.leaf_cells):  # a mask with a leaf beside it ignored, as if lifted
        beside = [leaf + step for step in STEPS if leaf + step not in grid]
        ignoring = [board.mask_without(cell, leaf) for cell in beside]
        kind = board.remove(leaf)
        assert ignoring == [walked_mask(board, cell) for cell in beside]
        board.place(leaf, kind)


def check_ignoring(board: Board) -> None:
    """`mask_without(cell, gone)` from the kept runs is the walked one for every card on the
    cell's row or column (beside it, ending a run, inside one, beyond a gap)."""
    for cell in board.frontier:
        for gone in board.grid:
            if (gone - cell) % WIDTH == 0 or gone // WIDTH == cell // WIDTH:
                assert board.mask_without(cell, gone) == board.walked_mask(cell, gone)


def test_the_boards_kept_bookkeeping_is_a_full_recount_at_every_step() -> None:
    for players in (2, 3, 4):
        for index, game in enumerate(random_steps(players, range(players, players + 1))):
            check_bookkeeping(game.board)
            if index % 10 == 0:
                check_ignoring(game.board)
    board = Board({(0, 0): KIND_OF["red-star"], (1, 0): KIND_OF["red-star"]})
    check_bookkeeping(board)  # a kind repeats in a run: nothing fits beside it
    assert board.row_kinds[encode((0, 0))] == RUN_REPEATS
    assert board.mask((2, 0)) == board.mask((-1, 0)) == 0
    board.lift((1, 0))
    check_bookkeeping(board)
