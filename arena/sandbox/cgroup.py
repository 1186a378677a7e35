"""A cgroup per bot: a memory limit, a CPU share and a process cap it cannot escape.

rlimits count per process or per uid, and the scheduler is fair per thread: a
bot that starts hundreds of busy children, each in its own session, would take
every core from the bots beside it. A cgroup holds the bot and everything it
starts, whatever session or affinity they choose, so arena makes one per bot
with three controllers, each where the machine lets it:

- `memory`: the bot's memory, tmpfs pages included (the kernel kills it at the limit);
- `cpu`: a CPU quota of `Limits.cpu_percent` of one core (CFS bandwidth) and the
  same weight as one ordinary process, for the bot and all its processes together;
- `pids`: at most `Limits.processes` processes and threads in the whole tree,
  which also holds a bot running as root without bubblewrap;
- `cpuacct`: the CPU time the whole tree used (`BotCgroup.cpu_seconds`), which is what
  an answer is charged (arena.protocol.clock): v1's cpuacct controller, or the
  `cpu.stat` that every v2 cgroup has.

cgroup v1 has one hierarchy per controller, so a bot gets one directory in each;
cgroup v2 has one hierarchy, so one directory. Each is a child of the cgroup arena
runs in. The child process writes its pid into every `cgroup.procs` before exec;
at the end whatever is still inside is killed and the directories are removed.
Directories left by a killed arena are removed the next time the controllers are
looked up (arena-PID-N of a PID no process has; one of this process's own PID, left by
a dead one that had it, when this process makes that name). A live arena's are never
touched, so arenas can run side by side. ARENA_SANDBOX_CGROUP=off turns all of this off;
a comma list (`memory,pids`) uses only those controllers (the fairness benchmark turns `cpu` off).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import os
import select
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from arena import settings
from arena.sandbox.limits import MIB, Limits

#: The controllers a bot cgroup uses, in the order doctor reports them.
CONTROLLERS = ("memory", "cpu", "pids", "cpuacct")
#: The CFS bandwidth period. Short, so a bot over its quota waits a few ms, not 100.
CPU_PERIOD_US = 20_000
#: v1 `cpu.shares` and v2 `cpu.weight` of every bot: the weight of one ordinary process.
CPU_SHARES, CPU_WEIGHT = 1024, 100

_COUNTER = itertools.count()
LOG = logging.getLogger("arena.sandbox")
#: The file of a cgroup that counts its CPU time, per cgroup version: nanoseconds in v1,
#: a "usage_usec N" line in v2.
_CPU_USAGE = {1: "cpuacct.usage", 2: "cpu.stat"}


@dataclass(frozen=True)
class Controller:
    """Where bot cgroups of one controller are made (`path`), or why they cannot be."""

    name: str
    path: Path | None
    version: int
    reason: str


@dataclass(frozen=True)
class Mount:
    """A cgroup hierarchy mounted here (a line of /proc/self/mountinfo)."""

    fstype: str
    root: str
    point: Path
    options: frozenset[str]


def _mounts() -> list[Mount]:
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        parts = line.split()
        sep = parts.index("-")
        if parts[sep + 1] in ("cgroup", "cgroup2"):
            options = frozenset(parts[sep + 3].split(","))
            found.append(Mount(parts[sep + 1], parts[3], Path(parts[4]), options))
    return found


def _own_cgroups() -> dict[str, str]:
    """This process's cgroup per v1 controller, and under "" its v2 cgroup."""
    own: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _id, names, path = line.split(":", 2)
        for name in names.split(",") if names else [""]:
            own[name] = path
    return own


def _inside(mount: Mount, path: str) -> Path:
    """The directory of cgroup `path` under a mount whose root may be a sub-cgroup."""
    root = mount.root.rstrip("/")
    relative = path[len(root) :] if root and path.startswith(root) else path
    return mount.point / relative.lstrip("/")


