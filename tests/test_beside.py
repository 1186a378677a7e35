"""Two arenas on one machine (issue 31 item 21): neither takes the other's leftovers for its
own, and neither harms the other's bots, uids, cgroups or staged copies.

The other arena is tests/beside_arena.py, a process running sandboxed echo bots from the
same uid range and the same /run/arena, as a second `arena` or a second test suite would.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.sandbox import cgroup, uids
from arena.sandbox.limits import Limits
from tests.held_uids import HeldUids
from tests.helpers import sandboxed
from tests.test_sandbox import hostile_tournament_leaves_nothing_behind

pytestmark = pytest.mark.skipif(
    not sandboxed() or os.geteuid() != 0, reason="needs bubblewrap and root (one uid per bot)"
)

ROOT = Path(__file__).parent.parent


class OtherArena:
    """tests/beside_arena.py in its own process, spoken to one line at a time."""

    def __init__(self, uid_range: str):
        env = {**os.environ, "ARENA_SANDBOX_UIDS": uid_range}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.beside_arena"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, command: str) -> list[str]:
        """Send one command; the words of its answer after the first."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline().split()[1:]

    def tree(self) -> set[int]:
        """Its process and every process below it (its bots)."""
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        found = frontier = {self.process.pid}
        while frontier:
            frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
            found = found | frontier
        return found

    def stop(self) -> None:
        if self.process.poll() is None:
            self.ask("stop")
        self.process.wait(30)


@pytest.fixture
def shared_range(monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """A small range from this worker's share, for this test and the other arena alike."""
    low, _high = uids.uid_range()
    monkeypatch.setenv("ARENA_SANDBOX_UIDS", f"{low}-{low + 15}")
    return low, low + 15


@pytest.fixture
def other_arena(shared_range: tuple[int, int]) -> Iterator[OtherArena]:
    other = OtherArena(f"{shared_range[0]}-{shared_range[1]}")
    yield other
    other.stop()


def test_a_tournament_beside_another_arena_sees_only_its_own_leftovers_and_harms_none(
    tmp_path: Path, used_uids: HeldUids, other_arena: OtherArena, shared_range: tuple[int, int]
) -> None:
    """The other arena runs 4 bots through the tournament; once it is over, the other takes
    every uid left free, those this run's bots used included, before this run looks for what
    it left behind (the race of the issue, made certain)."""
    held = other_arena.ask("fill 4")
    assert len(held) == 4
    taken: list[str] = []

    def take_the_rest() -> set[int]:
        taken.extend(other_arena.ask("fill 0"))
        return other_arena.tree()  # a child of this process here, unlike another arena

    hostile_tournament_leaves_nothing_behind(tmp_path, used_uids, take_the_rest)
    # Never a uid the other held (its first 4, held throughout); then ours were the other's.
    assert not set(used_uids.uids()) & {int(uid) for uid in held}
    assert set(used_uids.uids()) & {int(uid) for uid in taken}
    assert other_arena.ask("ping") == [str(len(taken))]  # all its bots still answer
    paths = [Path(path) for path in other_arena.ask("paths")]
    # A third arena starting up sweeps what dead arenas left: nothing of a live one.
    third = OtherArena(f"{shared_range[1] + 1}-{shared_range[1] + 2}")
    try:
        assert len(third.ask("fill 1")) == 1
    finally:
        third.stop()
    assert all(path.exists() for path in paths)
    assert other_arena.ask("ping") == [str(len(taken))]
    other_arena.stop()
    assert not any(path.exists() for path in paths)


def test_a_forked_worker_holds_none_of_its_parents_uids(shared_range: tuple[int, int]) -> None:
    """A uid its parent freed is free for another arena at once, while the worker runs on."""
    slot = uids.acquire()
    context = multiprocessing.get_context("fork")  # as the tournament's workers start
    done = context.Event()
    worker = context.Process(target=done.wait, args=(30,))
    worker.start()
    try:
        slot.release()
        other = OtherArena(f"{slot.uid}-{slot.uid}")
        try:
            assert other.ask("fill 1") == [str(slot.uid)]
        finally:
            other.stop()
    finally:
        done.set()
        worker.join(30)


def test_an_arena_starting_while_another_holds_every_uid_runs_no_bot_unconfined(
    other_arena: OtherArena,
) -> None:
    """Its bubblewrap probe finds no free uid: that is no reason to run bots outside the
    sandbox (as root), only to start none until a uid is free."""
    assert len(other_arena.ask("fill 0")) == 16
    third = OtherArena(os.environ["ARENA_SANDBOX_UIDS"])
    try:
        assert third.ask("fill 1") == []  # refused (SandboxError), not started as root
    finally:
        third.stop()
    assert other_arena.ask("ping") == ["16"]


def test_a_cgroup_left_by_a_dead_process_with_this_pid_is_replaced_not_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bot cgroups are named arena-PID-N and swept when PID is gone; a dead arena whose pid
    this process has now left names that no sweep removes (the pid is alive: this one)."""
    active = [c.path for c in cgroup.controllers() if c.path is not None]
    if not active:
        pytest.skip("no cgroup controller for bots here")
    monkeypatch.setattr(cgroup, "_COUNTER", itertools.count(10**6))
    stale = [path / f"arena-{os.getpid()}-{10**6}" for path in set(active)]
    for path in stale:
        path.mkdir()
    group = cgroup.create(Limits())
    assert group is not None
    try:
        assert set(group.dirs) == set(stale)
    finally:
        group.remove()
    assert not any(path.exists() for path in stale)
