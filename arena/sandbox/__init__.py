"""How a bot process is started, confined and killed.

With bubblewrap (`bwrap`) available and working, every bot runs in its own
sandbox (see `arena.sandbox.bwrap` for what it can see), as its own
unprivileged uid when arena runs as root (`arena.sandbox.uids`), in its own
cgroup (memory, CPU share, process cap) where the machine offers one
(`arena.sandbox.cgroup`), under rlimits (`Limits`), with a clean environment
and in a new session. Without
bubblewrap, arena falls back to rlimits, the cgroup and process-group clean-up,
and says so once with a warning. `arena doctor` reports what is active.

Settings (environment): ARENA_SANDBOX=auto|bwrap|none (bwrap: refuse to run a
bot without it), ARENA_SANDBOX_UIDS=first-last,
ARENA_SANDBOX_CGROUP=auto|off|a comma list of memory,cpu,pids.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import dataclasses
import functools
import json
import logging
import multiprocessing.util
import os
import select
import shutil
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from queue import SimpleQueue
from typing import Any

from arena.sandbox import bwrap as bw
from arena.sandbox import cgroup, pythonpath, runtimes, seccomp, uids
from arena.sandbox.limits import MIB, Limits
from arena.sandbox.uids import SandboxError

__all__ = ["MIB", "Limits", "Protections", "SandboxError", "Sandboxed", "launch", "protections"]

LOG = logging.getLogger("arena.sandbox")
#: How long bubblewrap may take to set a sandbox up before it counts as a platform failure.
SETUP_TIMEOUT_S = 10.0


def bot_environment(folder: Path, games: str) -> dict[str, str]:
    """A small, clean environment: none of the platform's variables reach a bot.

    `games` is where arena's referees are (`arena.sandbox.pythonpath`), for PYTHONPATH.
    """
    return {
        "PATH": bw.SANDBOX_PATH,
        "HOME": str(folder),
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        # Same hash order on every run, so that deterministic Python bots replay exactly,
        # and no __pycache__ written into a (content-addressed) bot folder.
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": games,
    }


# ----- what this machine offers ----------------------------------------------------
@dataclass(frozen=True)
class Protections:
    """Which protections bots get in this process, each with a one-line reason."""

    bwrap: str | None
    bwrap_reason: str
    drop_uid: bool
    uid_reason: str
    cgroup: bool
    cgroup_reason: str
    seccomp: bool = False
    seccomp_reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        """For `arena doctor --json`."""
        return {
            "bubblewrap": {"active": self.bwrap is not None, "detail": self.bwrap_reason},
            "uid_per_bot": {"active": self.drop_uid, "detail": self.uid_reason},
            "cgroup": {"active": self.cgroup, "detail": self.cgroup_reason},
            "seccomp": {"active": self.seccomp, "detail": self.seccomp_reason},
        }


@functools.cache
def protections() -> Protections:
    """Detect (once per process) what confines bots here."""
    root = os.geteuid() == 0
    if root:
        low, high = uids.uid_range()
        uid_reason = f"arena runs as root: each bot runs as its own uid from {low}-{high}"
    else:
        uid_reason = f"arena runs as uid {os.geteuid()}: bots run as that user"
    group, group_reason = cgroup.status()
    mode = os.environ.get("ARENA_SANDBOX", "auto")
    path = shutil.which("bwrap")
    filtered, filter_reason = seccomp.status()
    if mode == "none":
        found, reason = None, "turned off by ARENA_SANDBOX=none"
    elif path is None:
        found, reason = None, "bwrap is not installed (apt-get install bubblewrap)"
    else:
        error = _probe(path, root, filtered)
        found, reason = (path, f"{path} works") if error is None else (None, error)
    if found is None:
        filtered, filter_reason = False, "needs bubblewrap"
    protected = Protections(found, reason, root, uid_reason, group, group_reason)
    return dataclasses.replace(protected, seccomp=filtered, seccomp_reason=filter_reason)


def _probe(path: str, drop_uid: bool, filtered: bool) -> str | None:
    """Start one trivial sandbox; None when it works, else why not."""
    try:
        folder = uids.runtime_dir() / "probe"  # an empty folder the bot's uid may read
        folder.mkdir(mode=0o755, exist_ok=True)
        command = ["/bin/sh", "-c", "exit 0"]
        box = _start(command, folder, Limits(), path, drop_uid, False, filtered)
    except uids.UidsInUse:
        # Other arenas' bots hold every uid: bubblewrap is not at fault, so probe it as
        # root (never run bots unconfined for that); each bot refused meanwhile is void.
        return _probe(path, False, filtered) if drop_uid else None
    except (SandboxError, OSError) as error:
        return f"bwrap does not work here: {error}"
    code = box.process.wait(timeout=10)
    box.kill()
    return None if code == 0 else f"bwrap does not work here: exit code {code}"


_WARNED = False


def _warn_unconfined(reason: str) -> None:
    global _WARNED
    if not _WARNED:
        _WARNED = True
        LOG.warning(
            "BOTS ARE NOT SANDBOXED (%s): they run with rlimits and process-group clean-up "
            "only, can read what arena can read and use the network; see `arena doctor`",
            reason,
        )


# ----- one long-lived thread starts every sandbox -----------------------------------
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


def kill_all() -> None:
    """Kill every bot this process started that still runs (at exit)."""
    for box in list(_LIVE):
        if box.owner == os.getpid():  # a forked child must not kill its parent's bots
            box.kill()


_LAUNCHER: _Launcher | None = None
_LAUNCHER_LOCK = threading.Lock()
_STAGING: bw.Staging | None = None
_STAGING_LOCK = threading.Lock()
_GAMES: pythonpath.GamesCopy | None = None
_GAMES_LOCK = threading.Lock()
_PROC: bw.ProcFiles | None = None


def _launcher() -> _Launcher:
    global _LAUNCHER
    with _LAUNCHER_LOCK:
        if _LAUNCHER is None or _LAUNCHER.pid != os.getpid():  # a forked worker needs its own
            _LAUNCHER = _Launcher()
        return _LAUNCHER


#: Stored versions to verify before they run: folder -> how to read it checked.
_VERSIONS: dict[str, bw.VerifiedRead] = {}
#: Folders verified in this process when bots run from the folder itself (no bubblewrap).
_VERIFIED: set[tuple[int, str]] = set()


def expect_version(folder: Path, verified: bw.VerifiedRead) -> None:
    """Run `folder` only as the stored version `verified` checks it against (`bw.Staging`).

    The caller knows versions (arena.match.run, with arena.submissions.manifest.verified_files); the
    sandbox only asks for the checked reading before a bot runs.
    """
    _VERSIONS[str(folder)] = verified


def _verify_in_place(folder: Path) -> None:
    """Without a staged copy: verify a stored version once per process (SandboxError)."""
    verified = _VERSIONS.get(str(folder))
    if verified is not None and (os.getpid(), str(folder)) not in _VERIFIED:
        verified()
        _VERIFIED.add((os.getpid(), str(folder)))


def _staging() -> bw.Staging:
    """This process's staged copies (one Staging: seats of a match start in parallel threads)."""
    global _STAGING
    with _STAGING_LOCK:
        if _STAGING is None or not _STAGING.base.name.endswith(f"-{os.getpid()}"):
            _STAGING = bw.Staging(bw.staging_base(uids.runtime_dir()))
        return _STAGING


