"""The bot sandbox: what a bot can and cannot do, clean-up, platform failures, limits.

Hostile bots that are each forfeited (or denied) are in test_match.py; this file
checks the sandbox's own promises with small direct probes and one tournament.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.match.run import run_match
from arena.players import process as bot_process
from arena.players.pool import BotPool
from arena.players.process import BotProcess
from arena.protocol import messages
from arena.protocol.errors import BotCrashed, BotProtocolError, BotTimeout
from arena.sandbox import bwrap, cgroup, detection, spawn, uids
from arena.sandbox.detection import Protections
from arena.sandbox.handle import Sandboxed
from arena.sandbox.limits import MIB, Limits, from_settings
from arena.sandbox.start import launch
from arena.sandbox.uids import SandboxError
from arena.status import MatchStatus, SeatStatus
from arena.store import Store
from arena.tournament import runner
from arena.tournament.config import ConfigError, TournamentConfig, from_mapping
from tests.held_uids import HeldUids
from tests.helpers import TEST_BOTS, bot_ref_for, register_unchecked, sandboxed
from tests.test_match import descendants, spec

needs_bwrap = pytest.mark.skipif(not sandboxed(), reason="bubblewrap is not available here")


def run_in_sandbox(script: str, limits: Limits | None = None) -> tuple[int, str, str]:
    """Run a shell script as a bot in tests/bots/polite; its exit code, stdout, stderr."""
    box = launch(["/bin/sh", "-c", script], TEST_BOTS / "polite", limits or Limits())
    try:
        out, err = box.process.communicate(timeout=20)
    finally:
        box.kill()
    return box.process.returncode, out.decode(), err.decode()


def start_message() -> dict[str, object]:
    return messages.start_message(
        match="m",
        game="take-that",
        game_version=1,
        variant={},
        players=2,
        seat=0,
        seed=1,
        decision_timeout_ms=300,
    )


@needs_bwrap
def test_sandbox_shows_only_the_system_its_folder_and_private_tmp() -> None:
    code, out, err = run_in_sandbox(
        "ls /; echo ---; ls ..; echo ---; env | cut -d= -f1 | sort | tr '\\n' ' '; echo; "
        "echo x > /tmp/ok && echo tmp-writable; echo x > /dev/shm/ok && echo shm-writable; "
        "echo x > ./nope 2>/dev/null || echo folder-read-only; "
        "echo x > /etc/nope 2>/dev/null || echo etc-read-only; "
        "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; "
        "head -c 20000000 /dev/zero > /tmp/big 2>/dev/null || echo tmp-capped",
        Limits(tmp_bytes=8 * MIB),
    )
    assert code == 0, err
    top, siblings, env, rest = (
        out.split("---\n")[0],
        *out.split("---\n")[1:2],
        *out.split("---\n")[2].split("\n", 1),
    )
    assert set(top.split()) <= {"bin", "dev", "etc", "lib", "lib64", "lib32", "libx32"} | {
        "proc",
        "sbin",
        "tmp",
        "usr",
        "bot",
        "arena",  # /arena/python: the referees, for bots to import (test_games_in_sandbox.py)
    }
    assert siblings == top  # the folder is /bot: no other bot folder is visible
    assert set(env.split()) <= {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "PWD", "SHLVL", "_"} | {
        "PYTHONHASHSEED",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONUNBUFFERED",
        "PYTHONPATH",
    }
    lines = rest.split()
    assert lines[:4] == ["tmp-writable", "shm-writable", "folder-read-only", "etc-read-only"]
    assert lines[4:] == ["lo", "tmp-capped"]  # loopback only: no network


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="arena runs as an ordinary user here")
def test_as_root_each_bot_runs_as_its_own_unprivileged_uid() -> None:
    low, high = uids.uid_range()
    first = launch(["/bin/sleep", "30"], TEST_BOTS / "polite", Limits())
    try:
        code, out, err = run_in_sandbox(
            "id -u; grep -E '^(NoNewPrivs|CapEff)' /proc/self/status | tr -s '\\t' ' ';"
            "mount -o remount,rw . 2>/dev/null && echo remounted || echo mount-denied"
        )
    finally:
        first.kill()
    uid, caps, no_new_privs = out.split("\n")[:3]
    assert code == 0, err
    assert low <= int(uid) <= high and int(uid) != first.uid  # one uid per running bot
    assert no_new_privs == "NoNewPrivs: 1" and caps == "CapEff: 0000000000000000"
    assert out.split("\n")[3] == "mount-denied"


@needs_bwrap
@pytest.mark.parametrize("setpriv", [True, False], ids=["setpriv", "no-setpriv"])
def test_the_bot_starts_inside_its_limits_and_uid(
    setpriv: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the bot's own process sees of itself: every rlimit and (as root) its uid with
    no other group (its cgroups: tests/test_cgroups.py). The process is started held and
    set up from outside (`arena.sandbox.spawn`), or, without setpriv, set up between fork
    and exec."""
    if not setpriv:
        monkeypatch.setattr(spawn, "_setpriv", lambda: None)
    limits = Limits(cpu_seconds=37, processes=61, open_files=83, file_size_bytes=7 * MIB)
    code, out, err = run_in_sandbox("cat /proc/self/limits; echo ---; id -u; id -G", limits)
    assert code == 0, err
    table, ids = out.split("---\n")
    soft_hard = {line[:26].strip(): line[26:].split()[:2] for line in table.splitlines()[1:]}
    # SIGXCPU at the soft limit names the end; SIGKILL a second later if it is caught
    assert soft_hard["Max cpu time"] == ["37", "38"]
    assert soft_hard["Max processes"] == ["61", "61"]
    assert soft_hard["Max open files"] == ["83", "83"]
    assert soft_hard["Max file size"] == [str(7 * MIB)] * 2
    assert soft_hard["Max address space"] == [str(limits.address_space_bytes)] * 2
    assert soft_hard["Max core file size"] == ["0", "0"]
    uid, groups = ids.split()
    if os.geteuid() == 0:
        low, high = uids.uid_range()
        assert low <= int(uid) <= high and groups == uid


