"""Protocol 2's observation envelope (issue 33 item 5): one shape in every game, version 1
made from it by the one adapter, and nothing in it that version 1 does not show."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, get_type_hints

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import Game, all_games, load_game
from arena.games.observation import (
    COMMON_KEYS,
    ENVELOPE_KEYS,
    ONE_SEAT,
    is_envelope,
    model,
    to_v1,
)
from arena.testing import check_observation

#: Variants beside the default, to reach every field's other values.
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "take-that": [{"pro": True, "rounds": 3}],
    "krumme10": [{"pink4": True, "long": True, "showdown": True}, {"teams": True}],
    "leylo": [{"rounds": 3}],
    "twirkle": [],
}


def cases() -> list[Any]:
    """Every game, player count and variant; beyond the smallest plain game, slow."""
    found = []
    for game in all_games():
        for players in range(game.spec.min_players, game.spec.max_players + 1):
            for variant in [{}, *VARIANTS[game.spec.id]]:
                if variant.get("teams") and players < 4:
                    continue
                first = players == game.spec.min_players and not variant
                marks = () if first else (pytest.mark.slow,)
                found.append(pytest.param(game.spec.id, players, variant, marks=marks))
    return found


def positions(game: Game, rng: random.Random) -> Iterator[Game]:
    """`game` at every decision of one random playthrough, and once it is over."""
    while not game.is_over():
        yield game
        game.apply_joint({seat: rng.choice(game.legal(seat)) for seat in game.to_move()})
    yield game


def case_id(case: Any) -> str:
    if isinstance(case, dict):
        return ",".join(f"{k}={v}" for k, v in case.items()) or "plain"
    return str(case)


@pytest.mark.parametrize(("game_id", "players", "variant"), cases(), ids=case_id)
def test_every_seat_gets_the_envelope_and_version_1_made_from_it(
    game_id: str, players: int, variant: dict[str, Any]
) -> None:
    """At every decision of a seeded random game, for every seat (not only the ones asked):
    exactly the envelope's keys, to_move a list, version 1 equal to `to_v1` of it."""
    game = load_game(game_id).new(players, players, variant)
    phases: set[str] = set()
    for position in positions(game, random.Random(players)):
        for seat in range(players):
            check_observation(position, seat)
        phases.add(position.observation(0)["phase"])
    assert "over" in phases and len(phases) > 2, phases


