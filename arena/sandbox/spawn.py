"""The two ways a bot's process starts: under bubblewrap (`start_bwrap`) or plain (`start_plain`).

Both spawn it held (`_spawn`: a shell that waits while arena puts it into its
cgroups and sets its rlimits from outside, on the launcher thread), in a clean
environment (`bot_environment`), from a stored version that is what was checked at
submission (`expect_version`). Under bubblewrap, the start waits for the sandbox to
say it is set up (`_await_ready`). Which way a bot starts is `arena.sandbox.start`'s
choice.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import select
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.sandbox import bwrap as bw
from arena.sandbox import cgroup, launcher, pythonpath, runtimes, seccomp, uids, view
from arena.sandbox.handle import Sandboxed
from arena.sandbox.limits import Limits
from arena.sandbox.uids import SandboxError

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


def _environment(folder: Path, games: str, runtime: runtimes.Runtime | None) -> dict[str, str]:
    """The bot's clean environment, with its runtime's PATH and variables if it has one."""
    base = bot_environment(folder, games)
    return runtime.environment(base) if runtime is not None else base


# ----- stored versions run only as they were checked -----------------------------------
#: Stored versions to verify before they run: folder -> how to read it checked.
_VERSIONS: dict[str, bw.VerifiedRead] = {}
#: Folders verified in this process when bots run from the folder itself (no bubblewrap).
_VERIFIED: set[tuple[int, str]] = set()


def expect_version(folder: Path, verified: bw.VerifiedRead) -> None:
    """Run `folder` only as the stored version `verified` checks it against (`bw.Staging`).

    The caller knows versions (arena.match.run, with
    arena.submissions.manifest.verified_files); the sandbox only asks for the checked
    reading before a bot runs.
    """
    _VERSIONS[str(folder)] = verified


def _verify_in_place(folder: Path) -> None:
    """Without a staged copy: verify a stored version once per process (SandboxError)."""
    verified = _VERSIONS.get(str(folder))
    if verified is not None and (os.getpid(), str(folder)) not in _VERIFIED:
        verified()
        _VERIFIED.add((os.getpid(), str(folder)))


# ----- a held process, set up from outside ------------------------------------------
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


# ----- the two start paths ----------------------------------------------------------
def start_plain(
    argv: list[str],
    folder: Path,
    limits: Limits,
    use_cgroup: bool,
    runtime: runtimes.Runtime | None = None,
) -> Sandboxed:
    """Start `argv` in `folder` itself, without bubblewrap: rlimits, the cgroup, a new session."""
    _verify_in_place(folder)
    try:
        games = launcher.games_copy()
        games.compile_for(argv[0])
    except OSError as error:  # a full disk, say: arena's failure, not the bot's
        raise SandboxError(f"could not copy arena's referees for the bot: {error}") from error
    try:
        group = cgroup.create(limits) if use_cgroup else None
    except OSError as error:
        raise SandboxError(f"could not create the bot's cgroup: {error}") from error
    try:
        process: subprocess.Popen[bytes] = launcher.call(
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
    return Sandboxed(process, group=group)


def start_bwrap(
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
    launcher.become_subreaper()
    slot = uids.acquire() if drop_uid else None
    uid = slot.uid if slot is not None else os.geteuid()
    source: Path | None = None
    group: cgroup.BotCgroup | None = None
    status_r = status_w = args_fd = filter_fd = -1
    box: Sandboxed | None = None
    try:
        if writable:
            _hand_over(folder, uid)
        source = (
            folder if writable else launcher.staging().acquire(folder, _VERSIONS.get(str(folder)))
        )
        if runtime is not None and runtime.owns(argv[0]):
            inner, binds = argv, runtime.binds()  # the runtime's folders hold the program
        else:
            inner, binds = bw.toolchain(argv, folder, uid)
            binds += runtime.binds() if runtime is not None else []
        system = _system(inner, folder, source, binds, runtime, writable)
        binds = [] if not writable else binds  # a match sandbox's view holds its folders
        games = launcher.games_copy()
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
            launcher.proc_files().args(limits),
            system,
        )
        args_fd = _memory_file(b"".join(arg.encode() + b"\0" for arg in chosen))
        command = bw.command_line(bwrap, bw.inside(inner, folder), args_fd)
        process: subprocess.Popen[bytes] = launcher.call(
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
        box = Sandboxed(
            process,
            sandboxed=True,
            uid=uid,
            slot=slot,
            group=group,
            staged=None if writable else source,
            status_fd=status_r,
        )
        slot = group = source = None
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
                launcher.staging().release(source)
        raise
    finally:
        for fd in (status_r, status_w, args_fd, filter_fd):
            if fd >= 0:
                os.close(fd)


def _system(
    argv: list[str],
    folder: Path,
    source: Path,
    binds: list[str],
    runtime: runtimes.Runtime | None,
    writable: bool,
) -> list[str]:
    """What a sandbox sees of the system: all of it for a build, else its view (`view`).

    The view is computed from the staged copy `source` (the bytes that will run) and
    made resident before this returns; `binds` (a runtime's folders, a toolchain's
    prefix: read-only binds at their own paths) become part of it.
    """
    if writable:
        return bw.system_binds()
    trees = tuple(binds[i + 1] for i in range(0, len(binds) - 2, 3) if binds[i] == "--ro-bind")
    root = str(folder)
    staged = [str(source) + arg[len(root) :] if bw.under(arg, (root,)) else arg for arg in argv]
    path = runtime.path if runtime is not None else ()
    return view.for_bot(launcher.view_root(), staged, source, root, trees, path)


# ----- bubblewrap says the sandbox is set up ------------------------------------------
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
    pid_known = False
    poller = select.poll()
    poller.register(err_fd, select.POLLIN)
    poller.register(box.status_fd, select.POLLIN)
    while not said.endswith(bw.READY_MARKER) or not pid_known:
        left = deadline - time.monotonic()
        if left <= 0:
            raise SandboxError("bubblewrap did not set the sandbox up in time")
        for fd, _event in poller.poll(int(left * 1000) + 1):
            chunk = os.read(fd, 4096 if fd == box.status_fd else 1)
            if not chunk:
                raise SandboxError(f"bubblewrap failed: {_said(box.process, said)}")
            if fd == box.status_fd:
                status += chunk
                if not pid_known and b"\n" in status:
                    _learn_pid(box, status)
                    pid_known = True
                    poller.unregister(fd)
            else:
                said = (said + chunk)[-4000:]
                if said.endswith(bw.READY_MARKER):
                    poller.unregister(fd)


def _learn_pid(box: Sandboxed, status: bytes) -> None:
    """Open a pidfd on the sandbox's init from bubblewrap's first status line."""
    try:
        child = int(json.loads(status.split(b"\n", 1)[0])["child-pid"])
        box.adopt_init(child)
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
