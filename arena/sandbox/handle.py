"""A started bot (`Sandboxed`): its process, what it has used, and killing it with all it holds.

Signals go through pidfds (never to a process that reused a pid) and exits are
awaited on them; every live bot is killed when the process that started it exits
(`kill_all`).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing.util
import os
import select
import signal
import subprocess
import time
import weakref
from collections.abc import Sequence
from pathlib import Path

from arena.sandbox import cgroup, launcher, uids

#: How long a killed process may take to exit before arena gives up waiting for it.
_DEATH_TIMEOUT_S = 5.0
#: Clock ticks a second, the unit of /proc/PID/stat's CPU times.
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Sandboxed:
    """A started bot: its process (bubblewrap, or the bot itself) and what to undo at the end."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        *,
        sandboxed: bool = False,
        uid: int | None = None,
        slot: uids.UidSlot | None = None,
        group: cgroup.BotCgroup | None = None,
        staged: Path | None = None,
        status_fd: int = -1,
    ):
        """Take over a started process and what its start-up acquired for it.

        `sandboxed`: under bubblewrap, as `uid`; `slot` (that uid held), `group` (its
        cgroup), `staged` (its staged copy) and `status_fd` (bubblewrap's status pipe)
        are given back or closed by `kill`.
        """
        self.process = process
        self.owner = os.getpid()
        self.sandboxed = sandboxed
        self.uid = uid
        #: A pidfd on `process` (bubblewrap, or the bot itself), to wait without polling.
        self._fd = _pidfd_of(process.pid)
        #: A pidfd on the sandbox's init, and its pid.
        self._pidfd = -1
        self._init_pid = 0
        self._main_pid: int | None = None  # the init's child, once seen
        #: The main process's threads' schedstat and stat files, kept open (`TaskFiles`).
        self._tasks: dict[str, TaskFiles] = {}
        self._status_fd = status_fd
        self._slot = slot
        self._cgroup = group
        self._staged = staged
        _track(self)

    @property
    def status_fd(self) -> int:
        """bubblewrap's status pipe, on which it reports the sandbox's pid (-1: none)."""
        return self._status_fd

    def adopt_init(self, pid: int) -> None:
        """Hold the sandbox's init, `pid`, by a pidfd, so that `kill` kills it (OSError)."""
        self._pidfd = os.pidfd_open(pid)
        self._init_pid = pid

    def _bot_pid(self) -> int | None:
        """The pid of the bot's main process (inside bubblewrap: the sandbox init's child)."""
        if self._init_pid <= 0:
            return self.process.pid
        if self._main_pid is not None:  # the init's one child is the bot for life
            return self._main_pid
        try:
            children = Path(f"/proc/{self._init_pid}/task/{self._init_pid}/children")
            self._main_pid = int(children.read_text().split()[0])
        except (OSError, IndexError, ValueError):
            return None
        return self._main_pid

    def peak_memory_bytes(self) -> int | None:
        """The most memory the bot has used so far, while it runs (None: not known).

        The cgroup's peak (the bot and all its processes, what the memory limit
        counts) where there is one, else the main process's peak resident size.
        """
        if self._cgroup is not None:
            peak = self._cgroup.peak_memory_bytes()
            if peak is not None:
                return peak
        pid = self._bot_pid()
        if pid is None:
            return None
        with contextlib.suppress(OSError, ValueError, IndexError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        return None

    def cpu_seconds(self) -> float:
        """CPU time used so far by the bot's main process (what RLIMIT_CPU counts)."""
        pid = self._bot_pid()
        if pid is None:
            return 0.0
        try:  # os.open and os.read: this is read once a match per seat
            fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
            try:
                fields = os.read(fd, 4096).rsplit(b")", 1)[1].split()
            finally:
                os.close(fd)
        except (OSError, IndexError):
            return 0.0
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS

    @property
    def counts_cpu(self) -> bool:
        """Whether the bot's CPU time is counted here (its cgroup has CPU accounting)."""
        return self._cgroup is not None and self._cgroup.cpu_usage is not None

    def run_delay_seconds(self) -> float | None:
        """How long the threads of the bot's main process have waited, ready to run, for a
        CPU so far (the kernel's run delay: /proc/PID/task/*/schedstat, its second field);
        None where it cannot be read. What host load cost the bot (arena.protocol.clock)."""
        files = self._task_files("schedstat")
        texts = files.read() if files is not None else None
        if texts is None:
            return None
        try:
            return sum(int(text.split()[1]) for text in texts) / 1e9
        except (IndexError, ValueError):
            return None

    def runnable(self) -> bool:
        """Whether a thread of the bot's main process is running or ready to run (state R
        in /proc/PID/task/*/stat). The kernel adds a wait for a CPU to the run delay only
        when it ends: a bot waiting now has that wait still uncounted."""
        files = self._task_files("stat")
        texts = files.read() if files is not None else None
        try:
            return any(text.rpartition(b")")[2].split()[0] == b"R" for text in texts or ())
        except IndexError:
            return False

    def _task_files(self, name: str) -> TaskFiles | None:
        """The main process's threads' /proc file `name`, kept open (None: no process)."""
        files = self._tasks.get(name)
        if files is None:
            pid = self._bot_pid()
            if pid is None:
                return None
            files = self._tasks[name] = TaskFiles(pid, name)
        return files

    def tree_cpu_seconds(self) -> float | None:
        """CPU time used so far by the bot's whole process tree (its cgroup), or None where
        the machine does not count it: what an answer is charged (arena.protocol.clock)."""
        return self._cgroup.cpu_seconds() if self._cgroup is not None else None

    @property
    def cgroup_dirs(self) -> tuple[Path, ...]:
        """The bot's cgroup directories, one per hierarchy (none without cgroups)."""
        return self._cgroup.dirs if self._cgroup is not None else ()

    def exit_note(self) -> str:
        """Why the kernel ended the bot, where its exit status cannot say (memory limit), or ""."""
        return self._cgroup.exit_note() if self._cgroup is not None else ""

    def wait(self, timeout: float) -> int | None:
        """The exit code of the started process once it has exited, waiting at most `timeout`.

        Waits on a pidfd, so an exit is seen at once (Popen.wait's timeout sleep-polls).
        """
        if self.process.returncode is None:
            if self._fd < 0:  # no pidfds on this kernel
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=timeout)
            else:
                _wait_for_exit([self._fd], timeout)
        return self.process.poll()

    def kill(self) -> None:
        """Kill the sandbox, the bot and everything it started; free what it held. Idempotent.

        Spawns no process and never sleeps: the signals go through pidfds and os.killpg,
        the exits are awaited on pidfds, and the uid's last sweep is `uids.kill_all_of`.
        """
        process = self.process
        # The sandbox's own init: its death empties the PID namespace, bot and all.
        # bubblewrap and its process group go at the same time; the init is then reaped
        # by bubblewrap or, adopted (arena is a subreaper), by us.
        _signal(self._pidfd)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        if process.returncode is None:
            if self._fd >= 0:
                _signal(self._fd)
            else:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
        self._await_death()
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None
        if self._slot is not None:
            self._slot.release()
            self._slot = None
        if self._staged is not None:
            launcher.staging().release(self._staged)
            self._staged = None
        for files in self._tasks.values():
            files.close()
        self._tasks.clear()
        for name in ("_status_fd", "_fd"):
            fd = getattr(self, name)
            if fd >= 0:
                os.close(fd)
                setattr(self, name, -1)

    def _await_death(self) -> None:
        """Wait (on pidfds, 5 s at most) until the process and the sandbox's init have exited.

        Reaps both, so that no zombie is left; the init only when it was adopted.
        """
        fds = [fd for fd in (self._fd, self._pidfd) if fd >= 0]
        if self._fd < 0:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=_DEATH_TIMEOUT_S)
        _wait_for_exit(fds, _DEATH_TIMEOUT_S)
        self.process.poll()
        if self._pidfd >= 0 and self.process.returncode is not None:
            # bubblewrap has exited, so its children are reparented: the init is ours or reaped.
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitid(os.P_PIDFD, self._pidfd, os.WEXITED | os.WNOHANG)
            os.close(self._pidfd)
            self._pidfd = -1
            self._init_pid = 0
            self._main_pid = None


