"""Running matches on the workers of a Dask cluster (`--executor dask://HOST:PORT`).

The coordinator connects a `distributed.Client` to the scheduler and submits
`run_on_worker(spec)` per match; the worker runs the very same `run_match` as a
local pool (so the same sandbox applies) and only returns the result.

- Bot code travels by content: each bot version is packed once by the
  coordinator and registered as a worker plugin named `arena-bot-<sha256>`, which
  the scheduler hands to every worker, present and future; the worker unpacks it
  into its own cache and verifies it against the hash (`arena.tournament.bundles`).
- Each worker process keeps one bot pool, so bot processes are reused from one
  match to the next there as in a local worker; the pools' idle processes are
  closed when the run ends.
- A worker that dies mid-match is noticed by the scheduler, which runs the match
  again on another worker. The worker announces every start (an event on
  `START_TOPIC`), so the coordinator lets a match start at most `1 + RERUNS`
  times, then voids it as a platform error: never a bot's forfeit.
- A lost scheduler connection cancels every pending match: `result()` raises
  `ExecutorLost`, the runner stops with a prefix of the schedule recorded, and
  `arena tournament resume` finishes it.
"""

from __future__ import annotations

import logging
import platform
import shutil
import sys
import tempfile
import threading
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import distributed
from distributed.client import FutureCancelledError
from distributed.diagnostics.plugin import WorkerPlugin

from arena.match import BotRef, MatchResult, MatchSpec, run_match
from arena.players.pool import BotPool
from arena.players.process import BotProcess
from arena.sandbox import Limits
from arena.tournament import bundles
from arena.tournament.executors import RERUNS, ExecutorLost, platform_error

LOG = logging.getLogger("arena.tournament.dask")

#: Workers log an event on this topic when they start a match.
START_TOPIC = "arena-match-start"
CONNECT_TIMEOUT_S = 10


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


class _SharedPool(BotPool):
    """The worker process's bot pool, shared by its task threads."""

    def __init__(self) -> None:
        super().__init__(reuse=True)
        self._lock = threading.Lock()

    def acquire(
        self,
        name: str,
        argv: tuple[str, ...],
        folder: Path,
        limits: Limits,
        deal: int | None = None,
    ) -> BotProcess:
        """As BotPool.acquire, one thread at a time."""
        with self._lock:
            return super().acquire(name, argv, folder, limits, deal)

    def release(self, bot: BotProcess, healthy: bool) -> None:
        """As BotPool.release, one thread at a time."""
        with self._lock:
            super().release(bot, healthy)

    def close(self) -> None:
        """Close every idle process."""
        with self._lock:
            super().close()


_POOL = _SharedPool()


def close_pool() -> None:
    """Close this worker's idle bot processes (run on every worker when a run ends)."""
    _POOL.close()


def run_on_worker(spec: MatchSpec, reuse: bool) -> MatchResult:
    """Play one match on this worker from its own verified copies of the bots."""
    worker = distributed.get_worker()
    key = worker.get_current_task()
    worker.log_event(START_TOPIC, {"key": key, "match": spec.match_id, "worker": worker.address})
    try:
        seats = tuple(bundles.localize(ref) for ref in spec.seats)
    except bundles.BundleError as error:
        return platform_error(spec, f"on worker {worker.address}: {error}")
    local = replace(spec, seats=seats)
    return run_match(local, _POOL) if reuse else run_match(local)


# ----- on the coordinator -------------------------------------------------------
class _Done:
    """A result known without asking the cluster."""

    def __init__(self, result: MatchResult):
        self._result = result

    def result(self) -> MatchResult:
        return self._result


