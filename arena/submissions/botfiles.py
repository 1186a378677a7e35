"""Reading a bot folder without following links out of it: what a submission may contain.

A bot folder comes from an untrusted author, and what arena reads from it is
copied into the arena home and shown to a sandboxed bot. So a folder is read
once, through file descriptors, never by path:

- every folder is opened with O_NOFOLLOW | O_DIRECTORY relative to its parent's
  descriptor, and every file with O_NOFOLLOW | O_NONBLOCK and checked with fstat
  on the descriptor it is read from, so a folder changed while it is read cannot
  slip in a link, a FIFO (which would block) or a device: what is hashed is what
  is stored, byte for byte;
- a symbolic link is never followed on disk. It is kept only when it leads,
  resolved inside the folder as read, to a regular file of the folder; it is
  then stored as a copy of that file, and the copy counts toward the size limit
  like the file itself (30 links to a 16 MiB file would store and stage 496 MiB).
  Anything else (absolute, out of the folder, to a folder, dangling, a loop) is
  refused with the link's path;
- a name must be UTF-8 without control characters (`name_problem`);
- device files, FIFOs and sockets are refused;
- `LIMITS` bounds a submission, checked while reading, so a huge folder is
  refused before it fills memory or the disk.

Caches (`__pycache__`, `.git`, `*.pyc`) are skipped unread: they are never part
of a bot's identity. So is what the folder's `.arenaignore` names (gitignore syntax,
`IgnoreFile`) when the folder is read as a submission (`honour_ignore`): a local
build's output (`target/`), data kept beside the code. `.gitignore` is not read: it
often names what a bot needs to run (a binary committed for a bot without a build, a
generated table), and git merges it with ignore files outside the folder.
"""

from __future__ import annotations

import errno
import os
import stat
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pathspec

from arena import ArenaError

#: Never part of a bot's identity: caches and version control.
IGNORED_DIRS = frozenset({"__pycache__", ".git", ".mypy_cache", ".pytest_cache"})
IGNORED_SUFFIXES = (".pyc", ".pyo")
#: The manifest's size bound: it is parsed before anything else is known.
MANIFEST_MAX_BYTES = 64 * 1024
#: The ignore file of a bot folder (top level only), and what it can never leave out.
IGNORE_FILE = ".arenaignore"
NEVER_IGNORED = frozenset({("bot.toml",), (IGNORE_FILE,)})
_MAX_LINK_HOPS = 40


class BotFolderError(ArenaError, ValueError):
    """A bot folder that cannot be used: missing, no manifest, or a bad manifest.

    The message is one line. `details` is what explains it at length, shown below
    that line: a failed build's output, a failed check's report. Like everything a bot
    wrote it is untrusted text (see arena.cli.safe).
    """

    def __init__(self, message: str, details: str = ""):
        super().__init__(message)
        self.details = details


@dataclass(frozen=True)
class Limits:
    """How big a submission may be.

    The bundled bots are a few KiB. 16 MiB per file still takes a compiled
    binary or a small lookup table or model; 64 MiB in all keeps the in-memory
    read, the stored copy and the archive shipped to every Dask worker cheap;
    2,000 entries take a vendored library or two. A depth of 32 folders bounds
    the recursion.
    """

    file_bytes: int = 16 * 2**20
    total_bytes: int = 64 * 2**20
    entries: int = 2000
    depth: int = 32


LIMITS = Limits()


@dataclass(frozen=True)
class BotFile:
    """One regular file of a bot folder, as read: its path parts, bytes and exec bit."""

    parts: tuple[str, ...]
    data: bytes
    executable: bool

    @property
    def relative(self) -> str:
        """The path inside the folder, `/`-separated."""
        return "/".join(self.parts)