def _pidfd_of(pid: int) -> int:
    """A pidfd on `pid` (our unreaped child, so it cannot be another process), or -1."""
    try:
        return os.pidfd_open(pid)
    except (OSError, AttributeError):  # Linux before 5.3
        return -1


def _signal(pidfd: int) -> None:
    """SIGKILL the process behind a pidfd (never a process that reused its pid)."""
    if pidfd >= 0:
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)


def _wait_for_exit(pidfds: Sequence[int], timeout: float) -> None:
    """Wait until every pidfd is readable (its process has exited), at most `timeout` seconds."""
    poller = select.poll()
    for fd in pidfds:
        poller.register(fd, select.POLLIN)
    waiting = set(pidfds)
    deadline = time.monotonic() + timeout
    while waiting:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        for fd, _event in poller.poll(int(left * 1000) + 1):
            waiting.discard(fd)
            poller.unregister(fd)


# ----- every live bot dies with the process that started it ---------------------------
_LIVE: weakref.WeakSet[Sandboxed] = weakref.WeakSet()
_EXIT_HOOK_PID = 0


def _track(box: Sandboxed) -> None:
    """Remember a live bot so that process exit kills it and frees its uid and cgroup."""
    global _EXIT_HOOK_PID
    _LIVE.add(box)
    if os.getpid() != _EXIT_HOOK_PID:  # once per process (forked workers too)
        _EXIT_HOOK_PID = os.getpid()
        atexit.register(kill_all)
        multiprocessing.util.Finalize(None, kill_all, exitpriority=10)


class TaskFiles:
    """One /proc file of each thread of a process (/proc/PID/task/TID/NAME), kept open and
    read with one pread each: a slow answer's looks at the bot's clocks (arena.players.process)
    cost a system call per thread, not an open, a read and a close per file and a listing.

    The threads are listed again when their number changed (the task folder's link count
    is 2 plus the number of threads) or a file could not be read (its thread ended).
    """

    def __init__(self, pid: int, name: str):
        """The files `name` of `pid`'s threads; opened at the first `read`."""
        self._folder = f"/proc/{pid}/task"
        self._name = name
        self._links = -1
        self._fds: list[int] = []

    def read(self) -> list[bytes] | None:
        """Each thread's file as it reads now (None: the process cannot be read)."""
        for _ in range(2):
            try:
                links = os.stat(self._folder).st_nlink
                if links != self._links:
                    self._open(links)
                return [os.pread(fd, 1024, 0) for fd in self._fds]
            except OSError:
                self._links = -1  # a thread ended, or the process: list them again
        return None

    def _open(self, links: int) -> None:
        self.close()
        for task in os.listdir(self._folder):
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                self._fds.append(os.open(f"{self._folder}/{task}/{self._name}", os.O_RDONLY))
        self._links = links

    def close(self) -> None:
        """Close the files (read opens them again)."""
        for fd in self._fds:
            os.close(fd)
        self._fds.clear()
        self._links = -1


def kill_all() -> None:
    """Kill every bot this process started that still runs (at exit)."""
    for box in list(_LIVE):
        if box.owner == os.getpid():  # a forked child must not kill its parent's bots
            box.kill()
