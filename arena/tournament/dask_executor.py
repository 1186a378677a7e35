"""Running matches on the workers of a Dask cluster (`--executor dask://HOST:PORT`).

The coordinator connects a `distributed.Client` to the scheduler and submits
chunks of matches: one task, `run_chunk(task, specs, reuse)`, plays a few
consecutive matches of the schedule on one worker thread and returns their
results together. A Dask task costs a few milliseconds of CPU and round trips
(scheduler, client, worker), as much as a short match; a chunk pays it once.
Each match on the worker runs the very same `run_match` as a local pool (so the
same sandbox applies).

- Chunk sizes follow the matches' durations: about `CHUNK_SECONDS` of play, at
  most `MAX_CHUNK` matches. A worker thread that would be idle gets its share of
  what is waiting at once (one match while none has been timed), so a small
  tournament is never squeezed onto fewer workers than it could use.
- `submit` still takes one match: it is buffered until a chunk is full, a thread
  is idle, or its result is asked for. `slots` is two chunks per worker thread,
  so the runner keeps a chunk playing and the next ones waiting on every thread.
- Bot code travels by content: each bot version is packed once by the
  coordinator and registered as a worker plugin named `arena-bot-<sha256>`, which
  the scheduler hands to every worker, present and future; the worker unpacks it
  into its own cache and verifies it against the hash (`arena.tournament.bundles`).
- Each worker process keeps one bot pool, so bot processes are reused from one
  match to the next there as in a local worker; the pools' idle processes are
  closed when the run ends.
- A worker that dies mid-chunk is noticed by the scheduler, which runs the task
  again on another worker. That rerun plays nothing: it sees the mark its first
  run left with the scheduler and reports back (`RERUN`). The coordinator then
  charges every unfinished match of the task with the lost worker (which of them
  was playing is not known: a start event per match would cost the scheduler and
  the coordinator about a millisecond of CPU each) and sends them again, each
  alone, where a lost worker is the match's own. A match may lose its worker
  `RERUNS` times; once more and it is void (a platform error, never a bot's
  forfeit).
- A lost scheduler connection cancels every pending match: `result()` raises
  `ExecutorLost`, the runner stops with a prefix of the schedule recorded, and
  `arena tournament resume` finishes it.
"""

from __future__ import annotations

import gc
import logging
import os
import platform
import shutil
import sys
import tempfile
import threading
import uuid
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import distributed
from distributed.client import FutureCancelledError
from distributed.diagnostics.plugin import WorkerPlugin

from arena.match.run import BotRef, MatchResult, MatchSpec, run_match
from arena.players.pool import BotPool
from arena.status import MatchStatus
from arena.tournament import bundles, cores
from arena.tournament.execution import RERUNS, ExecutorLost, platform_error

LOG = logging.getLogger("arena.tournament.dask")

CONNECT_TIMEOUT_S = 10
#: About how long a chunk plays: long enough to make a task's fixed cost small (round
#: trips to the scheduler, the start and finish marks: some 3 ms of the worker's time,
#: and coordinator and scheduler CPU), short enough that the last chunks of a run end at
#: about the same time on every worker. scripts/bench_dask.py, 800 4-ms matches on one
#: worker: 16 matches a chunk added +21..28 % to the local pool's time, 64 +4..10 %.
CHUNK_SECONDS = 0.5
#: The most matches in one chunk (`slots` is twice this per worker thread).
MAX_CHUNK = 64


# ----- on the workers -----------------------------------------------------------
class BotArchive(WorkerPlugin):
    """One bot version's files, handed by the scheduler to every worker once."""

    idempotent = True

    def __init__(self, sha256: str, data: bytes):
        self.sha256, self.data = sha256, data
        self.name = f"arena-bot-{sha256}"

    def setup(self, worker: distributed.Worker) -> None:
        """Keep the archive in the worker process; it is unpacked at its first match."""
        bundles.ARCHIVES[self.sha256] = self.data


class CorePin(WorkerPlugin):
    """Pins a one-thread worker process to a core that no other worker on its host holds.

    As the local pool pins its workers (`--no-pin` turns both off): a worker and its bots
    then share one core, where a decision's pipe round trip costs a third of one across
    cores (scripts/bench_protocol.py), and parallel workers do not compete for a core.
    A core is held by an flock on a file in arena's runtime folder, released when the
    worker process ends; with every core held, the worker shares one (arena.tournament.cores).
    """

    idempotent = True
    name = "arena-pin-cores"

    def __init__(self, coordinator: int):
        self.coordinator = coordinator  # the coordinator's pid: never pinned

    def setup(self, worker: distributed.Worker) -> None:
        # A worker inside the coordinator's process (LocalCluster(processes=False))
        # would pin the coordinator, and every worker thread of it, to one core.
        if worker.state.nthreads == 1 and os.getpid() != self.coordinator:
            cores.pin_to_free_core()


