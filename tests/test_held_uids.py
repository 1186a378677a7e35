"""tests/held_uids.py counts a process of a uid as a test's leftover only if it started while
the test held that uid: another arena's bot, started on the uid once it was free, is not."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.sandbox import uids
from tests.held_uids import HeldUids

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (one uid per bot)")


@pytest.fixture
def sleepers() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def test_a_leftover_of_a_hold_is_found_and_the_next_holders_process_is_not(
    tmp_path: Path, sleepers: list[subprocess.Popen[bytes]]
) -> None:
    held = HeldUids(tmp_path / "holds")
    slot = uids.acquire()
    held.acquired(slot)
    sleepers.append(subprocess.Popen(["/bin/sleep", "60"], user=slot.uid, group=slot.uid))
    assert held.leftovers() == [sleepers[0].pid]  # still held: its process is this test's
    os.close(slot._fd)  # a slot freed without its kill: the sleeper is left behind
    slot._fd = -1
    held.released(slot)
    # Another arena takes the free uid and starts its bot: not this test's.
    sleepers.append(subprocess.Popen(["/bin/sleep", "60"], user=slot.uid, group=slot.uid))
    assert held.uids() == [slot.uid]
    assert held.leftovers() == [sleepers[0].pid]
