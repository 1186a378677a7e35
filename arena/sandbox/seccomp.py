"""The seccomp filter bubblewrap loads into every sandbox (`bwrap --seccomp FD`).

Namespaces keep sandboxes apart, but every file they share read-only (the
system, a content-addressed bot folder that two seats both run) is the same
inode in each of them. A byte-range lock, a flock, a lease or an inotify watch
on such an inode is visible from another sandbox, which would let two bots of
one owner pass a hidden hand between seats. So those calls fail, as do the
kernel interfaces a bot never needs and that widen the attack surface (the
list follows Docker's default profile where it matters here).

Machine-wide kernel state a bot could change and another sandbox read back is
out of reach too (issue 30): the AIO contexts counted in /proc/sys/fs/aio-nr
fail with ENOSYS (as on a kernel without AIO, so libaio users fall back), page
cache hints that evict or reclaim a shared file's pages (fadvise, readahead,
madvise MADV_COLD/MADV_PAGEOUT) and the calls that make the host flush its
disks (sync, syncfs, sync_file_range) succeed without doing anything, mincore
(which, with fault-around, shows which pages of a shared file are cached) fails
with ENOSYS, and sockets exist only for the families a bot can use: AF_UNIX and
AF_NETLINK (its own empty network namespace). TCP and UDP would add to the
kernel's global socket-memory counters (/proc/net/sockstat), and there is no
network to reach: they fail with EAFNOSUPPORT, as does AF_VSOCK (the host).

Locks fail with ENOLCK so that a program that asks for one treats it as "no
locks available" and goes on; the rest fail with EPERM. The filter is built
with libseccomp (through `pyseccomp`) rather than written as raw BPF, so the
architecture check and the 32-bit-argument masking are libseccomp's.
"""

from __future__ import annotations

import errno
import functools
import os
from typing import Any

from arena import ArenaError

#: fcntl commands that take, test or watch something on an inode another sandbox can see.
LOCK_COMMANDS = {
    "F_GETLK": 5,
    "F_SETLK": 6,
    "F_SETLKW": 7,
    "F_OFD_GETLK": 36,
    "F_OFD_SETLK": 37,
    "F_OFD_SETLKW": 38,
}
WATCH_COMMANDS = {"F_SETLEASE": 1024, "F_GETLEASE": 1025, "F_NOTIFY": 1026}
#: Whole system calls that fail with ENOLCK.
LOCK_CALLS = ("flock",)
#: Whole system calls that fail with EPERM: cross-sandbox watches, kernel keyrings,
#: kernel-wide or privileged interfaces, new namespaces and mounts, page-cache probes.
DENIED_CALLS = (
    # file watches: an open or read of a shared file is an event in another sandbox
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "fanotify_init",
    "fanotify_mark",
    # kernel keyrings are shared by uid, not by namespace
    "keyctl",
    "add_key",
    "request_key",
    # debugging, profiling and kernel programs
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "perf_event_open",
    "bpf",
    "userfaultfd",
    "kcmp",
    # namespaces and mounts (bubblewrap has set them up already)
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "name_to_handle_at",
    "open_by_handle_at",
    # the machine itself
    "reboot",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "quotactl_fd",
    "syslog",
    "iopl",
    "ioperm",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "vhangup",
    "lookup_dcookie",
    "nfsservctl",
    # io_uring runs reads (incl. non-blocking page-cache probes) past this filter
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    # page-cache residency of a shared file tells what another sandbox read
    "cachestat",
    # madvise on another process's memory (its own would reach MADV_PAGEOUT below)
    "process_madvise",
)
#: Calls that fail with ENOSYS, as where the kernel lacks them, so that callers fall back.
ABSENT_CALLS = (
    # AIO contexts are counted machine-wide in /proc/sys/fs/aio-nr
    "io_setup",
    "io_destroy",
    "io_submit",
    "io_cancel",
    "io_getevents",
    "io_pgetevents",
    # with fault-around, which pages of a shared file are mapped tells which are cached
    "mincore",
)
#: Hints that succeed without doing anything: evicting a shared file's pages (a signal to
#: another sandbox, and the host's cache emptied) or flushing the host's disks.
IGNORED_CALLS = ("fadvise64", "fadvise64_64", "readahead", "sync", "syncfs", "sync_file_range")
#: madvise advice that reclaims pages, a shared file's included (MADV_COLD, MADV_PAGEOUT).
IGNORED_ADVICE = {"MADV_COLD": 20, "MADV_PAGEOUT": 21}
#: The address families socket() and socketpair() accept (AF_UNIX, AF_NETLINK).
SOCKET_FAMILIES = (1, 16)
#: Families are below this (AF_MAX is 46 in Linux 6.x); anything above is refused too.
_FAMILY_LIMIT = 64
#: preadv2/pwritev2 flag that fails instead of reading from disk: a page-cache probe.
RWF_NOWAIT = 0x8
_LOW_32 = 0xFFFFFFFF