#: The worker process's bot pool, shared by its task threads (BotPool is thread-safe:
#: the seats of one match acquire from threads of their own too).
_POOL = BotPool(reuse=True)


def close_pool() -> None:
    """Close this worker's idle bot processes (run on every worker when a run ends)."""
    _POOL.close()


def idle_bots() -> int:
    """How many bot processes this worker keeps idle for its next matches (what
    `close_pool` closes)."""
    return _POOL.idle_count()


def run_on_worker(spec: MatchSpec, reuse: bool, pool: BotPool | None = None) -> MatchResult:
    """Play one match on this worker from its own verified copies of the bots.

    With `reuse` its bots come from `pool`, by default this worker's shared one (a test
    hands in one of its own); without, the match starts its own processes."""
    try:
        seats = tuple(bundles.localize(ref) for ref in spec.seats)
    except bundles.BundleError as error:
        worker = distributed.get_worker()
        return platform_error(spec, f"on worker {worker.address}: {error}")
    local = replace(spec, seats=seats)
    if not reuse:
        return run_match(local)
    return run_match(local, _POOL if pool is None else pool)


#: What a task returns instead of results when it is a rerun (its worker died).
RERUN = "rerun"
#: Where in the scheduler's task metadata each task notes that it has started.
STARTED = "arena-started"


def run_chunk(
    task: Callable[[MatchSpec, bool], MatchResult],
    specs: list[MatchSpec],
    reuse: bool,
    run: str = "",
) -> list[MatchResult] | str:
    """Play `specs` in order with `task` (run_on_worker).

    A task runs again when the worker that ran it died: during the task, or after it,
    while its results still waited there. The scheduler keeps a mark of how far the
    task got (set by calls that wait for it, so it survives the worker): a rerun of a
    task that was cut off plays nothing and returns RERUN, and the coordinator decides
    what to play again and whom to charge (`DaskExecutor._lost`); a rerun of a task that
    had finished plays it again (the same seeds give the same results). `run` names
    the coordinator's run, whose marks it drops when it ends.

    Stops early, returning fewer results, once the coordinator has cancelled the chunk:
    Dask cannot stop a running task, but the next match need not start.
    """
    worker = distributed.get_worker()
    _freeze_worker_objects()
    key = worker.get_current_task()
    place = [STARTED, run, str(key)]
    if _mark(worker, place, "started") == "started":
        return RERUN
    results = []
    for index, spec in enumerate(specs):
        if index and _cancelled(worker, key):
            break
        results.append(task(spec, reuse))
    if len(results) == len(specs):
        _mark(worker, place, "finished")
    return results


#: Whether this worker process's long-lived objects are out of the collector's way.
_FROZEN = False


def _freeze_worker_objects() -> None:
    """Once per worker process: move what lives now (Dask's worker, some 125,000
    objects) out of the garbage collector's generations (`gc.freeze`). Otherwise each
    full collection, which matches trigger every few hundred, walks them all: some
    80 ms on this 2-core machine, about 0.3 ms a match for 4 ms matches."""
    global _FROZEN
    if not _FROZEN:
        _FROZEN = True
        gc.collect()
        gc.freeze()


def _mark(worker: distributed.Worker, place: list[str], value: str) -> str | None:
    """Set the task's mark kept by the scheduler; the mark it had before (or None)."""
    scheduler, loop = worker.scheduler, worker.loop
    before: str | None = None
    if value == "started":
        before = distributed.utils.sync(loop, scheduler.get_metadata, keys=place, default=None)
        if before == "started":
            return before
    distributed.utils.sync(loop, scheduler.set_metadata, keys=place, value=value)
    return before


def _cancelled(worker: distributed.Worker, key: Any) -> bool:
    """Whether the scheduler no longer wants this running task (read without a lock:
    a stale answer only plays one more match)."""
    state = worker.state.tasks.get(key)
    return state is None or state.state in ("cancelled", "released", "forgotten")


# ----- on the coordinator -------------------------------------------------------
class _Done:
    """A result known without asking the cluster."""

    def __init__(self, result: MatchResult):
        self._result = result

    def result(self) -> MatchResult:
        return self._result

    def done(self) -> bool:
        return True


