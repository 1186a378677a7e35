"""The local process pool survives the death of a worker, as the Dask executor does."""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from arena.match.run import MatchResult, MatchSpec, run_match
from arena.players.pool import BotPool
from arena.status import MatchStatus
from arena.store import Store
from arena.tournament import executors, runner
from arena.tournament.config import TournamentConfig
from tests.helpers import TEST_BOTS, bot_ref_for
from tests.test_match import spec


def forked_children() -> list[int]:
    """This process's direct children that are forks of it (the pool's workers)."""
    me = os.getpid()
    mine = Path(f"/proc/{me}/cmdline").read_bytes()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == me and (entry / "cmdline").read_bytes() == mine:
                found.append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


def kill_one_worker_when_it_appears(stop: threading.Event, killed: list[int]) -> None:
    while not stop.is_set() and not killed:
        workers = forked_children()
        if workers:
            os.kill(workers[0], signal.SIGKILL)
            killed.append(workers[0])
        stop.wait(0.01)


def test_a_killed_worker_costs_nothing_the_run_finishes(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    polite = str(TEST_BOTS / "polite")
    config = TournamentConfig(
        game="take-that", bots=("random", polite), rounds=6, seed=3, workers=2
    )
    tid = runner.create(store, tmp_path, config)
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=kill_one_worker_when_it_appears, args=(stop, killed))
    killer.start()
    try:
        runner.run(store, tid, workers=2)
    finally:
        stop.set()
        killer.join()
    assert killed, "no worker was seen: the test proves nothing"
    assert store.tournament(tid).status == "finished"  # type: ignore[union-attr]
    assert store.match_counts(tid) == (12, 12)
    statuses = {m.status for m, _s in store.seat_rows(tournament_id=tid)}
    assert statuses == {"normal"}  # every lost match ran again, none was voided


def die(spec: MatchSpec, pool: BotPool | None = None) -> MatchResult:
    """Stands in for run_match in a worker: the worker dies under the match."""
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable")


def die_once(spec: MatchSpec, pool: BotPool | None = None) -> MatchResult:
    """The worker dies under the first attempt of each match, then plays it."""
    marker = Path(spec.match_id)
    if not marker.exists():
        marker.touch()
        die(spec)
    return run_match(spec, pool)


def test_a_match_whose_worker_dies_once_runs_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "run_match", die_once)  # forked workers inherit it
    pool = executors.Processes(2, reuse=True, pin=False)
    polite = bot_ref_for("polite")
    try:
        matches = [
            pool.submit(replace(spec(polite, polite, seed=n), match_id=str(tmp_path / f"m{n}")))
            for n in range(3)
        ]
        results = [m.result() for m in matches]
        starts = [pool.starts_of(m.spec.match_id) for m in matches]
    finally:
        pool.shutdown()
    assert [r.status for r in results] == [MatchStatus.NORMAL] * 3
    assert starts == [2, 2, 2]  # each died once under a worker, then was played


def test_a_match_that_loses_its_worker_twice_is_void(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(executors, "run_match", die)
    pool = executors.Processes(1, reuse=True, pin=False)
    polite = bot_ref_for("polite")
    try:
        result = pool.submit(spec(polite, polite)).result()
    finally:
        pool.shutdown()
    assert result.status is MatchStatus.PLATFORM_ERROR
    assert "lost its worker 2 times" in result.error
