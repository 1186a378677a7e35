"""One unprivileged uid per running bot when arena runs as root (as IOI isolate does).

A uid is a slot: a lock file in the runtime directory, held with `flock` for as
long as the bot lives, so that concurrent worker processes never share a uid
and a crashed arena frees its slots automatically. Because each running bot has
its own uid, RLIMIT_NPROC counts that bot's processes only, and killing every
process of the uid is a complete clean-up.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import os
import platform
import signal
import subprocess
import tempfile
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path

from arena import ArenaError, settings

#: Default range of sandbox uids; override with ARENA_SANDBOX_UIDS="first-last".
DEFAULT_UIDS = (60000, 60999)


class SandboxError(ArenaError, RuntimeError):
    """The sandbox could not be set up: a platform failure, never the bot's fault."""

    exit_code = 1


class UidsInUse(SandboxError):
    """Every uid of the range is held by a running bot (of this arena or another)."""


def uid_range() -> tuple[int, int]:
    """The configured range of sandbox uids (inclusive)."""
    text = settings.read(settings.SANDBOX_UIDS)
    if not text:
        return DEFAULT_UIDS
    try:
        first, _, last = text.partition("-")
        low, high = int(first), int(last or first)
    except ValueError:
        raise SandboxError(f"ARENA_SANDBOX_UIDS={text!r} is not 'first-last'") from None
    if not 0 < low <= high:
        raise SandboxError(f"ARENA_SANDBOX_UIDS={text!r} is not a range of non-root uids")
    return low, high


def runtime_dir() -> Path:
    """Where slot locks and staged bot folders live (root-owned, traversable only)."""
    if os.geteuid() == 0 and os.access("/run", os.W_OK):
        path = Path("/run/arena")
    else:
        path = Path(tempfile.gettempdir()) / f"arena-run-{os.geteuid()}"
    path.mkdir(mode=0o711, exist_ok=True)
    os.chmod(path, 0o711)
    return path


@dataclass
class UidSlot:
    """A uid held for one running bot; `release` kills what is left and frees it."""

    uid: int
    _fd: int

    def release(self) -> None:
        """Kill every process still running as this uid, then free the slot. Idempotent."""
        if self._fd < 0:
            return
        kill_all_of(self.uid)
        _HELD.pop(self._fd, None)
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = -1


#: The slots this process holds, by descriptor: a forked child lets go of them (below).
_HELD: weakref.WeakValueDictionary[int, UidSlot] = weakref.WeakValueDictionary()


def _let_go_in_child() -> None:
    """In a forked child: close the inherited slot locks, which stay the parent's.

    flock belongs to the open file, which the child shares: without this a forked worker
    would hold its parent's uids after the parent freed them (for every arena on the
    machine, until the worker ends), and `release` in the child would kill the parent's bot.
    """
    for fd, slot in list(_HELD.items()):
        with contextlib.suppress(OSError):
            os.close(fd)
        slot._fd = -1
    _HELD.clear()


os.register_at_fork(after_in_child=_let_go_in_child)


#: setresuid's system-call number per machine. The raw call changes the uids of the
#: calling thread only; glibc's setresuid (and os.setresuid) changes every thread's.
_SYS_SETRESUID = {"x86_64": 117, "aarch64": 147, "riscv64": 147}


def kill_all_of(uid: int) -> None:
    """SIGKILL every process of `uid`: kill(-1) sent as that uid, which spares nobody else.

    kill(-1) is one sweep of the process table that a forking process cannot outrun,
    and it never signals the caller's own process. It is sent from a throwaway thread
    that takes on `uid` (real, effective and saved, so no capability is left) and
    ends with it: no process is spawned, and no other code ever runs as the bot's uid.
    """
    if uid <= 0:
        raise ValueError(f"refusing to kill every process of uid {uid}")
    number = _SYS_SETRESUID.get(platform.machine())
    if number is None:  # an unknown machine: run kill(1) as the uid, as arena used to
        _kill_all_of_by_subprocess(uid)
        return
    thread = threading.Thread(target=_kill_as, args=(uid, number), name="arena-kill-uid")
    thread.start()
    thread.join()


def _kill_as(uid: int, number: int) -> None:
    """Become `uid` in this thread only, check it, then kill(-1). The thread ends after."""
    if _libc().syscall(number, uid, uid, uid) != 0:
        return
    # Never kill(-1) as anyone else: as root it would kill every process on the machine.
    if os.getresuid() != (uid, uid, uid):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _kill_all_of_by_subprocess(uid: int) -> None:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            ["/bin/kill", "-9", "-1"],
            user=uid,
            group=uid,
            extra_groups=[],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=5,
            close_fds=True,
        )


def acquire() -> UidSlot:
    """A free uid from the range, locked for this bot; SandboxError when all are taken."""
    low, high = uid_range()
    directory = runtime_dir() / "uids"
    directory.mkdir(mode=0o700, exist_ok=True)
    count = high - low + 1
    start = (os.getpid() * 7) % count  # spread worker processes over the range
    for step in range(count):
        uid = low + (start + step) % count
        fd = os.open(directory / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        slot = _HELD[fd] = UidSlot(uid, fd)
        return slot
    raise UidsInUse(f"all {count} sandbox uids ({low}-{high}) are in use")
