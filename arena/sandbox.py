"""How a bot process is started, confined and killed.

Every bot runs in its own session and process group with resource limits, a
clean environment and its folder as working directory, so that killing the
group removes the bot and everything it started.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to every bot process (a tournament may set stricter ones)."""

    cpu_seconds: int = 600
    processes: int = 256
    file_size_bytes: int = 64 * 1024 * 1024
    open_files: int = 256
    #: Address-space limit; large by default because runtimes such as Node or Java
    #: reserve far more virtual memory than they use.
    address_space_bytes: int = 16 * 1024**3

    def apply(self) -> None:
        """Set the limits on the current process (run in the child before exec)."""
        pairs = [
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_NPROC, self.processes),
            (resource.RLIMIT_FSIZE, self.file_size_bytes),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_AS, self.address_space_bytes),
            (resource.RLIMIT_CORE, 0),
        ]
        for kind, value in pairs:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(kind, (value, value))


def bot_environment(folder: Path) -> dict[str, str]:
    """A small, clean environment: none of the platform's variables reach a bot."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(folder),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        # Same hash order on every run, so that deterministic Python bots replay exactly,
        # and no __pycache__ written into a (content-addressed) bot folder.
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
    }


def launch(argv: Sequence[str], folder: Path, limits: Limits) -> subprocess.Popen[bytes]:
    """Start a bot with pipes on stdin, stdout and stderr, in a new session."""
    return subprocess.Popen(
        list(argv),
        cwd=folder,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
        env=bot_environment(folder),
        start_new_session=True,
        close_fds=True,
        preexec_fn=limits.apply,  # only setrlimit calls: safe between fork and exec
    )


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the bot's whole process group and reap the bot."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
