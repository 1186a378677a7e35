"""The conformance kit over every registered game: random playthroughs keep every invariant."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator, validators

from arena.games import Game, all_games
from arena.games.base import IllegalDecision
from arena.games.observation import is_envelope
from arena.testing import check_game

ROOT = Path(__file__).resolve().parents[2]


def cases() -> list[tuple[type[Game], int]]:
    return [
        (game, players)
        for game in all_games()
        for players in range(game.spec.min_players, game.spec.max_players + 1)
    ]


@pytest.mark.parametrize(("game", "players"), cases(), ids=lambda c: getattr(c, "__name__", c))
def test_random_playthroughs_keep_the_invariants(game: type[Game], players: int) -> None:
    check_game(game, players, seeds=range(4))


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.spec.id)
def test_every_game_has_a_rules_page_and_schemas(game: type[Game]) -> None:
    for name in (
        f"{game.spec.id}.md",
        f"{game.spec.id}.observation.schema.json",
        f"{game.spec.id}.observation.v2.schema.json",
        f"{game.spec.id}.decision.schema.json",
    ):
        assert (ROOT / "protocol" / "games" / name).is_file(), f"missing protocol/games/{name}"


def remembering_validator(schema: dict[str, Any]) -> Draft202012Validator:
    """A validator of `schema` that checks each distinct value under a `$ref` once.

    A playthrough shows the same cells and cards thousands of times, and checking them again
    was most of this module's time. Every value is still checked: a value is skipped only when
    one equal to it, of the same types (`repr`), passed under the same `$ref`. Every `$ref`
    of the protocol is local (`#/$defs/...`), so one names the same subschema everywhere."""
    passed: set[tuple[str, str]] = set()
    check_ref = Draft202012Validator.VALIDATORS["$ref"]

    def remembered_ref(validator: Any, ref: str, instance: Any, subschema: Any) -> Any:
        assert ref.startswith("#"), ref
        key = (ref, repr(instance))
        if key in passed:
            return
        errors = list(check_ref(validator, ref, instance, subschema))
        if not errors:
            passed.add(key)
        yield from errors

    cls = validators.extend(Draft202012Validator, {"$ref": remembered_ref})  # type: ignore[no-untyped-call]
    return cls(schema)  # type: ignore[no-any-return]


def load_schemas(game: type[Game]) -> tuple[Draft202012Validator, Draft202012Validator]:
    folder = ROOT / "protocol" / "games"
    return tuple(  # type: ignore[return-value]
        remembering_validator(
            json.loads((folder / f"{game.spec.id}.{kind}.schema.json").read_text())
        )
        for kind in ("observation", "decision")
    )


def load_envelope_schema(game: type[Game]) -> Draft202012Validator:
    path = ROOT / "protocol" / "games" / f"{game.spec.id}.observation.v2.schema.json"
    return remembering_validator(json.loads(path.read_text()))


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.spec.id)
def test_rules_page_examples_match_the_schemas(game: type[Game]) -> None:
    """Every JSON example on a rules page is a valid observation (an envelope of protocol 2,
    or version 1) or a (list of) decision(s)."""
    observation, decision = load_schemas(game)
    envelope = load_envelope_schema(game)
    text = (ROOT / "protocol" / "games" / f"{game.spec.id}.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```json\n")[1:]]
    assert len(blocks) >= 2, "a rules page shows an observation and the decisions"
    for block in blocks:
        value = json.loads(block)
        for item in value if isinstance(value, list) else [value]:
            if "seat" not in item:
                decision.validate(item)
            else:
                (envelope if is_envelope(item) else observation).validate(item)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.spec.id)
def test_observations_and_legal_decisions_match_the_schemas(game: type[Game]) -> None:
    observation, decision = load_schemas(game)
    envelope = load_envelope_schema(game)
    checked: set[bytes] = set()
    for players in range(game.spec.min_players, game.spec.max_players + 1):
        state = game.new(players, seed=players)
        for step in range(game.spec.max_decisions):
            if state.is_over():
                break
            movers = state.to_move()
            if step % 7 == 0:
                for seat in range(players):
                    observation.validate(state.observe(seat))
                    envelope.validate(state.observation(seat))
            rng = random.Random(step)
            choices = {seat: rng.choice(state.legal(seat)) for seat in movers}
            for seat in movers:
                for d in state.legal(seat):
                    key = orjson.dumps(d, option=orjson.OPT_SORT_KEYS)
                    if key not in checked:  # the same small decisions come again and again
                        decision.validate(d)
                        checked.add(key)
            if len(movers) == 1:
                state.apply(movers[0], choices[movers[0]])
            else:
                state.apply_joint(choices)
        assert state.is_over()
        for seat in range(players):
            observation.validate(state.observe(seat))
            envelope.validate(state.observation(seat))


def undescribed_fields(node: Any, path: str = "") -> list[str]:
    """Schema properties without a description, and objects open to unknown keys."""
    missing = []
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if "description" not in sub:
                missing.append(f"{path}/{name}")
        if node.get("type") == "object" and node.get("additionalProperties") is not False:
            missing.append(f"{path}: additionalProperties is not false")
        for key, value in node.items():
            missing += undescribed_fields(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            missing += undescribed_fields(value, f"{path}/{index}")
    return missing


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.spec.id)
def test_schemas_describe_every_field_for_bot_authors(game: type[Game]) -> None:
    for kind in ("observation", "observation.v2", "decision"):
        path = ROOT / "protocol" / "games" / f"{game.spec.id}.{kind}.schema.json"
        schema = json.loads(path.read_text())
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)
        assert undescribed_fields(schema) == [], path.name


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.spec.id)
def test_the_runner_path_builds_each_legal_list_once(game: type[Game]) -> None:
    """`legal` then `apply_joint` of one of its elements asks `_legal` once per seat and state."""
    calls: list[int] = []

    class Counted(game):  # type: ignore[valid-type, misc]
        def _legal(self, seat: int) -> list[Any]:
            calls.append(seat)
            return super()._legal(seat)

    state = Counted.new(game.spec.max_players, 7)
    rng = random.Random(7)
    asked = 0
    while not state.is_over():
        seats = state.to_move()
        choices = {seat: rng.choice(state.legal(seat)) for seat in seats}
        assert all(state.legal(seat) is state.legal(seat) for seat in seats), "kept, not rebuilt"
        state.apply_joint(choices)
        asked += len(seats)
    assert len(calls) == asked


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.spec.id)
def test_apply_joint_still_checks_copies_and_strangers(game: type[Game]) -> None:
    """An equal copy of an offered decision is accepted; anything else is refused, and a
    changed state never answers from the previous state's list."""
    state = game.new(game.spec.min_players, 3)
    seat = state.to_move()[0]
    offered = state.legal(seat)
    stranger = {"action": "no such decision"}
    with pytest.raises(IllegalDecision):
        state.apply_joint({seat: stranger})
    copies = {s: json.loads(json.dumps(state.legal(s)[0])) for s in state.to_move()}
    state.apply_joint(copies)
    fresh = game.new(game.spec.min_players, 3)
    fresh.apply_joint({s: fresh.legal(s)[0] for s in fresh.to_move()})
    for s in range(state.players):
        assert state.legal(s) == fresh.legal(s), "the kept list was dropped with the state"
    assert offered is not state.legal(seat) or state.is_over()
