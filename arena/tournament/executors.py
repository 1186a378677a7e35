"""Where a tournament's matches run: this process, a local process pool, or a Dask cluster.

`open_executor` turns an executor's name (arena.tournament.config.check_name) into one;
this module holds the local ones, arena.tournament.dask_executor the Dask one. Every
executor has the interface of arena.tournament.execution. The runner submits a window
of matches and takes the results back in schedule order, so the local pool and a Dask
cluster share one code path; only the coordinator writes the database.

Given a `relay` (arena.tournament.watching), the local executors forward what their
matches' watchers see to it as the matches are played: this process calls it in the
playing thread, the pool's workers write to a pipe the coordinator reads. The Dask
executor takes no relay: its matches are seen once recorded.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import threading
import warnings
from collections import Counter
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from arena.match.run import MatchResult, MatchSpec, run_match
from arena.players.pool import BotPool
from arena.tournament import cores, watching
from arena.tournament.config import LOCAL, ConfigError, check_name, dask_address
from arena.tournament.execution import RERUNS, Executor, platform_error

LOG = logging.getLogger("arena.tournament")


def open_executor(
    name: str,
    workers: int,
    *,
    reuse: bool = True,
    pin: bool = True,
    relay: watching.Relay | None = None,
) -> Executor:
    """The executor a name stands for; `workers` only sizes the local pool. `relay`: where
    the local executors forward their matches' messages (the module); Dask ignores it."""
    if check_name(name) == LOCAL:
        if workers == 1:
            return InProcess(reuse, pin, relay)
        return Processes(workers, reuse, pin, relay)
    try:
        from arena.tournament.dask_executor import DaskExecutor  # optional dependency
    except ImportError as error:
        raise ConfigError(f"{name} needs `pip install 'arena[dask]'` ({error})") from None
    return DaskExecutor(dask_address(name), reuse, pin=pin)


# ----- local: this process ------------------------------------------------------
class _Lazy:
    """A match to run in this process when its result is asked for."""

    def __init__(self, spec: MatchSpec, pool: BotPool, relay: watching.Relay | None):
        self.spec, self.pool, self.relay = spec, pool, relay

    def result(self) -> MatchResult:
        if self.relay is None:
            return run_match(self.spec, self.pool)
        return run_match(self.spec, self.pool, watching.Forward(self.spec.match_id, self.relay))

    def done(self) -> bool:
        """Never: the match is played when its result is asked for."""
        return False


class InProcess:
    """One worker: matches run in this process, in order, reusing bot processes.

    With `pin`, this process and the bots it starts share one free core while the
    executor is open (arena.tournament.cores): the coordinator is the worker here.
    Its results may wait `hold_seconds` to be recorded several to a transaction
    (arena.tournament.runner.MAX_BATCH): recording is this thread's work too."""

    slots = 1
    hold_seconds = 0.25

    def __init__(self, reuse: bool, pin: bool = False, relay: watching.Relay | None = None):
        self.pool = BotPool(reuse=reuse, prestart=True)
        self.relay = relay
        self._pinned = pin and cores.pin_to_free_core() is not None

    def submit(self, spec: MatchSpec) -> _Lazy:
        """The match runs when its result is asked for."""
        return _Lazy(spec, self.pool, self.relay)

    def shutdown(self, now: bool = False) -> None:
        """Close the idle bot processes (a match in progress ran in the caller's thread)."""
        self.pool.close()
        if self._pinned:
            cores.release()
            self._pinned = False


# ----- local: a process pool ----------------------------------------------------
_WORKER_POOL: BotPool | None = None
#: The write end of the pipe on which a worker announces each match it starts.
_STARTED_FD = -1
#: The write end of the pipe of its matches' live messages (-1: none are sent).
_LIVE_FD = -1


def _die_with_parent() -> None:
    """Ask Linux to kill this worker when the coordinator dies (even by kill -9)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker_init(reuse: bool, pin: bool, started_fd: int, live_fds: tuple[int, int]) -> None:
    """Per-worker set-up: its bot pool, and optionally a free core for it and its bots
    (held until the worker ends). `live_fds`: the live pipe's (read, write) ends, or -1s."""
    global _WORKER_POOL, _STARTED_FD, _LIVE_FD
    _STARTED_FD = started_fd
    _LIVE_FD = live_fds[1]
    if live_fds[0] >= 0:  # the coordinator's end: a worker never reads it
        with contextlib.suppress(OSError):
            os.close(live_fds[0])
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C
    if pin:  # before the pool starts a thread or a bot: they inherit the core
        cores.pin_to_free_core()
    _WORKER_POOL = BotPool(reuse=reuse, prestart=True)


def _worker_run(spec: MatchSpec) -> MatchResult:
    assert _WORKER_POOL is not None
    # One write of a short line is atomic on a pipe: no lock a dying worker could hold.
    os.write(_STARTED_FD, spec.match_id.encode()[:1000] + b"\n")
    if _LIVE_FD < 0:
        return run_match(spec, _WORKER_POOL)
    watcher = watching.Forward(spec.match_id, watching.PipeSender(_LIVE_FD))
    return run_match(spec, _WORKER_POOL, watcher)