def test_to_move_is_a_list_in_every_game_and_version_1_keeps_its_own() -> None:
    for game_class in all_games():
        game = game_class.new(game_class.spec.min_players, 1)
        envelope, v1 = game.observation(0), game.observe(0)
        assert isinstance(envelope["to_move"], list) and envelope["to_move"] == game.to_move()
        one_seat = model(game_class.spec.id).v1.to_move == ONE_SEAT
        if one_seat:
            assert [v1["to_move"]] == game.to_move()
        else:  # LEYLO: every seat flips at the start
            assert v1["to_move"] == game.to_move() == list(range(game.players))
        game.playout(random.Random(1))
        assert game.observation(0)["to_move"] == [] and game.observation(0)["phase"] == "over"
        assert game.observe(0)["to_move"] == (None if one_seat else [])


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    game_index=st.integers(0, len(all_games()) - 1),
    extra=st.integers(0, 4),
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 400),
)
def test_version_1_is_the_adapter_of_version_2_anywhere(
    game_index: int, extra: int, seed: int, steps: int
) -> None:
    """Any game, player count, seed and point of a random game: ``to_v1(observation(s))
    == observe(s)`` for every seat, compared as the bytes a bot is sent."""
    game_class = all_games()[game_index]
    spec = game_class.spec
    players = spec.min_players + extra % (spec.max_players - spec.min_players + 1)
    game = game_class.new(players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over():
            break
        game.apply_joint({seat: rng.choice(game.legal(seat)) for seat in game.to_move()})
    for seat in range(players):
        made = orjson.dumps(to_v1(spec.id, game.observation(seat)))
        assert made == orjson.dumps(game.observe(seat))


@pytest.mark.slow
@pytest.mark.parametrize("game_class", all_games(), ids=lambda g: g.spec.id)
def test_the_envelope_holds_nothing_version_1_does_not(game_class: type[Game]) -> None:
    """Every game field is a version-1 key, and the envelope is a function of version 1:
    over many observations, never two envelopes for one version-1 observation (so the
    common keys version 1 lacks, Take That's phase and scores, are computed from it)."""
    layout = model(game_class.spec.id).v1
    fields = get_type_hints(model(game_class.spec.id).envelope)["game"]
    assert set(get_type_hints(fields)) <= set(layout.keys)
    made_from: dict[bytes, bytes] = {}
    spec = game_class.spec
    for players in range(spec.min_players, spec.max_players + 1):
        for seed in range(2):
            game = game_class.new(players, seed)
            for position in positions(game, random.Random(seed)):
                for seat in range(players):
                    v1 = orjson.dumps(position.observe(seat), option=orjson.OPT_SORT_KEYS)
                    v2 = orjson.dumps(position.observation(seat), option=orjson.OPT_SORT_KEYS)
                    assert made_from.setdefault(v1, v2) == v2, "version 2 knows more than 1"
    assert len(made_from) > 500


@pytest.mark.parametrize("game_class", all_games(), ids=lambda g: g.spec.id)
def test_every_game_declares_its_envelope_with_exactly_the_common_keys(
    game_class: type[Game],
) -> None:
    declared = model(game_class.spec.id)
    assert declared.game == game_class.spec.id
    assert tuple(get_type_hints(declared.envelope)) == ENVELOPE_KEYS
    # version 1 takes every common key it has from the envelope, the rest from game
    fields = set(get_type_hints(get_type_hints(declared.envelope)["game"]))
    for key, source in declared.plan:
        assert (source == "game" and key in fields) or source in COMMON_KEYS, key


def test_a_determinization_from_the_envelope_shows_the_seat_that_envelope() -> None:
    for game_class in all_games():
        game = game_class.new(game_class.spec.max_players, 5)
        rng = random.Random(5)
        for _ in range(30):
            game.apply_joint({seat: rng.choice(game.legal(seat)) for seat in game.to_move()})
        envelope = orjson.loads(orjson.dumps(game.observation(1)))
        assert is_envelope(envelope) and not is_envelope(game.observe(1))
        sample = game_class.determinize(envelope, 1, game.players, None, random.Random(1))
        assert sample.observation(1) == envelope
        assert sample.observe(1) == game.observe(1)


def test_an_unknown_game_has_no_model() -> None:
    with pytest.raises(KeyError, match="no observation model for 'chess'"):
        model("chess")


def _emptied(value: Any) -> None:
    """Clear every list and dict inside `value` (a caller changing what it was given)."""
    children = value.values() if isinstance(value, dict) else value
    for child in list(children):
        if isinstance(child, (dict, list)):
            _emptied(child)
    value.clear()


@pytest.mark.parametrize(("game_id", "players", "variant"), cases(), ids=case_id)
def test_the_observation_a_match_sends_is_the_observation_byte_for_byte(
    game_id: str, players: int, variant: dict[str, Any]
) -> None:
    """Game.observation_to_send (what run_match encodes for a version-2 seat) may share
    lists the referee keeps (Krumme10's card views): at every decision of a seeded random
    game, for every seat, it encodes to exactly the bytes of `observation`, also after the
    fresh observation of every seat was emptied by its caller; and every one handed out
    earlier in the game still encodes to the bytes it had (the referee never changes a
    list it handed out, so no later state or other seat's view can show through one)."""
    game = load_game(game_id).new(players, players + 7, variant)
    sent: list[tuple[Any, bytes]] = []
    for position in positions(game, random.Random(players)):
        for seat in range(players):
            shared = position.observation_to_send(seat)
            encoded = orjson.dumps(shared)
            assert encoded == orjson.dumps(position.observation(seat)), (seat, position)
            _emptied(position.observation(seat))
            assert orjson.dumps(position.observation_to_send(seat)) == encoded
            sent.append((shared, encoded))
    assert len(sent) > players
    for shared, encoded in sent:
        assert orjson.dumps(shared) == encoded
