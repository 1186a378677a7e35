"""Copies of a view's trees on a tmpfs, shared by the arena processes of one user (issue 30).

A match sandbox sees the system's folders it needs (/etc, a Python's library folders, a
JDK's home: `arena.sandbox.view`) as copies on a tmpfs, which keeps no negative
dentries: a lookup of a missing name there leaves nothing another sandbox could time,
where a folder bound from the host (ext4, overlay) remembers every missing name looked
up in it. A Python bot's trees are about 70 MiB of copies; instead of one copy per
arena process (per worker), each tree is copied once per content and shared:

- a tree's copy is named by its key, a hash of the tree's path and of its listing (every
  entry's name, type, mode, owner, size, modification time, inode, link target): a
  package upgrade that changes the tree gives a new key, hence a new copy;
- it is written under a partial name and renamed whole, all under the lock file
  `.lock` of the shared folder (so no process sees half a copy);
- each process that uses it holds a shared flock on its `KEY.lock` for as long as it
  lives (the lock goes with the process, even killed); the last one to let go removes
  it, and the next process to use the folder sweeps what no process holds.

Owners (when arena is root) and modes are the host's, less set-uid and set-gid, and times
are the host's (a Python takes a byte-code file for stale when its source's time
differs). Files larger than `COPY_MOST_BYTES` are not copied: an empty file stands where
the sandbox binds the host's (a file has no names to look up).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: A file larger than this is bound from the host (and locked), not copied.
COPY_MOST_BYTES = 4 * 2**20


@dataclass(frozen=True)
class Survey:
    """What a host tree holds: its key, and its regular files by whether they are copied."""

    key: str
    small: tuple[str, ...]  # copied (host paths)
    large: tuple[str, ...]  # bound from the host


@dataclass(frozen=True)
class Copy:
    """A shared copy of a tree: where it is, the copies in it, the host files bound over it."""

    source: Path
    copies: tuple[str, ...]
    large: tuple[str, ...]


def survey(tree: str) -> Survey:
    """Walk `tree` (in a fixed order) for its key and its regular files."""
    digest = hashlib.sha256(os.fsencode(tree) + b"\0")
    small: list[str] = []
    large: list[str] = []
    for folder, dirs, names in os.walk(tree):
        dirs.sort()
        for name in sorted([*dirs, *names]):
            path = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                info = os.lstat(path)
                link = os.readlink(path) if stat.S_ISLNK(info.st_mode) else ""
                facts = (info.st_mode, info.st_uid, info.st_gid, info.st_size, info.st_mtime_ns)
                digest.update(os.fsencode(f"{path}\0{facts}\0{info.st_ino}\0{link}\n"))
                if stat.S_ISREG(info.st_mode):
                    (large if info.st_size > COPY_MOST_BYTES else small).append(path)
    return Survey(digest.hexdigest()[:32], tuple(small), tuple(large))


def copied_mode(info: os.stat_result) -> int:
    """The mode of a copy of a host file or folder: the host's, without set-uid or set-gid."""
    return stat.S_IMODE(info.st_mode) & ~(stat.S_ISUID | stat.S_ISGID)


def own_as(path: Path, info: os.stat_result) -> None:
    """Give the copy at `path` the host file's owner and group (only root may)."""
    if os.geteuid() == 0:
        os.lchown(path, info.st_uid, info.st_gid)


def copy_file(path: str, at: Path, info: os.stat_result, mode: int) -> None:
    """Copy the regular file `path` (`info`: its lstat) to `at` with `mode` and its times
    (written whole, then renamed). Python takes a byte-code file for stale when its
    source's modification time differs: copies with new times made every module of a
    Python bot's standard library compile again at each start (150 ms instead of 60)."""
    partial = at.with_name(at.name + ".arena-partial")
    shutil.copyfile(path, partial, follow_symlinks=False)
    os.chmod(partial, mode)
    os.utime(partial, ns=(info.st_atime_ns, info.st_mtime_ns))
    os.replace(partial, at)


