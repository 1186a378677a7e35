"""The command line as a user meets it: tables, JSON, replays and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app

ROOT = Path(__file__).resolve().parents[1]
POLITE = str(ROOT / "tests" / "bots" / "polite")
runner = CliRunner()


def test_games_lists_every_game_with_players_and_variants() -> None:
    result = runner.invoke(app, ["games", "--json"])
    assert result.exit_code == 0
    games = {g["game"]: g for g in json.loads(result.stdout)}
    assert games["take-that"]["min_players"] == 2 and games["take-that"]["max_players"] == 4
    assert games["take-that"]["variants"] == {"rounds": 2, "pro": False}


def test_play_json_and_replay_verify_and_show(tmp_path: Path) -> None:
    replay = tmp_path / "game.json"
    args = [
        "play",
        "take-that",
        "random",
        POLITE,
        "--seed",
        "4",
        "--variant",
        "pro=true",
        "--json",
        "--replay",
        str(replay),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["game"] == "take-that" and summary["seed"] == 4
    assert summary["variant"] == {"rounds": 2, "pro": True}
    assert [s["bot"] for s in summary["seats"]] == ["random", "polite"]
    assert {s["status"] for s in summary["seats"]} == {"ok"}
    assert sorted(s["rank"] for s in summary["seats"]) in ([1, 2], [1, 1])
    again = json.loads(runner.invoke(app, args).stdout)
    assert [s["score"] for s in again["seats"]] == [s["score"] for s in summary["seats"]]

    verified = runner.invoke(app, ["replay", "verify", str(replay)])
    assert verified.exit_code == 0 and "checks out" in verified.stdout
    shown = runner.invoke(app, ["replay", "show", str(replay)])
    assert shown.exit_code == 0 and "chance: deal round 1" in shown.stdout
    assert "seat 0 (random)" in shown.stdout

    data = json.loads(replay.read_text())
    decision = next(e for e in data["events"] if "decision" in e)
    decision["decision"] = {"action": "play", "card": 10}  # tamper with the replay
    replay.write_text(json.dumps(data))
    tampered = runner.invoke(app, ["replay", "verify", str(replay)])
    assert tampered.exit_code == 2 and "error:" in tampered.output


def test_play_prints_a_table_with_status() -> None:
    result = runner.invoke(app, ["play", "take-that", POLITE, POLITE, "--seed", "1"])
    assert result.exit_code == 0
    assert "seat" in result.stdout and "status" in result.stdout and "ok" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess", "random", "random"], "unknown game 'chess'"),
        (["play", "take-that", "random", "random", "--variant", "rounds=zero"], "whole number"),
        (["play", "take-that", "random", "random", "--variant", "colour=red"], "no variant"),
        (["play", "take-that", "random", "random", "--variant", "pro"], "KEY=VALUE"),
        (["play", "take-that", "random", "/no/such/bot"], "no bot folder"),
        (["play", "take-that", "random"], "2-4 players, not 1"),
        (["play", "take-that", *["random"] * 5], "2-4 players, not 5"),
        (["replay", "verify", "/no/such/file.json"], "no replay file"),
        (["leaderboard", "chess"], "unknown game"),
        (["tournament", "show", "99"], "no tournament 99"),
        (["tournament", "resume", "99"], "no tournament 99"),
        (["leaderboard", "take-that", "--tournament", "99"], "no tournament 99"),
        (["tournament", "run", "/no/such/file.toml"], "no tournament file"),
        (["bot", "show", "nobody"], "no bot called"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(
    args: list[str], message: str, tmp_path: Path
) -> None:
    """Through the real console entry point: no traceback, exit code 2."""
    done = subprocess.run(
        [sys.executable, "-m", "arena", "--home", str(tmp_path), *args],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert len(done.stderr.strip().splitlines()) == 1


def test_bot_submit_is_content_addressed(tmp_path: Path) -> None:
    bot = tmp_path / "mybot"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "mybot"\ncommand = ["python3", "bot.py"]\n')
    source = (ROOT / "tests" / "bots" / "polite" / "bot.py").read_text()
    (bot / "bot.py").write_text(source)
    home = ["--home", str(tmp_path / "home")]
    first = runner.invoke(app, [*home, "bot", "submit", str(bot)])
    assert first.exit_code == 0 and "version 1" in first.stdout
    same = runner.invoke(app, [*home, "bot", "submit", str(bot)])
    assert "nothing changed" in same.stdout
    (bot / "bot.py").write_text(source + "\n# changed\n")
    second = runner.invoke(app, [*home, "bot", "submit", str(bot)])
    assert "version 2" in second.stdout
    listed = json.loads(runner.invoke(app, [*home, "bot", "list", "--json"]).stdout)
    assert listed[0]["bot"] == "mybot" and listed[0]["versions"] == 2
    (bot / "bot.py").write_text("raise SystemExit(1)\n")
    broken = runner.invoke(app, [*home, "bot", "submit", str(bot)])
    assert broken.exit_code == 2 and "smoke match" in broken.output
    shown = json.loads(runner.invoke(app, [*home, "bot", "show", "mybot", "--json"]).stdout)
    assert [v["version"] for v in shown["versions"]] == [1, 2]
