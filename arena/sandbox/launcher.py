"""What a process sets up once to start bots: the launcher thread and its files beside the bots.

Each is made on first use and made afresh in a forked worker (it belongs to the
process that made it, by pid): the thread every sandbox is started from (`call`),
the staged copies of bot folders (`staging`), the copy of arena's referees bots
import (`games_copy`), the constant /proc files sandboxes see (`proc_files`), the root of
what match sandboxes see of the system (`view_root`), and
arena as the subreaper of the sandboxes' inits (`become_subreaper`).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import multiprocessing.util
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from queue import SimpleQueue
from typing import Any, Generic, Protocol, TypeVar

from arena.sandbox import bwrap as bw
from arena.sandbox import pythonpath, uids, view


class _Launcher:
    """Starts processes from one thread that lives as long as the process.

    bubblewrap's --die-with-parent follows the *thread* that started it: a bot
    started from a short-lived thread would be killed when that thread ends.
    """

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.queue: SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = SimpleQueue()
        threading.Thread(target=self._serve, name="arena-sandbox-launcher", daemon=True).start()

    def _serve(self) -> None:
        while True:
            work, future = self.queue.get()
            try:
                future.set_result(work())
            except BaseException as error:  # handed to the caller
                future.set_exception(error)

    def call(self, work: Callable[[], Any]) -> Any:
        future: Future[Any] = Future()
        self.queue.put((work, future))
        return future.result()


_LAUNCHER: _Launcher | None = None
_LAUNCHER_LOCK = threading.Lock()


def call(work: Callable[[], Any]) -> Any:
    """Run `work` on this process's launcher thread: its result, or its exception raised here."""
    global _LAUNCHER
    with _LAUNCHER_LOCK:
        if _LAUNCHER is None or _LAUNCHER.pid != os.getpid():  # a forked worker needs its own
            _LAUNCHER = _Launcher()
        launcher = _LAUNCHER
    return launcher.call(work)


_STAGING: bw.Staging | None = None
_STAGING_LOCK = threading.Lock()


def staging() -> bw.Staging:
    """This process's staged copies (one Staging: seats of a match start in parallel threads)."""
    global _STAGING
    with _STAGING_LOCK:
        if _STAGING is None or not _STAGING.base.name.endswith(f"-{os.getpid()}"):
            _STAGING = bw.Staging(bw.staging_base(uids.runtime_dir()))
        return _STAGING


class _Removable(Protocol):
    """What lives beside the staged copies: made by process `owner`, taken away by `remove`."""

    owner: int

    def remove(self) -> None: ...


_Made = TypeVar("_Made", bound=_Removable)
#: One lock for everything beside the staged copies (they are made rarely: once per process).
_BESIDE_LOCK = threading.Lock()


class _Beside(Generic[_Made]):
    """This process's one `make(folder)`, in folder PREFIX-PID beside its staged copies.

    Made on first use, it goes at process exit, after the bots (atexit hooks
    registered before `arena.sandbox.handle`'s, at the first bot, run after it);
    what a killed process left is swept by the next one.
    """

    def __init__(self, prefix: str, make: Callable[[Path], _Made]) -> None:
        self.prefix = prefix
        self.make = make
        self.made: _Made | None = None

    def get(self) -> _Made:
        with _BESIDE_LOCK:
            if self.made is None or self.made.owner != os.getpid():
                base = staging().base.parent
                bw.sweep(base, self.prefix)
                self.made = self.make(base / f"{self.prefix}{os.getpid()}")
                atexit.register(self.made.remove)
                multiprocessing.util.Finalize(None, self.made.remove, exitpriority=5)
            return self.made


_GAMES = _Beside("python-", pythonpath.GamesCopy)
_PROC = _Beside("proc-", bw.ProcFiles)
_VIEW = _Beside("view-", view.Root)


def games_copy() -> pythonpath.GamesCopy:
    """This process's copy of arena's referees, for bots to import (made on first use)."""
    return _GAMES.get()


def proc_files() -> bw.ProcFiles:
    """This process's constant /proc files (`bw.ProcFiles`), beside its referees' copy."""
    return _PROC.get()


def view_root() -> view.Root:
    """This process's view root (`view.Root`): the single files its match sandboxes see."""
    return _VIEW.get()


_SUBREAPER_PID = 0


def become_subreaper() -> None:
    """Adopt orphans: bubblewrap exits without reaping the sandbox's init, which we then reap."""
    global _SUBREAPER_PID
    if os.getpid() != _SUBREAPER_PID:
        _SUBREAPER_PID = os.getpid()
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
