"""LEYLO's kept observation parts, shared legal decisions and fast playout: the same
results as building everything anew, and nothing a caller can spoil."""

from __future__ import annotations

import copy
import itertools
import random
from typing import Any

import pytest

from arena.games.leylo import Leylo
from arena.games.leylo.cards import (
    ADJACENT,
    ALL_CELLS,
    BITS,
    EMPTY,
    LINES,
    NAMES,
    cells_down,
    is_line,
    line_by_rule,
)
from tests.games.test_leylo import flip_all, new_game, random_games, set_grid, set_piles
from tests.games.test_leylo_search import busy_positions, plain_playout


def fresh_view(game: Leylo, seat: int) -> dict[str, Any]:
    """The observation built with nothing kept: a shallow copy whose kept parts are dropped
    (observing changes no state)."""
    twin = copy.copy(game)
    twin._parts = None
    return twin.observe(seat)


def grid_names(game: Leylo, seat: int) -> list[str]:
    """A grid as everybody sees it, from the rules page's wording."""
    return [
        "empty" if code == EMPTY else NAMES[code] if up else "hidden"
        for code, up in zip(game.cards[seat], game.up[seat], strict=True)
    ]


def legal_from_scratch(game: Leylo, seat: int) -> list[dict[str, Any]]:
    """Every legal decision, built without the referee's shared tables (rules page order)."""
    cards, up = game.cards[seat], game.up[seat]
    filled = [c for c in ALL_CELLS if cards[c] != EMPTY]
    down = [c for c in filled if not up[c]]
    if game.phase == "flip":
        return [{"action": "flip", "cell": c} for c in down]
    if game.phase == "turn":
        draws = [{"action": "draw", "source": "pile"}] * bool(game.pile)
        draws += [{"action": "draw", "source": "discard"}] * bool(game.discard)
        pairs = [(a, b) for a, b in ADJACENT if a in filled and b in filled]
        return draws + [{"action": "swap", "cells": [a, b]} for a, b in pairs]
    if game.phase == "place":
        return [{"action": "replace", "cell": c} for c in filled] + [
            {"action": "discard", "reveal": c} for c in down
        ]
    if game.phase == "clear":
        lines = [
            {"action": "clear", kind: index}
            for kind, index, cells in LINES
            if all(up[c] for c in cells) and is_line([cards[c] for c in cells])
        ]
        return [*lines, {"action": "keep"}]
    claims = [{"action": "claim", "cell": c} for c in ALL_CELLS if cards[c] == 15 and up[c]]
    return [*claims, {"action": "pass"}]


def spoil(value: Any) -> None:
    """Change every list and dict inside an observation in place."""
    if isinstance(value, dict):
        for item in value.values():
            spoil(item)
        value["spoiled"] = True
    elif isinstance(value, list):
        for item in value:
            spoil(item)
        value.append("spoiled")


@pytest.mark.parametrize("players", [2, 4, 6])
def test_kept_observations_and_legal_lists_equal_ones_built_anew(players: int) -> None:
    checked = 0
    for index, (game, seat, legal) in enumerate(random_games(players, range(2), busy=True)):
        if index % 3 and seat is not None:
            continue  # every third decision, and every game's end
        for viewer in range(players):
            view = game.observe(viewer)
            assert view == fresh_view(game, viewer)
            assert view["grids"] == [grid_names(game, s) for s in range(players)]
        if seat is not None:
            assert legal == legal_from_scratch(game, seat)
        checked += 1
    assert checked > 100


def test_a_state_changed_from_outside_is_observed_right() -> None:
    game = new_game(3, 4)
    flip_all(game)
    game.observe(0)  # keeps the parts
    set_grid(game, 1, ["7"] * 4 + ["?1"] * 11 + [""])
    set_piles(game, ["3", "joker-red", "action"], ["5", "6"])
    game.cards[2][5] = EMPTY
    game.up[2][5] = False
    view = game.observe(0)
    assert view == fresh_view(game, 0)
    assert view["grids"][1] == ["7"] * 4 + ["hidden"] * 11 + ["empty"]
    assert view["face_down"][1] == 11 and view["discard"] == ["3", "joker-red", "action"]
    game.discard[1:2] = []  # a change below the top
    assert game.observe(0)["discard"] == ["3", "action"]


@pytest.mark.parametrize("players", [3, 5])
def test_observations_and_legal_lists_are_the_callers_to_change(players: int) -> None:
    for index, (game, seat, _legal) in enumerate(random_games(players, range(1), busy=True)):
        if index % 5 or seat is None:
            continue
        before = [fresh_view(game, s) for s in range(players)]
        for viewer in range(players):
            spoil(game.observe(viewer))
        assert [game.observe(s) for s in range(players)] == before
        built = game._legal(seat)  # a new list every time (`legal` keeps one per state)
        assert built is not game._legal(seat)
        built.append({"action": "spoiled"})  # the list, not the shared decisions in it
        assert game._legal(seat) == legal_from_scratch(game, seat)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_playout_from_the_start_and_in_pieces_makes_the_plain_loops_choices(
    players: int,
) -> None:
    for seed in range(3):
        fast, plain = new_game(players, seed), new_game(players, seed)
        fast_rng, plain_rng = random.Random(seed), random.Random(seed)
        pieces = random.Random(seed + 100)
        while not fast.is_over():  # pieces of random length, the generator carried on
            limit = pieces.choice([1, 2, 3, players, 17, 200])
            before = len(fast.history)
            made = fast.playout(fast_rng, limit)
            plain_playout(plain, plain_rng, limit)
            assert fast.history == plain.history and made == len(fast.history) - before
            assert [fast.observe(s) for s in range(players)] == [
                plain.observe(s) for s in range(players)
            ]
        assert plain.is_over() and fast.outcome() == plain.outcome()
        assert fast_rng.random() == plain_rng.random()


def test_playout_from_a_clone_keeps_the_original_and_its_views() -> None:
    for position in busy_positions(4, range(1))[:10]:
        before = [position.observe(s) for s in range(4)]
        twin = position.clone(seed=3)
        twin.playout(random.Random(3))
        assert twin.is_over() and [position.observe(s) for s in range(4)] == before


def test_the_line_lookup_agrees_with_the_rule_for_every_four_cards() -> None:
    codes = range(EMPTY, len(NAMES))
    lines = [four for four in itertools.product(codes, repeat=4) if line_by_rule(four)]
    assert len(lines) == 184  # 16 kinds x 4 equal cards, 12 numbers x 14 mixes with their joker
    assert all(is_line(four) == line_by_rule(four) for four in itertools.product(codes, repeat=4))


def test_the_face_down_cells_of_a_mask() -> None:
    for mask in range(0, 1 << 16, 7):
        assert cells_down(mask) == tuple(c for c in ALL_CELLS if not mask & BITS[c])
