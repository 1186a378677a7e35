"""Twirkle's search support: determinized states, W2's public inference, the fast playout.

The conformance kit (tests/games/test_search_support.py) checks a few random
positions; these tests visit every kind of step (an exchange, a shift with a card
in the air, the opening) and the inferences the rules page's "Search support"
section states.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import orjson

from arena.games.twirkle import Twirkle
from arena.games.twirkle.board import Board, encode
from arena.games.twirkle.cards import KIND_OF, NAMES, largest_line_set
from arena.games.twirkle.sampling import shift_last_cells

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


def ambiguous_shift(game: Twirkle) -> bool:
    """A card in the air after a put: the observation does not name the target line."""
    shift = game.observe(game.current)["shift"]
    if game.lifted is None or not game.moved:
        return False
    return len(shift_last_cells(game.board, shift)) > 1


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
                if not (seat == game.current and ambiguous_shift(game)):
                    assert sample.legal(seat) == game.legal(seat)
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


def test_the_target_of_a_shift_under_way_is_guessed_among_the_fitting_lines() -> None:
    # The observation names the direction of a running shift but not its target line
    # (reported as a gap on the rules page). The first seeded 3-player game that reaches
    # a put after which two lines fit: samples land on both, and offer the same lift.
    for seed in range(60):
        game = Twirkle.new(3, seed)
        assert isinstance(game, Twirkle)
        rng = random.Random(seed)
        while not game.is_over():
            if game.moved and game.lifted is None and ambiguous_candidates(game) > 1:
                guesses = set()
                for index in range(40):
                    sample = determinized(game, game.current, random.Random(index))
                    guesses.add(sample.shift_last)
                    assert sample.legal(game.current) == game.legal(game.current)
                assert game.shift_last in guesses and len(guesses) > 1
                return
            seat = game.to_move()[0]
            game.apply(seat, rng.choice(game.legal(seat)))
    raise AssertionError("no shift with two fitting target lines in 60 games")


def ambiguous_candidates(game: Twirkle) -> int:
    return len(shift_last_cells(game.board, game.observe(game.current)["shift"]))


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