class SeccompUnavailable(ArenaError, RuntimeError):
    """libseccomp (or the pyseccomp binding) is missing, so no filter can be built."""

    exit_code = 1


@functools.cache
def program(build: bool = False) -> bytes:
    """The filter as BPF bytes for `bwrap --seccomp` (built once per process and profile).

    `build` is the profile of a build step: the same filter, but file locks work
    (cargo and go lock their caches and output folders). A build plays in no match,
    and every seat's filter refuses every lock call, test included (F_GETLK, flock)
    while /proc/locks is a constant file: a seat can neither take nor see a lock, so
    a lock a build holds, even on a shared system file, tells a seat nothing.
    """
    try:
        import pyseccomp as sc  # type: ignore[import-untyped]
    except (ImportError, OSError) as error:  # the binding loads libseccomp.so.2 on import
        raise SeccompUnavailable(f"libseccomp is not usable: {error}") from None
    rules = sc.SyscallFilter(sc.ALLOW)
    for command in () if build else LOCK_COMMANDS.values():
        # The kernel reads cmd as a 32-bit int: compare only those bits, so that
        # garbage in the upper half cannot slip past the rule.
        rules.add_rule(sc.ERRNO(errno.ENOLCK), "fcntl", sc.Arg(1, sc.MASKED_EQ, _LOW_32, command))
    for command in WATCH_COMMANDS.values():
        rules.add_rule(sc.ERRNO(errno.EPERM), "fcntl", sc.Arg(1, sc.MASKED_EQ, _LOW_32, command))
    for name in () if build else LOCK_CALLS:
        rules.add_rule(sc.ERRNO(errno.ENOLCK), name)
    for name in DENIED_CALLS:
        rules.add_rule(sc.ERRNO(errno.EPERM), name)
    for name in ("preadv2", "pwritev2"):
        flag = sc.Arg(5, sc.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT)
        rules.add_rule(sc.ERRNO(errno.EOPNOTSUPP), name, flag)
    add_machine_wide(sc, rules)
    fd = os.memfd_create("arena-seccomp")
    try:
        with os.fdopen(os.dup(fd), "wb") as sink:
            rules.export_bpf(sink)
        return os.pread(fd, 1 << 20, 0)
    finally:
        os.close(fd)


def add_machine_wide(sc: Any, rules: Any) -> None:
    """The rules that keep machine-wide state (AIO, page cache, disks, sockets) out of reach.

    Separate so that scripts/bench_kernel_channels.py can leave them out, to measure
    what they close.
    """
    for name in ABSENT_CALLS:
        rules.add_rule(sc.ERRNO(errno.ENOSYS), name)
    for name in IGNORED_CALLS:
        rules.add_rule(sc.ERRNO(0), name)  # "errno 0": the call returns 0, untouched
    for advice in IGNORED_ADVICE.values():
        rules.add_rule(sc.ERRNO(0), "madvise", sc.Arg(2, sc.MASKED_EQ, _LOW_32, advice))
    for name in ("socket", "socketpair"):
        refuse = sc.ERRNO(errno.EAFNOSUPPORT)
        for family in range(_FAMILY_LIMIT):
            if family not in SOCKET_FAMILIES:
                rules.add_rule(refuse, name, sc.Arg(0, sc.MASKED_EQ, _LOW_32, family))
        # Upper bits set, or a family past the table: refused whatever the kernel would do.
        rules.add_rule(refuse, name, sc.Arg(0, sc.GE, _FAMILY_LIMIT))


def status() -> tuple[bool, str]:
    """Whether the filter can be built here, with a one-line reason (for `arena doctor`)."""
    try:
        size = len(program())
    except SeccompUnavailable as error:
        return False, str(error)
    calls = len(DENIED_CALLS) + len(LOCK_CALLS) + len(LOCK_COMMANDS) + len(WATCH_COMMANDS)
    calls += len(ABSENT_CALLS) + len(IGNORED_CALLS) + len(IGNORED_ADVICE)
    return True, (
        f"seccomp filter, {calls} calls refused or ignored ({size // 8} BPF instructions): "
        "file locks, leases, inotify/fanotify, keyrings, mounts and namespaces, ptrace, bpf, "
        "perf, io_uring, AIO, page-cache probes and eviction (mincore, cachestat, fadvise, "
        "madvise pageout), sync; sockets only AF_UNIX and AF_NETLINK"
    )
