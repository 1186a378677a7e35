"""Fixtures shared by all tests."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator

import pytest

from arena.match.run import BotRef
from arena.sandbox import uids
from tests.held_uids import HeldUids
from tests.helpers import bot_ref_for

#: The match-seed secret of every database in the tests (tests/test_secrecy.py unsets it).
TEST_SECRET = "5e" * 32


@pytest.fixture(scope="session", autouse=True)
def shared_secret() -> Iterator[None]:
    """Every database in a test run shares one secret, as with ARENA_SECRET in production.

    Tests that compare runs in two databases (workers, executors, reused processes)
    then compare the same matches; nothing reads or writes the user's arena home.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_SECRET", TEST_SECRET)
        yield


@pytest.fixture(scope="session", autouse=True)
def own_sandbox_uids() -> Iterator[None]:
    """Each pytest-xdist worker hands its bots uids from its own share of the range.

    Tests check that no process started while they held a uid runs once their bots are
    gone (`used_uids`); shares keep the workers from taking each other's uids at all.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if not worker.startswith("gw") or count < 2 or os.environ.get("ARENA_SANDBOX_UIDS"):
        yield
        return
    low, high = uids.uid_range()
    share = (high - low + 1) // count
    first = low + int(worker[2:]) * share
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_SANDBOX_UIDS", f"{first}-{first + share - 1}")
        yield


@pytest.fixture
def polite() -> BotRef:
    """A well-behaved opponent that answers the first legal decision at once."""
    return bot_ref_for("polite")


@pytest.fixture
def used_uids(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> HeldUids:
    """The sandbox uids held during a test and when (to check that none of its bots still runs).

    Only processes started while this test held a uid count: another arena on the machine
    may take the uid next (tests/held_uids.py).
    """
    held = HeldUids(tmp_path_factory.mktemp("uids") / "holds")
    real_acquire, real_release = uids.acquire, uids.UidSlot.release

    def acquire() -> uids.UidSlot:
        slot = real_acquire()
        held.acquired(slot)
        return slot

    def release(slot: uids.UidSlot) -> None:
        holding = slot._fd >= 0
        real_release(slot)
        if holding:
            held.released(slot)

    monkeypatch.setattr(uids, "acquire", acquire)
    monkeypatch.setattr(uids.UidSlot, "release", release)
    return held


@pytest.fixture
def host_listener() -> Iterator[None]:
    """A TCP port on the host that tests/bots/network and build_escape try to reach."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        server.bind(("127.0.0.1", 47613))
        server.listen()
    except OSError:
        pass  # taken: the bot's other attempts still run
    yield
    server.close()


@pytest.fixture
def counters_alone() -> Iterator[None]:
    """Tests that move or read machine-wide kernel counters (aio-nr, pty nr) run one at a
    time across the suite's worker processes: two of them at once read each other's."""
    import fcntl

    with open(os.path.join(tempfile.gettempdir(), "arena-test-kernel-counters.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
