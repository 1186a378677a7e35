"""What confines bots on this machine, protection by protection (for `arena doctor`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from arena.sandbox import cgroup, uids
from arena.sandbox.bwrap import file_system, reachable, staging_base
from arena.sandbox.detection import protections
from arena.sandbox.limits import Limits
from arena.sandbox.runtimes import Runtime, RuntimeProblem, configured
from arena.sandbox.start import launch
from arena.sandbox.uids import SandboxError
from arena.sandbox.view import may_lock
from arena.submissions.manifest import BUILD_TIMEOUT_S


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _user_namespaces() -> tuple[bool, str]:
    most = _read("/proc/sys/user/max_user_namespaces")
    if most is not None and most == "0":
        return False, "user.max_user_namespaces is 0"
    if _read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
        return False, "kernel.unprivileged_userns_clone is 0"
    if _read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
        return False, "AppArmor restricts unprivileged user namespaces"
    return True, f"allowed (user.max_user_namespaces = {most})"


#: What is lost where the machine does not count a bot's CPU (doctor, the start of a run).
CPU_UNCOUNTED = (
    "answers are charged wall time: a bot may run out of time because other processes "
    "load the machine"
)
#: What each cgroup controller does for bots when active, and what is lost without it.
_CGROUP_EFFECT = {
    "memory": (
        "{memory} MiB (default) for a bot and all its processes; at the limit the kernel "
        "kills it: crash, 'killed at the memory limit ({memory} MiB)'",
        "memory is capped only by the address-space rlimit, per process",
    ),
    "cpu": (
        "{cpu}% of one core (default) for a bot and all its processes, whatever sessions "
        "or affinity they set (CFS quota {quota} us per {period} us, weighted as one process)",
        "no CPU share: a bot that starts many busy processes can make the bots beside it "
        "time out, in its match and in others on this machine",
    ),
    "pids": (
        "{processes} processes and threads (default) for a bot's whole tree (pids.max)",
        "processes are capped only by the per-uid rlimit, which does not hold root",
    ),
    "cpuacct": (
        "an answer is charged the CPU time of the bot's whole tree (or a third of its wall "
        "time if more): load from other processes does not run a bot out of time",
        CPU_UNCOUNTED,
    ),
}


def _cgroup_rows(limits: Limits) -> list[dict[str, Any]]:
    """One row per cgroup controller: what it enforces here, or why it is missing."""
    values = {
        "memory": limits.memory_bytes // 2**20,
        "cpu": limits.cpu_percent,
        "quota": cgroup.cpu_quota_us(limits),
        "period": cgroup.CPU_PERIOD_US,
        "processes": limits.processes,
    }
    rows = []
    for controller in cgroup.controllers():
        active, missing = _CGROUP_EFFECT[controller.name]
        if controller.path is not None:
            detail = f"{controller.reason}: {active.format(**values)}"
        else:
            detail = f"{controller.reason}: {missing}"
        rows.append(
            {
                "protection": f"cgroup {controller.name}",
                "active": controller.path is not None,
                "detail": detail,
            }
        )
    return rows


#: What keeps one sandbox's effect on the kernel out of the others' sight (issue 30).
_KERNEL_STATE = (
    "/proc/sys, /proc/pressure and /dev/pts are empty and read-only (no aio-nr, file-nr, "
    "pty/nr; no ptys); /proc stat, loadavg, uptime, meminfo, vmstat, interrupts, softirqs, "
    "diskstats, buddyinfo, zoneinfo, pagetypeinfo, locks, key-users and swaps are constant "
    "(meminfo: the memory limit, all free); AIO and mincore are absent, page-cache eviction "
    "(fadvise, madvise pageout/cold, readahead) and sync are ignored, sockets are AF_UNIX "
    "and AF_NETLINK only; a match sandbox sees only its view of the system, every page of "
    "it resident (system view, below)"
)


def _view_row(boxed: bool) -> dict[str, Any]:
    """What a match sandbox sees of the system, whether its pages are locked, and whether
    its folders are on a tmpfs (which keeps no negative dentries)."""
    if not boxed:
        return {
            "protection": "system view resident and locked",
            "active": False,
            "detail": "needs bubblewrap: bots see the whole system and its page cache",
        }
    locks, why = may_lock()
    base = staging_base(uids.runtime_dir())
    kind = file_system(base)
    seen = (
        "a match sandbox sees /etc, /bin/sh and its program's files (ELF closure, an "
        "interpreter's library trees, its runtime), not the rest of the system; each file "
        "is read before any sandbox of the process sees it"
    )
    if kind == "tmpfs":
        folders = (
            f"; every folder of it is a copy on the tmpfs {base} (only files over 4 MiB are "
            "bound from the host), and tmpfs keeps no negative dentries: a missing name "
            "looked up leaves nothing another sandbox can time"
        )
    else:
        folders = (
            f"; its folders are copies in {base}, on {kind or 'an unknown file system'}, "
            "which may remember each missing name looked up in them (negative dentries, "
            "about 600-1000 bit/s between sandboxes): make /dev/shm a tmpfs"
        )
    if locks:
        detail = f"{seen}, and locked in memory ({why}): no page of it is ever cold{folders}"
    else:
        detail = (
            f"{seen}, but not locked ({why}): under host memory pressure pages may go cold "
            "again, and their first read then carries one bit (give arena CAP_IPC_LOCK or "
            f"a RLIMIT_MEMLOCK of 1 GiB){folders}"
        )
    active = locks and kind == "tmpfs"
    return {"protection": "system view resident and locked", "active": active, "detail": detail}


#: Channels between sandboxes that remain open, as scripts/bench_kernel_channels.py
#: measured them (2-core VM, load average 9-13 from other work; see README "Security").
RESIDUAL_CHANNELS = (
    {
        "channel": "sysinfo(2) machine-wide thread count",
        "measured": "about 21 bit/s at 14 % errors (20 ms slots); nothing at 5 ms slots",
        "why open": "glibc's sysconf(_SC_PHYS_PAGES) reads garbage when sysinfo fails",
    },
    {
        "channel": "CPU contention",
        "measured": "under 1 bit/s (39 % errors, 100 ms slots)",
        "why open": "bots share the machine's cores (each capped at one core by its cgroup)",
    },
    {
        "channel": "negative dentries (timing lookups of missing names)",
        "measured": "0.0-0.2 bit/s at 46-53 % errors (noise) through the view's folders, "
        "against 426-536 bit/s at 0.5-3.5 % errors with the host's folders",
        "why open": "closed where the view root is a tmpfs (system view, above), which keeps "
        "no negative dentries; open at the host's rate if it is not",
    },
    {
        "channel": "first touch of pages of the view after host memory pressure",
        "measured": "0.3 bit/s (45 % errors: noise) through the view, against 570-640 bit/s "
        "at 1.5 % errors with the whole system shown; without the lock, a page reclaimed "
        "under memory pressure carries one bit once",
        "why open": "pages may be locked only with CAP_IPC_LOCK or a large RLIMIT_MEMLOCK",
    },
)


def report() -> list[dict[str, Any]]:
    """One row per protection: name, active, detail."""
    found = protections()
    boxed = found.bwrap is not None
    userns, userns_detail = _user_namespaces()
    limits = Limits()
    rows = [
        {"protection": "bubblewrap", "active": boxed, "detail": found.bwrap_reason},
        {"protection": "user namespaces", "active": userns, "detail": userns_detail},
    ]
    if found.drop_uid:
        detail = f"{found.uid_reason}; slot locks in {uids.runtime_dir() / 'uids'}"
        if not boxed:
            detail = "off without bubblewrap: bots run as root (RLIMIT_NPROC does not hold root)"
        rows.append({"protection": "uid per bot", "active": boxed, "detail": detail})
    else:
        rows.append({"protection": "uid per bot", "active": False, "detail": found.uid_reason})
    rows += [
        {
            "protection": "no network; own PID/IPC/UTS namespaces; read-only system",
            "active": boxed,
            "detail": "bubblewrap namespaces" if boxed else "needs bubblewrap",
        },
        {
            "protection": "seccomp filter",
            "active": found.seccomp,
            "detail": found.seccomp_reason,
        },
        {
            "protection": "no channel through machine-wide kernel state",
            "active": boxed and found.seccomp,
            "detail": _KERNEL_STATE if boxed and found.seccomp else "needs bubblewrap and seccomp",
        },
        _view_row(boxed),
        {
            "protection": "bot builds sandboxed",
            "active": boxed,
            "detail": (
                "a bot's build step runs in its sandbox on a scratch copy of its folder "
                f"({BUILD_TIMEOUT_S} s, no network, new regular files only; it sees the whole "
                "system, compilers included, and plays no match)"
                if boxed
                else "needs bubblewrap: a build runs with rlimits and the cgroup only"
            ),
        },
        {
            "protection": "private /tmp and /dev/shm",
            "active": boxed,
            "detail": f"tmpfs of {limits.tmp_bytes // 2**20} MiB each"
            if boxed
            else "needs bubblewrap: bots share the host's /tmp",
        },
        *_cgroup_rows(limits),
        {
            "protection": "rlimits",
            "active": True,
            "detail": (
                f"cpu {limits.cpu_seconds} s, {limits.processes} processes, "
                f"files {limits.file_size_bytes // 2**20} MiB, {limits.open_files} open files, "
                f"address space {limits.address_space_bytes // 2**30} GiB (defaults)"
            ),
        },
        {
            "protection": "clean environment, new session, process-group kill",
            "active": True,
            "detail": "always",
        },
    ]
    return rows


def summary() -> dict[str, Any]:
    """The report plus the machine facts it rests on (for --json)."""
    return {
        "euid": os.geteuid(),
        "sandboxed": protections().bwrap is not None,
        "protections": report(),
        "residual_channels": [dict(row) for row in RESIDUAL_CHANNELS],
    }


# ----- the runtimes, as `arena doctor` checks them --------------------------------------
def _blocker(folder: Path, uid: int) -> str | None:
    """Why `uid` cannot read `folder` (the first folder on the way it cannot pass), or None."""
    if reachable(folder, uid):
        return None
    for parent in [*reversed(folder.parents), folder]:
        if not reachable(parent, uid):
            mode = f"{parent.stat().st_mode & 0o777:o}" if parent.exists() else "missing"
            return (
                f"{parent} ({mode}) is closed to the bots' uids: chmod o+x a folder above the "
                "toolchain (o+rx the toolchain's own), or install it elsewhere (/opt)"
            )
    return f"{folder} is not readable by the bots' uids"


def _runs(runtime: Runtime) -> tuple[bool, str]:
    """Run the runtime's check inside a sandbox: (exit 0, its first output line)."""
    if not runtime.check:
        return True, "no check command configured"
    probe = uids.runtime_dir() / "probe"  # an empty folder the bot's uid may read
    probe.mkdir(mode=0o755, exist_ok=True)
    try:
        box = launch(list(runtime.check), probe, Limits(), runtime=runtime)
    except SandboxError as error:
        return False, str(error)
    try:
        out, err = box.process.communicate(timeout=60)
    except Exception:  # a hanging check: killed below
        return False, f"{' '.join(runtime.check)} did not finish in 60 s"
    finally:
        box.kill()
    said = (out + err).decode("utf-8", "replace").strip().splitlines()
    first = said[0] if said else ""
    code = box.process.returncode
    return code == 0, f"{' '.join(runtime.check)}: {first}" + (
        "" if code == 0 else f" (exit {code})"
    )


def runtime_rows() -> list[dict[str, object]]:
    """One row per configured runtime: its folders exist, the bots' uids can read them,
    and its check command runs inside the sandbox (here, above arena.sandbox.start,
    since starting a sandbox uses the runtimes)."""
    try:
        found = configured()
    except RuntimeProblem as error:
        return [{"runtime": "(file)", "ok": False, "detail": str(error)}]
    uid = uids.uid_range()[0] if os.geteuid() == 0 else os.geteuid()
    rows: list[dict[str, object]] = []
    for name, runtime in sorted(found.items()):
        missing = [f for f in runtime.folders if not Path(f).is_dir()]
        closed = [] if missing else [_blocker(Path(f), uid) for f in runtime.folders]
        if missing:
            ok, detail = False, f"missing folder {missing[0]}"
        elif any(closed):
            ok, detail = False, next(b for b in closed if b)
        else:
            ok, detail = _runs(runtime)
        rows.append(
            {"runtime": name, "ok": ok, "folders": " ".join(runtime.folders), "detail": detail}
        )
    return rows
