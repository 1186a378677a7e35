"""Time controls as a setting: `play`, `match`, `tournament run`, tournament files and
`ladder run` take `--time-control`; a tournament stores it and its matches run under it;
the all-time board says which time controls it rates together."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.store import Store
from arena.tournament.config import TournamentConfig
from arena.tournament.settings import TournamentSettings

cli = CliRunner()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    return tmp_path


def run(*args: str) -> str:
    result = cli.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_settings_keep_the_time_control_and_older_ones_read_as_before() -> None:
    config = TournamentConfig(game="take-that", bots=("a", "b"), time_control="10s+0.1s")
    settings = TournamentSettings.of(config.checked())
    assert settings.time_control == "10s+100ms" and str(settings.control) == "10s+100ms"
    assert TournamentSettings.from_json(settings.to_json()) == settings
    older = TournamentSettings(decision_timeout=0.5)
    assert "time_control" not in older.to_json()  # what every arena before wrote
    assert str(TournamentSettings.from_json(older.to_json()).control) == "500ms/decision"


@pytest.mark.parametrize(
    "args",
    [
        ["play", "take-that", "random", "first-legal", "--time-control", "5s"],
        [
            *("tournament", "run", "--game", "take-that", "--bots", "random,first-legal"),
            *("--time-control", "fast"),
        ],
        ["match", "random", "first-legal", "--game", "take-that", "--time-control", "0s+1s"],
    ],
)
def test_a_bad_time_control_is_one_line_and_exit_2(home: Path, args: list[str]) -> None:
    result = cli.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and ("time control" in lines[0] or "the bank" in lines[0]), lines
    assert "Traceback" not in result.output


@pytest.mark.slow  # plays a tournament
def test_a_tournament_file_sets_the_clock_of_every_match(home: Path) -> None:
    file = home / "t.toml"
    file.write_text(
        'game = "take-that"\nbots = ["random", "first-legal"]\ndeals = 1\n'
        'time_control = "3s+20ms"\n'
    )
    run("tournament", "run", str(file), "-q")
    store = Store(f"sqlite:///{home / 'home' / 'arena.db'}")
    (tournament,) = store.tournaments()
    assert TournamentSettings.from_json(tournament.settings).time_control == "3s+20ms"
    run("replay", "export", "--match", "1", "-o", str(home / "m1.json"))
    replay = json.loads((home / "m1.json").read_text())
    assert replay["time_control"] == "3s+20ms"
    assert all("bank_ms" in e for e in replay["events"] if "decision" in e and "by" not in e)


@pytest.mark.slow  # plays tournaments
def test_the_board_says_when_it_rates_time_controls_together(home: Path) -> None:
    bots = ["--game", "take-that", "--bots", "random,first-legal", "--deals", "1", "-q"]
    run("tournament", "run", *bots)
    assert "time control: 1s/decision (2 matches)" in run("leaderboard", "take-that")
    run("tournament", "run", *bots, "--time-control", "2s+0")
    board = run("leaderboard", "take-that")
    assert "mixed time controls, rated alike: 1s/decision (2 matches), 2s+0 (2 matches)" in board
    assert "2s+0, ranked" in run("leaderboard", "--tournament", "2")
