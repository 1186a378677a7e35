"""Protocol v1 as bot authors read it: every message on the wire matches its schema.

The messages are captured from real matches between real bot processes, so these
tests check what arena actually sends and accepts, not what the docs hope for.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from arena.match.run import MatchSpec, run_match
from arena.players.pool import BotPool
from arena.protocol import messages
from arena.status import MatchStatus
from tests.helpers import bot_ref_for, run_and_capture

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "protocol" / "schemas"
MESSAGES = ("start", "ready", "decide", "decision", "end", "quit")


def schema(name: str) -> Draft202012Validator:
    path = SCHEMAS / f"{name}.schema.json"
    return Draft202012Validator(json.loads(path.read_text()))


def game_schemas(game: str) -> tuple[Draft202012Validator, Draft202012Validator]:
    folder = ROOT / "protocol" / "games"
    observation, decision = (
        Draft202012Validator(json.loads((folder / f"{game}.{kind}.schema.json").read_text()))
        for kind in ("observation", "decision")
    )
    return observation, decision


def check_message(message: dict[str, Any]) -> None:
    """Validate one message against the schema of its type (and its game's schemas)."""
    schema(message["type"]).validate(message)


def two_polite(game: str, seed: int, **variant: Any) -> MatchSpec:
    polite = bot_ref_for("polite")
    seats = tuple(dataclasses.replace(polite, name=f"polite-{i}") for i in range(2))
    return MatchSpec(match_id=f"p-{seed}", game=game, seed=seed, seats=seats, variant=variant)


def test_every_message_of_a_real_match_matches_its_schema() -> None:
    spec = two_polite("take-that", 11, rounds=1)
    result, lines = run_and_capture(spec)
    assert result.status is MatchStatus.NORMAL
    observation, decision = game_schemas("take-that")
    seen: dict[str, int] = {}
    for _name, direction, line in lines:
        message = json.loads(line)
        check_message(message)
        kind = message["type"]
        seen[kind] = seen.get(kind, 0) + 1
        assert (direction == "to-bot") == (kind in ("start", "decide", "end", "quit"))
        if kind == "decide":
            observation.validate(message["observation"])
            for legal in message["legal"]:
                decision.validate(legal)
        if kind == "decision":
            decision.validate(message["decision"])
    assert set(seen) == set(MESSAGES)
    assert seen["start"] == seen["ready"] == seen["end"] == seen["quit"] == 2
    assert seen["decide"] == seen["decision"] > 20


def test_the_start_message_gives_each_seat_its_own_keyed_seed() -> None:
    spec = two_polite("take-that", 5, rounds=1)
    result, lines = run_and_capture(spec)
    starts = {
        message["seat"]: message
        for _name, _direction, line in lines
        if (message := json.loads(line))["type"] == "start"
    }
    assert starts[0]["seed"] != starts[1]["seed"] and starts[0]["seed"] != 5
    assert starts[0]["match"] == starts[1]["match"] != spec.match_id  # opaque (arena.match.seeds)
    assert [s["seed"] for s in result.replay["seats"]] == [starts[0]["seed"], starts[1]["seed"]]
    assert starts[0]["variant"] == {"rounds": 1, "pro": False}  # defaults filled in


def test_the_example_transcript_is_a_real_match_and_matches_the_schemas() -> None:
    transcript = ROOT / "protocol" / "examples" / "take-that-transcript.jsonl"
    entries = [json.loads(line) for line in transcript.read_text().splitlines()]
    for entry in entries:
        check_message(entry["msg"])
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_transcript.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_replays_match_the_replay_schema(tmp_path: Path) -> None:
    validator = schema("replay")
    normal = run_match(two_polite("take-that", 3, rounds=1))
    validator.validate(normal.replay)
    crashing = dataclasses.replace(
        two_polite("take-that", 4, rounds=1),
        seats=(bot_ref_for("crash_mid_game"), bot_ref_for("polite")),
    )
    forfeited = run_match(crashing)
    assert forfeited.seats[0].status == "crash"
    validator.validate(forfeited.replay)
    events = forfeited.replay["events"]
    assert any("forfeit" in e for e in events)
    assert any(e.get("by") == "fallback" for e in events)


def test_one_bot_process_plays_several_matches_in_a_row() -> None:
    """With a reusing pool, the second match's start reaches the same processes."""
    pool = BotPool(reuse=True)
    spec = two_polite("take-that", 1, rounds=1)
    try:
        first, first_lines = run_and_capture(spec, pool)
        second, second_lines = run_and_capture(dataclasses.replace(spec, seed=2), pool)
    finally:
        pool.close()
    assert first.status is second.status is MatchStatus.NORMAL

    def readies(lines: list[tuple[str, str, str]]) -> list[int]:
        return [m["matches"] for *_, line in lines if (m := json.loads(line))["type"] == "ready"]

    assert readies(first_lines) == [1, 1]
    assert readies(second_lines) == [2, 2]  # the polite bot counts the starts it saw
    assert not any(json.loads(line)["type"] == "quit" for *_, line in first_lines)


@pytest.mark.parametrize(
    ("answer", "accepted"),
    [
        ({"action": "play", "card": 34}, True),
        ({"card": 34, "action": "play"}, True),  # key order does not matter
        ({"action": "play", "card": 34.0}, False),  # 34.0 is not 34
        ({"action": "play", "card": 35}, False),
        ({"action": "play", "card": 34, "extra": 1}, False),
    ],
)
def test_a_decision_is_accepted_only_as_an_exact_copy(answer: Any, accepted: bool) -> None:
    legal = [{"action": "play", "card": 34}, {"action": "take"}]
    found = messages.find_legal(answer, legal)
    assert (found is legal[0]) if accepted else found is None


def test_true_is_not_one() -> None:
    assert messages.find_legal({"pro": True}, [{"pro": 1}]) is None