@needs_bwrap
def test_a_sandbox_that_cannot_start_is_a_platform_error_not_a_forfeit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = bwrap.command_line

    def broken(*args: object, **kwargs: object) -> list[str]:
        command = real(*args, **kwargs)  # type: ignore[arg-type]
        return [command[0], "--no-such-option", *command[1:]]

    monkeypatch.setattr(bwrap, "command_line", broken)
    with pytest.raises(SandboxError, match="bubblewrap failed"):
        launch(["/bin/true"], TEST_BOTS / "polite", Limits())
    polite = bot_ref_for("polite")
    result = run_match(spec(polite, polite))
    assert result.status is MatchStatus.PLATFORM_ERROR
    assert "SandboxError" in result.error
    assert all(s.status is SeatStatus.OK and s.rank is None for s in result.seats)


def test_a_bot_started_from_a_short_lived_thread_outlives_it() -> None:
    """--die-with-parent follows the starting thread: arena starts sandboxes from its own."""
    started: list[BotProcess] = []

    def start() -> None:
        bot = BotProcess("polite", bot_ref_for("polite").argv, TEST_BOTS / "polite")
        bot.spawn()
        started.append(bot)

    thread = threading.Thread(target=start)
    thread.start()
    thread.join()
    bot = started[0]
    try:
        bot.start_match(start_message(), time.monotonic() + 5)
        answer = bot.decide({"type": "decide", "id": 1, "legal": [7]}, time.monotonic() + 5)
        assert answer == 7 and bot.alive
    finally:
        bot.close()


def test_required_sandbox_missing_is_a_platform_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SANDBOX", "bwrap")
    missing = Protections(None, "bwrap is not installed", False, "", False, "")
    monkeypatch.setattr(detection, "protections", lambda: missing)
    polite = bot_ref_for("polite")
    result = run_match(spec(polite, polite))
    assert result.status is MatchStatus.PLATFORM_ERROR
    assert "not installed" in result.error


def test_without_bubblewrap_bots_still_run_and_arena_warns_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    missing = Protections(None, "bwrap is not installed", False, "", False, "")
    monkeypatch.setattr(detection, "protections", lambda: missing)
    monkeypatch.setattr(detection, "_WARNED", False)
    polite = bot_ref_for("polite")
    with caplog.at_level(logging.WARNING, logger="arena.sandbox"):
        for seed in (1, 2):
            assert run_match(spec(polite, polite, seed=seed)).status is MatchStatus.NORMAL
    warnings = [r for r in caplog.records if "NOT SANDBOXED" in r.getMessage()]
    assert len(warnings) == 1


def test_a_bot_that_never_reads_cannot_block_a_write() -> None:
    bot = BotProcess("never_read", bot_ref_for("never_read").argv, TEST_BOTS / "never_read")
    bot.spawn()
    try:
        assert bot.receive(time.monotonic() + 5) == {"type": "ready"}
        began = time.monotonic()
        with pytest.raises(BotTimeout, match="did not read"):
            bot.send({"type": "x", "pad": "y" * 4 * MIB}, began + 0.3)
        assert time.monotonic() - began < 2
    finally:
        bot.close(grace=0)


