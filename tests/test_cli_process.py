"""The `arena` command as a process: closed output, start methods, streams."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.store import Store

ARENA = [sys.executable, "-m", "arena"]


def env_for(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "ARENA_HOME": str(tmp_path / "home")}


@pytest.mark.parametrize("stderr", ["joined", "separate"])
@pytest.mark.parametrize(
    "command",
    [
        ["-vv", "play", "take-that", "random", "random", "--seed", "3"],
        ["-vv", "tournament", "run", "--game", "take-that", "--bots", "random,first-legal"],
    ],
)
def test_arena_ends_when_its_output_is_closed(
    tmp_path: Path, command: list[str], stderr: str
) -> None:
    """`arena -vv ... | head -3` used to hang forever in a thread writing to a full pipe."""
    process = subprocess.Popen(
        ARENA + command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if stderr == "joined" else subprocess.PIPE,
        env=env_for(tmp_path),
    )
    assert process.stdout is not None
    if stderr == "separate":
        assert process.stderr is not None
        for _ in range(3):
            process.stderr.readline()  # the log lines: then stop reading them too
        process.stderr.close()
    else:
        for _ in range(3):
            process.stdout.readline()
    process.stdout.close()
    try:
        code = process.wait(timeout=120)
    finally:
        process.kill()
    assert code in (0, 1, 141)  # ended: normally, or as a writer to a closed pipe ends


@pytest.mark.parametrize(
    "command",
    [
        ["play", "take-that", "random", "random", "--seed", "4"],
        [
            "tournament",
            "run",
            "--game",
            "take-that",
            "--bots",
            "random,first-legal",
            "--workers",
            "2",
        ],
    ],
)
def test_json_output_is_pure_json_even_with_warnings(tmp_path: Path, command: list[str]) -> None:
    """Warnings and logs go to stderr: stdout of --json parses whatever else is said."""
    done = subprocess.run(
        [*ARENA, "-v", *command, "--json"],
        capture_output=True,
        env={**env_for(tmp_path), "ARENA_SANDBOX": "none"},  # forces the loud warning
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)
    assert b"NOT SANDBOXED" in done.stderr


def test_arena_runs_when_the_default_start_method_is_not_fork(tmp_path: Path) -> None:
    """Python 3.14 makes forkserver the default on Linux; arena's pool forks explicitly."""
    script = (
        "import multiprocessing, sys; multiprocessing.set_start_method('forkserver'); "
        "from arena.cli import main; sys.argv = ['arena'] + sys.argv[1:]; main()"
    )
    command = ["tournament", "run", "--game", "take-that", "--bots", "random,first-legal"]
    done = subprocess.run(
        [sys.executable, "-c", script, "-v", *command, "--deals", "1", "--workers", "2", "--json"],
        capture_output=True,
        env=env_for(tmp_path),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert json.loads(done.stdout)


def wait_for(condition: Callable[[], bool], seconds: float = 120) -> None:
    """Poll until `condition()` holds (an event to wait for, not a timing to test)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def test_ctrl_c_stops_a_tournament_marks_it_interrupted_and_resume_finishes(
    tmp_path: Path,
) -> None:
    command = ["tournament", "run", "--game", "take-that", "--deals", "6", "--workers", "2"]
    command += ["--bots", "random,first-legal,take-that-heuristic", "--fresh-processes"]
    process = subprocess.Popen(
        ARENA + command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env_for(tmp_path),
        # As from a terminal: a suite started in the background (`pytest &`) ignores
        # SIGINT, and an ignored signal stays ignored across exec.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        # Its first line comes once the database is made: opening it earlier would race
        # the run's own schema set-up (and a waiting reader could miss the whole run).
        assert process.stderr is not None
        first = process.stderr.readline()
        assert first.startswith(b"tournament 1 scheduled"), first
        store = Store(f"sqlite:///{tmp_path / 'home' / 'arena.db'}")
        wait_for(lambda: store.match_counts(1)[0] >= 1)
        counted = store.match_counts(1)
        process.send_signal(signal.SIGINT)
        _out, stderr = process.communicate(timeout=60)
        stderr = first + stderr
    finally:
        process.kill()
    assert process.returncode == 130, (counted, stderr.decode())
    message = stderr.decode().strip().splitlines()[-1]
    assert message.startswith("error: interrupted: stopped after")
    assert "arena tournament resume 1" in message
    assert "Traceback" not in stderr.decode()
    assert store.tournament(1).status == "interrupted"  # type: ignore[union-attr]
    done, total = store.match_counts(1)
    assert done < total
    resumed = subprocess.run(
        [*ARENA, "tournament", "resume", "1", "--json"], capture_output=True, env=env_for(tmp_path)
    )
    assert resumed.returncode == 0, resumed.stderr.decode()
    assert store.tournament(1).status == "finished"  # type: ignore[union-attr]
    assert store.match_counts(1) == (total, total)


def test_no_fork_warning_escapes_a_tournament_with_workers(tmp_path: Path) -> None:
    """Python 3.12+ warns about fork() in a threaded process; the pool forks knowingly."""
    command = ["tournament", "run", "--game", "take-that", "--bots", "random,first-legal"]
    done = subprocess.run(
        [
            sys.executable,
            "-W",
            "always::DeprecationWarning",
            "-m",
            "arena",
            *command,
            "--deals",
            "1",
            "--workers",
            "2",
            "-q",
        ],
        capture_output=True,
        env=env_for(tmp_path),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert b"DeprecationWarning" not in done.stderr


def test_commands_without_a_database_load_no_database_code() -> None:
    """`arena games` and `arena --help` start fast: no sqlmodel, SQLAlchemy or Alembic."""
    probe = (
        "import sys; from arena.cli import main; sys.argv = ['arena'] + sys.argv[1:]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = {'sqlmodel', 'sqlalchemy', 'alembic', 'jsonschema', 'arena.store'}\n"
        "print(sorted(heavy & set(sys.modules)), file=sys.stderr)"
    )
    for command in (["games"], ["--help"], ["tournament", "--help"]):
        done = subprocess.run(
            [sys.executable, "-c", probe, *command], capture_output=True, timeout=60
        )
        assert done.stderr.decode().strip().splitlines()[-1] == "[]", command