class _Match:
    """One submitted match: waiting in the buffer, then in a chunk on the cluster."""

    def __init__(self, owner: DaskExecutor, spec: MatchSpec):
        self.owner, self.spec = owner, spec
        self.chunk: _Chunk | None = None  # None: still in the buffer
        self.outcome: MatchResult | None = None
        #: Lost workers charged to this match (see `DaskExecutor._lost`).
        self.deaths = 0

    def result(self) -> MatchResult:
        """The match's result, possibly void (platform-error); ExecutorLost."""
        return self.owner.wait(self)

    def done(self) -> bool:
        """Whether the result has arrived."""
        return self.outcome is not None


class _Chunk:
    """Matches played by one task."""

    def __init__(self, key: str, matches: list[_Match]):
        self.key, self.matches = key, matches
        self.future: distributed.Future[list[MatchResult] | str] | None = None


class DaskExecutor:
    """Runs matches on a Dask cluster's workers; see the module docstring."""

    def __init__(
        self,
        address: str,
        reuse: bool = True,
        *,
        pin: bool = False,
        client: distributed.Client | None = None,
    ):
        """Connect to the scheduler at `address` (or use `client`); ExecutorLost if unreachable.

        With `pin`, every one-thread worker is pinned to a core of its own (`CorePin`).
        """
        self.address, self.reuse = address, reuse
        self.own_client = client is None
        try:
            self.client = client or distributed.Client(
                address, timeout=CONNECT_TIMEOUT_S, set_as_default=False
            )
        except (OSError, TimeoutError) as error:
            raise ExecutorLost(f"cannot reach the Dask scheduler at {address}: {error}") from None
        #: What the workers run per match: `run_on_worker(spec, reuse)`.
        self.task: Callable[[MatchSpec, bool], MatchResult] = run_on_worker
        #: A fixed chunk size, or None to follow the matches' durations.
        self.chunk_size: int | None = None
        self.token = uuid.uuid4().hex[:8]  # keys never collide with another coordinator's
        self.submitted = 0
        self.shipped: set[str] = set()
        #: Lost workers charged, per match id.
        self.charged: Counter[str] = Counter()
        self.lost: str | None = None  # why the cluster is gone, once it is
        self._changed = threading.Condition()  # guards everything below, and wakes waiters
        self._buffer: deque[_Match] = deque()
        self._chunks: dict[str, _Chunk] = {}  # sent and not finished
        self._played, self._seconds = 0, 0.0  # for the chunk size
        # Finished chunks are noticed on the client's event loop (`as_completed`) and
        # fetched by a thread of this executor's own. Not by a done-callback: Dask runs
        # every done-callback of the process on one thread, where one stuck fetch (another
        # executor's, its client closed meanwhile) stops every executor's results.
        self._completed = distributed.as_completed(loop=self.client.loop)
        self._more = threading.Event()  # set when a chunk is sent, or to stop
        self._stopping = False
        self._fetcher = threading.Thread(target=self._fetch, name="arena-dask-results", daemon=True)
        self._fetcher.start()
        if pin:
            try:
                self.client.register_plugin(CorePin(os.getpid()))
            except (OSError, TimeoutError, distributed.CancelledError) as error:
                raise ExecutorLost(f"lost the Dask scheduler {address}: {error}") from None
        threads = sum(self.client.nthreads().values())
        if threads == 0:
            LOG.warning("the Dask cluster at %s has no workers yet: waiting for some", address)
        self.threads = max(1, threads)
        # the runner keeps twice this in flight: a chunk playing and one or more waiting
        self.slots = 2 * self.threads * MAX_CHUNK

    # --- submitting ---
    def _ship(self, ref: BotRef) -> str | None:
        """Make sure every worker has the archive of the ref's version; an error message or None."""
        if ref.sha256 is None or ref.sha256 in self.shipped:
            return None
        try:
            data = bundles.pack(ref.folder, ref.sha256)
        except bundles.BundleError as error:
            return str(error)
        try:
            self.client.register_plugin(BotArchive(ref.sha256, data))
        except (OSError, TimeoutError, distributed.CancelledError) as error:
            raise ExecutorLost(f"lost the Dask scheduler {self.address}: {error}") from None
        self.shipped.add(ref.sha256)
        return None

    def submit(self, spec: MatchSpec) -> _Match | _Done:
        """Ship the bots the workers have not seen, then queue the match for a chunk."""
        for ref in spec.seats:
            problem = self._ship(ref)
            if problem is not None:
                return _Done(platform_error(spec, problem))
        match = _Match(self, spec)
        with self._changed:
            self._buffer.append(match)
            self._flush()
        return match

    def _size(self) -> int:
        """Matches per chunk: about CHUNK_SECONDS of play; 0 while no match has been timed."""
        if self.chunk_size is not None:
            return self.chunk_size
        if not self._played:
            return 0
        mean = self._seconds / self._played
        return max(1, min(MAX_CHUNK, round(CHUNK_SECONDS / max(mean, 1e-6))))

    def _flush(self, everything: bool = False) -> None:
        """Send buffered matches: to each idle thread its share of what is there (one
        match while none has been timed), then full chunks up to two per thread;
        `everything`: all of them, shared out (the runner waits for one). Holds the lock."""
        size = self._size()
        idle = self.threads - len(self._chunks)
        while self._buffer and idle > 0:
            share = min(size, -(-len(self._buffer) // idle)) if size else 1
            self._send([self._buffer.popleft() for _ in range(share)])
            idle -= 1
        # two chunks a thread: one playing, one waiting; the rest waits here, to be sized
        # by better timings (the first matches include starting the bots)
        while size and len(self._buffer) >= size and len(self._chunks) < 2 * self.threads:
            self._send([self._buffer.popleft() for _ in range(size)])
        if everything and self._buffer:
            share = -(-len(self._buffer) // self.threads)
            while self._buffer:
                self._send([self._buffer.popleft() for _ in range(min(share, len(self._buffer)))])

    def _send(self, matches: list[_Match]) -> None:
        """One task for `matches` (the lock is held: `client.submit` does not wait for
        the client's event loop, which may be waiting for the lock)."""
        self.submitted += 1
        key = f"arena-{matches[0].spec.match_id}-{self.token}-{self.submitted}"
        chunk = _Chunk(key, matches)
        for match in matches:
            match.chunk = chunk
        self._chunks[key] = chunk
        specs = [m.spec for m in matches]
        chunk.future = self.client.submit(
            run_chunk, self.task, specs, self.reuse, self.token, key=key, pure=False
        )
        self._completed.add(chunk.future)
        self._more.set()

    # --- results ---
    def wait(self, match: _Match) -> MatchResult:
        """Block until the match has an outcome; ExecutorLost once the cluster is gone."""
        with self._changed:
            while match.outcome is None:
                if self.lost is not None:
                    raise ExecutorLost(self.lost)
                if match.chunk is None:  # the runner waits: nothing more comes to fill it
                    self._flush(everything=True)
                self._changed.wait()
            return match.outcome

    def _fetch(self) -> None:
        """Take each finished chunk's results, in this executor's own thread, until shutdown."""
        while True:
            self._more.wait()
            self._more.clear()
            if self._stopping:
                return
            for future in self._completed:  # until no chunk is out
                with self._changed:
                    chunk = self._chunks.get(str(future.key))
                if chunk is not None:
                    self._finished(chunk, future)

    def _finished(self, chunk: _Chunk, future: distributed.Future[list[MatchResult] | str]) -> None:
        """Take a chunk's results off its worker at once and let the cluster forget them
        (a result left on a worker is lost with that worker and computed again)."""
        try:
            outcome: list[MatchResult] | str | BaseException = future.result()
        except BaseException as error:  # sorted out in _failed
            outcome = error
        future.release()
        with self._changed:
            self._chunks.pop(chunk.key, None)
            if outcome == RERUN or isinstance(outcome, distributed.KilledWorker):
                # a rerun after a lost worker, or the scheduler gave up on the task
                self._lost(chunk)
            elif isinstance(outcome, list) and len(outcome) == len(chunk.matches):
                for match, result in zip(chunk.matches, outcome, strict=True):
                    match.outcome = result
                    self._played += 1
                    self._seconds += result.seconds
            else:
                self._failed(chunk, outcome)
            self._flush()
            self._changed.notify_all()

    def _failed(self, chunk: _Chunk, outcome: list[MatchResult] | str | BaseException) -> None:
        """Settle the matches of a chunk that returned no results (the lock is held)."""
        if isinstance(outcome, FutureCancelledError) and (
            outcome.reason == "scheduler-connection-lost" or self.client.status != "running"
        ):
            self.lost = f"lost the connection to the Dask scheduler {self.address}"
            return
        if isinstance(outcome, FutureCancelledError):
            why = f"cancelled on the cluster: {outcome.reason}"
        elif isinstance(outcome, list):
            why = "cancelled on its worker"
        else:  # arena itself failed on the worker (an import, pickling, ...)
            why = f"{type(outcome).__name__} on a worker: {outcome}"
        for match in chunk.matches:
            match.outcome = platform_error(match.spec, why)

    # --- lost workers ---
    def _lost(self, chunk: _Chunk) -> None:
        """A chunk lost its worker: charge its unfinished matches, and send again, each
        alone, those that are not now void (see the module docstring). The lock is held."""
        unfinished = [match for match in chunk.matches if match.outcome is None]
        for match in unfinished:
            if self._lost_worker(match):
                self._send([match])

    def _lost_worker(self, match: _Match) -> bool:
        """Count one lost worker against a match; False (and the match void, a
        platform error) once it lost more than RERUNS. The lock is held."""
        match.deaths += 1
        self.charged[match.spec.match_id] += 1
        if match.deaths <= RERUNS:
            LOG.warning("match %s lost its worker; running it again", match.spec.match_id)
            return True
        LOG.warning("match %s lost its worker again: void (platform-error)", match.spec.match_id)
        match.outcome = platform_error(match.spec, f"lost its worker {match.deaths} times")
        self._changed.notify_all()
        return False

    def reruns(self) -> dict[str, int]:
        """Matches charged with a lost worker in this run: match id -> workers lost."""
        return dict(self.charged)

    def shutdown(self, now: bool = False) -> None:
        """Drop unfinished matches, close the workers' idle bot processes, disconnect."""
        self._stopping = True  # the fetcher stops (after what it is fetching, if anything)
        self._more.set()
        with self._changed:
            self._buffer.clear()
            futures = [c.future for c in self._chunks.values() if c.future is not None]
        try:
            if self.client.status == "running":
                self.client.cancel(futures)
                self.client.run(close_pool)
                self.client.set_metadata([STARTED, self.token], {})  # this run's marks
        except Exception as error:  # a cluster going away while we tidy up is no news
            LOG.info("could not tidy up the workers: %s", error)
        finally:
            if self.own_client:
                self.client.close()


# ----- checking workers -----------------------------------------------------------
def worker_checks() -> list[dict[str, Any]]:
    """What a worker needs to play matches: the sandbox report of `arena doctor`,
    runtimes, a writable bot cache, and one real match through run_match."""
    from arena.sandbox.report import report

    rows: list[dict[str, Any]] = [
        {"check": r["protection"], "ok": bool(r["active"]), "detail": r["detail"]} for r in report()
    ]
    rows.append(
        {"check": "python", "ok": sys.version_info >= (3, 11), "detail": platform.python_version()}
    )
    for program in ("python3", "cc"):
        found = shutil.which(program)
        rows.append({"check": program, "ok": found is not None, "detail": found or "not on PATH"})
    root = bundles.cache_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe = root / f".probe-{uuid.uuid4().hex}"
        probe.write_bytes(b"")
        probe.unlink()
        rows.append({"check": "bot cache", "ok": True, "detail": str(root)})
    except OSError as error:
        rows.append({"check": "bot cache", "ok": False, "detail": f"{root}: {error}"})
    rows.append(_smoke_match())
    return rows


_SMOKE_BOT = """import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "decide":
        print(json.dumps({"type": "decision", "id": msg["id"], "decision": msg["legal"][0]}),
              flush=True)
    elif msg["type"] == "quit":
        break
"""


def _smoke_match() -> dict[str, Any]:
    """Two tiny Python bots play one take-that match through run_match (and its sandbox)."""
    from arena.submissions.manifest import BotFolderError, load_manifest, prepare

    with tempfile.TemporaryDirectory(prefix="arena-doctor-") as folder:
        Path(folder, "bot.toml").write_text('name = "smoke"\ncommand = ["python3", "bot.py"]\n')
        Path(folder, "bot.py").write_text(_SMOKE_BOT)
        try:
            argv = tuple(prepare(load_manifest(folder)))
        except BotFolderError as error:
            return {"check": "smoke match", "ok": False, "detail": str(error)}
        ref = BotRef("smoke", folder, argv)
        spec = MatchSpec(
            match_id="doctor",
            game="take-that",
            seed=1,
            seats=(ref, ref),
            variant={"rounds": 1},
            decision_timeout=5.0,
        )
        result = run_match(spec)
    ok = result.status == MatchStatus.NORMAL
    detail = f"{result.status} in {result.seconds:.2f} s"
    if not ok:
        detail += f": {result.error or [f'{s.status} {s.detail}' for s in result.seats]}"
    return {"check": "smoke match", "ok": ok, "detail": detail}


def check_cluster(address: str, check: Any = None) -> list[dict[str, Any]]:
    """Run `check` (default `worker_checks`) on every worker; rows gain a `worker` key."""
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise ExecutorLost(f"cannot reach the Dask scheduler at {address}: {error}") from None
    with client:
        found: dict[str, list[dict[str, Any]]] = client.run(check or worker_checks)
    return [{"worker": worker, **row} for worker, rows in sorted(found.items()) for row in rows]