class IgnoreFile:
    """The patterns of a folder's `.arenaignore`, in gitignore syntax (`pathspec`).

    A folder it names is skipped whole, unread (a file in it cannot be taken back with
    `!`, as in git); bot.toml and .arenaignore itself are always read.
    """

    def __init__(self, data: bytes, where: Path):
        """Parse `data`, the file's bytes; BotFolderError (one line) for bad ones."""
        try:
            lines = data.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            raise BotFolderError(f"{where}: not UTF-8 text") from None
        try:
            self.spec = pathspec.GitIgnoreSpec.from_lines(lines)
        except (ValueError, TypeError) as error:  # GitIgnorePatternError is a ValueError
            raise BotFolderError(f"{where}: {error}") from None

    def ignores(self, parts: tuple[str, ...], is_folder: bool = False) -> bool:
        """True when the file (or folder) at `parts` is left out of the bot."""
        if parts in NEVER_IGNORED:
            return False
        return self.spec.match_file("/".join(parts) + ("/" if is_folder else ""))

    def leaves_out(self, parts: tuple[str, ...]) -> bool:
        """True when the file at `parts` is ignored, itself or by a folder it is in."""
        folders = (parts[:depth] for depth in range(1, len(parts)))
        return self.ignores(parts) or any(self.ignores(f, is_folder=True) for f in folders)

    @classmethod
    def of(cls, files: dict[tuple[str, ...], BotFile], folder: Path) -> IgnoreFile | None:
        """The ignore file among `files` as read, None when there is none."""
        found = files.get((IGNORE_FILE,))
        return None if found is None else cls(found.data, folder / IGNORE_FILE)


@dataclass
class _Reading:
    """What a walk has found so far, and what it may still take."""

    folder: Path
    limits: Limits
    files: dict[tuple[str, ...], BotFile]
    links: dict[tuple[str, ...], str]
    dirs: set[tuple[str, ...]]
    total: int = 0
    #: Files left unread (what a build added: not the bot's code).
    skip: frozenset[tuple[str, ...]] = frozenset()
    #: What the folder's .arenaignore leaves out, unread and uncounted.
    ignore: IgnoreFile | None = None

    def ignored(self, parts: tuple[str, ...], is_folder: bool) -> bool:
        return self.ignore is not None and self.ignore.ignores(parts, is_folder)

    def count(self, parts: tuple[str, ...], size: int = 0) -> None:
        """Charge one entry of `size` bytes; BotFolderError past a limit."""
        entries = len(self.files) + len(self.links) + len(self.dirs) + 1
        if entries > self.limits.entries:
            raise self.error(parts, f"more than {self.limits.entries} files and folders")
        self.charge(parts, size)

    def charge(self, parts: tuple[str, ...], size: int, why: str = "") -> None:
        """Charge `size` bytes stored for `parts` (a file, or a link's copy of one)."""
        if size > self.limits.file_bytes:
            raise self.error(parts, f"larger than {self.limits.file_bytes // 2**20} MiB")
        self.total += size
        if self.total > self.limits.total_bytes:
            limit = self.limits.total_bytes // 2**20
            raise self.error(parts, f"more than {limit} MiB in all{why}")

    def error(self, parts: tuple[str, ...], reason: str) -> BotFolderError:
        """A one-line error naming the offending path."""
        return BotFolderError(f"{self.folder / '/'.join(parts)}: {reason}")


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a file name in a bot folder, None when it can.

    Names are hashed and stored as UTF-8, and shown in one-line errors and listings:
    a name must be UTF-8 (no undecodable bytes) without control characters (ESC, newline).

    >>> name_problem("bot.py") is None
    True
    >>> name_problem("a\\x1b[2Jb")
    "a file name with a control character: 'a\\\\x1b[2Jb'"
    """
    try:
        name.encode()
    except UnicodeEncodeError:  # a byte that is not UTF-8 (decoded as a lone surrogate)
        return f"a file name that is not UTF-8: {name!r}"
    if any(unicodedata.category(char) == "Cc" for char in name):
        return f"a file name with a control character: {name!r}"
    return None


def _open_folder(folder: Path) -> int:
    """A descriptor of the folder itself (the path the user gave may be a link)."""
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        raise BotFolderError(f"no bot folder at {folder}") from None


@contextmanager
def _descriptor(fd: int) -> Iterator[int]:
    try:
        yield fd
    finally:
        os.close(fd)


def _read_fd(fd: int, limit: int) -> bytes:
    """At most `limit` + 1 bytes from `fd` (one more shows that the file grew past it)."""
    chunks, size = [], 0
    while size <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _open_regular(dir_fd: int, name: str) -> tuple[int, os.stat_result]:
    """Open `name` in `dir_fd` without following a link; OSError(ELOOP) if it is not regular."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(name, flags, dir_fd=dir_fd)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise OSError(errno.ELOOP, "not a regular file")
    return fd, info


