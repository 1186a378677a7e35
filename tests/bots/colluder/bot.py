"""A colluding pair in one program: seat 0 sends its hand, every other seat listens.

Both seats run from the same (content-addressed, hence shared) folder, so they
share the inode of bot.py and bot.toml. The sender holds a read lock on byte
`card` of bot.py for each card in its hand (POSIX and OFD locks), a flock on
bot.toml, and opens bot.toml once per card (an inotify event each). A listener
tests those bytes with F_GETLK / F_OFD_GETLK, tries to take the flock, and
counts inotify events on the folder. Whatever it learns makes it answer an
illegal decision; every call that fails is reported on stderr with its errno.
"""

import ctypes
import errno
import fcntl
import json
import os
import struct
import sys

F_OFD_GETLK, F_OFD_SETLK = 36, 37
IN_OPEN, IN_NONBLOCK = 0x20, 0o4000
HERE = os.path.dirname(os.path.abspath(__file__))
LIBC = ctypes.CDLL(None, use_errno=True)
held = []  # the sender's open files: their locks last as long as they are open


def lock_record(kind, start):
    # struct flock on x86_64: short type, short whence, off_t start, off_t len, pid_t pid
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, start, 1, 0)


def report(what, error):
    print(
        f"colluder: {what} denied ({errno.errorcode.get(error.errno, error.errno)})",
        file=sys.stderr,
    )


def send(hand):
    """Publish `hand` (card numbers) through every channel; report what the kernel refused."""
    lock_file = os.open(os.path.join(HERE, "bot.py"), os.O_RDONLY)
    held.append(lock_file)
    for name, command in (("F_SETLK", fcntl.F_SETLK), ("F_OFD_SETLK", F_OFD_SETLK)):
        try:
            for card in hand:
                fcntl.fcntl(
                    lock_file,
                    command,
                    lock_record(fcntl.F_RDLCK, card + (200 if command == F_OFD_SETLK else 0)),
                )
        except OSError as error:
            report(name, error)
    flock_file = os.open(os.path.join(HERE, "bot.toml"), os.O_RDONLY)
    held.append(flock_file)
    try:
        fcntl.flock(flock_file, fcntl.LOCK_SH)
    except OSError as error:
        report("flock", error)
    for _card in hand:  # a listener's inotify watch would count these opens
        open(os.path.join(HERE, "bot.toml"), "rb").close()


class Listener:
    def __init__(self):
        # Open what it probes before watching, so that its own opens are not events.
        self.file = os.open(os.path.join(HERE, "bot.py"), os.O_RDONLY)
        self.toml = os.open(os.path.join(HERE, "bot.toml"), os.O_RDONLY)
        self.watch = -1
        fd = LIBC.inotify_init1(IN_NONBLOCK)
        if fd < 0:
            report("inotify_init1", OSError(ctypes.get_errno(), ""))
        elif LIBC.inotify_add_watch(fd, HERE.encode(), IN_OPEN) < 0:
            report("inotify_add_watch", OSError(ctypes.get_errno(), ""))
        else:
            self.watch = fd

    def learned(self):
        """What another seat gave away so far (an empty list when nothing)."""
        seen = []
        for name, command, offset in (
            ("F_GETLK", fcntl.F_GETLK, 0),
            ("F_OFD_GETLK", F_OFD_GETLK, 200),
        ):
            try:
                for card in range(105):
                    got = fcntl.fcntl(self.file, command, lock_record(fcntl.F_WRLCK, card + offset))
                    if struct.unpack("hhqqi4x", got)[0] != fcntl.F_UNLCK:
                        seen.append(f"{name}:{card}")
            except OSError as error:
                report(name, error)
        try:
            fcntl.flock(self.toml, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(self.toml, fcntl.LOCK_UN)
        except BlockingIOError:
            seen.append("flock held")
        except OSError as error:
            report("flock", error)
        if self.watch >= 0:
            try:
                events = os.read(self.watch, 65536)
            except BlockingIOError:
                events = b""
            if events:  # this seat opens nothing in its folder after __init__
                seen.append(f"inotify {len(events) // 16} events")
        return seen


seat = None
listener = None
sent = False
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        seat = message["seat"]
        if seat != 0 and listener is None:
            listener = Listener()
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        decision = message["legal"][0]
        if seat == 0 and not sent:
            send(message["observation"]["hand"])
            sent = True
        elif listener is not None:
            seen = listener.learned()
            if seen:
                decision = "learned " + ", ".join(seen[:5])
        print(
            json.dumps({"type": "decision", "id": message["id"], "decision": decision}), flush=True
        )
    elif message["type"] == "quit":
        break
