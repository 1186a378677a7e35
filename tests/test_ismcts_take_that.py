"""The ISMCTS bot's Take That opponent model: its faster paths rate as the general ones
(and so as the heuristic bot), the referee's legal list is its options, and a
fixed-iteration search is legal and repeatable."""

from __future__ import annotations

import random
import sys
from typing import Any

from arena.games import load_game
from tests.helpers import heuristic_walk, load_bot_module, search_twice

ismcts = load_bot_module("ismcts")
tree_search = ismcts.tree_search
model = sys.modules["take_that_model"]
heuristic = sys.modules["take_that_heuristic"]
GAME = load_game("take-that")


def walk_positions(players: int, pro: bool, seed: int) -> list[tuple[Any, int, list[Any]]]:
    """(state, seat, legal) at every decision of a match played by the heuristic with
    some random decisions mixed in (so that takes and twists come up too)."""
    variant = GAME.spec.resolve_variant({"pro": pro, "rounds": 1})

    def choose(observation: Any, legal: list[Any], rng: random.Random) -> Any:
        return heuristic.choose(observation, legal, rng, variant)

    return heuristic_walk(GAME.new(players, seed, variant), choose, seed)


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


def test_the_hot_path_rates_float_for_float_as_seen() -> None:
    """`best_decisions` (the inlined `_rated`) gives every decision of every seat the
    value `Seen.evaluate` gives it, float for float, and the same best decisions as
    rating them all in order; a take it skips or rates from some openings only is below
    the best so far (so it could not be among the best), in 2-4 players, with and
    without pro."""
    rated = skipped = 0
    for players, pro in ((2, False), (2, True), (3, False), (3, True), (4, True), (4, False)):
        for seed in (1, 2):
            for state, _, _ in walk_positions(players, pro, 70 + 10 * players + seed):
                for seat in range(players):
                    legal = state._legal(seat)
                    if not legal or not state.hands[seat]:
                        continue
                    seen = model.Seen(state, seat)
                    exact = [seen.evaluate(d) for d in legal]
                    values: list[float | None] = []
                    best = model._rated(state, seat, legal, values)
                    assert len(values) == len(legal)
                    top, ties = float("-inf"), []
                    for decision, value, fast in zip(legal, exact, values, strict=True):
                        if fast != value:
                            assert decision["action"] == "take" and ties
                            assert value < top - 1e-9 and (fast is None or fast < top - 1e-9)
                            skipped += 1
                        if value > top + 1e-9:
                            top, ties = value, [decision]
                        elif abs(value - top) <= 1e-9:
                            ties.append(decision)
                    assert best == ties == model.best_decisions(state, seat, legal)
                    rated += len(legal)
    assert rated > 5000 and skipped > 500


def test_the_referees_legal_list_is_its_options() -> None:
    """`_legal` (which inlines `_options`) lists exactly what `_options` offers: plays,
    then twists, then taking, for every seat at every decision of seeded matches."""
    for players, pro in ((2, True), (3, False), (4, True)):
        for state, _, _ in walk_positions(players, pro, 90 + players):
            for seat in range(players):
                plays, twists, may_take = state._options(seat)
                expected = [{"action": "play", "card": c} for c in plays]
                expected += [
                    {"action": "twist", "card": c, "row_card": model.TWIN[c]} for c in twists
                ]
                assert state._legal(seat) == expected + ([{"action": "take"}] if may_take else [])


def test_the_anchor_from_an_observation_is_the_heuristic_bots_decision() -> None:
    """The root's anchor (`take_that_anchor`: the model on `Observed`) is the heuristic
    bot's decision from the same rng, which it leaves in the same state, in 2-4 players,
    with and without pro."""
    knowledge = sys.modules["game_knowledge"]
    compared = 0
    for players, pro in ((2, False), (2, True), (3, True), (4, False)):
        for state, seat, legal in walk_positions(players, pro, 110 + players):
            observation = state.observe(seat)
            for seed in range(3):
                mine, theirs = random.Random(seed), random.Random(seed)
                anchor = knowledge.take_that_anchor(observation, legal, mine, state.variant)
                envelope = state.observation(seat)  # the heuristic bot speaks protocol 2
                assert anchor == heuristic.choose(envelope, legal, theirs, state.variant)
                assert mine.random() == theirs.random()
                compared += 1
    assert compared > 500


def test_the_estimate_counts_card_by_card() -> None:
    """`take_that_estimate` equals the plain card-by-card count, float for float, with
    finished rounds, profi piles and toads among the minus cards."""
    knowledge = sys.modules["game_knowledge"]
    compared = 0
    for players, pro in ((2, True), (3, False), (4, True)):
        variant = GAME.spec.resolve_variant({"pro": pro, "rounds": 2})
        game = GAME.new(players, 130 + players, variant)
        rng = random.Random(players)
        while not game.is_over():
            gone = {c for piles in (game.plus, game.minus_seen) for pile in piles for c in pile}
            expected = []
            for seat in range(players):
                done = sum(scores[seat] for scores in game.round_scores)
                minus = sum(5 if c in model.TOADS else 1 for c in game.minus_seen[seat])
                running = len(game.plus[seat]) - minus - 1.4 * len(game.minus_unseen[seat])
                twins = sum(
                    1 for c in game.hands[seat] if model.TWIN[c] and model.TWIN[c] not in gone
                )
                expected.append(done + running + knowledge.TWIN_VALUE * twins)
            assert knowledge.take_that_estimate(game) == expected
            compared += 1
            seat = game.to_move()[0]
            game.apply(seat, rng.choice(game.legal(seat)))
    assert compared > 200


def test_a_search_answers_a_legal_decision() -> None:
    """A fixed-iteration search of Take That answers one of the legal decisions, and the
    same seed gives the same answer."""
    for state, seat, legal in walk_positions(2, False, 13)[5:60:6]:
        if len(legal) < 2:
            continue
        observation = state.observation(seat)
        answers = search_twice(ismcts, observation, legal, state.variant, "take-that", 40)
        assert answers[0] in legal and answers[0] == answers[1]
