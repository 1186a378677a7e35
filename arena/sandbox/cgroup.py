"""A memory cgroup per bot, where the machine lets arena create one.

arena creates the bot's cgroup as a child of the cgroup it runs in (cgroup v1
`memory` controller, or cgroup v2 when `memory` is delegated to it), sets the
limit, moves the bot into it before exec, and at the end kills whatever is
still in it and removes it. Children left by a killed arena are removed the next
time the cgroup root is looked up.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

_COUNTER = itertools.count()


@dataclass(frozen=True)
class CgroupRoot:
    """Where arena may create bot cgroups, and which cgroup version it is."""

    path: Path
    version: int

    def limit_files(self) -> tuple[str, str]:
        """The memory and memory+swap limit files of this version."""
        if self.version == 1:
            return "memory.limit_in_bytes", "memory.memsw.limit_in_bytes"
        return "memory.max", "memory.swap.max"


def _own_cgroup_v1() -> Path | None:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _id, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            for mount in Path("/proc/self/mountinfo").read_text().splitlines():
                parts = mount.split()
                sep = parts.index("-")
                if parts[sep + 1] == "cgroup" and "memory" in parts[sep + 3].split(","):
                    return Path(parts[4]) / path.lstrip("/")
    return None


def _own_cgroup_v2() -> Path | None:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        if line.startswith("0::"):
            base = Path("/sys/fs/cgroup")
            candidate = base / line[3:].lstrip("/")
            if (candidate / "cgroup.subtree_control").is_file():
                controls = (candidate / "cgroup.subtree_control").read_text().split()
                if "memory" in controls:
                    return candidate
    return None


@functools.cache
def find_root() -> tuple[CgroupRoot | None, str]:
    """The cgroup under which bot cgroups can be made, with a one-line reason either way."""
    if os.environ.get("ARENA_SANDBOX_CGROUP", "auto") == "off":
        return None, "turned off by ARENA_SANDBOX_CGROUP=off"
    try:
        v1 = _own_cgroup_v1()
        v2 = None if v1 else _own_cgroup_v2()
    except (OSError, ValueError, IndexError) as error:
        return None, f"cannot read /proc/self/cgroup: {error}"
    candidates = [CgroupRoot(v1, 1)] if v1 else [CgroupRoot(v2, 2)] if v2 else []
    if not candidates:
        return None, "no memory controller delegated to this process (cgroup v1 or v2)"
    root = candidates[0]
    probe = root.path / f"arena-probe-{os.getpid()}"
    try:
        probe.mkdir()
        limit_file = probe / root.limit_files()[0]
        ok = limit_file.is_file()
        if ok:
            limit_file.write_text(str(512 * 1024 * 1024))
    except OSError as error:
        return None, f"cannot create a child of {root.path}: {error.strerror}"
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()
    if not ok:
        return None, f"{root.path} has no {root.limit_files()[0]}"
    _sweep(root.path)
    return root, f"cgroup v{root.version} memory controller at {root.path}"


def _sweep(path: Path) -> None:
    """Remove bot cgroups left behind by arena processes that no longer run."""
    with contextlib.suppress(OSError):
        for child in path.glob("arena-*-*"):
            try:
                owner = int(child.name.split("-")[1])
            except (IndexError, ValueError):
                continue
            if not Path(f"/proc/{owner}").exists():
                _kill_and_remove(child)


@dataclass
class MemoryCgroup:
    """One bot's cgroup: `procs_file` is written by the child before exec."""

    path: Path
    procs_file: str

    def oom_killed(self) -> bool:
        """True when the kernel killed a process of this cgroup for memory."""
        for name in ("memory.events", "memory.oom_control"):
            with contextlib.suppress(OSError):
                for line in (self.path / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and value.strip() not in ("", "0"):
                        return True
        return False

    def remove(self) -> None:
        """Kill what is still inside and remove the cgroup. Idempotent."""
        _kill_and_remove(self.path)


def create(memory_bytes: int) -> MemoryCgroup | None:
    """A new cgroup with the memory limit, or None when the machine offers none."""
    root, _reason = find_root()
    if root is None:
        return None
    path = root.path / f"arena-{os.getpid()}-{next(_COUNTER)}"
    path.mkdir()
    limit, with_swap = root.limit_files()
    (path / limit).write_text(str(memory_bytes))
    with contextlib.suppress(OSError):  # no swap accounting: nothing more to cap
        (path / with_swap).write_text(str(memory_bytes) if root.version == 1 else "0")
    return MemoryCgroup(path, str(path / "cgroup.procs"))


def _kill_and_remove(path: Path) -> None:
    for _attempt in range(200):
        try:
            pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
        except OSError:
            return  # already gone
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.005)  # killed processes are still exiting
