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

With fresh processes (`reuse` False) every match gets processes that never played,
but a worker need not wait for them to start: with `prestart`, each bot's next
process is started in the background when the current one is handed out (a *spare*;
as many per bot as it has seats in play, `MAX_SPARES` in all), and a finished one is
closed in the background.
A spare has been given nothing; it only waits for its `start`.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict, defaultdict, deque
from pathlib import Path

from arena.players.process import BotProcess
from arena.protocol.messages import PROTOCOL_VERSION
from arena.sandbox.limits import Limits

#: Idle processes kept per bot (beyond it the oldest is closed): enough for every seat
#: rotation of a deal to find a process that has not seen it, with a few to spare.
MAX_IDLE = 8
#: Processes started ahead for fresh matches (beyond it, the least recently used bot's go).
MAX_SPARES = 8


class _Spare:
    """A bot process being started in a thread of its own, for the bot's next match."""

    def __init__(self, name: str, argv: tuple[str, ...], folder: Path, limits: Limits):
        self.bot = BotProcess(name, argv, folder, limits)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._spawn, name="arena-spare", daemon=True)
        self.thread.start()

    def _spawn(self) -> None:
        try:
            self.bot.spawn()
        except BaseException as error:  # raised by `take`, as a spawn in place would
            self.error = error

    def take(self) -> BotProcess:
        """The started process (waiting for its start); its spawn's error, if it failed."""
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.bot


class BotPool:
    """Idle bot processes keyed by how they were started."""

    def __init__(self, reuse: bool = True, prestart: bool = False):
        """With `reuse` False every match gets fresh processes (`--fresh-processes`);
        with `prestart` too, they are started ahead and closed in the background."""
        self.reuse = reuse
        self.prestart = prestart and not reuse
        self._spares: OrderedDict[tuple[object, ...], deque[_Spare]] = OrderedDict()
        self._busy: Counter[tuple[object, ...]] = Counter()  # processes in use, per bot
        self._closing: list[threading.Thread] = []
        self._idle: dict[tuple[object, ...], list[BotProcess]] = defaultdict(list)
        # The seats of a match acquire from their own threads (arena.match.run): no two may
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
        protocol: int = PROTOCOL_VERSION,
    ) -> BotProcess:
        """An idle live process for this bot that has not played `deal`, or a new one.

        BotCrashed if a new one cannot start. `deal` (None: a one-off deal) is then
        remembered by the process, so that it is never given that deal again.
        """
        key = self._key(argv, folder, limits)
        chosen: BotProcess | None
        if self.prestart:
            try:
                chosen = self._take_spare(key, name, argv, folder, limits) or self._spawn(
                    name, argv, folder, limits
                )
            except BaseException:
                with self._idle_lock:
                    self._busy[key] -= 1  # it never came into use
                raise
        else:
            chosen, dead = self._take_idle(key, deal)
            for bot in dead:
                bot.close()
        if chosen is None:
            chosen = self._spawn(name, argv, folder, limits)
        chosen.name = name
        chosen.protocol = protocol  # the bot's manifest says, and its folder is the key
        if deal is not None:
            chosen.deals.add(deal)
        return chosen

    def acquire_idle(
        self,
        name: str,
        argv: tuple[str, ...],
        folder: Path,
        limits: Limits,
        deal: int | None = None,
        protocol: int = PROTOCOL_VERSION,
    ) -> BotProcess | None:
        """As `acquire`, but only an idle live process (None when there is none, or when
        every match gets fresh processes): what a seat can start without waiting."""
        if self.prestart or not self.reuse:
            return None
        key = self._key(argv, folder, limits)
        chosen, dead = self._take_idle(key, deal)
        for bot in dead:
            bot.close()
        if chosen is not None:
            chosen.name, chosen.protocol = name, protocol
            if deal is not None:
                chosen.deals.add(deal)
        return chosen

    @staticmethod
    def _spawn(name: str, argv: tuple[str, ...], folder: Path, limits: Limits) -> BotProcess:
        """A new process for this bot; BotCrashed if it cannot start."""
        bot = BotProcess(name, argv, folder, limits)
        bot.spawn()
        return bot

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

    def _take_spare(
        self,
        key: tuple[object, ...],
        name: str,
        argv: tuple[str, ...],
        folder: Path,
        limits: Limits,
    ) -> BotProcess | None:
        """One of the bot's spares (None: none yet); then as many new spares started as
        the bot has processes in use, so that its next match finds one for every seat.

        A spare that exited meanwhile is handed out all the same: its start fails as a
        new process's would, with what it wrote to stderr.
        """
        with self._idle_lock:
            spares = self._spares.setdefault(key, deque())
            self._spares.move_to_end(key)
            spare = spares.popleft() if spares else None
            self._busy[key] += 1
            while len(spares) < self._busy[key]:
                spares.append(_Spare(name, argv, folder, limits))
            evicted = []
            while sum(map(len, self._spares.values())) > MAX_SPARES:
                oldest = next(iter(self._spares.values()))
                evicted.append(oldest.popleft())
                if not oldest:
                    self._spares.popitem(last=False)
        for old in evicted:
            self._close_later(old, grace=0)
        return spare.take() if spare is not None else None

    def _close_later(self, item: BotProcess | _Spare, grace: float) -> None:
        """Close a process (or a spare, once started) in a thread; `close` waits for it."""

        def close() -> None:
            try:
                bot = item.take() if isinstance(item, _Spare) else item
            except BaseException:  # a spare that failed to start has nothing to close
                return
            bot.close(grace=grace)

        thread = threading.Thread(target=close, name="arena-close", daemon=True)
        thread.start()
        with self._idle_lock:
            self._closing = [t for t in self._closing if t.is_alive()]
            self._closing.append(thread)

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
        elif self.prestart:  # the match goes on meanwhile
            with self._idle_lock:
                self._busy[self._key(tuple(bot.argv), bot.folder, bot.limits)] -= 1
            self._close_later(bot, grace=0.2 if healthy else 0)
        else:
            bot.close(grace=0.2 if healthy else 0)

    def idle_count(self) -> int:
        """How many started processes wait here to play again (spares not counted)."""
        with self._idle_lock:
            return sum(len(idle) for idle in self._idle.values())

    def close(self) -> None:
        """Close every idle process and spare; wait for the closes under way."""
        with self._idle_lock:
            bots = [bot for idle in self._idle.values() for bot in idle]
            self._idle.clear()
            spares = [spare for queue in self._spares.values() for spare in queue]
            self._spares.clear()
        for spare in spares:
            self._close_later(spare, grace=0)
        for bot in bots:
            bot.close()
        with self._idle_lock:
            closing, self._closing = self._closing, []
        for thread in closing:
            thread.join()