def _games_copy() -> pythonpath.GamesCopy:
    """This process's copy of arena's referees, for bots to import (made on first use).

    It lives beside the staged bot folders as python-PID and goes at process exit,
    after the bots (hooks registered before `_track`'s run after it); a killed
    process's copy is swept by the next one.
    """
    global _GAMES
    with _GAMES_LOCK:
        if _GAMES is None or _GAMES.owner != os.getpid():
            base = _staging().base.parent
            bw.sweep(base, "python-")
            _GAMES = pythonpath.GamesCopy(base / f"python-{os.getpid()}")
            atexit.register(_GAMES.remove)
            multiprocessing.util.Finalize(None, _GAMES.remove, exitpriority=5)
        return _GAMES


def _proc_files() -> bw.ProcFiles:
    """This process's constant /proc files (`bw.ProcFiles`), beside its referees' copy."""
    global _PROC
    with _GAMES_LOCK:
        if _PROC is None or _PROC.owner != os.getpid():
            base = _staging().base.parent
            bw.sweep(base, "proc-")
            _PROC = bw.ProcFiles(base / f"proc-{os.getpid()}")
            atexit.register(_PROC.remove)
            multiprocessing.util.Finalize(None, _PROC.remove, exitpriority=5)
        return _PROC


# ----- a started bot ---------------------------------------------------------------
class Sandboxed:
    """A started bot: its process (bubblewrap, or the bot itself) and what to undo at the end."""

    def __init__(self, process: subprocess.Popen[bytes]):
        """Wrap a started process; the sandbox parts are filled in by `launch`."""
        self.process = process
        self.owner = os.getpid()
        self.sandboxed = False
        self.uid: int | None = None
        #: A pidfd on `process` (bubblewrap, or the bot itself), to wait without polling.
        self._fd = _pidfd_of(process.pid)
        #: A pidfd on the sandbox's init, and its pid.
        self._pidfd = -1
        self._init_pid = 0
        self._status_fd = -1
        self._slot: uids.UidSlot | None = None
        self._cgroup: cgroup.BotCgroup | None = None
        self._staged: Path | None = None
        _track(self)

    def _bot_pid(self) -> int | None:
        """The pid of the bot's main process (inside bubblewrap: the sandbox init's child)."""
        if self._init_pid <= 0:
            return self.process.pid
        try:
            children = Path(f"/proc/{self._init_pid}/task/{self._init_pid}/children")
            return int(children.read_text().split()[0])
        except (OSError, IndexError, ValueError):
            return None

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
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

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
            _staging().release(self._staged)
            self._staged = None
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


