"""The ISMCTS bot's Take That opponent model: its faster paths rate as the general ones
(and so as the heuristic bot), and a fixed-iteration search is legal and repeatable."""

from __future__ import annotations

import random
import sys
from typing import Any

from arena.games import load_game
from tests.helpers import load_bot_module

ismcts = load_bot_module("ismcts")
tree_search = ismcts.tree_search
model = sys.modules["take_that_model"]
heuristic = sys.modules["take_that_heuristic"]
GAME = load_game("take-that")


def walk_positions(players: int, pro: bool, seed: int) -> list[tuple[Any, int, list[Any]]]:
    """(state, seat, legal) at every decision of a match played by the heuristic with
    some random decisions mixed in (so that takes and twists come up too)."""
    variant = GAME.spec.resolve_variant({"pro": pro, "rounds": 1})
    game = GAME.new(players, seed, variant)
    rng = random.Random(seed)
    found = []
    while not game.is_over():
        seat = game.to_move()[0]
        observation, legal = game.observe(seat), game.legal(seat)
        found.append((game.clone(), seat, list(legal)))
        pick = heuristic.choose(observation, legal, rng, variant)
        game.apply(seat, rng.choice(legal) if rng.random() < 0.3 else pick)
    return found


def test_the_fast_paths_rate_as_the_general_ones() -> None:
    """`added` (plays and openings) equals the general `leave`, and the loose bound on
    taking is never below the exact one, in 2-4 players, with and without pro."""
    checked = 0
    for players, pro in ((2, False), (2, True), (3, True), (4, False)):
        for state, seat, legal in walk_positions(players, pro, 60 + players):
            seen = model.Seen(state, seat)
            row = state.row
            for decision in legal:
                if decision["action"] != "play":
                    continue
                card = decision["card"]
                penalties = seen.row_penalties + model.PENALTY[card]
                fast = seen.added(card, seen.row_twins, seen.row_hand, penalties, not row)
                assert fast == seen.leave([*row, card], penalties, card)
                checked += 1
            if state.row and state.hands[seat]:
                assert seen.loose_take_bound() >= seen.take_bound()
    assert checked > 300


def test_a_search_answers_a_legal_decision() -> None:
    """A fixed-iteration search of Take That answers one of the legal decisions, and the
    same seed gives the same answer."""
    for state, seat, legal in walk_positions(2, False, 13)[5:60:6]:
        if len(legal) < 2:
            continue
        observation = state.observe(seat)
        answers = [
            ismcts.choose(
                observation,
                legal,
                random.Random(4),
                state.variant,
                game="take-that",
                budget_s=60.0,
                iterations=40,
            )
            for _ in range(2)
        ]
        assert answers[0] in legal and answers[0] == answers[1]
