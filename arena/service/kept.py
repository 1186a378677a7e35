"""What the service's busiest pages hold, kept in memory and read again off the requests.

A hundred readers of one board must not cost the database a hundred reads, nor each
wait for one: a key's value is served from memory while it is younger than `fresh`
seconds; an older one is still served, up to `fresh + stale`, while one read of the
key runs on the keeper's own threads (stale-while-revalidate); only a key never read,
or not read for longer than that, makes its request wait, and requests that wait for
the same key wait for the same read. A read is given the value it replaces, so that it
may keep it when what it depends on has not changed (a board's stamp, `views.board`).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

#: Seconds a value is served without being read again, then served stale for at most
#: STALE seconds more while it is read again.
FRESH = 1.0
STALE = 2.0
#: Keys kept at most (names asked for at random): past it, start again.
MOST = 10_000

#: A read: the value it replaces (None: none kept) -> the new value (None: nothing to
#: keep, such as a bot that does not exist).
Read = Callable[[Any], Any]


class Kept:
    """Values by key, each read again at most every `fresh` seconds (see the module).

    `clock` is the monotonic clock (tests drive their own); `workers`: the threads that
    read values again."""

    def __init__(
        self,
        fresh: float = FRESH,
        stale: float = STALE,
        workers: int = 2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fresh, self.stale, self._clock = fresh, stale, clock
        self._found: dict[Hashable, tuple[float, Any]] = {}
        self._reading: dict[Hashable, Future[Any]] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="arena-kept")

    def get(self, key: Hashable, read: Read, fresh: float | None = None) -> Any:
        """The value of `key` (blocking the calling thread when it must wait for a read);
        `fresh`: this key's own `fresh`."""
        value, reading = self._look(key, read, fresh)
        return value if reading is None else reading.result()

    async def aget(self, key: Hashable, read: Read, fresh: float | None = None) -> Any:
        """`get` for the event loop: a wait for a read holds no thread."""
        value, reading = self._look(key, read, fresh)
        return value if reading is None else await asyncio.wrap_future(reading)

    def settle(self) -> None:
        """Wait until every read under way is done (tests, and a clean stop)."""
        while True:
            with self._lock:
                pending = list(self._reading.values())
            if not pending:
                return
            for reading in pending:
                reading.exception()  # waits; a failed read is the waiting requests' error

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _look(
        self, key: Hashable, read: Read, fresh: float | None
    ) -> tuple[Any, Future[Any] | None]:
        """(the value to serve, None) or (None, the read to wait for); starts a read of
        `key` when its value is older than `fresh` and none is under way."""
        now = self._clock()
        young = self.fresh if fresh is None else fresh
        with self._lock:
            kept = self._found.get(key)
            if kept is not None and now - kept[0] < young:
                return kept[1], None
            reading = self._reading.get(key)
            if reading is None:
                reading = self._pool.submit(self._read, key, read, kept)
                self._reading[key] = reading
        if kept is not None and now - kept[0] < young + self.stale:
            return kept[1], None
        return None, reading

    def _read(self, key: Hashable, read: Read, kept: tuple[float, Any] | None) -> Any:
        began = self._clock()  # the value is as old as the moment its read began
        try:
            value = read(None if kept is None else kept[1])
        except BaseException:
            with self._lock:
                self._reading.pop(key, None)
            raise
        with self._lock:  # kept before the read is let go: no second read starts between
            if value is not None:
                if len(self._found) >= MOST:
                    self._found.clear()
                self._found[key] = (began, value)
            self._reading.pop(key, None)
        return value