#: How long a killed process may take to exit before arena gives up waiting for it.
_DEATH_TIMEOUT_S = 5.0


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


_SUBREAPER_PID = 0


def _become_subreaper() -> None:
    """Adopt orphans: bubblewrap exits without reaping the sandbox's init, which we then reap."""
    global _SUBREAPER_PID
    if os.getpid() != _SUBREAPER_PID:
        _SUBREAPER_PID = os.getpid()
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER


def launch(
    argv: Sequence[str],
    folder: Path,
    limits: Limits,
    *,
    writable: bool = False,
    runtime: runtimes.Runtime | None = None,
) -> Sandboxed:
    """Start a bot with pipes on stdin, stdout and stderr, confined as well as this machine allows.

    `writable` (a build step): `folder` is a scratch copy, mounted itself and
    writable (and handed to the sandbox's uid), instead of a read-only staged copy.
    `runtime` (by default the one the folder's bot.toml names, `arena.sandbox.runtimes`)
    adds its folders read-only, its PATH entries and its environment.
    A program that cannot be executed is the bot's exit 127 (the held shell's `exec`
    fails, and says so on the bot's stderr); SandboxError when the sandbox cannot be set
    up (the platform's fault).
    """
    found = protections()
    try:
        runtime = runtime or runtimes.for_folder(folder)
    except runtimes.RuntimeProblem as error:
        raise SandboxError(str(error)) from None
    if found.bwrap is None:
        if os.environ.get("ARENA_SANDBOX") == "bwrap":
            raise SandboxError(f"ARENA_SANDBOX=bwrap but {found.bwrap_reason}")
        _warn_unconfined(found.bwrap_reason)
        return _start_plain(list(argv), folder, limits, found.cgroup, runtime)
    try:
        return _start(
            list(argv),
            folder,
            limits,
            found.bwrap,
            found.drop_uid,
            found.cgroup,
            found.seccomp,
            writable,
            runtime,
        )
    except OSError as error:  # inside bubblewrap even a missing program is the bot's exit 127
        raise SandboxError(f"could not set the sandbox up: {error}") from error


#: The first program of a bot's process: a shell that waits for one line on its stdin
#: while arena puts it into the bot's cgroups and sets its rlimits from outside, then
#: becomes the rest of its arguments (setpriv to drop the uid, then bubblewrap or the bot).
_HOLD = ["/bin/sh", "-c", 'read -r _ || exit 125; exec "$@"', "arena-hold"]