def locate(name: str, mounts: list[Mount], own: dict[str, str]) -> tuple[Path, int] | str:
    """arena's own cgroup for controller `name` and its version, or why there is none."""
    for mount in mounts:
        if mount.fstype == "cgroup" and name in mount.options and name in own:
            return _inside(mount, own[name]), 1
    unified = [m for m in mounts if m.fstype == "cgroup2"]
    if not unified or "" not in own:
        return f"no {name} controller on this machine (cgroup v1 or v2)"
    path = _inside(unified[0], own[""])
    if name == "cpuacct":  # not a controller in v2: every cgroup counts CPU in cpu.stat
        return path, 2
    try:
        enabled = (path / "cgroup.subtree_control").read_text().split()
    except OSError:
        enabled = []
    if name not in enabled:
        return f"cgroup v2: {name} is not delegated to arena ({path}/cgroup.subtree_control)"
    return path, 2


def _probe(name: str, path: Path, version: int) -> str | None:
    """Make a child, set the default limits, remove it: None when that works, else why not.

    The child's name is this call's own: two threads of a process may look the
    controllers up at once (the first seats of a pool start together), and a name
    shared between their probes made one of them fail with EEXIST, which turned CPU
    accounting off for that process's whole life. It starts as a bot cgroup's does, so
    one left by a killed process is swept like any other (`_sweep`).
    """
    probe = path / f"arena-{os.getpid()}-{next(_COUNTER)}-probe-{name}"
    try:
        probe.mkdir()
        for file, value, required in _settings(name, version, Limits()):
            if not required:
                continue
            if not (probe / file).is_file():
                return f"{path} has no {file}"
            (probe / file).write_text(value)
        if name == "cpuacct" and not (probe / _CPU_USAGE[version]).is_file():
            return f"{path} has no {_CPU_USAGE[version]}"
    except OSError as error:
        return f"cannot create a limited child of {path}: {error.strerror}"
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()
    return None


def _wanted() -> tuple[set[str], str]:
    """The controllers ARENA_SANDBOX_CGROUP lets arena use, and what to say of the others."""
    setting = settings.read(settings.SANDBOX_CGROUP, "auto").strip()
    if setting == "auto":
        return set(CONTROLLERS), ""
    if setting == "off":
        return set(), "turned off by ARENA_SANDBOX_CGROUP=off"
    return {n.strip() for n in setting.split(",")}, f"not in ARENA_SANDBOX_CGROUP={setting}"


def _find(
    name: str, mounts: list[Mount], own: dict[str, str], wanted: tuple[set[str], str]
) -> Controller:
    names, why_unwanted = wanted
    if name not in names:
        return Controller(name, None, 0, why_unwanted)
    located = locate(name, mounts, own)
    if isinstance(located, str):
        return Controller(name, None, 0, located)
    path, version = located
    why_not = _probe(name, path, version)
    if why_not is not None:
        return Controller(name, None, version, why_not)
    return Controller(name, path, version, f"cgroup v{version} {name} controller at {path}")


@functools.cache
def controllers() -> tuple[Controller, ...]:
    """Each controller of CONTROLLERS: where bot cgroups go, or why not (looked up once)."""
    wanted = _wanted()
    try:
        mounts, own = _mounts(), _own_cgroups()
    except (OSError, ValueError, IndexError) as error:
        reason = f"cannot read /proc/self/cgroup or mountinfo: {error}"
        return tuple(Controller(name, None, 0, reason) for name in CONTROLLERS)
    found = tuple(_find(name, mounts, own, wanted) for name in CONTROLLERS)
    for path in {c.path for c in found if c.path is not None}:
        _sweep(path)
    return found


def find_root(name: str = "memory") -> tuple[Controller | None, str]:
    """The controller `name` when bots get it here, with a one-line reason either way."""
    (found,) = [c for c in controllers() if c.name == name]
    return (found if found.path is not None else None), found.reason