def read_manifest_bytes(folder: Path) -> bytes:
    """The bytes of `folder/bot.toml`, which must be a regular file (never a link)."""
    with _descriptor(_open_folder(folder)) as dir_fd:
        data = _read_small(dir_fd, folder, "bot.toml")
    if data is None:
        raise BotFolderError(f"{folder} has no bot.toml manifest")
    return data


def _read_small(dir_fd: int, folder: Path, name: str) -> bytes | None:
    """The bytes of the small top-level file `name` (a regular file, never a link, at
    most MANIFEST_MAX_BYTES), None when there is none; BotFolderError otherwise."""
    try:
        fd, _info = _open_regular(dir_fd, name)
    except FileNotFoundError:
        return None
    except OSError:
        raise BotFolderError(f"{folder / name}: not a regular file") from None
    with _descriptor(fd):
        data = _read_fd(fd, MANIFEST_MAX_BYTES)
    if len(data) > MANIFEST_MAX_BYTES:
        raise BotFolderError(f"{folder / name}: larger than {MANIFEST_MAX_BYTES} bytes")
    return data


def _read_file(reading: _Reading, dir_fd: int, parts: tuple[str, ...]) -> None:
    try:
        fd, info = _open_regular(dir_fd, parts[-1])
    except OSError:
        raise reading.error(parts, "changed while it was read (now a link or special)") from None
    with _descriptor(fd):
        data = _read_fd(fd, reading.limits.file_bytes)  # one more byte than allowed, at most
    reading.count(parts, len(data))
    reading.files[parts] = BotFile(parts, data, executable=bool(info.st_mode & stat.S_IXUSR))


def _walk(reading: _Reading, dir_fd: int, prefix: tuple[str, ...]) -> None:
    if len(prefix) > reading.limits.depth:
        raise reading.error(prefix, f"folders nested deeper than {reading.limits.depth}")
    for name in sorted(os.listdir(dir_fd)):
        parts = (*prefix, name)
        problem = name_problem(name)
        if problem:
            raise reading.error(prefix, problem)
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if reading.ignored(parts, stat.S_ISDIR(info.st_mode)):
            continue
        if stat.S_ISDIR(info.st_mode):
            if name in IGNORED_DIRS:
                continue
            reading.count(parts)
            reading.dirs.add(parts)
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            try:
                child = os.open(name, flags, dir_fd=dir_fd)
            except OSError:
                raise reading.error(parts, "changed while it was read (now a link?)") from None
            with _descriptor(child):
                _walk(reading, child, parts)
        elif name.endswith(IGNORED_SUFFIXES) or parts in reading.skip:
            continue
        elif stat.S_ISLNK(info.st_mode):
            reading.count(parts)
            reading.links[parts] = os.readlink(name, dir_fd=dir_fd)
        elif stat.S_ISREG(info.st_mode):
            _read_file(reading, dir_fd, parts)
        else:
            raise reading.error(parts, "a device, FIFO or socket: only files and folders")