def _spawn(
    command: list[str],
    limits: Limits,
    procs_files: Sequence[str],
    uid: int | None,
    **popen: Any,
) -> subprocess.Popen[bytes]:
    """Start `command` (stdin a pipe) in the bot's cgroups, under its rlimits, as `uid`.

    Nothing of it runs in the child between fork and exec (a `preexec_fn` would make
    Popen fork this whole process rather than vfork it: 4.4 instead of 0.6 ms per bot
    from a worker of 68 MB, scripts/bench_tournament.py's --fresh-processes pays it per
    seat). The held shell joins the cgroups (by its pid, written here) and gets the
    rlimits (prlimit) before it lets anything else run; the uid is dropped by setpriv
    (util-linux), and where that is missing, the old way.
    """
    setpriv = _setpriv() if uid is not None else None
    if uid is not None and setpriv is None:
        return subprocess.Popen(command, preexec_fn=_child_setup(limits, procs_files, uid), **popen)
    if setpriv is not None:
        command = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *command]
    process = subprocess.Popen(_HOLD + command, **popen)
    assert process.stdin is not None
    try:
        _join_cgroups(procs_files, process.pid)
        limits.apply(process.pid)
        os.write(process.stdin.fileno(), b"go\n")
    except BaseException:
        process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        raise
    return process


@functools.cache
def _setpriv() -> str | None:
    """util-linux's setpriv, which drops a held child's uid (looked up once)."""
    return shutil.which("setpriv", path="/usr/bin:/bin")


def _join_cgroups(procs_files: Sequence[str], pid: int) -> None:
    """Move process `pid` into the bot's cgroups (one cgroup.procs file per controller)."""
    for procs_file in procs_files:
        with open(procs_file, "w") as handle:
            handle.write(str(pid))


def _child_setup(limits: Limits, procs_files: Sequence[str], uid: int) -> Callable[[], None]:
    """What the child does between fork and exec, where setpriv is missing."""

    def setup() -> None:
        _join_cgroups(procs_files, os.getpid())
        limits.apply()
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)

    return setup


def _environment(folder: Path, games: str, runtime: runtimes.Runtime | None) -> dict[str, str]:
    """The bot's clean environment, with its runtime's PATH and variables if it has one."""
    base = bot_environment(folder, games)
    return runtime.environment(base) if runtime is not None else base


def _start_plain(
    argv: list[str],
    folder: Path,
    limits: Limits,
    use_cgroup: bool,
    runtime: runtimes.Runtime | None = None,
) -> Sandboxed:
    _verify_in_place(folder)
    try:
        games = _games_copy()
        games.compile_for(argv[0])
    except OSError as error:  # a full disk, say: arena's failure, not the bot's
        raise SandboxError(f"could not copy arena's referees for the bot: {error}") from error
    try:
        group = cgroup.create(limits) if use_cgroup else None
    except OSError as error:
        raise SandboxError(f"could not create the bot's cgroup: {error}") from error
    try:
        process: subprocess.Popen[bytes] = _launcher().call(
            lambda: _spawn(
                argv,
                limits,
                group.procs_files if group else (),
                None,
                cwd=folder,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                env=_environment(folder, str(games.root), runtime),
                start_new_session=True,
                close_fds=True,
            )
        )
    except BaseException:
        if group is not None:
            group.remove()
        raise
    box = Sandboxed(process)
    box._cgroup = group
    return box