def test_what_a_fresh_bot_wrote_before_its_first_match_stays_in_its_stderr(
    tmp_path: Path,
) -> None:
    """A bot that fails at start-up (a traceback, then exit) has that in its stderr tail,
    however fast it died: only a reused process's output between matches is dropped."""
    script = "echo 'no luck: ImportError' >&2; exit 3"
    bot = BotProcess("crash", ["/bin/sh", "-c", script], tmp_path, Limits())
    bot.spawn()
    try:
        assert bot.sandbox is not None and bot.sandbox.wait(10) is not None  # already dead
        with pytest.raises(BotCrashed):
            bot.start_match(start_message(), time.monotonic() + 5)
        assert "no luck: ImportError" in bot.stderr_tail()
    finally:
        bot.close(grace=0)


def test_output_per_match_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot_process, "MAX_STDOUT_BYTES_PER_MATCH", 256 * 1024)
    bot = BotProcess("endless", bot_ref_for("endless_stdout").argv, TEST_BOTS / "endless_stdout")
    bot.spawn()
    try:
        bot.start_match(start_message(), time.monotonic() + 5)
        with pytest.raises(BotProtocolError, match="more than the output allowed"):
            bot.decide({"type": "decide", "id": 1, "legal": [0]}, time.monotonic() + 20)
    finally:
        bot.close(grace=0)


def test_bot_processes_are_reused_across_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    launched: list[object] = []
    real = bot_process.launch

    def counting(*args: object) -> Sandboxed:
        launched.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(bot_process, "launch", counting)
    pool = BotPool(reuse=True)
    polite = bot_ref_for("polite")
    try:
        for seed in range(3):
            assert run_match(spec(polite, polite, seed=seed), pool).status is MatchStatus.NORMAL
    finally:
        pool.close()
    assert len(launched) == 2  # one process per seat, kept for the next matches


def test_fresh_processes_are_started_ahead_and_never_play_twice() -> None:
    """With `prestart`, a fresh match takes a process started while the last match
    played (a spare, given nothing yet), and the used ones are closed in the background:
    every seat of every match is a new process, with the same results as without."""
    polite = bot_ref_for("polite")
    before = descendants()
    results = {}
    for prestart in (False, True):
        pool = BotPool(reuse=False, prestart=prestart)
        seen: list[BotProcess] = []
        ahead: list[bool] = []  # started before it was asked for

        def acquire(
            *args: Any,
            real: Any = pool.acquire,
            seen: Any = seen,
            ahead: Any = ahead,
            **kwargs: Any,
        ) -> BotProcess:
            asked = time.monotonic()
            bot: BotProcess = real(*args, **kwargs)
            seen.append(bot)
            ahead.append(bot.spawned_at < asked)
            return bot

        pool.acquire = acquire  # type: ignore[method-assign]
        try:
            played = [run_match(spec(polite, polite, seed=seed), pool) for seed in range(3)]
        finally:
            pool.close()
        assert len({id(bot) for bot in seen}) == len(seen) == 6  # a new process per seat
        # with prestart, after the first match every process was started ahead (in the
        # first, a seat may take the spare another seat's acquire just started)
        assert ahead[2:] == [prestart] * 4 and (prestart or not any(ahead))
        assert len(pool._spares) == 0 and pool._closing == []
        results[prestart] = [(r.status, [(s.score, s.rank) for s in r.seats]) for r in played]
    assert results[True] == results[False]
    assert descendants() - before == set()  # spares and background closes all gone


def test_a_fresh_process_that_cannot_start_leaves_no_seat_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started ahead or in place, a process that cannot start is BotCrashed, as without
    spares, and is not counted as in use (the pool would start ever more spares)."""

    def cannot(*args: object, **kwargs: object) -> Sandboxed:
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(bot_process, "launch", cannot)
    pool = BotPool(reuse=False, prestart=True)
    argv = ("/nonexistent/bot",)
    try:
        for _ in range(2):  # in place, then the spare started by the first acquire
            with pytest.raises(BotCrashed):
                pool.acquire("missing", argv, tmp_path, Limits())
        assert sum(pool._busy.values()) == 0
    finally:
        pool.close()


def test_a_process_that_used_half_its_cpu_time_is_not_reused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RLIMIT_CPU counts a process's whole life: a worn process is replaced, not reused."""
    polite = bot_ref_for("polite")
    bot = BotProcess("polite", polite.argv, TEST_BOTS / "polite", Limits(cpu_seconds=1))
    bot.spawn()
    try:
        bot.start_match(start_message(), time.monotonic() + 5)
        assert bot.sandbox is not None and 0 <= bot.sandbox.cpu_seconds() < 0.5
        assert not bot.cpu_worn_out()
    finally:
        bot.close()
    launched: list[object] = []
    real = bot_process.launch

    def counting(*args: object) -> Sandboxed:
        launched.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(bot_process, "launch", counting)
    monkeypatch.setattr(BotProcess, "cpu_worn_out", lambda self: True)
    pool = BotPool(reuse=True)
    try:
        for seed in range(2):
            assert run_match(spec(polite, polite, seed=seed), pool).status is MatchStatus.NORMAL
    finally:
        pool.close()
    assert len(launched) == 4


