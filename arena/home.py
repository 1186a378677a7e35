"""Who may use an arena home and its SQLite database: only the account that owns them.

The home holds the database (and in it the secret that match seeds are derived
with) and every stored bot's code, so it is private to one account whatever the
umask: the home is made 0700, the database file 0600 before SQLite first opens it
(SQLite gives its -wal, -shm and -journal files the database file's mode), and
stored version folders 0700. An older home that others can read is made private
on its owner's next command.

Supported set-ups: one home per OS account, or a shared home used only through
one service account (`sudo -u arena arena ...`). arena refuses, with one line, a
home or database file that belongs to another account or that other accounts
can write: another account's command, read-only ones included, then creates
nothing there (no -wal or -shm of its own that would lock the owner out), and no
other account can change what a stored version runs.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import stat
from pathlib import Path

from arena import ArenaError

#: The files SQLite makes beside a database (each gets the database file's mode).
SQLITE_SIDECARS = ("-wal", "-shm", "-journal")


class HomeError(ArenaError, ValueError):
    """A home or database file this account may not use (a one-line reason)."""


def _account(uid: int) -> str:
    """`name (uid N)` for messages."""
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def _owned(path: Path, info: os.stat_result, what: str) -> None:
    """HomeError unless `path` belongs to this account and no other account can write it."""
    me = os.geteuid()
    if info.st_uid != me:
        raise HomeError(
            f"{what} {path} belongs to {_account(info.st_uid)}, not to {_account(me)}: "
            "arena uses only its own account's home (one home per account, or one service account)"
        )
    if info.st_mode & 0o022:
        mode = stat.S_IMODE(info.st_mode)
        raise HomeError(
            f"{what} {path} is writable by other accounts (mode {mode:o}): "
            f"check what is in it, then make it private (chmod 700 {path})"
        )


def _tighten(path: Path, info: os.stat_result, private: int) -> None:
    """Take away what others may read (an older arena made homes 0755, files 0644)."""
    if stat.S_IMODE(info.st_mode) & 0o077:
        with contextlib.suppress(OSError):  # a read-only file system: nothing to protect there
            os.chmod(path, stat.S_IMODE(info.st_mode) & private)


def prepare_home(path: Path) -> Path:
    """Make the home if missing (0700) and check that this account alone can use it.

    HomeError for a home of another account or one that others can write; OSError
    when it cannot be made. Not a folder: NotADirectoryError.
    """
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.stat()
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(str(path))
    _owned(path, info, "arena home")
    _tighten(path, info, 0o700)
    return path


def private_folder(path: Path) -> None:
    """Make folder `path` (and missing parents) and make it 0700 whatever the umask."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    _tighten(path, path.stat(), 0o700)


def prepare_database(path: Path) -> None:
    """Before SQLite opens `path`: create it 0600, or check it and its sidecars are ours.

    SQLite copies the database file's mode to the -wal, -shm and -journal files it
    makes, so these are private too. HomeError for a file of another account (or
    that others can write); OSError when the file cannot be made. (The command line
    refuses a `--db` file in a folder that does not exist before it gets here.)
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    if not os.path.lexists(path):
        with contextlib.suppress(FileExistsError):  # made by another command just now
            os.close(os.open(path, flags, 0o600))  # an empty file is a new SQLite database
    for name in (path.name, *(path.name + s for s in SQLITE_SIDECARS)):
        each = path.with_name(name)
        try:
            info = each.stat()
        except FileNotFoundError:
            continue
        _owned(each, info, "database file")
        _tighten(each, info, 0o600)