def _start(
    argv: list[str],
    folder: Path,
    limits: Limits,
    bwrap: str,
    drop_uid: bool,
    use_cgroup: bool,
    filtered: bool,
    writable: bool = False,
    runtime: runtimes.Runtime | None = None,
) -> Sandboxed:
    """Start `argv` under bubblewrap (with the seccomp filter when `filtered`); wait until set up.

    bubblewrap's options and the filter are handed over in memory files that it
    reads and closes, so the bot inherits no descriptor but 0, 1 and 2.
    """
    _become_subreaper()
    slot = uids.acquire() if drop_uid else None
    uid = slot.uid if slot is not None else os.geteuid()
    source: Path | None = None
    group: cgroup.BotCgroup | None = None
    status_r = status_w = args_fd = filter_fd = -1
    box: Sandboxed | None = None
    try:
        if writable:
            _hand_over(folder, uid)
        source = folder if writable else _staging().acquire(folder, _VERSIONS.get(str(folder)))
        if runtime is not None and runtime.owns(argv[0]):
            inner, binds = argv, runtime.binds()  # the runtime's folders hold the program
        else:
            inner, binds = bw.toolchain(argv, folder, uid)
            binds += runtime.binds() if runtime is not None else []
        games = _games_copy()
        games.compile_for(inner[0])
        binds += ["--ro-bind", str(games.root), pythonpath.MOUNT]
        group = cgroup.create(limits) if use_cgroup else None
        status_r, status_w = os.pipe()
        filter_fd = _memory_file(seccomp.program(build=writable)) if filtered else -1
        chosen = bw.options(
            source,
            limits,
            binds,
            status_w,
            filter_fd if filtered else None,
            writable,
            _proc_files().args(limits),
        )
        args_fd = _memory_file(b"".join(arg.encode() + b"\0" for arg in chosen))
        command = bw.command_line(bwrap, bw.inside(inner, folder), args_fd)
        process: subprocess.Popen[bytes] = _launcher().call(
            lambda: _spawn(
                command,
                limits,
                group.procs_files if group else (),
                uid if slot else None,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                env=_environment(Path(bw.BOT_DIR), pythonpath.MOUNT, runtime),
                start_new_session=True,
                close_fds=True,
                pass_fds=tuple(fd for fd in (status_w, args_fd, filter_fd) if fd >= 0),
            )
        )
        box = Sandboxed(process)
        box.sandboxed, box.uid = True, uid
        box._slot, box._cgroup, box._status_fd = slot, group, status_r
        box._staged, source = (None if writable else source), None
        slot = group = None
        status_r = -1
        for fd in (status_w, args_fd, filter_fd):  # bubblewrap has its own copies now
            if fd >= 0:
                os.close(fd)
        status_w = args_fd = filter_fd = -1
        _await_ready(box)
        return box
    except BaseException:
        if box is not None:
            box.kill()
        else:
            if group is not None:
                group.remove()
            if slot is not None:
                slot.release()
            if source is not None and not writable:
                _staging().release(source)
        raise
    finally:
        for fd in (status_r, status_w, args_fd, filter_fd):
            if fd >= 0:
                os.close(fd)


def _await_ready(box: Sandboxed) -> None:
    """Wait for the start marker on stderr; learn the sandbox's pid. SandboxError if it fails.

    The pid is taken as soon as bubblewrap reports it, so that even a sandbox that
    fails or hangs during set-up is killed through its own init, not just bubblewrap.
    stderr is read a byte at a time up to the marker, so that nothing the bot
    writes after it is consumed here; what came before is bubblewrap's own.
    """
    assert box.process.stderr is not None
    err_fd = box.process.stderr.fileno()
    deadline = time.monotonic() + SETUP_TIMEOUT_S
    status = said = b""
    poller = select.poll()
    poller.register(err_fd, select.POLLIN)
    poller.register(box._status_fd, select.POLLIN)
    while not said.endswith(bw.READY_MARKER) or box._pidfd < 0:
        left = deadline - time.monotonic()
        if left <= 0:
            raise SandboxError("bubblewrap did not set the sandbox up in time")
        for fd, _event in poller.poll(int(left * 1000) + 1):
            chunk = os.read(fd, 4096 if fd == box._status_fd else 1)
            if not chunk:
                raise SandboxError(f"bubblewrap failed: {_said(box.process, said)}")
            if fd == box._status_fd:
                status += chunk
                if box._pidfd < 0 and b"\n" in status:
                    _learn_pid(box, status)
                    poller.unregister(fd)
            else:
                said = (said + chunk)[-4000:]
                if said.endswith(bw.READY_MARKER):
                    poller.unregister(fd)


def _learn_pid(box: Sandboxed, status: bytes) -> None:
    """Open a pidfd on the sandbox's init from bubblewrap's first status line."""
    try:
        child = int(json.loads(status.split(b"\n", 1)[0])["child-pid"])
        box._pidfd = os.pidfd_open(child)
        box._init_pid = child
    except (ValueError, KeyError, OSError) as error:
        raise SandboxError(f"bubblewrap gave no sandbox pid ({error})") from None


def _said(process: subprocess.Popen[bytes], said: bytes) -> str:
    """What a failed bubblewrap said on stderr (read so far), or its exit code."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=2)
    return said.decode("utf-8", "replace").strip() or f"exit code {process.returncode}"


def _hand_over(folder: Path, uid: int) -> None:
    """Make a scratch folder (and all in it) the sandbox uid's own, so a build can write there."""
    if uid == os.geteuid():
        return
    os.lchown(folder, uid, uid)
    for directory, dirs, files in os.walk(folder):
        for name in dirs + files:
            os.lchown(os.path.join(directory, name), uid, uid)


def _memory_file(data: bytes) -> int:
    """A descriptor of an in-memory file holding `data`, read from its start (for bubblewrap)."""
    fd = os.memfd_create("arena-bwrap")
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd
