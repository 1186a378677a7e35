"""Keep bot processes alive from one match to the next.

Protocol v1 lets a bot play several matches in a row (a new `start` after
`end`), so a worker pays a bot's start-up once, not per match. A process that
misbehaved is never reused: it is closed and the next match starts a new one.

A process never plays the same deal twice. Tournaments play each deal once per
seat rotation, and a bot sees hidden cards by the end of a match (hands shown,
grids turned up): a process that met the deal again in another seat could play
knowing every hidden card. So each process remembers the deals it was given (by
the match's keyed deal seed, which the bot never sees), and a match gets an idle
process that has not played its deal, or a new one. Under bubblewrap nothing a
bot writes outlives its process (/tmp and /dev/shm are its own; its folder is
read-only), so a new process starts knowing nothing.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from pathlib import Path

from arena.players.process import BotProcess
from arena.sandbox import Limits

#: Idle processes kept per bot (beyond it the oldest is closed): enough for every seat
#: rotation of a deal to find a process that has not seen it, with a few to spare.
MAX_IDLE = 8


class BotPool:
    """Idle bot processes keyed by how they were started."""

    def __init__(self, reuse: bool = True):
        """With `reuse` False every match gets fresh processes (`--fresh-processes`)."""
        self.reuse = reuse
        self._idle: dict[tuple[object, ...], list[BotProcess]] = defaultdict(list)
        # The seats of a match acquire from their own threads (arena.match): no two may
        # take the same idle process. Not `_lock`, which subclasses use for their own.
        self._idle_lock = threading.Lock()

    @staticmethod
    def _key(argv: tuple[str, ...], folder: Path, limits: Limits) -> tuple[object, ...]:
        return (argv, str(folder), limits)

    def acquire(
        self,
        name: str,
        argv: tuple[str, ...],
        folder: Path,
        limits: Limits,
        deal: int | None = None,
    ) -> BotProcess:
        """An idle live process for this bot that has not played `deal`, or a new one.

        BotCrashed if a new one cannot start. `deal` (None: a one-off deal) is then
        remembered by the process, so that it is never given that deal again.
        """
        chosen, dead = self._take_idle(self._key(argv, folder, limits), deal)
        for bot in dead:
            bot.close()
        if chosen is None:
            chosen = BotProcess(name, argv, folder, limits)
            chosen.spawn()
        chosen.name = name
        if deal is not None:
            chosen.deals.add(deal)
        return chosen

    def _take_idle(
        self, key: tuple[object, ...], deal: int | None
    ) -> tuple[BotProcess | None, list[BotProcess]]:
        """An idle live process that has not played `deal` (or None), and the dead ones passed."""
        dead: list[BotProcess] = []
        with self._idle_lock:
            idle = self._idle.get(key, [])
            for bot in idle[::-1]:  # the most recently used first (a copy: some are removed)
                if deal is None or deal not in bot.deals:
                    idle.remove(bot)
                    if bot.alive:
                        return bot, dead
                    dead.append(bot)
        return None, dead

    def release(self, bot: BotProcess, healthy: bool) -> None:
        """Give a process back after a match; unhealthy or dead ones are closed.

        So is one that has used half its CPU-time limit: that rlimit counts the
        process's whole life, and a fresh process must not be killed mid-match for it.
        """
        if self.reuse and healthy and bot.alive and not bot.cpu_worn_out():
            with self._idle_lock:
                idle = self._idle[self._key(tuple(bot.argv), bot.folder, bot.limits)]
                idle.append(bot)
                oldest = idle.pop(0) if len(idle) > MAX_IDLE else None
            if oldest is not None:
                oldest.close()
        else:
            bot.close(grace=0.2 if healthy else 0)

    def close(self) -> None:
        """Close every idle process."""
        with self._idle_lock:
            bots = [bot for idle in self._idle.values() for bot in idle]
            self._idle.clear()
        for bot in bots:
            bot.close()