def status() -> tuple[bool, str]:
    """Whether bots get a cgroup at all, and which controllers it has (for Protections)."""
    active = [c for c in controllers() if c.path is not None]
    if not active:
        return False, "; ".join(f"{c.name}: {c.reason}" for c in controllers())
    missing = [c.name for c in controllers() if c.path is None]
    versions = sorted({c.version for c in active})
    text = f"{', '.join(c.name for c in active)} (cgroup v{'+v'.join(map(str, versions))})"
    return True, text + (f"; no {', '.join(missing)}" if missing else "")


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
class BotCgroup:
    """One bot's cgroup: a directory per hierarchy, each `cgroup.procs` written before exec."""

    dirs: tuple[Path, ...]
    memory: Path | None
    memory_bytes: int
    #: The file that counts the cgroup's CPU time and its cgroup version (None: not counted).
    cpu_usage: tuple[Path, int] | None = None
    _cpu_fd: int | None = None

    def cpu_seconds(self) -> float | None:
        """CPU seconds the whole cgroup has used so far; None where it is not counted.

        One `pread` of a file kept open (about half a microsecond): it is read only when
        an answer is slow (arena.players.process), never on the fast path of a decision.
        """
        if self.cpu_usage is None:
            return None
        path, version = self.cpu_usage
        try:
            if self._cpu_fd is None:
                self._cpu_fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            data = os.pread(self._cpu_fd, 64, 0)
            if version == 1:
                return int(data) / 1e9
            key, _, value = data.partition(b"\n")[0].partition(b" ")
            return int(value) / 1e6 if key == b"usage_usec" else None
        except (OSError, ValueError):
            return None

    @property
    def procs_files(self) -> tuple[str, ...]:
        """The files the bot's first process writes its pid into."""
        return tuple(str(path / "cgroup.procs") for path in self.dirs)

    def oom_killed(self) -> bool:
        """True when the kernel killed a process of this cgroup at the memory limit."""
        if self.memory is None:
            return False
        for name in ("memory.events", "memory.oom_control"):
            with contextlib.suppress(OSError):
                for line in (self.memory / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and value.strip() not in ("", "0"):
                        return True
        return False

    def peak_memory_bytes(self) -> int | None:
        """The most memory the cgroup has used so far (None: not known here)."""
        if self.memory is None:
            return None
        for name in ("memory.peak", "memory.max_usage_in_bytes"):  # cgroup v2 (Linux 5.19+), v1
            with contextlib.suppress(OSError, ValueError):
                return int((self.memory / name).read_text().strip())
        return None

    def exit_note(self) -> str:
        """The documented end of a bot killed at the memory limit, or ""."""
        if self.oom_killed():
            return f"killed at the memory limit ({self.memory_bytes // MIB} MiB)"
        return ""

    def remove(self) -> None:
        """Kill what is still inside and remove every directory. Idempotent."""
        if self._cpu_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._cpu_fd)
            self._cpu_fd = None
        for path in self.dirs:
            _kill_and_remove(path)


