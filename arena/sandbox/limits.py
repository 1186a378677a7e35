"""The resource limits every bot runs under (a tournament may set stricter ones)."""

from __future__ import annotations

import contextlib
import resource
from dataclasses import dataclass, fields, replace
from typing import Any

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Per-bot resource limits: rlimits, the cgroup limits and the size of /tmp.

    The defaults let common runtimes (CPython, Node, the JVM) start: memory is
    capped by a cgroup where the machine offers one, while the address-space
    rlimit stays large because Node and Java reserve far more virtual memory
    than they touch.
    """

    #: CPU seconds over the bot process's whole life (it may play many matches).
    cpu_seconds: int = 600
    #: Processes and threads the bot may run at once: its whole tree by cgroup (pids.max)
    #: where available, and by rlimit per sandbox uid when arena is root.
    processes: int = 256
    #: Largest file the bot may write (anywhere it can write: /tmp, /dev/shm).
    file_size_bytes: int = 64 * MIB
    #: Open file descriptors.
    open_files: int = 256
    #: Address-space rlimit; large by default, see the class docstring.
    address_space_bytes: int = 16 * 1024 * MIB
    #: Memory (resident + tmpfs pages) for the bot and its children, by cgroup when available.
    memory_bytes: int = 2048 * MIB
    #: CPU the bot and all its processes may use together, in percent of one core
    #: (cgroup CPU quota where available; 100 = one core, whatever affinity it sets).
    cpu_percent: int = 100
    #: Size of each private tmpfs, /tmp and /dev/shm (bubblewrap only).
    tmp_bytes: int = 64 * MIB

    def apply(self, pid: int = 0) -> None:
        """Set the rlimits on process `pid` (0: this process); a limit the kernel
        refuses is left as it was."""
        pairs = [
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_NPROC, self.processes),
            (resource.RLIMIT_FSIZE, self.file_size_bytes),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_AS, self.address_space_bytes),
            (resource.RLIMIT_CORE, 0),
        ]
        for kind, value in pairs:
            # CPU time: the soft limit's SIGXCPU comes a second before the hard one's
            # SIGKILL, so that the end is named ("killed at the CPU-time limit")
            hard = value + 1 if kind == resource.RLIMIT_CPU else value
            with contextlib.suppress(ValueError, OSError):
                resource.prlimit(pid, kind, (value, hard))

    def stricter(self, **values: Any) -> Limits:
        """These limits with some replaced; a value may only lower a limit.

        >>> Limits().stricter(memory_bytes=256 * MIB).memory_bytes == 256 * MIB
        True
        """
        known = {f.name for f in fields(self)}
        for name, value in values.items():
            if name not in known:
                raise ValueError(f"unknown limit {name!r}")
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"limit {name} must be a positive integer, not {value!r}")
        return replace(self, **{k: min(v, getattr(self, k)) for k, v in values.items()})

    def as_dict(self) -> dict[str, int]:
        """The limits by name (for settings and reports)."""
        return {f.name: int(getattr(self, f.name)) for f in fields(self)}


#: Tournament settings (`[limits]` in a tournament file) and the Limits field each sets.
SETTING_UNITS = {
    "cpu_seconds": ("cpu_seconds", 1),
    "cpu_percent": ("cpu_percent", 1),
    "processes": ("processes", 1),
    "open_files": ("open_files", 1),
    "memory_mb": ("memory_bytes", MIB),
    "tmp_mb": ("tmp_bytes", MIB),
    "file_size_mb": ("file_size_bytes", MIB),
    "address_space_mb": ("address_space_bytes", MIB),
}


def from_settings(settings: dict[str, Any]) -> Limits:
    """The default limits made stricter by a tournament's `[limits]` table; ValueError if bad.

    >>> from_settings({"memory_mb": 512, "cpu_seconds": 60}).memory_bytes == 512 * MIB
    True
    """
    unknown = sorted(set(settings) - set(SETTING_UNITS))
    if unknown:
        raise ValueError(
            f"unknown limit(s): {', '.join(unknown)} (known: {', '.join(SETTING_UNITS)})"
        )
    values: dict[str, Any] = {}
    for key, value in settings.items():
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"limit {key} must be a positive integer, not {value!r}")
        name, unit = SETTING_UNITS[key]
        values[name] = value * unit
    return Limits().stricter(**values)
