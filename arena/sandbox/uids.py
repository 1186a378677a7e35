"""One unprivileged uid per running bot when arena runs as root (as IOI isolate does).

A uid is a slot: a lock file in the runtime directory, held with `flock` for as
long as the bot lives, so that concurrent worker processes never share a uid
and a crashed arena frees its slots automatically. Because each running bot has
its own uid, RLIMIT_NPROC counts that bot's processes only, and killing every
process of the uid is a complete clean-up.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: Default range of sandbox uids; override with ARENA_SANDBOX_UIDS="first-last".
DEFAULT_UIDS = (60000, 60999)


class SandboxError(RuntimeError):
    """The sandbox could not be set up: a platform failure, never the bot's fault."""


def uid_range() -> tuple[int, int]:
    """The configured range of sandbox uids (inclusive)."""
    text = os.environ.get("ARENA_SANDBOX_UIDS", "")
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
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = -1


def kill_all_of(uid: int) -> None:
    """SIGKILL every process of `uid` (kill(-1) run as that uid: spares nobody else)."""
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
        return UidSlot(uid, fd)
    raise SandboxError(f"all {count} sandbox uids ({low}-{high}) are in use")