def cpu_quota_us(limits: Limits) -> int:
    """The CFS quota per CPU_PERIOD_US for `limits.cpu_percent` (the kernel's least is 1 ms)."""
    return max(1000, CPU_PERIOD_US * limits.cpu_percent // 100)


def _settings(name: str, version: int, limits: Limits) -> list[tuple[str, str, bool]]:
    """(file, value, required) to write for one controller; optional ones may be missing."""
    quota = cpu_quota_us(limits)
    memory = str(limits.memory_bytes)
    table: dict[tuple[str, int], list[tuple[str, str, bool]]] = {
        # No swap accounting on the machine: the memory+swap file is missing, nothing to cap.
        ("memory", 1): [
            ("memory.limit_in_bytes", memory, True),
            ("memory.memsw.limit_in_bytes", memory, False),
        ],
        ("memory", 2): [("memory.max", memory, True), ("memory.swap.max", "0", False)],
        ("cpu", 1): [
            ("cpu.cfs_period_us", str(CPU_PERIOD_US), True),
            ("cpu.cfs_quota_us", str(quota), True),
            ("cpu.shares", str(CPU_SHARES), False),
        ],
        ("cpu", 2): [
            ("cpu.max", f"{quota} {CPU_PERIOD_US}", True),
            ("cpu.weight", str(CPU_WEIGHT), False),
        ],
        ("pids", 1): [("pids.max", str(limits.processes), True)],
        ("pids", 2): [("pids.max", str(limits.processes), True)],
        ("cpuacct", 1): [],  # counts only
        ("cpuacct", 2): [],
    }
    return table[name, version]


_WARNED_UNCOUNTED = False


def _warn_uncounted(active: list[Controller]) -> None:
    """Say once per process that bots' answers are charged wall time here, and why."""
    global _WARNED_UNCOUNTED
    if _WARNED_UNCOUNTED or any(c.name == "cpuacct" for c in active):
        return
    _WARNED_UNCOUNTED = True
    (found,) = [c for c in controllers() if c.name == "cpuacct"]
    LOG.warning(
        "no CPU accounting for bots (%s): answers are charged wall time, so a bot may run "
        "out of time because other processes load the machine; see `arena doctor`",
        found.reason,
    )


def create(limits: Limits) -> BotCgroup | None:
    """A new cgroup with the bot's limits; None where the machine has none, OSError on failure."""
    active = [c for c in controllers() if c.path is not None]
    _warn_uncounted(active)
    if not active:
        return None
    name = f"arena-{os.getpid()}-{next(_COUNTER)}"
    made: dict[Path, Path] = {}
    try:
        for controller in active:
            assert controller.path is not None
            path = made.get(controller.path)
            if path is None:
                path = made[controller.path] = controller.path / name
                _make_fresh(path)
            for file, value, required in _settings(controller.name, controller.version, limits):
                try:
                    (path / file).write_text(value)
                except OSError:
                    if required:
                        raise
    except BaseException:
        BotCgroup(tuple(made.values()), None, 0).remove()
        raise
    memory = next((made[c.path] for c in active if c.name == "memory" and c.path), None)
    usage = next(
        (
            (made[c.path] / _CPU_USAGE[c.version], c.version)
            for c in active
            if c.name == "cpuacct" and c.path is not None
        ),
        None,
    )
    return BotCgroup(tuple(made.values()), memory, limits.memory_bytes, usage)


def _make_fresh(path: Path) -> None:
    """Make the cgroup `path`, named after this process; one there already is stale.

    This process never makes a name twice (the counter goes on, forked children have their
    own pid), and no other live process has its pid: the cgroup is a dead process's that had
    this pid before, which `_sweep` spares because the pid is alive again.
    """
    try:
        path.mkdir()
    except FileExistsError:
        _kill_and_remove(path)
        path.mkdir()


def _kill_and_remove(path: Path) -> None:
    """Kill every process in the cgroup until it is empty, then remove it.

    Normally the bot's processes are gone already (their PID namespace died first)
    and the first rmdir succeeds. Otherwise each process found is killed through a
    pidfd and its exit awaited on that pidfd (no sleeping), and the sweep repeats.
    """
    with contextlib.suppress(OSError):  # cgroup v2 on Linux 5.14+: the kernel kills them all
        (path / "cgroup.kill").write_text("1")
    killed: set[int] = set()
    for _attempt in range(200):
        try:
            path.rmdir()
            break
        except FileNotFoundError:
            break
        except OSError:
            pass  # still populated: kill what is inside, wait for it, try again
        try:
            pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
        except OSError:
            break  # already gone
        _kill_and_wait(pids)
        killed.update(pids)
    _reap_adopted(killed)


def _kill_and_wait(pids: list[int]) -> None:
    """SIGKILL each process and wait (0.5 s at most) until all have exited."""
    fds = []
    try:
        for pid in pids:
            try:
                fd = os.pidfd_open(pid)
            except OSError:
                continue  # exited already
            fds.append(fd)
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        deadline = time.monotonic() + 0.5
        waiting = len(fds)
        while waiting and (left := deadline - time.monotonic()) > 0:
            for fd, _event in poller.poll(int(left * 1000) + 1):
                poller.unregister(fd)
                waiting -= 1
    finally:
        for fd in fds:
            os.close(fd)


def _reap_adopted(pids: set[int]) -> None:
    """Reap the killed processes that were orphaned to arena (a subreaper once it ran bwrap).

    They have all exited (the cgroup is empty), so this never waits.
    """
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