def copy_tree(tree: str, into: Path) -> None:
    """Copy the host folder `tree` to `into` (which may hold other copies already): its
    folders and links, its files up to COPY_MOST_BYTES, an empty file to mount each
    larger one on. A file or folder arena cannot read itself is left out (nor could
    the bot read it)."""
    into.mkdir(mode=0o755, parents=True, exist_ok=True)
    folders = [(into, os.lstat(tree))]
    for folder, dirs, names in os.walk(tree):
        at = into / os.path.relpath(folder, tree)
        for name in [*dirs, *names]:
            path, target = os.path.join(folder, name), at / name
            with contextlib.suppress(OSError):
                info = os.lstat(path)
                if os.path.lexists(target) and not stat.S_ISDIR(info.st_mode):
                    continue
                if stat.S_ISLNK(info.st_mode):
                    os.symlink(os.readlink(path), target)
                elif stat.S_ISDIR(info.st_mode):
                    target.mkdir(mode=0o755, exist_ok=True)
                    folders.append((target, info))
                elif stat.S_ISREG(info.st_mode) and info.st_size > COPY_MOST_BYTES:
                    target.touch(mode=0o644)  # where bubblewrap mounts the host's
                elif stat.S_ISREG(info.st_mode):
                    copy_file(path, target, info, copied_mode(info))
                    own_as(target, info)
    for at, info in reversed(folders):  # the deepest first, once written
        with contextlib.suppress(OSError):
            own_as(at, info)
            os.chmod(at, copied_mode(info))


class Shared:
    """This process's use of the shared tree copies in `base` (one per process)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.owner = os.getpid()
        self._held: dict[str, int] = {}  # key -> the descriptor of its flocked KEY.lock
        self._copies: dict[str, Copy] = {}
        self._lock = threading.Lock()
        self._swept = False
        os.register_at_fork(after_in_child=self._forget_in_child)

    def _forget_in_child(self) -> None:
        """A forked worker holds none of its parent's copies (its own Shared takes its own):
        an inherited lock would keep a copy alive past both."""
        if os.getpid() != self.owner:
            for fd in self._held.values():
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._held.clear()

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[None]:
        """The shared folder's own lock: copies are made, taken and swept under it."""
        self.base.mkdir(mode=0o711, parents=True, exist_ok=True)
        fd = os.open(self.base / ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def get(self, tree: str) -> Copy:
        """The shared copy of `tree`, made if no process has one of this content."""
        with self._lock:
            if tree in self._copies:
                return self._copies[tree]
            found = survey(tree)
            source = self.base / found.key
            with self._exclusive():
                if not self._swept:
                    self._sweep()
                if not source.is_dir():
                    partial = self.base / f"{found.key}.partial-{os.getpid()}"
                    shutil.rmtree(partial, ignore_errors=True)
                    copy_tree(tree, partial)
                    os.rename(partial, source)
                if found.key not in self._held:
                    self._held[found.key] = self._hold(found.key)
            # survey's paths are os.walk's of `tree`: each is `tree` + "/" + its place in it
            # (os.path.relpath of each, thousands a Python, took a third of a cold view)
            inside = len(tree.rstrip("/")) + 1
            copies = tuple(f"{source}/{p[inside:]}" for p in found.small)
            made = Copy(source, copies, found.large)
            self._copies[tree] = made
            return made

    def _hold(self, key: str) -> int:
        """A shared flock on KEY.lock, held while this process uses the copy."""
        fd = os.open(self.base / f"{key}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_SH)
        return fd

    def _sweep(self) -> None:
        """Remove the copies no process holds, and partial ones (under `_exclusive`)."""
        self._swept = True
        for entry in os.listdir(self.base):
            if ".partial-" in entry:
                shutil.rmtree(self.base / entry, ignore_errors=True)
            elif entry.endswith(".lock") and entry != ".lock":
                self._remove_unheld(entry[: -len(".lock")])

    def _remove_unheld(self, key: str) -> None:
        """Remove copy `key` if no process holds its lock (under `_exclusive`)."""
        try:
            fd = os.open(self.base / f"{key}.lock", os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return  # in use
        shutil.rmtree(self.base / key, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.unlink(self.base / f"{key}.lock")
        os.close(fd)

    def release(self) -> None:
        """Let go of this process's copies; remove those no other process holds."""
        if os.getpid() != self.owner:
            return
        with self._lock:
            held, self._held = self._held, {}
            self._copies.clear()
            if not held:
                return
            with contextlib.suppress(OSError), self._exclusive():
                for key, fd in held.items():
                    os.close(fd)
                    self._remove_unheld(key)
