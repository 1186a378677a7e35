"""The command line's conventions (issue 31, items 7 and 8): parser errors are one line
with exit status 2, flags are shown as flags, and a closed pipe ends quietly with 141."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.cli.group import CLOSED_PIPE

ARENA = [sys.executable, "-m", "arena"]
F_SETPIPE_SZ = 1031

BAD_COMMAND_LINES = [
    (["foo"], "No such command 'foo'", "arena --help"),
    (["leaderboard", "--top", "0"], "Invalid value for '--top'", "arena leaderboard --help"),
    (["tournament", "show", "abc"], "'tournament_id'", "arena tournament show --help"),
    (["play", "take-that", "random", "random", "-q"], "No such option: -q", "arena play --help"),
    (["play", "take-that", "random", "random", "--seed", "abc"], "'--seed'", "arena play --help"),
    (["--verbose", "2", "games"], "No such command '2'", "arena --help"),
]


@pytest.mark.parametrize(("argv", "says", "help_command"), BAD_COMMAND_LINES)
def test_a_bad_command_line_is_one_error_line_and_exit_2(
    tmp_path: Path, argv: list[str], says: str, help_command: str
) -> None:
    result = CliRunner().invoke(app, argv, env={"ARENA_HOME": str(tmp_path)})
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: ") and says in lines[0]
    assert lines[0].endswith(f"(see '{help_command}')")


def test_help_shows_flags_as_flags_not_as_taking_values() -> None:
    shown = CliRunner().invoke(app, ["--help"]).output
    verbose = next(line for line in shown.splitlines() if "--verbose" in line)
    assert "<int>" not in verbose and "INTEGER" not in verbose
    assert "<bool>" not in shown and "╭" not in shown
    flag = CliRunner().invoke(app, ["tournament", "run", "--help"]).output
    fresh = next(line for line in flag.splitlines() if "--fresh-processes" in line)
    assert "<bool>" not in fresh and "BOOLEAN" not in fresh


def test_a_group_without_a_command_shows_its_help() -> None:
    result = CliRunner().invoke(app, ["bot"])
    assert "Usage: " in result.output and "submit" in result.output


def arena_into_small_pipe(command: list[str], env: dict[str, str]) -> tuple[int, bytes]:
    """Run arena into a 4 KiB pipe, read 100 bytes, close it: the exit status and stderr.

    An output larger than the pipe can hold then must meet the closed pipe, however
    fast arena writes: the test does not depend on timing.
    """
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, F_SETPIPE_SZ, 4096)
    process = subprocess.Popen(ARENA + command, stdout=write_end, stderr=subprocess.PIPE, env=env)
    os.close(write_end)
    first = os.read(read_end, 100)
    os.close(read_end)
    _out, err = process.communicate(timeout=120)
    assert first, err
    return process.returncode, err


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A replay whose `replay show` listing is far larger than 4 KiB."""
    folder = tmp_path_factory.mktemp("pipe")
    path = folder / "game.json"
    env = {**os.environ, "ARENA_HOME": str(folder / "home")}
    command = ["play", "take-that", "random", "random", "--seed", "1", "--replay", str(path)]
    subprocess.run(ARENA + command, check=True, capture_output=True, env=env, timeout=120)
    return path


def test_output_closed_early_ends_quietly_with_141(tmp_path: Path, replay_file: Path) -> None:
    """`arena replay show game.json | head`: no message, the shell's SIGPIPE status."""
    command = ["replay", "show", str(replay_file)]
    env = {**os.environ, "ARENA_HOME": str(tmp_path / "home")}
    full = subprocess.run(ARENA + command, capture_output=True, env=env, timeout=120)
    assert full.returncode == 0 and len(full.stdout) > 4096 + 100, full.stderr.decode()[-500:]
    code, err = arena_into_small_pipe(command, env)
    assert (code, err.decode()) == (CLOSED_PIPE, "")


def test_v_logs_arenas_own_events_and_vv_every_protocol_line_as_sent(tmp_path: Path) -> None:
    """Issue 31 item 9: -v was 17 lines of Alembic INFO; -vv's lines were wrapped."""
    env = {**os.environ, "ARENA_HOME": str(tmp_path / "home"), "COLUMNS": "60"}
    command = ["tournament", "run", "--game", "take-that", "--bots", "random,first-legal"]
    ran = subprocess.run(
        [*ARENA, "-v", *command, "--deals", "1", "-q"], capture_output=True, env=env, timeout=120
    )
    assert ran.returncode == 0, ran.stderr.decode()
    logged = ran.stderr.decode().splitlines()
    assert not [line for line in logged if "alembic" in line or "sqlalchemy" in line]
    assert any(line.startswith("arena.tournament: 1/2 t1-m0 ") for line in logged), logged
    played = subprocess.run(
        [*ARENA, "-vv", "play", "take-that", "random", "first-legal", "--seed", "1"],
        capture_output=True,
        env=env,
        timeout=120,
    )
    lines = [line for line in played.stderr.decode().splitlines() if " << " in line]
    assert len(lines) > 20  # start, every decide, end: far wider than 60 columns
    for line in lines:
        sent = line.split(" << ", 1)[1]
        assert json.loads(sent)["type"] in {"start", "decide", "end", "quit"}