@contextlib.contextmanager
def _forking_knowingly() -> Iterator[None]:
    """Silence Python 3.12+'s warning about fork() in a process with threads, here only.

    The pool's first submit forks its workers. The coordinator then has threads: the
    sandbox launcher (blocked on its own queue, which a worker never touches: it
    starts its own) and multiprocessing-logging's relay (workers only put records on
    its queue, which resets its locks after a fork; logging re-creates its handler
    locks at fork). No lock a worker needs can be held by another thread at that
    moment, and the relay needs fork: its handler is inherited, not pickled.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", r"This process .* is multi-threaded, use of fork\(\)", DeprecationWarning
        )
        yield


class Processes:
    """W forked worker processes, each with its own bot pool (and core, when pinned).

    A worker that dies (killed, out of memory) breaks a `ProcessPoolExecutor` for
    good: every match in flight on it fails with `BrokenProcessPool`. The pool is
    then rebuilt and each of those matches runs once more, as on Dask; a match lost
    twice is void (`platform-error`); its spectators are told it is lost (a rerun
    starts its live view again).
    """

    def __init__(self, workers: int, reuse: bool, pin: bool, relay: watching.Relay | None = None):
        self.slots = workers
        self.relay = relay
        self._live = None if relay is None else watching.PipeReader(relay)
        self._reuse, self._pin = reuse, pin and workers <= (os.cpu_count() or 1)
        self._lock = threading.Lock()
        # Which matches a worker really started (a match merely queued on a pool that
        # broke is not charged with a lost worker), as the Dask executor counts starts.
        self._started_r, self._started_w = os.pipe()
        os.set_blocking(self._started_r, False)
        self._pending = b""
        self.starts: Counter[str] = Counter()
        self.generation = 0
        self.inner = self._new_pool()

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        context = multiprocessing.get_context("fork")
        return cf.ProcessPoolExecutor(
            max_workers=self.slots,
            mp_context=context,
            initializer=_worker_init,
            initargs=(self._reuse, self._pin, self._started_w, self._live_fds()),
        )

    def _live_fds(self) -> tuple[int, int]:
        live = self._live
        return (-1, -1) if live is None else (live.read_fd, live.write_fd)

    def tell_lost(self, match_id: str) -> None:
        """The match's worker died: its spectators are told (the rerun starts anew)."""
        if self.relay is not None:
            try:
                self.relay(match_id, watching.LOST, None)
            except Exception:  # a spectator's bug never stops the run
                LOG.exception("match %s: its spectators were not told", match_id)

    def starts_of(self, match_id: str) -> int:
        """How many times workers have started this match so far."""
        with self._lock:
            while True:
                try:
                    chunk = os.read(self._started_r, 65536)
                except OSError:  # nothing more to read (or already shut down)
                    break
                if not chunk:
                    break
                self._pending += chunk
            *lines, self._pending = self._pending.split(b"\n")
            self.starts.update(line.decode() for line in lines)
            return self.starts[match_id[:1000]]

    def submit(self, spec: MatchSpec) -> _PoolMatch:
        """Queue the match on the pool."""
        return _PoolMatch(self, spec)

    def start(self, spec: MatchSpec) -> tuple[int, cf.Future[MatchResult]]:
        """Queue one attempt; returns the pool generation it runs on."""
        with self._lock, _forking_knowingly():
            try:
                return self.generation, self.inner.submit(_worker_run, spec)
            except BrokenProcessPool:
                self._rebuild(self.generation)
                return self.generation, self.inner.submit(_worker_run, spec)

    def lost(self, generation: int) -> None:
        """A worker of pool `generation` died: replace that pool (once) with a new one."""
        with self._lock:
            self._rebuild(generation)

    def _rebuild(self, generation: int) -> None:
        if generation != self.generation:
            return  # another match already rebuilt it
        LOG.warning("a worker process died; starting a new pool")
        self.inner.shutdown(wait=False, cancel_futures=True)
        self.inner = self._new_pool()
        self.generation += 1

    def shutdown(self, now: bool = False) -> None:
        """Cancel what has not started and wait for the workers to exit.

        With `now`, the workers are killed first rather than left to finish their
        matches (their bots die with them: bubblewrap's --die-with-parent).
        """
        if now:
            # ProcessPoolExecutor has no public way to stop a running call before 3.14.
            for process in list(self.inner._processes.values()):
                with contextlib.suppress(OSError):
                    process.kill()
        self.inner.shutdown(wait=True, cancel_futures=True)
        for fd in (self._started_r, self._started_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self._live is not None:  # after the workers: nothing is written after its stop
            self._live.close()
            self._live = None


class _PoolMatch:
    """A match on the local pool that survives the death of its worker once."""

    def __init__(self, owner: Processes, spec: MatchSpec):
        self.owner, self.spec = owner, spec
        self.generation, self.future = owner.start(spec)

    def done(self) -> bool:
        """Whether the worker has finished (a lost worker's rerun still waits)."""
        return self.future.done() and self.future.exception() is None

    def result(self) -> MatchResult:
        """The match's result; run again once if its worker died, void if lost twice."""
        while True:
            try:
                return self.future.result()
            except BrokenProcessPool:
                self.owner.lost(self.generation)
                self.owner.tell_lost(self.spec.match_id)
            starts = self.owner.starts_of(self.spec.match_id)
            if starts > RERUNS:
                LOG.warning("match %s lost its worker again: void", self.spec.match_id)
                return platform_error(self.spec, f"lost its worker {starts} times")
            if starts:
                LOG.warning("match %s lost its worker; running it again", self.spec.match_id)
            self.generation, self.future = self.owner.start(self.spec)


# ----- checking remote workers --------------------------------------------------
def check_workers(name: str) -> list[dict[str, Any]]:
    """Run the doctor's checks on every worker of a Dask cluster; one row per worker and check.

    Each row has `worker` (its address), `check`, `ok` and `detail`.
    """
    try:
        from arena.tournament.dask_executor import check_cluster  # optional dependency
    except ImportError as error:
        raise ConfigError(f"{name} needs `pip install 'arena[dask]'` ({error})") from None
    return check_cluster(dask_address(name))
