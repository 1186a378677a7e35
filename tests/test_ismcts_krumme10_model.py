"""The ISMCTS bot's Krumme10 opponent model: the heuristic bot's decisions, read from a
sampled state (with its ratings kept between samples), and the search that uses it."""

from __future__ import annotations

import random
import sys
from typing import Any

from arena.games import load_game
from tests.helpers import heuristic_walk, load_bot_module, search_twice, tree_seats

ismcts = load_bot_module("ismcts")
tree_search = ismcts.tree_search
model = sys.modules["krumme10_model"]
heuristic = sys.modules["krumme10_heuristic"]
GAME = load_game("krumme10")
#: (players, variant) of the matches walked: every variant, teams with 4-6 players.
SETUPS: list[tuple[int, dict[str, Any]]] = [
    (2, {}),
    (2, {"pink4": True}),
    (3, {"long": True}),
    (4, {"teams": True, "pink4": True}),
    (5, {"showdown": True}),
    (6, {"teams": True, "long": True, "showdown": True}),
]


def walk_positions(players: int, variant: dict[str, Any], seed: int) -> list[tuple[Any, int]]:
    """(state, seat) at every decision with a choice of a match played by the heuristic
    with some random decisions mixed in (so that steals, takes and scorings come up)."""
    walk = heuristic_walk(GAME.new(players, seed, variant), heuristic.choose, seed)
    return [(state, seat) for state, seat, legal in walk if len(legal) > 1]


def test_the_model_decides_as_the_heuristic_bot() -> None:
    """In every phase, player count and variant, the model's decision is the heuristic
    bot's from the seat's observation with the same rng, which both leave alike, whether
    its ratings are made anew or kept from a call before (on this position or on any
    position before it: two positions taken for one would show)."""
    phases: set[str] = set()
    compared = 0
    model.MEMO.clear()
    for number, (players, variant) in enumerate(SETUPS * 2):
        for state, seat in walk_positions(players, variant, 20 + number):
            # the heuristic bot speaks protocol 2: it is shown the envelope
            observation, legal = state.observation(seat), state._legal(seat)
            for seed in (1, 2):
                mine, theirs = random.Random(seed), random.Random(seed)
                decision = model.heuristic_policy(state, seat, legal, mine)
                assert decision in legal
                assert decision == heuristic.choose(observation, legal, theirs)
                assert mine.random() == theirs.random()
                compared += 1
            phases.add(state.phase)
    assert phases == {"play", "steal", "take", "score"}
    assert compared > 1500


def test_samples_of_one_observation_share_the_heuristics_decision() -> None:
    """The ratings kept by what a seat sees serve every sample of a position (the down
    sides nobody has seen differ between them): every sample gets the heuristic's
    decision, for the seat to move and for every other seat asked to play."""
    model.MEMO.clear()
    hits = 0
    for number, (players, variant) in enumerate(SETUPS[:4]):
        for state, seat in walk_positions(players, variant, 40 + number)[::5]:
            observation = state.observe(seat)
            legal = state._legal(seat)
            resolved = GAME.spec.resolve_variant(variant)
            sampler = GAME.determinizer(observation, seat, players, resolved)
            rng = random.Random(number)
            expected = heuristic.choose(state.observation(seat), legal, random.Random(0))
            before = len(model.MEMO)
            for _ in range(4):
                sample = sampler(rng)
                assert model.heuristic_policy(sample, seat, legal, random.Random(0)) == expected
            hits += len(model.MEMO) == before + 1  # one rating for the four samples
    assert hits > 50


def test_the_search_models_the_other_seats_by_the_heuristic() -> None:
    """With the model the tree holds only the searcher's decisions and the other seat
    decides by the model; a fixed-iteration search answers legally and repeatably."""
    profile = ismcts.profile_for("krumme10")
    assert profile.model is model.heuristic_policy
    calls: list[int] = []

    def spy(state: Any, seat: int, legal: list[dict[str, Any]], rng: random.Random) -> Any:
        calls.append(seat)
        return model.heuristic_policy(state, seat, legal, rng)

    spied = tree_search.Profile(**{**profile.__dict__, "model": spy})
    state, seat = walk_positions(2, {}, 7)[10]
    problem = tree_search.Problem(
        game=GAME,
        observation=state.observe(seat),
        legal=state._legal(seat),
        seat=seat,
        players=2,
        variant=dict(state.variant),
    )
    root = tree_search.Node(tree_search.ROOT_SEAT)
    rng = random.Random(4)
    limit = profile.playout_limit(problem.observation)
    for _ in range(80):
        tree_search.iterate(root, problem.sample(rng), None, seat, spied, limit, rng)
    assert tree_seats(root) == {seat}
    assert calls and set(calls) == {1 - seat}
    envelope = state.observation(seat)  # what the bot is sent (protocol 2)
    answers = search_twice(ismcts, envelope, problem.legal, state.variant, "krumme10", 50)
    assert answers[0] in problem.legal and answers[0] == answers[1]


def test_in_searches_the_model_decides_as_the_heuristic_bot() -> None:
    """Every decision the model makes in fixed-iteration searches (sampled states, kept
    ratings shared between them and between the searches) is the heuristic bot's from
    the seat's observation of the sample, in 2-4 players and every variant."""
    profile = ismcts.profile_for("krumme10")
    checked: list[str] = []

    def checking(state: Any, seat: int, legal: list[dict[str, Any]], rng: random.Random) -> Any:
        seed = rng.random()
        decision = model.heuristic_policy(state, seat, legal, random.Random(seed))
        envelope = state.observation(seat)  # the heuristic bot speaks protocol 2
        assert decision == heuristic.choose(envelope, legal, random.Random(seed))
        checked.append(state.phase)
        return decision

    checked_profile = tree_search.Profile(**{**profile.__dict__, "model": checking})
    model.MEMO.clear()
    for number, (players, variant) in enumerate(SETUPS[:4]):
        for state, seat in walk_positions(players, variant, 60 + number)[::6]:
            observation = state.observe(seat)
            problem = tree_search.Problem(
                game=GAME,
                observation=observation,
                legal=state._legal(seat),
                seat=seat,
                players=players,
                variant=dict(state.variant),
            )
            limits = tree_search.Limits(60.0, 40)
            tree_search.search(problem, checked_profile, limits, random.Random(number))
    assert len(checked) > 2000 and set(checked) == {"play", "steal", "take", "score"}
