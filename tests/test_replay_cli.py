"""`arena replay show|verify|export --match ID` and `verify --json` (issue 31, item 16)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose database holds one finished two-match tournament."""
    folder = tmp_path_factory.mktemp("replays")
    bots = ["--bots", "random,first-legal", "--deals", "1", "--seed", "4", "-q"]
    ran = arena(folder, "tournament", "run", "--game", "take-that", *bots)
    assert ran.exit_code == 0, ran.output
    return folder


def arena(home: Path, *argv: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["--home", str(home), *argv])


def test_export_writes_the_stored_replay_that_show_and_verify_read(
    home: Path, tmp_path: Path
) -> None:
    exported = tmp_path / "m1.json"
    done = arena(home, "replay", "export", "--match", "1", "-o", str(exported))
    assert done.exit_code == 0, done.output
    data = json.loads(exported.read_text())
    assert data["game"] == "take-that" and data["events"]
    from_file = arena(home, "replay", "show", str(exported))
    from_store = arena(home, "replay", "show", "--match", "1")
    assert from_file.exit_code == from_store.exit_code == 0
    assert from_file.stdout == from_store.stdout and "seat 0" in from_store.stdout
    verified = arena(home, "replay", "verify", "--match", "1", "--json")
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.stdout) == {
        "ok": True,
        "game": "take-that",
        "scores": data["outcome"]["scores"],
    }


def test_verify_json_says_why_a_tampered_replay_fails(home: Path, tmp_path: Path) -> None:
    exported = tmp_path / "m2.json"
    assert arena(home, "replay", "export", "--match", "2", "-o", str(exported)).exit_code == 0
    data = json.loads(exported.read_text())
    data["outcome"]["scores"] = [s + 1 for s in data["outcome"]["scores"]]
    exported.write_text(json.dumps(data))
    result = arena(home, "replay", "verify", str(exported), "--json")
    assert result.exit_code == 2
    answer = json.loads(result.stdout)
    assert answer["ok"] is False and answer["game"] == "take-that" and answer["error"]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["replay", "show"], "give either a replay FILE or --match ID"),
        (["replay", "verify", "x.json", "--match", "1"], "give either a replay FILE or --match"),
        (["replay", "export"], "--match ID"),
        (["replay", "export", "--match", "abc"], "takes a match id"),
        (["replay", "export", "--match", "99"], "no match 99"),
        (["replay", "export", "--match", "1", "-o", "/nonexistent/x.json"], "there is no folder"),
    ],
)
def test_bad_replay_requests_are_one_line(home: Path, argv: list[str], says: str) -> None:
    result = arena(home, *argv)
    assert result.exit_code == 2, result.output
    assert says in result.output and len(result.output.strip().splitlines()) == 1


def test_leaderboard_without_a_game_shows_every_game(home: Path) -> None:
    """Issue 31 item 16: `arena leaderboard` across all games."""
    every = json.loads(arena(home, "leaderboard", "--json").stdout)
    assert set(every) == {"krumme10", "leylo", "take-that", "twirkle"}
    assert {row["bot"] for row in every["take-that"]} == {"random", "first-legal"}
    assert every["leylo"] == []
    shown = arena(home, "leaderboard").stdout
    assert "take-that (rules v1) leaderboard" in shown and "leylo (rules v1) leaderboard" in shown
    of_tournament = json.loads(arena(home, "leaderboard", "--tournament", "1", "--json").stdout)
    assert {row["bot"] for row in of_tournament} == {"random", "first-legal"}
    bad = arena(home, "leaderboard", "--rules-version", "1")
    assert bad.exit_code == 2 and "give the GAME too" in bad.output
