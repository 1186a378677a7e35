"""Which processes of a sandbox uid are this test's: those started while one of its bots held it.

Other arenas may run on the machine (a second test suite, `arena demo`) with the same uid
range and the same slot locks in /run/arena. A uid this test's bot released can be taken
at once by another arena's bot, so "no process runs as a uid the test used" would count
that bot as this test's leftover. A process belongs to a hold of the uid when it started
inside the hold: after the slot was locked and before it was freed. Holds of one uid never
overlap (the slot is an exclusive lock), so another arena's processes, started outside
every hold of this test, are never counted. The clock is the kernel's: a process's start
time in /proc/PID/stat is in clock ticks of CLOCK_BOOTTIME.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from arena.sandbox import uids

_TICK = os.sysconf("SC_CLK_TCK")


def ticks() -> float:
    """Now, in the clock ticks of /proc/PID/stat's start time."""
    return time.clock_gettime(time.CLOCK_BOOTTIME) * _TICK


class HeldUids:
    """The uid holds of one test, written to a file as they happen.

    A file, not a list: a tournament's forked workers acquire and release slots too,
    and each appends its own lines (one write each, O_APPEND: never interleaved).
    """

    def __init__(self, path: Path):
        self.path = path
        path.touch()

    def _write(self, line: str) -> None:
        with open(self.path, "a") as file:
            file.write(line + "\n")

    def acquired(self, slot: uids.UidSlot) -> None:
        self._write(f"acquire {os.getpid()} {slot.uid} {ticks()}")

    def released(self, slot: uids.UidSlot) -> None:
        self._write(f"release {os.getpid()} {slot.uid} {ticks()}")

    def holds(self) -> list[tuple[int, float, float | None]]:
        """(uid, start, end) of each hold; end None while the slot is still held."""
        open_holds: dict[tuple[str, str], float] = {}
        found: list[tuple[int, float, float | None]] = []
        for line in self.path.read_text().splitlines():
            event, pid, uid, at = line.split()
            if event == "acquire":
                open_holds[pid, uid] = float(at)
            elif (pid, uid) in open_holds:
                found.append((int(uid), open_holds.pop((pid, uid)), float(at)))
        return found + [(int(uid), start, None) for (_pid, uid), start in open_holds.items()]

    def uids(self) -> list[int]:
        """Every uid this test's bots held."""
        return sorted({uid for uid, _start, _end in self.holds()})

    def leftovers(self) -> list[int]:
        """Live processes that run as a uid this test held and started while it held it.

        Zombies are left out: they run nothing and hold nothing but a pid. Arena reaps
        its own (`descendants` sees any it leaves); the sandbox inits of a Dask worker
        killed by a test are adopted by this machine's PID 1, which reaps them when it will.
        A start time is whole ticks (rounded down): one in the tick a hold ended may be the
        next holder's, so a hold ends at the start of that tick; one in the tick it began is
        this hold's (a process of the holder before it started before it let go).
        """
        holds: dict[int, list[tuple[float, float | None]]] = {}
        for uid, start, end in self.holds():
            holds.setdefault(uid, []).append((start, end))
        return [pid for pid, uid, started in _processes() if _inside(started, holds.get(uid, []))]


def _inside(started: int, holds: list[tuple[float, float | None]]) -> bool:
    return any(
        int(start) <= started and (end is None or started < int(end)) for start, end in holds
    )


def _processes() -> list[tuple[int, int, int]]:
    """(pid, uid, start time in ticks) of every live process but zombies."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            uid = entry.stat().st_uid
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            found.append((int(entry.name), uid, int(fields[19])))
    return found