class _Remote:
    """A match submitted to the cluster."""

    def __init__(
        self, owner: DaskExecutor, spec: MatchSpec, future: distributed.Future[MatchResult]
    ):
        self.owner, self.spec, self.future = owner, spec, future
        self.key = str(future.key)
        self.wake = threading.Event()
        self.outcome: MatchResult | BaseException | None = None
        future.add_done_callback(self._fetch)

    def _fetch(self, future: distributed.Future[MatchResult]) -> None:
        """Take the result off its worker at once and let the cluster forget it.

        A result left on a worker is lost with that worker and computed again.
        """
        try:
            self.outcome = future.result()
        except BaseException as error:  # looked at in result()
            self.outcome = error
        future.release()
        self.wake.set()

    def void(self) -> None:
        """Stop waiting: the match started once too often."""
        self.wake.set()

    def result(self) -> MatchResult:
        """The match's result; void when it lost its worker too often; ExecutorLost."""
        self.wake.wait()
        self.owner.waiting.pop(self.key, None)
        outcome = self.outcome
        if outcome is None:  # voided before it finished
            self.future.cancel()
            starts = self.owner.starts[self.key]
            return platform_error(self.spec, f"lost its worker {starts - 1} times")
        if isinstance(outcome, MatchResult):
            return outcome
        if isinstance(outcome, FutureCancelledError):
            if (
                outcome.reason == "scheduler-connection-lost"
                or self.owner.client.status != "running"
            ):
                raise ExecutorLost(
                    f"lost the connection to the Dask scheduler {self.owner.address}"
                )
            return platform_error(self.spec, f"cancelled on the cluster: {outcome.reason}")
        if isinstance(outcome, distributed.KilledWorker):
            return platform_error(self.spec, f"lost its worker: {outcome}")
        # arena itself failed on the worker (an import, pickling, ...)
        return platform_error(self.spec, f"{type(outcome).__name__} on a worker: {outcome}")


class DaskExecutor:
    """Runs matches on a Dask cluster's workers; see the module docstring."""

    def __init__(
        self, address: str, reuse: bool = True, *, client: distributed.Client | None = None
    ):
        """Connect to the scheduler at `address` (or use `client`); ExecutorLost if unreachable."""
        self.address, self.reuse = address, reuse
        self.own_client = client is None
        try:
            self.client = client or distributed.Client(
                address, timeout=CONNECT_TIMEOUT_S, set_as_default=False
            )
        except (OSError, TimeoutError) as error:
            raise ExecutorLost(f"cannot reach the Dask scheduler at {address}: {error}") from None
        #: What each worker runs per match: `run_on_worker(spec, reuse)`.
        self.task: Callable[[MatchSpec, bool], MatchResult] = run_on_worker
        self.token = uuid.uuid4().hex[:8]  # keys never collide with another coordinator's
        self.submitted = 0
        self.shipped: set[str] = set()
        #: Starts announced by workers, per task key.
        self.starts: Counter[str] = Counter()
        self.waiting: dict[str, _Remote] = {}
        self.client.subscribe_topic(START_TOPIC, self._started)
        threads = sum(self.client.nthreads().values())
        if threads == 0:
            LOG.warning("the Dask cluster at %s has no workers yet: waiting for some", address)
        self.slots = max(1, threads)

    def _started(self, event: tuple[float, dict[str, Any]]) -> None:
        """A worker started a match (runs on the client's event loop)."""
        key = str(event[1]["key"])
        self.starts[key] += 1
        if self.starts[key] == 1:
            return
        if self.starts[key] <= 1 + RERUNS:
            LOG.warning("match %s lost its worker; running it again elsewhere", event[1]["match"])
            return
        LOG.warning("match %s lost its worker again: void (platform-error)", event[1]["match"])
        remote = self.waiting.get(key)
        if remote is not None:
            remote.void()

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

    def submit(self, spec: MatchSpec) -> _Remote | _Done:
        """Ship the bots the workers have not seen, then queue the match on the cluster."""
        for ref in spec.seats:
            problem = self._ship(ref)
            if problem is not None:
                return _Done(platform_error(spec, problem))
        self.submitted += 1
        key = f"arena-{spec.match_id}-{self.token}-{self.submitted}"
        future = self.client.submit(self.task, spec, self.reuse, key=key, pure=False)
        remote = _Remote(self, spec, future)
        self.waiting[key] = remote
        return remote

    def reruns(self) -> dict[str, int]:
        """Matches started more than once in this run (their worker died): key -> starts."""
        return {key: n for key, n in self.starts.items() if n > 1}

    def shutdown(self, now: bool = False) -> None:
        """Drop unfinished matches, close the workers' idle bot processes, disconnect."""
        try:
            if self.client.status == "running":
                self.client.cancel([w.future for w in self.waiting.values()])
                self.client.run(close_pool)
                self.client.unsubscribe_topic(START_TOPIC)
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
    from arena.manifest import BotFolderError, load_manifest, prepare

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
    ok = str(result.status) == "normal"
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
