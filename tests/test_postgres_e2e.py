"""The user's path through the `arena` command, on SQLite and on a real PostgreSQL server.

Each test runs real `arena` processes with ARENA_DB pointing at a fresh database of
either kind (tests/databases.py): tournament run, kill -9 and resume, leaderboard,
tournament and bot reports, bot submit, demo. Then what the store does when its
environment fails: unreachable, full, read-only; and resume after a rules change.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena import games
from arena.cli import app
from arena.errors import StoreError
from arena.store import Store
from arena.tournament import executors, runner
from arena.tournament.config import TournamentConfig
from tests.databases import BACKENDS, database_url
from tests.helpers import kill_once_recorded, register_unchecked

ROOT = Path(__file__).resolve().parents[1]
POLITE = str(ROOT / "tests" / "bots" / "polite")


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database_url(request.param, tmp_path) as found:
        yield found


def arena(home: Path, url: str, *args: str, **options: Any) -> subprocess.CompletedProcess[str]:
    """Run `python -m arena ARGS` with this home and database."""
    # Wide enough for every cell whole: what a table cuts at 80 columns is tests/test_tables.py's.
    env = {**os.environ, "ARENA_HOME": str(home), "ARENA_DB": url, "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
        **options,
    )


def error_lines(stderr: str) -> list[str]:
    """The `error:` lines of a command's stderr (and no traceback in it)."""
    assert "Traceback" not in stderr, stderr
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def run_args(rounds: int, seed: int) -> list[str]:
    return [
        "tournament",
        "run",
        "--game",
        "take-that",
        "--bots",
        f"random,first-legal,{POLITE}",
        "--deals",
        str(rounds),
        "--seed",
        str(seed),
        "--workers",
        "2",
        "--quiet",
    ]