def _follow(reading: _Reading, link: tuple[str, ...], hops: int) -> tuple[str, ...]:
    """Where `link` leads inside the folder as read (physically: `..` after a link goes
    up from where the link led). BotFolderError when it leaves the folder."""
    target = reading.links[link]
    if hops > _MAX_LINK_HOPS:
        raise reading.error(link, "a loop of links")
    if target.startswith("/"):
        raise reading.error(link, f"a link out of the folder (to {target})")
    where = list(link[:-1])
    for part in PurePosixPath(target).parts:
        if part == "..":
            if not where:
                raise reading.error(link, f"a link out of the folder (to {target})")
            where.pop()
            continue
        where.append(part)
        if tuple(where) in reading.links:
            where = list(_follow(reading, tuple(where), hops + 1))
        elif tuple(where) not in reading.files and tuple(where) not in reading.dirs:
            raise reading.error(link, f"a link to nothing in the folder (to {target})")
    return tuple(where)


def read_folder(
    folder: Path,
    limits: Limits = LIMITS,
    skip: frozenset[tuple[str, ...]] = frozenset(),
    honour_ignore: bool = False,
) -> dict[tuple[str, ...], BotFile]:
    """Every file of the folder by path parts, read once; links inside it stored as copies
    (each charged to the size limit as a copy).

    The files at `skip` (what a build added) are left unread and uncounted, and with
    `honour_ignore` (a submission's reading) what the folder's .arenaignore names.
    Raises BotFolderError naming the path of a link out of the folder, a link to a
    folder, a special file, a bad .arenaignore, or the entry that passes a limit.
    """
    reading = _Reading(folder, limits, {}, {}, set(), skip=skip)
    with _descriptor(_open_folder(folder)) as dir_fd:
        if honour_ignore:
            data = _read_small(dir_fd, folder, IGNORE_FILE)
            reading.ignore = None if data is None else IgnoreFile(data, folder / IGNORE_FILE)
        try:
            _walk(reading, dir_fd, ())
        except OSError as error:  # vanished while read, or unreadable
            raise BotFolderError(f"{folder}: cannot be read ({error.strerror})") from None
    for link in reading.links:
        found = reading.files.get(_follow(reading, link, 0))
        if found is None:
            raise reading.error(link, f"a link to a folder (to {reading.links[link]})")
        # Stored and staged as a copy, so it costs what its file costs (not a free copy).
        reading.charge(link, len(found.data), " (a link counts as a copy of its file)")
        reading.files[link] = BotFile(link, found.data, found.executable)
    return dict(sorted(reading.files.items()))


def count_entries(folder: Path) -> int:
    """How many files, links and folders `read_folder` counts in `folder` (by name: unread).

    What a build may add is what the limit leaves (`arena.sandbox.build`).
    """
    count = 0
    for directory, dirs, files in os.walk(folder):  # never into a link to a folder
        # As read_folder: an ignored folder is skipped unread, a link of that name is counted.
        dirs[:] = [n for n in dirs if n not in IGNORED_DIRS or os.path.islink(f"{directory}/{n}")]
        count += len(dirs) + sum(not name.endswith(IGNORED_SUFFIXES) for name in files)
    return count


def write_folder(files: dict[tuple[str, ...], BotFile], target: Path) -> None:
    """Write `files` into `target`, a new or empty folder (made readable by a bot's own uid)."""
    target.mkdir(exist_ok=True)
    target.chmod(0o755)
    for item in files.values():
        path = target.joinpath(*item.parts)
        for parent in reversed(path.relative_to(target).parents[:-1]):
            if not (target / parent).is_dir():
                (target / parent).mkdir()
                (target / parent).chmod(0o755)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        mode = 0o755 if item.executable else 0o644
        with _descriptor(os.open(path, flags, mode)) as fd:
            os.fchmod(fd, mode)  # as stored, whatever the umask: a bot's own uid reads it
            view = memoryview(item.data)
            while view:
                view = view[os.write(fd, view) :]
