"""A worker and its bots share one core that no other worker holds (arena.tournament.cores)."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from arena.store import Store
from arena.tournament import cores, executors, runner
from arena.tournament.config import TournamentConfig
from tests.helpers import TEST_BOTS


@pytest.fixture
def own_locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Core locks in a folder of this test's own, and nothing held by this process."""
    monkeypatch.setattr(cores.uids, "runtime_dir", lambda: tmp_path)
    monkeypatch.setattr(cores, "_CORE_LOCK", -1)
    return tmp_path


def _pin_and_report(queue: Any, done: Any) -> None:
    core = cores.pin_to_free_core()
    queue.put((core, sorted(os.sched_getaffinity(0))))
    done.wait(30)


def test_workers_pin_themselves_to_cores_no_other_worker_holds(own_locks: Path) -> None:
    """One more worker process than cores: each core is held by one, the last shares one
    (as on a host with `dask worker --nworkers N --nthreads 1`, or with two runs)."""
    allowed = sorted(os.sched_getaffinity(0))
    context = multiprocessing.get_context("fork")
    queue, done = context.Queue(), context.Event()
    workers = [
        context.Process(target=_pin_and_report, args=(queue, done)) for _ in range(len(allowed) + 1)
    ]
    for worker in workers:
        worker.start()
    try:
        reports_ = [queue.get(timeout=30) for _ in workers]
    finally:
        done.set()
        for worker in workers:
            worker.join(30)
    assert all(core is not None and affinity == [core] for core, affinity in reports_)
    pinned = sorted(core for core, _ in reports_ if core is not None)
    assert sorted(set(pinned)) == allowed  # every core taken, one of them twice
    assert len(pinned) == len(allowed) + 1


def test_release_gives_the_core_back_and_restores_every_thread(own_locks: Path) -> None:
    before = os.sched_getaffinity(0)
    core = cores.pin_to_free_core()
    try:
        assert core is not None and os.sched_getaffinity(0) == {core}
        assert cores.pin_to_free_core() is None  # one core per process
    finally:
        cores.release()
    assert os.sched_getaffinity(0) == before
    context = multiprocessing.get_context("fork")
    queue, done = context.Queue(), context.Event()
    other = context.Process(target=_pin_and_report, args=(queue, done))
    other.start()
    try:
        assert queue.get(timeout=30)[0] == core  # free again: the first core is taken
    finally:
        done.set()
        other.join(30)


def cores_seen(store: Store, tid: int) -> set[tuple[int, ...]]:
    """The affinities the show-cores seats reported at their starts."""
    seen = set()
    for _match, seat in store.seat_rows(tournament_id=tid):
        for line in (seat.stderr or "").splitlines():
            if line.startswith("cores "):
                seen.add(tuple(int(c) for c in line[6:].strip("[]").split(",")))
    return seen


def test_a_one_worker_run_plays_on_one_core_with_its_bots(tmp_path: Path, own_locks: Path) -> None:
    """`--workers 1` plays in the coordinator's process: it and every bot it starts share
    the core it holds while the run lasts; afterwards the process may run anywhere again."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("pinning is only seen with two cores or more")
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    bot = str(TEST_BOTS / "show_cores")
    config = TournamentConfig(game="take-that", bots=(bot, "random"), rounds=2, seed=3)
    tid = runner.create(store, tmp_path, config)
    before = os.sched_getaffinity(0)
    executor = executors.InProcess(reuse=True, pin=True)
    held = os.sched_getaffinity(0)
    try:
        runner.run(store, tid, executor=executor)
    finally:
        executor.shutdown()
    assert len(held) == 1
    assert cores_seen(store, tid) == {tuple(held)}
    assert os.sched_getaffinity(0) == before


def test_pool_workers_and_their_bots_hold_distinct_cores(tmp_path: Path, own_locks: Path) -> None:
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("two workers need two cores to be pinned")
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    bot = str(TEST_BOTS / "show_cores")
    config = TournamentConfig(game="take-that", bots=(bot, "random"), rounds=6, seed=3)
    tid = runner.create(store, tmp_path, config)
    executor = executors.Processes(2, reuse=True, pin=True)
    try:
        runner.run(store, tid, executor=executor)
    finally:
        executor.shutdown()
    seen = cores_seen(store, tid)
    assert all(len(affinity) == 1 for affinity in seen), seen
    assert len(seen) <= 2 and seen <= {(c,) for c in os.sched_getaffinity(0)}
