"""The bubblewrap command line that confines a bot, and what the sandbox can see.

Inside a match sandbox a bot sees its view of the system read-only (/etc, /bin/sh,
its program and what that needs: `arena.sandbox.view`, every page of it resident and
locked before the sandbox starts, so that the page cache carries nothing between
sandboxes), its own folder read-only at /bot (its working directory and HOME), a fresh
/proc and /dev, and two private size-capped tmpfs, /tmp and /dev/shm, the only places
it can write; the root itself is read-only. Every folder it can look a name up in is
on a tmpfs, which keeps no negative dentries (a missing name looked up leaves nothing
that another sandbox could time): the view's folders, /bot and /arena/python are copies
on the tmpfs of the staged copies, /, /tmp, /dev/shm and /dev (with the host's device
nodes, files) are the sandbox's own, /proc is the proc instance of its own PID
namespace; only files are bound from the host. A build sees the whole system instead
(`system_binds`: /usr, /etc and the /bin, /lib links), compilers included: it plays
no match. It has no network, its own PID, IPC and
UTS namespaces, a seccomp filter (`arena.sandbox.seccomp`), no view of the
arena home, the database, other bots' folders, the platform's environment or
open files (only 0, 1 and 2 are open), and it starts in a new session.

arena's referees are there too, read-only at /arena/python (PYTHONPATH): a copy
of `arena/__init__.py` and `arena/games` only (`arena.sandbox.pythonpath`).

What one sandbox does to machine-wide kernel state must not be readable from
another (issue 30): /proc/sys (aio-nr, file-nr, pty/nr, ...) and /proc/pressure
are empty read-only folders, /dev/pts is an empty read-only folder (no pty, so
no /proc/sys/kernel/pty/nr to count them), and the global statistics of /proc
(stat, loadavg, meminfo, vmstat, interrupts, ...) are constant files
(`ProcFiles`, as LXCFS does): meminfo says the machine has the bot's memory
limit, all free; counters are 0. The seccomp filter does the rest.

No host path reaches the bot: its folder is always a staged copy on a tmpfs
(so /proc/self/mountinfo names only that copy, relative to the tmpfs), its
argv names /bot, and bubblewrap reads its options from a pipe (`--args`), so
/proc/1/cmdline (bubblewrap itself) shows none of the bind sources.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.sandbox.limits import Limits

if TYPE_CHECKING:
    from arena.submissions.botfiles import BotFile

#: Reads a stored version's folder once and returns its files if they are exactly what
#: was checked at submission; SandboxError if not (arena.match.run gives it, from
#: arena.submissions.manifest).
VerifiedRead = Callable[[], "dict[tuple[str, ...], BotFile]"]

#: Directories bound read-only at the same path when they exist (links stay links).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
#: PATH inside the sandbox (also where an interpreter hidden from the bot's uid is looked up).
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
#: Where the bot's folder is mounted inside the sandbox (its cwd and HOME).
BOT_DIR = "/bot"
#: What the start marker writes to stderr once the sandbox is set up, just before the bot runs.
READY_MARKER = b"arena: sandbox ready\n"
#: The namespace and hardening flags shared by every sandbox and by the probe.
BASE_FLAGS = (
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
    "--unshare-cgroup-try",
    "--disable-userns",
    "--hostname",
    "arena",
    "--die-with-parent",
    "--new-session",
)


def system_binds() -> list[str]:
    """bwrap arguments for the read-only system."""
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


def options(
    source: Path,
    limits: Limits,
    extra_binds: list[str],
    status_fd: int,
    seccomp_fd: int | None,
    writable: bool = False,
    masks: list[str] | None = None,
    system: list[str] | None = None,
) -> list[str]:
    """bubblewrap's options (given through `--args`): namespaces, mounts, status, filter.

    `source` is what is mounted at /bot: the staged copy of the bot's folder,
    or (`writable`, for a build step) a scratch copy the sandbox may change.
    `masks` go over the fresh /proc and /dev (`ProcFiles.args`). `system` is what the
    sandbox sees of the system (a match sandbox's view, `arena.sandbox.view`); by
    default all of it (`system_binds`). The root itself is read-only.
    """
    tmp = str(limits.tmp_bytes)
    filter_args = ["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []
    return [
        *BASE_FLAGS,
        *(system_binds() if system is None else system),
        *extra_binds,
        *["--proc", "/proc", "--dev", "/dev"],
        *(masks or []),
        *["--size", tmp, "--tmpfs", "/tmp", "--size", tmp, "--tmpfs", "/dev/shm"],
        *["--bind" if writable else "--ro-bind", str(source), BOT_DIR, "--chdir", BOT_DIR],
        *["--remount-ro", "/"],
        *["--json-status-fd", str(status_fd)],
        *filter_args,
    ]


def command_line(bwrap: str, argv: list[str], args_fd: int) -> list[str]:
    """The argv: bwrap reading its options from `args_fd`, a start marker, the bot's command.

    `/bin/sh` writes READY_MARKER to stderr once the sandbox is set up and then
    execs the bot, so a failure before the marker is the platform's, after it
    the bot's. The marker needs no extra descriptor, so the bot inherits none.
    """
    marker = READY_MARKER.decode().replace("\n", "\\n")
    return [
        bwrap,
        *["--args", str(args_fd), "--"],
        *["/bin/sh", "-c", f"printf '{marker}' >&2 && {FIND_PROGRAM} && exec \"$@\"", "arena"],
        *argv,
    ]


#: Before the exec: a program that is missing or not executable is said in plain words
#: (the shell's own message would be `arena-bot: 1: exec: cargo: not found`).
FIND_PROGRAM = (
    '{ command -v -- "$1" >/dev/null || {'
    ' printf \'arena: no program %s in the sandbox (PATH=%s)\\n\' "$1" "$PATH" >&2; exit 127; }; }'
    ' && { case $1 in */*) [ -x "$1" ] && [ -f "$1" ]'
    " || { printf 'arena: %s is not an executable file\\n' \"$1\" >&2; exit 126; };; esac; }"
)


def inside(argv: list[str], folder: Path) -> list[str]:
    """`argv` with every path into the bot's folder rewritten to its mount point, /bot."""
    root = str(folder)
    return [
        BOT_DIR + arg[len(root) :] if arg == root or arg.startswith(root + "/") else arg
        for arg in argv
    ]


# ----- machine-wide kernel state, out of sight ---------------------------------------
#: Folders replaced by an empty read-only tmpfs: every sysctl (aio-nr, file-nr, inode-nr,
#: dentry-state, pty/nr, ...), pressure stall figures, and the pty devices.
EMPTY_DIRS = ("/proc/sys", "/proc/pressure", "/dev/pts")
#: Global /proc files (not per namespace) that count what any process on the machine
#: does: a bot could change them and another sandbox read them back. Each is replaced by
#: a constant file; "zeroed" keeps the real layout with every number 0.
CONSTANT_PROC = {
    "stat": "zeroed",
    "vmstat": "zeroed",
    "softirqs": "zeroed",
    "loadavg": "0.00 0.00 0.00 1/1 1\n",
    "uptime": "1000.00 0.00\n",
    "interrupts": "header",
    "swaps": "header",
    "schedstat": "",
    "diskstats": "",
    "buddyinfo": "",
    "zoneinfo": "",
    "pagetypeinfo": "",
    "locks": "",
    "key-users": "",
}
_NUMBER = re.compile(r"\b\d+\b")


def constant_text(name: str, real: str) -> str:
    """What the sandbox reads as /proc/`name`, made from the real file's text."""
    kind = CONSTANT_PROC[name]
    if kind == "header":
        return real.splitlines(keepends=True)[0] if real else ""
    if kind != "zeroed":
        return kind
    lines = []
    for line in real.splitlines(keepends=True):
        if line.startswith("btime"):  # the boot time is constant, and programs need it
            lines.append(line)
        elif line.startswith("procs_running"):
            lines.append("procs_running 1\n")
        else:
            lines.append(_NUMBER.sub("0", line))
    return "".join(lines)


def meminfo_text(real: str, memory_bytes: int) -> str:
    """/proc/meminfo of a machine that has the bot's memory limit, all of it free."""
    total = memory_bytes // 1024
    keep = {"MemTotal": total, "MemFree": total, "MemAvailable": total, "CommitLimit": total}
    lines = []
    for line in real.splitlines():
        key, _, rest = line.partition(":")
        if key == "Hugepagesize":
            lines.append(line)  # a constant of the kernel, which allocators ask for
        elif rest.strip().endswith("kB"):
            lines.append(f"{key}:{keep.get(key, 0):>16} kB")
        else:
            lines.append(f"{key}:{0:>16}")
    return "\n".join(lines) + "\n"


class ProcFiles:
    """The constant /proc files every sandbox of this process sees, written once under `root`.

    `root` must be readable by the bots' uids (it lives beside the staged copies).
    """

    def __init__(self, root: Path):
        """Files go into `root` (made on first use; `remove` takes it away)."""
        self.root = root
        self.owner = os.getpid()
        self._lock = threading.Lock()
        self._written: set[str] = set()

    def args(self, limits: Limits) -> list[str]:
        """bwrap arguments, after --proc and --dev: empty folders, then the constant files."""
        args: list[str] = []
        for folder in EMPTY_DIRS:
            if folder.startswith("/dev/") or os.path.isdir(folder):
                args += ["--perms", "0555", "--size", "4096", "--tmpfs", folder]
                args += ["--remount-ro", folder]
        for name in CONSTANT_PROC:
            if os.path.exists(f"/proc/{name}"):  # a bind needs a file to go over
                args += ["--ro-bind", str(self._file(name, lambda r, n=name: constant_text(n, r)))]
                args.append(f"/proc/{name}")
        meminfo = self._file(
            f"meminfo-{limits.memory_bytes}",
            lambda r: meminfo_text(r, limits.memory_bytes),
            "meminfo",
        )
        return [*args, "--ro-bind", str(meminfo), "/proc/meminfo"]

    def _file(self, name: str, make: Any, source: str | None = None) -> Path:
        """Path of the constant file `name`, written from the real /proc/`source` (once)."""
        path = self.root / name
        with self._lock:
            if name not in self._written:
                self.root.mkdir(mode=0o755, parents=True, exist_ok=True)
                real = Path(f"/proc/{source or name}").read_text()
                path.write_text(make(real))
                path.chmod(0o444)
                self._written.add(name)
        return path

    def remove(self) -> None:
        """Delete the files (at process exit)."""
        if os.getpid() == self.owner:
            shutil.rmtree(self.root, ignore_errors=True)


# ----- what the bot's uid can reach --------------------------------------------
def reachable(path: Path, uid: int) -> bool:
    """True when `uid` (not root, no groups) can traverse to `path` and read it."""
    if uid == os.geteuid():
        return True
    current = Path("/")
    for part in path.parts[1:]:
        mode = current.stat()
        if not _allows(mode, uid, stat.S_IXOTH, stat.S_IXUSR):
            return False
        current = current / part
    try:
        final = path.stat()
    except OSError:
        return False
    return _allows(final, uid, stat.S_IROTH, stat.S_IRUSR)


def _allows(info: os.stat_result, uid: int, other: int, owner: int) -> bool:
    wanted = owner if info.st_uid == uid else other
    return info.st_mode & wanted == wanted


def under(path: str, roots: tuple[str, ...]) -> bool:
    """True when `path` is one of `roots` or lies below one."""
    return any(path == root or path.startswith(root + "/") for root in roots)


def toolchain(argv: list[str], folder: Path, uid: int) -> tuple[list[str], list[str]]:
    """The argv to run inside and extra read-only binds for its program.

    A program in the bot folder or the system needs nothing. A program elsewhere
    (a Python under ~/.pyenv, a JDK under /opt) has its installation prefix bound
    read-only when the bot's uid can read it; otherwise the same program name is
    looked up on the sandbox PATH (e.g. /usr/bin/python3 instead of root's pyenv).
    """
    program = argv[0]
    if not program.startswith("/"):
        return argv, []
    real = os.path.realpath(program)
    if under(program, (str(folder),)) or (under(program, SYSTEM_DIRS) and under(real, SYSTEM_DIRS)):
        return argv, []
    home = Path(real).parent
    prefix = home.parent if home.name == "bin" else home
    if reachable(prefix, uid) and reachable(Path(program).parent, uid):
        binds = ["--ro-bind", str(prefix), str(prefix)]
        if not under(program, (str(prefix),)):
            binds += ["--ro-bind", program, program]
        return argv, binds
    for name in (os.path.basename(program), os.path.basename(real)):
        found = shutil.which(name, path=SANDBOX_PATH)
        if found is not None:
            return [found, *argv[1:]], []
    return argv, []  # the bot will fail to start: its command is not available here


# ----- staged copies of bot folders ---------------------------------------------------
def staging_base(fallback: Path) -> Path:
    """Where staged copies go: a private folder on /dev/shm when that is a tmpfs, else `fallback`.

    On a tmpfs of its own, a copy's bind mount shows in the bot's mountinfo only
    as a path inside that tmpfs, which says nothing about the host's layout.
    """
    if mount_type("/dev/shm") != "tmpfs":
        return fallback
    base = Path("/dev/shm") / f"arena-{os.geteuid()}"
    with contextlib.suppress(FileExistsError):
        base.mkdir(mode=0o711)
    info = os.lstat(base)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        return fallback  # someone else's (or a link planted by another user): not ours to use
    os.chmod(base, 0o711)
    return base


def mount_type(point: str) -> str | None:
    """The file-system type mounted exactly at `point`, from /proc/self/mountinfo."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            fields = line.split()
            if len(fields) > 4 and fields[4] == point and " - " in line:
                return line.split(" - ", 1)[1].split()[0]
    return None


def file_system(path: Path) -> str | None:
    """The type of the file system that holds `path` (the deepest mount above it)."""
    real, best, found = os.path.realpath(path), "", None
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            fields = line.split()
            point = fields[4] if len(fields) > 4 and " - " in line else None
            inside = point is not None and (point == "/" or under(real, (point,)))
            if point is not None and inside and len(point) >= len(best):
                best, found = point, line.split(" - ", 1)[1].split()[0]
    return found


def sweep(base: Path, prefix: str) -> None:
    """Remove what arena processes that were killed left in `base`: `prefix` + their pid."""
    for stale in base.glob(prefix + "*"):
        with contextlib.suppress(ValueError):
            if not Path(f"/proc/{int(stale.name[len(prefix) :])}").exists():
                shutil.rmtree(stale, ignore_errors=True)


class Staging:
    """Read-only copies of bot folders, one per folder, shared by the bots running it.

    Every bot runs from a copy (like IOI isolate's box), never from its folder:
    a stored bot under /root/.local/share/arena cannot be bound by bubblewrap
    running as an unprivileged uid, and a copy on a tmpfs keeps host paths out
    of the sandbox. The copy is made readable (never writable) by every uid and
    is reference-counted: the last bot of a folder removes it.
    """

    def __init__(self, base: Path):
        """Copies go under `base` (mode 0711, owned by this user)."""
        self.base = base / f"stage-{os.getpid()}"
        self._lock = threading.Lock()
        self._users: dict[Path, int] = {}
        sweep(base, "stage-")

    def acquire(self, folder: Path, verified: VerifiedRead | None = None) -> Path:
        """The path to mount at /bot for `folder`: its staged copy (made on first use).

        For a stored version, `verified` reads the folder once and checks it is the
        bytes checked at its submission; the copy is written from that reading
        (`stage_version`), so nothing can change in between. SandboxError if it is not.
        """
        key = hashlib.sha256(str(folder).encode()).hexdigest()[:16]
        target = self.base / key
        with self._lock:
            if self._users.get(target, 0) == 0:
                self.base.mkdir(mode=0o711, parents=True, exist_ok=True)
                with contextlib.suppress(FileNotFoundError):
                    shutil.rmtree(target)
                if verified is None:
                    shutil.copytree(folder, target, symlinks=True)
                else:
                    stage_version(verified, target)
                open_up(target)
            self._users[target] = self._users.get(target, 0) + 1
        return target

    def release(self, source: Path) -> None:
        """Forget one user of a staged copy; the last one removes it."""
        with self._lock:
            if source not in self._users:
                return
            self._users[source] -= 1
            if self._users[source] == 0:
                del self._users[source]
                shutil.rmtree(source, ignore_errors=True)
                with contextlib.suppress(OSError):
                    self.base.rmdir()


def stage_version(verified: VerifiedRead, target: Path) -> None:
    """Write a stored version to `target` from `verified`'s one checked reading of it.

    `verified` (given by the caller that knows versions: arena.match.run, through
    `arena.sandbox.spawn.expect_version`) raises SandboxError when the folder differs from
    its submission: the match is void and the bot not run.
    """
    from arena.submissions import botfiles

    botfiles.write_folder(verified(), target)


def open_up(root: Path) -> None:
    """Make a staged copy readable (never writable) by others."""
    for directory, _dirs, files in os.walk(root):
        os.chmod(directory, 0o755)
        for name in files:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                mode = os.stat(path).st_mode
                os.chmod(path, 0o755 if mode & stat.S_IXUSR else 0o644)