def test_issue_12_tournament_kill_9_resume_and_reports(tmp_path: Path, url: str) -> None:
    """Seeds are 48-bit: on PostgreSQL this failed before the first match (INTEGER)."""
    env = {**os.environ, "ARENA_HOME": str(tmp_path), "ARENA_DB": url}
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", *run_args(4, 5)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    store = Store(url)
    tid = kill_once_recorded(process, store, 4)
    done, total = store.match_counts(tid)
    assert 4 <= done < total == 24
    resumed = arena(tmp_path, url, "tournament", "resume", str(tid), "--quiet", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert store.match_counts(tid) == (24, 24)
    assert [m.number for m in store.matches(tid)] == list(range(24))
    assert len(store.seat_rows(tournament_id=tid)) == 24 * 2  # no match recorded twice
    assert any(m.seed >= 2**31 for m in store.matches(tid))  # 48-bit seeds, stored whole
    summary = json.loads(resumed.stdout)
    assert (summary["played"], summary["status"], summary["rules"]) == (24, "finished", 1)

    board = arena(tmp_path, url, "leaderboard", "take-that", "--json")
    assert board.returncode == 0, board.stderr
    rows = json.loads(board.stdout)
    assert {r["bot"] for r in rows} == {"random", "first-legal", "polite"}
    assert all(r["games"] == 16 for r in rows)
    old = arena(tmp_path, url, "leaderboard", "take-that", "--rules-version", "1", "--json")
    assert json.loads(old.stdout) == rows  # take-that is at rules v1
    shown = arena(tmp_path, url, "bot", "show", "random", "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["ratings"][0]["games"] == 16
    listed = arena(tmp_path, url, "tournament", "list", "--json")
    assert json.loads(listed.stdout)[0]["played"] == 24
    store.close()


def test_issue_12_bot_submit_and_list(tmp_path: Path, url: str) -> None:
    submitted = arena(tmp_path, url, "bot", "submit", POLITE)
    assert submitted.returncode == 0, submitted.stderr
    assert "registered polite version 1" in submitted.stdout
    again = arena(tmp_path, url, "bot", "submit", POLITE)
    assert "has the same code" in again.stdout
    listed = arena(tmp_path, url, "bot", "list", "--json")
    assert [row["bot"] for row in json.loads(listed.stdout)] == ["polite"]


def test_issue_12_demo(tmp_path: Path, url: str) -> None:
    """The demo: every bundled bot registered, one short round robin of every game.

    The search bot's own round robin is left out here (it is the same tournament code,
    and tests/test_ismcts.py plays that bot through the runner).
    """
    demo = arena(tmp_path, url, "demo", "--deals", "1", "--search-deals", "0", "--workers", "2")
    assert demo.returncode == 0, demo.stderr
    store = Store(url)
    played = {t.game: store.match_counts(t.id or 0) for t in store.tournaments()}
    assert set(played) == {g.spec.id for g in games.all_games()}
    assert all(done == total > 0 for done, total in played.values())
    store.close()


def test_issue_12_an_unreachable_database_is_one_line_without_its_password(
    tmp_path: Path,
) -> None:
    url = "postgresql+psycopg://u:s3cret@127.0.0.1:1/x"
    for command in (
        ["leaderboard", "take-that"],
        ["tournament", "list"],
        ["bot", "submit", POLITE],
    ):
        result = arena(tmp_path, url, *command)
        assert result.returncode == 1, (command, result.stderr)
        assert len(error_lines(result.stderr)) == 1
        assert "s3cret" not in result.stderr + result.stdout
        assert "u:***@127.0.0.1:1/x" in result.stderr
    bad = arena(tmp_path, "nosuchdb://x", "leaderboard", "take-that")
    assert bad.returncode == 2 and error_lines(bad.stderr) == [
        "error: bad database URL nosuchdb://x: Can't load plugin: sqlalchemy.dialects:nosuchdb"
    ]


def test_issue_12_a_full_disk_mid_tournament_is_one_line_and_loses_nothing(
    tmp_path: Path,
) -> None:
    """The database's files may not grow (RLIMIT_FSIZE, as a full disk): one line, exit 1,
    every recorded match kept, and `resume` finishes the tournament once there is room."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    first = arena(tmp_path, url, *run_args(1, 1))  # registers the bots; the files exist
    assert first.returncode == 0, first.stderr
    files = [tmp_path / name for name in ("arena.db", "arena.db-wal")]
    room = max(f.stat().st_size for f in files if f.exists()) + 64 * 1024

    def no_room() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (room, resource.RLIM_INFINITY))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    # The files fill after about 4 matches: in 36 that is well inside the run (there were
    # 240, and `resume` played the other 236).
    full = arena(tmp_path, url, *run_args(6, 2), preexec_fn=no_room)
    assert full.returncode == 1, full.stderr
    [line] = error_lines(full.stderr)
    assert "database error" in line and "arena tournament resume 2" in line
    store = Store(url)
    done, total = store.match_counts(2)
    assert done < total == 36
    assert [m.number for m in store.matches(2, recorded=True)] == list(range(done))
    resumed = arena(tmp_path, url, "tournament", "resume", "2", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert store.match_counts(2) == (36, 36)
    assert len(store.seat_rows(tournament_id=2)) == 36 * 2
    store.close()


def test_issue_12_a_read_only_database_fails_a_submission_in_one_line_leaving_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "arena.db"
    Store(f"sqlite:///{path}").close()
    url = f"sqlite:///file:{path}?mode=ro&uri=true"
    result = arena(tmp_path, url, "bot", "submit", POLITE)
    assert result.returncode == 1, result.stderr
    [line] = error_lines(result.stderr)
    assert "readonly" in line
    bots = tmp_path / "bots"
    assert not bots.exists() or not [p for p in bots.iterdir() if p.name.startswith(".")]
    board = arena(tmp_path, url, "leaderboard", "take-that", "--json")
    assert board.returncode == 0 and json.loads(board.stdout) == []  # reading still works


def test_issue_12_resume_after_a_rules_change_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store(url)
    settings = TournamentConfig(game="take-that", bots=("random", "first-legal"), rounds=1)
    tid = runner.create(store, tmp_path, settings)
    real = runner.load_game

    class Newer:  # take-that as arena would have it after a rules change
        def __init__(self, game_id: str) -> None:
            game = real(game_id)
            self.spec = dataclasses.replace(game.spec, version=game.spec.version + 1)

    monkeypatch.setattr(runner, "load_game", Newer)
    result = CliRunner().invoke(
        app, ["--home", str(tmp_path), "--db", url, "tournament", "resume", str(tid)]
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        f"error: tournament {tid} was scheduled under take-that rules v1, arena now has v2: "
        "its matches cannot be mixed; start a new tournament (arena tournament run ...)"
    )
    assert store.match_counts(tid) == (0, 2)
    assert store.tournament(tid).status == "scheduled"  # type: ignore[union-attr]
    store.close()


def _nul_later() -> tuple[bytes, bytes]:
    """The stderr noise and the answer line tests/bots/nul_later writes in later matches."""
    found: dict[str, Any] = {}
    source = (ROOT / "tests" / "bots" / "nul_later" / "bot.py").read_text()
    exec(source.split("matches = 0")[0], found)  # its two constants only
    return found["NOISE"], found["LINE"]


def test_issue_30_a_bot_writing_nul_later_neither_stops_nor_loses_a_match(
    tmp_path: Path, url: str
) -> None:
    """From its second match in a process the bot writes NUL (and U+0010, invalid UTF-8)
    to stderr and answers with a line holding a NUL. On PostgreSQL the run stopped at
    that match's batch, and so did every resume; now every match is recorded and its
    stored text is what the bot wrote, shown escaped."""
    noise, line = _nul_later()
    store = Store(url)
    register_unchecked(store, "nul_later")  # the check now reuses processes: it is caught
    played = arena(
        tmp_path,
        url,
        *["tournament", "run", "--game", "take-that", "--bots", "first-legal,nul_later"],
        *["--deals", "3", "--seed", "4", "--workers", "1", "--quiet"],
    )
    assert played.returncode == 0, played.stderr
    [tournament] = store.tournaments()
    assert tournament.status == "finished"
    assert store.match_counts(tournament.id or 0) == (6, 6)
    assert store.void_matches(tournament.id or 0) == 0
    forfeits = store.forfeits("nul_later", limit=10)
    assert forfeits, "the bot misbehaves from its second match in a process"
    told = {noise.decode("utf-8", "replace"), noise.decode("utf-8", "surrogateescape")}
    quoted = line.rstrip(b"\n").decode()
    for match, seat in forfeits:
        assert seat.status == "invalid" and quoted in seat.detail
        assert any(seat.stderr.endswith(said) for said in told), repr(seat.stderr)
        replay = json.loads(store.replay(match.id or 0) or "")
        [event] = [e for e in replay["events"] if "forfeit" in e]
        assert event["detail"] == seat.detail
    shown = arena(tmp_path, url, "bot", "show", "nul_later")
    assert shown.returncode == 0, shown.stderr
    assert "\x00" not in shown.stdout and "not json \\x00 nul \\x10 escape end" in shown.stdout
    store.close()


def _bad_utf8_later() -> tuple[bytes, bytes]:
    """The stderr noise and the answer line tests/bots/bad_utf8_later writes later on."""
    found: dict[str, Any] = {}
    source = (ROOT / "tests" / "bots" / "bad_utf8_later" / "bot.py").read_text()
    exec(source.split("matches = 0")[0], found)  # its constants only
    return found["NOISE"], found["LINE"]


def _bytes(text: str) -> bytes:
    """What a text arena read from a bot stands for: the bytes the bot wrote."""
    return text.encode("utf-8", "surrogateescape")


def test_issue_30_invalid_utf8_from_a_bot_is_stored_as_the_bytes_it_wrote(
    tmp_path: Path, url: str
) -> None:
    """0xff 0xfe, a cut sequence, overlong encodings and an encoded surrogate, in stderr
    and in an invalid answer line, became U+FFFD before the store. Now the stored stderr
    tail and forfeit detail are those bytes exactly (surrogateescape), `bot show` spells
    each as \\xNN, --json spells them as \\udcNN JSON escapes that parse back to them,
    and the replay, a JSON document, quotes them as \\xNN."""
    noise, line = _bad_utf8_later()
    store = Store(url)
    register_unchecked(store, "bad_utf8_later")  # the check would catch it
    played = arena(
        tmp_path,
        url,
        *["tournament", "run", "--game", "take-that", "--bots", "first-legal,bad_utf8_later"],
        *["--deals", "2", "--seed", "4", "--workers", "1", "--quiet"],
    )
    assert played.returncode == 0, played.stderr
    [tournament] = store.tournaments()
    assert store.match_counts(tournament.id or 0) == (4, 4)
    forfeits = store.forfeits("bad_utf8_later", limit=10)
    assert forfeits, "the bot misbehaves from its second match in a process"
    quoted = line.rstrip(b"\n")
    spelled = quoted.decode("utf-8", "backslashreplace")  # each bad byte as \\xNN
    for match, seat in forfeits:
        assert seat.status == "invalid"
        assert _bytes(seat.detail) == b"not JSON: " + quoted, repr(seat.detail)
        assert _bytes(seat.stderr).endswith(noise), repr(seat.stderr)
        replay = json.loads(store.replay(match.id or 0) or "")
        [event] = [e for e in replay["events"] if "forfeit" in e]
        assert event["detail"] == "not JSON: " + spelled
    shown = arena(tmp_path, url, "bot", "show", "bad_utf8_later")
    assert shown.returncode == 0, shown.stderr
    assert "\ufffd" not in shown.stdout and "not json \\xff\\xfe, \\xe2\\x82 cut" in shown.stdout
    assert noise.rstrip(b"\n").decode("utf-8", "backslashreplace") in shown.stdout
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", shown.stdout)
    as_json = arena(tmp_path, url, "bot", "show", "bad_utf8_later", "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert "\\udcff\\udcfe" in as_json.stdout  # JSON escapes: the output is ASCII there
    details = json.loads(as_json.stdout)
    [recent, *_] = details["recent_forfeits"]
    assert _bytes(recent["detail"]) == b"not JSON: " + quoted
    assert _bytes(recent["stderr_tail"]).endswith(noise)
    store.close()


def test_issue_30_a_truncated_shared_memory_file_mid_tournament_is_one_line_and_loses_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another process truncating `arena.db-shm` killed the coordinator with SIGBUS: no
    message, the tournament left `running`. Now: one line, `interrupted`, and `resume`
    finishes it with every match recorded once. The file is truncated between two of the
    coordinator's transactions (after its third match is recorded), where the guard looks;
    a truncation during one can still fault (README, Security: the home is the owner's
    alone, so only its own account or root can do this)."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store(url)
    config = TournamentConfig(
        game="take-that", bots=("random", "first-legal"), rounds=8, seed=3, variant={"rounds": 1}
    )
    tid = runner.create(store, tmp_path, config)

    def truncate_after_three(progress: runner.Progress) -> None:
        if progress.done == 3:
            os.truncate(tmp_path / "arena.db-shm", 0)

    # One transaction a match, so that the truncation comes mid-run (one worker lets
    # results wait 0.25 s to record them together: these 16 fit in one transaction).
    monkeypatch.setattr(executors.InProcess, "hold_seconds", 0.0)
    with pytest.raises(StoreError, match=r"shared-memory file .* truncated") as stopped:
        runner.run(store, tid, on_progress=truncate_after_three)
    assert "\n" not in str(stopped.value)
    assert f"(finish with: arena tournament resume {tid})" in str(stopped.value)
    store.close()
    store = Store(url)
    assert store.tournament(tid).status == "interrupted"  # type: ignore[union-attr]
    done, total = store.match_counts(tid)
    assert 3 <= done < total == 16
    resumed = arena(tmp_path, url, "tournament", "resume", str(tid), "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert store.match_counts(tid) == (16, 16)
    assert len(store.seat_rows(tournament_id=tid)) == 16 * 2
    store.close()
