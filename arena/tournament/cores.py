"""One core for a worker and its bots, held machine-wide while the worker plays.

A decision is a pipe round trip: arena writes the request, the bot wakes, answers,
arena wakes. With arena and the bot on one core each wake-up is a switch on that
core; across cores it is an inter-processor wake-up of a core that may be halted,
which on a virtual machine costs several times more (scripts/bench_protocol.py:
about 9 us a trip against 56 us for the C bot on a 2-core VM). So a worker pins
itself, and with it every bot it starts afterwards (they inherit the affinity of the
launcher thread), to one core. Parallel workers, in one run or in several, must not
share a core while another idles: a core is held by an flock on a file in arena's
runtime folder, released when the holder lets go or ends. With every core held (another
arena run on the machine, more workers than cores) the worker still takes one core,
shared, chosen by its pid: its bots answer on its core all the same, where an unpinned
worker would pay the wake-up across cores on every decision.
"""

from __future__ import annotations

import contextlib
import fcntl
import os

from arena.sandbox import uids

#: The lock file of the core this process holds (kept open while it is held); -1: no
#: core, _SHARED: a core that others hold too (no lock).
_CORE_LOCK: int = -1
_SHARED = -2
#: This process's affinity before it was pinned (restored by `release`).
_BEFORE: set[int] = set()


def pin_to_free_core() -> int | None:
    """Pin every thread of this process to the first core no other process holds, or,
    with every core held, to one shared by its pid; the core.

    None when nothing was pinned: this process is pinned already, or the platform has
    no affinity."""
    global _CORE_LOCK, _BEFORE
    if _CORE_LOCK != -1 or not hasattr(os, "sched_setaffinity"):
        return None
    folder = uids.runtime_dir()
    allowed = os.sched_getaffinity(0)
    cores = sorted(allowed)
    for core in cores:
        fd = os.open(folder / f"core-{core}.lock", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        _CORE_LOCK, _BEFORE = fd, allowed
        _set_every_thread({core})  # the calling thread alone is not enough
        return core
    core = cores[os.getpid() % len(cores)]
    _CORE_LOCK, _BEFORE = _SHARED, allowed
    _set_every_thread({core})
    return core


def release() -> None:
    """Give the core back: every thread runs where it could before, the lock is dropped."""
    global _CORE_LOCK
    if _CORE_LOCK == -1:
        return
    _set_every_thread(_BEFORE)
    if _CORE_LOCK != _SHARED:
        os.close(_CORE_LOCK)
    _CORE_LOCK = -1


def _set_every_thread(cores: set[int]) -> None:
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError):  # a thread that just ended
            os.sched_setaffinity(int(task), cores)
