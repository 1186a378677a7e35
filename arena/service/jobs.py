"""Submissions over HTTP as jobs: unpacked, built, checked and stored while the author's
client asks how far it has got.

A submission's archive is saved by the request that brings it, then a worker thread
of the service unpacks it (arena.service.uploads), and submits the folder exactly as
`arena bot submit` does (arena.submissions.submit: read once, the name rules, the
build in the sandbox, the submission check, the version stored), under the
account's owner. The job's state is kept in memory: `queued`, `unpacking`,
`checking`, then `registered` (or `unchanged`) with the version, or `refused` with
the one-line error and its details (the build's or the check's output). Nothing is
stored before the version itself, in one transaction: a service stopped while a job
runs stores nothing of it (the author submits again).

The jobs do not outlive the process. Their ids grow across restarts (they begin at the
start's millisecond times 1,000), so an id of before is never another job's: asked for
after a restart it is Gone (410), with what that means. What a job killed with the
process leaves on disk (its upload folder, `arena-uploads-PID-*` in the temporary
folder, and a folder staged in the home, `bots/.SHA-PID-*`) is swept when the next
service starts.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import queue
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena import ArenaError
from arena.service import uploads
from arena.service.errors import Gone, NotFound
from arena.store import AccountRecord, Store
from arena.submissions import submit as registry

#: How the upload folder of a service process is named: `arena-uploads-PID-*`.
UPLOADS = "arena-uploads-"

#: The states of a job, in order; the last two are final.
QUEUED, UNPACKING, CHECKING = "queued", "unpacking", "checking"
REGISTERED, UNCHANGED, REFUSED = "registered", "unchanged", "refused"
LOG = logging.getLogger("arena.service")
FINAL = frozenset({REGISTERED, UNCHANGED, REFUSED})


@dataclass
class Job:
    """One submission and how far it has got."""

    id: int
    account: str
    owner: str
    archive: Path
    name: str | None
    state: str = QUEUED
    result: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    details: str = ""
    done: threading.Event = field(default_factory=threading.Event)

    def shown(self) -> dict[str, Any]:
        """The job as the API answers it."""
        return {
            "submission": self.id,
            "account": self.account,
            "state": self.state,
            "done": self.state in FINAL,
            **self.result,
            "error": self.error,
            "details": self.details,
        }


class Jobs:
    """The service's submissions: a queue and `workers` threads (daemons: a stopping
    service does not wait for a check; what it had not stored is not stored)."""

    def __init__(
        self,
        store: Store,
        home: Path,
        workers: int = 1,
        on_version: Callable[[], None] = lambda: None,
    ):
        self.store, self.home, self.on_version = store, home, on_version
        self.started = datetime.now(UTC)
        #: This start's first job id: every earlier start's ids are below it.
        self.first = int(self.started.timestamp() * 1000) * 1000 + 1
        self._jobs: dict[int, Job] = {}
        self._ids = itertools.count(self.first)
        sweep(home)
        self._lock = threading.Lock()
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._folder: Path | None = None  # made at the first upload (see `new_archive`)
        self._threads = [
            threading.Thread(target=self._work, name=f"arena-submissions-{n}", daemon=True)
            for n in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def new_archive(self) -> Path:
        """A fresh private path for an uploaded archive."""
        with self._lock:
            if self._folder is None:  # private (0700); an app that takes none leaves none
                self._folder = Path(tempfile.mkdtemp(prefix=f"{UPLOADS}{os.getpid()}-"))
            folder = self._folder
        handle, path = tempfile.mkstemp(dir=folder, suffix=".upload")
        os.close(handle)
        return Path(path)

    def add(self, account: AccountRecord, archive: Path, name: str | None) -> Job:
        """Queue the archive at `archive` (the job's own file now) for `account`."""
        with self._lock:
            job = Job(next(self._ids), account.name, account.owner, archive, name)
            self._jobs[job.id] = job
        self._queue.put(job)
        return job

    def get(self, job_id: int, account: AccountRecord) -> Job:
        """The job `job_id` if `account` made it (or is an organiser's); NotFound otherwise
        (another account's jobs are not told apart from none)."""
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None and 0 < job_id < self.first:
            raise Gone(
                f"submission {job_id} was made before the service restarted"
                f" ({self.started:%Y-%m-%d %H:%M:%S} UTC), which keeps no submission's state:"
                " a version it registered is among its bot's versions; one it had not"
                " finished stored nothing (submit again)"
            )
        if job is None or (job.account != account.name and not account.organiser):
            raise NotFound(f"no submission {job_id} of yours")
        return job

    def of(self, account: AccountRecord, bot: str | None = None) -> list[Job]:
        """The jobs `account` made since the service started, newest first (only those
        of the bot `bot`, named by the job or registered by it, when given)."""
        with self._lock:
            found = [j for j in self._jobs.values() if j.account == account.name]
        if bot is not None:
            found = [j for j in found if bot in (j.name, j.result.get("bot"))]
        return sorted(found, key=lambda j: j.id, reverse=True)

    def close(self) -> None:
        """Stop taking jobs; the threads end after the one they run (or with the process)."""
        for _thread in self._threads:
            self._queue.put(None)
        with self._lock:
            folder, self._folder = self._folder, None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    def _work(self) -> None:
        while (job := self._queue.get()) is not None:
            try:
                self._run(job)
            except ArenaError as error:
                job.error, job.details, job.state = str(error), error.details, REFUSED
            except Exception as error:  # a job's failure is told and logged, never lost
                LOG.exception("submission %d of %s failed", job.id, job.account)
                job.error, job.state = f"the submission failed: {type(error).__name__}", REFUSED
            finally:
                job.archive.unlink(missing_ok=True)
                job.done.set()

    def _run(self, job: Job) -> None:
        job.state = UNPACKING
        with tempfile.TemporaryDirectory(dir=job.archive.parent) as unpacked:
            try:
                folder = uploads.unpack(job.archive, Path(unpacked))
                job.archive.unlink(missing_ok=True)
                job.state = CHECKING
                version, created = registry.submit(
                    self.store, self.home, str(folder), job.name, owner=job.owner
                )
            except ArenaError as error:
                # the author's paths are inside the archive: the server's folder is not news
                job.error = _without(str(error), unpacked)
                job.details = _without(error.details, unpacked)
                job.state = REFUSED
                return
        bot = self.store.version_names()[version.id or 0][0]
        job.result = {
            "bot": bot,
            "version": version.number,
            "sha256": version.sha256,
            "created": created,
        }
        job.state = REGISTERED if created else UNCHANGED
        if created:
            self.on_version()


def sweep(home: Path) -> None:
    """Remove what the jobs of a service process no longer running left: its upload
    folder (a dead pid's, of this user) and the folders it staged in the home."""
    for stale in Path(tempfile.gettempdir()).glob(f"{UPLOADS}*-*"):
        pid = stale.name.removeprefix(UPLOADS).split("-")[0]
        with contextlib.suppress(OSError):
            mine = stale.lstat().st_uid == os.getuid() and stale.is_dir()
            if mine and pid.isdigit() and not Path(f"/proc/{pid}").exists():
                shutil.rmtree(stale, ignore_errors=True)
    if (home / "bots").is_dir():
        registry.sweep_partials(home / "bots")


def _without(message: str, folder: str) -> str:
    """`message` with the unpacking folder's paths made relative to the archive."""
    for prefix in (f"{folder}/", folder):
        message = message.replace(prefix, "")
    return message
