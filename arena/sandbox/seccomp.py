"""The seccomp filter bubblewrap loads into every sandbox (`bwrap --seccomp FD`).

Namespaces keep sandboxes apart, but every file they share read-only (the
system, a content-addressed bot folder that two seats both run) is the same
inode in each of them. A byte-range lock, a flock, a lease or an inotify watch
on such an inode is visible from another sandbox, which would let two bots of
one owner pass a hidden hand between seats. So those calls fail, as do the
kernel interfaces a bot never needs and that widen the attack surface (the
list follows Docker's default profile where it matters here).

Locks fail with ENOLCK so that a program that asks for one treats it as "no
locks available" and goes on; the rest fail with EPERM. The filter is built
with libseccomp (through `pyseccomp`) rather than written as raw BPF, so the
architecture check and the 32-bit-argument masking are libseccomp's.
"""

from __future__ import annotations

import errno
import functools
import os

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
)
#: preadv2/pwritev2 flag that fails instead of reading from disk: a page-cache probe.
RWF_NOWAIT = 0x8
_LOW_32 = 0xFFFFFFFF


class SeccompUnavailable(RuntimeError):
    """libseccomp (or the pyseccomp binding) is missing, so no filter can be built."""


@functools.cache
def program() -> bytes:
    """The filter as BPF bytes for `bwrap --seccomp` (built once per process)."""
    try:
        import pyseccomp as sc  # type: ignore[import-untyped]
    except (ImportError, OSError) as error:  # the binding loads libseccomp.so.2 on import
        raise SeccompUnavailable(f"libseccomp is not usable: {error}") from None
    rules = sc.SyscallFilter(sc.ALLOW)
    for command in LOCK_COMMANDS.values():
        # The kernel reads cmd as a 32-bit int: compare only those bits, so that
        # garbage in the upper half cannot slip past the rule.
        rules.add_rule(sc.ERRNO(errno.ENOLCK), "fcntl", sc.Arg(1, sc.MASKED_EQ, _LOW_32, command))
    for command in WATCH_COMMANDS.values():
        rules.add_rule(sc.ERRNO(errno.EPERM), "fcntl", sc.Arg(1, sc.MASKED_EQ, _LOW_32, command))
    for name in LOCK_CALLS:
        rules.add_rule(sc.ERRNO(errno.ENOLCK), name)
    for name in DENIED_CALLS:
        rules.add_rule(sc.ERRNO(errno.EPERM), name)
    for name in ("preadv2", "pwritev2"):
        flag = sc.Arg(5, sc.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT)
        rules.add_rule(sc.ERRNO(errno.EOPNOTSUPP), name, flag)
    fd = os.memfd_create("arena-seccomp")
    try:
        with os.fdopen(os.dup(fd), "wb") as sink:
            rules.export_bpf(sink)
        return os.pread(fd, 1 << 20, 0)
    finally:
        os.close(fd)


def status() -> tuple[bool, str]:
    """Whether the filter can be built here, with a one-line reason (for `arena doctor`)."""
    try:
        size = len(program())
    except SeccompUnavailable as error:
        return False, str(error)
    calls = len(DENIED_CALLS) + len(LOCK_CALLS) + len(LOCK_COMMANDS) + len(WATCH_COMMANDS)
    return True, (
        f"seccomp filter, {calls} calls refused ({size // 8} BPF instructions): file locks, "
        "leases, inotify/fanotify, keyrings, mounts and namespaces, ptrace, bpf, perf, "
        "io_uring, page-cache probes"
    )