def test_a_tournament_may_only_tighten_limits() -> None:
    limits = from_settings({"memory_mb": 128, "cpu_seconds": 5, "tmp_mb": 4})
    assert (limits.memory_bytes, limits.cpu_seconds, limits.tmp_bytes) == (128 * MIB, 5, 4 * MIB)
    assert from_settings({"memory_mb": 10**9}).memory_bytes == Limits().memory_bytes
    base = TournamentConfig(game="take-that", bots=("a", "b"))
    assert from_mapping({"limits": {"processes": 16}}, base).checked().limits == {"processes": 16}
    with pytest.raises(ConfigError, match="unknown limit"):
        from_mapping({"limits": {"memory": 1}}, base).checked()
    with pytest.raises(ConfigError, match="positive integer"):
        from_mapping({"limits": {"memory_mb": -1}}, base).checked()


def test_doctor_reports_the_protections() -> None:
    result = CliRunner().invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    found = __import__("json").loads(result.stdout)
    names = {row["protection"]: row["active"] for row in found["protections"]}
    assert names["bubblewrap"] is sandboxed()
    assert names["rlimits"] is True
    assert found["sandboxed"] is sandboxed()


def _leftovers(root: Path, pattern: str, pids: set[int] | None = None) -> list[Path]:
    """Entries named <prefix>-<pid>... whose arena process is gone (one of `pids`, if given)."""
    found = []
    for path in root.glob(pattern):
        word = path.name.split("-")[1]
        if not word.isdigit():
            continue  # arena-probe-<pid>-...: a capability probe another test is running
        pid = int(word)
        if (pids is None or pid in pids) and not Path(f"/proc/{pid}").exists():
            found.append(path)
    return found


@needs_bwrap
def test_tournament_with_hostile_bots_leaves_nothing_behind(
    tmp_path: Path, used_uids: HeldUids
) -> None:
    """Bots stored under a closed home (staged copies), two workers, a database intact."""
    hostile_tournament_leaves_nothing_behind(tmp_path, used_uids)


def hostile_tournament_leaves_nothing_behind(
    tmp_path: Path, used_uids: HeldUids, after_run: Callable[[], set[int]] = set
) -> None:
    """The tournament of the test above and its checks; `after_run` runs between the two
    and returns processes below this one that are not the tournament's (tests/test_beside.py
    has another arena, a child of this process, take the uids this one freed)."""
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    folders = tuple(str(TEST_BOTS / n) for n in ("read_outside", "daemon", "write_folder"))
    bots = (*folders, register_unchecked(store, "flaky"))  # crashes in every match
    config = TournamentConfig(
        game="take-that",
        bots=bots,
        rounds=1,
        seed=3,
        decision_timeout=1.0,
        limits={"memory_mb": 256, "tmp_mb": 8},
        suspend_after=50,
    )
    tid = runner.create(store, tmp_path, config)
    before_files = sorted(p for p in (tmp_path / "bots").rglob("*"))
    before = descendants()
    root, _reason = cgroup.find_root()
    stale = _leftovers(uids.runtime_dir(), "stage-*")
    stale += _leftovers(root.path, "arena-*") if root is not None else []
    # Processes of this run (its workers): other tests may run alongside (pytest -n), and
    # only what this run's processes left is this test's business.
    ours: set[int] = set()
    runner.run(
        store, tid, workers=2, pin_workers=False, on_progress=lambda _: ours.update(descendants())
    )
    not_ours = after_run()
    assert store.match_counts(tid) == (12, 12)
    statuses: dict[str, set[str]] = {}
    names = store.version_names()
    for _match, seat in store.seat_rows(tournament_id=tid):
        statuses.setdefault(names[seat.bot_version_id][0], set()).add(seat.status)
    assert statuses["flaky"] == {"crash"}
    for name in ("read_outside", "daemon", "write_folder"):
        assert statuses[name] == {"ok"}, name
    # Nothing left: processes, uids, staged copies, cgroups, files in the stored bots.
    assert descendants() - before - not_ours == set()
    assert used_uids.leftovers() == []
    assert set(_leftovers(uids.runtime_dir(), "stage-*", ours)) <= set(stale)
    if root is not None:
        assert set(_leftovers(root.path, "arena-*", ours)) <= set(stale)
    assert sorted(p for p in (tmp_path / "bots").rglob("*")) == before_files
    with sqlite3.connect(tmp_path / "arena.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
