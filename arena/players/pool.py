"""Keep bot processes alive from one match to the next.

Protocol v1 lets a bot play several matches in a row (a new `start` after
`end`), so a worker pays a bot's start-up once, not per match. A process that
misbehaved is never reused: it is closed and the next match starts a new one.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from arena.players.process import BotProcess
from arena.sandbox import Limits


class BotPool:
    """Idle bot processes keyed by how they were started."""

    def __init__(self, reuse: bool = True):
        """With `reuse` False every match gets fresh processes (`--fresh-processes`)."""
        self.reuse = reuse
        self._idle: dict[tuple[object, ...], list[BotProcess]] = defaultdict(list)

    @staticmethod
    def _key(argv: tuple[str, ...], folder: Path, limits: Limits) -> tuple[object, ...]:
        return (argv, str(folder), limits)

    def acquire(self, name: str, argv: tuple[str, ...], folder: Path, limits: Limits) -> BotProcess:
        """An idle live process for this bot, or a newly spawned one (BotCrashed if it cannot)."""
        idle = self._idle.get(self._key(argv, folder, limits), [])
        while idle:
            bot = idle.pop()
            if bot.alive:
                bot.name = name
                return bot
            bot.close()
        bot = BotProcess(name, argv, folder, limits)
        bot.spawn()
        return bot

    def release(self, bot: BotProcess, healthy: bool) -> None:
        """Give a process back after a match; unhealthy or dead ones are closed.

        So is one that has used half its CPU-time limit: that rlimit counts the
        process's whole life, and a fresh process must not be killed mid-match for it.
        """
        if self.reuse and healthy and bot.alive and not bot.cpu_worn_out():
            self._idle[self._key(tuple(bot.argv), bot.folder, bot.limits)].append(bot)
        else:
            bot.close(grace=0.2 if healthy else 0)

    def close(self) -> None:
        """Close every idle process."""
        for bots in self._idle.values():
            for bot in bots:
                bot.close()
        self._idle.clear()
