"""Run inside a sandbox (x86_64): try each call the seccomp filter should refuse, print JSON.

Each entry is the errno name the call failed with, or "ok". Lock and watch calls
are made on the bot's own (shared) folder, as a colluding bot would.
"""

import ctypes
import errno
import fcntl
import json
import os
import struct

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
FILE = os.open("/bot/bot.toml", os.O_RDONLY)
LOCK = ctypes.create_string_buffer(struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0, 1, 0), 32)
BUFFER = ctypes.create_string_buffer(64)
IOVEC = struct.pack("QQ", ctypes.addressof(BUFFER), 64)
IOV = ctypes.create_string_buffer(IOVEC, len(IOVEC))
RWF_NOWAIT = 8
AIO_CONTEXT = ctypes.create_string_buffer(8)
PAIR = ctypes.create_string_buffer(8)

#: name -> (x86_64 syscall number, arguments)
CALLS = {
    "fcntl F_SETLK": (72, FILE, 6, LOCK),
    "fcntl F_SETLK, upper bits set": (72, FILE, 6 | (1 << 32), LOCK),
    "fcntl F_GETLK": (72, FILE, 5, LOCK),
    "fcntl F_OFD_SETLK": (72, FILE, 37, LOCK),
    "fcntl F_SETLEASE": (72, FILE, 1024, 0),
    "fcntl F_NOTIFY": (72, FILE, 1026, 0),
    "fcntl F_GETFL": (72, FILE, 3, 0),
    "flock": (73, FILE, fcntl.LOCK_SH),
    "inotify_init1": (294, 0),
    "fanotify_init": (300, 0, 0),
    "keyctl": (250, 0, -3, 0),  # KEYCTL_GET_KEYRING_ID of the session keyring
    "add_key": (248, b"user", b"hand", b"x", 1, -3),
    "perf_event_open": (298, 0, 0, -1, -1, 0),
    "bpf": (321, 0, 0, 0),
    "userfaultfd": (323, 0),
    "ptrace": (101, 0, 0, 0, 0),  # PTRACE_TRACEME
    "unshare": (272, 0x20000),  # CLONE_NEWNS
    "mount": (165, b"none", b"/tmp", b"tmpfs", 0, 0),
    "io_uring_setup": (425, 1, BUFFER),
    "cachestat": (451, FILE, 0, 0, 0),
    "preadv2 RWF_NOWAIT": (327, FILE, IOV, 1, 0, 0, RWF_NOWAIT),
    "preadv2": (327, FILE, IOV, 1, 0, 0, 0),
    "process_madvise": (440, -1, 0, 0, 0, 0),
    # machine-wide state (issue 30): AIO, page cache, disks, address families
    "io_setup": (206, 1, AIO_CONTEXT),
    "mincore": (27, 0, 4096, BUFFER),
    "fadvise64 DONTNEED": (221, FILE, 0, 0, 4),
    "readahead": (187, FILE, 0, 4096),
    "madvise MADV_PAGEOUT": (28, 0, 4096, 21),
    "madvise MADV_COLD": (28, 0, 4096, 20),
    "sync": (162,),
    "syncfs": (306, FILE),
    "sync_file_range": (277, FILE, 0, 0, 2),
    "socket AF_VSOCK": (41, 40, 1, 0),
    "socket AF_INET": (41, 2, 1, 0),
    "socket AF_INET6": (41, 10, 2, 0),
    "socket AF_PACKET": (41, 17, 3, 0),
    "socket AF_VSOCK, upper bits set": (41, 40 | (1 << 32), 1, 0),
    "socketpair AF_INET": (53, 2, 1, 0, PAIR),
    "socket AF_UNIX": (41, 1, 1, 0),
    "socket AF_NETLINK": (41, 16, 3, 0),
}


def attempt(number, *args):
    result = LIBC.syscall(
        ctypes.c_long(number), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    )
    return "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


print(json.dumps({name: attempt(*call) for name, call in CALLS.items()}))
