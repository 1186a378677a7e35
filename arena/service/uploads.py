"""Unpacking a submitted bot folder (`.tar.gz` or `.zip`) with the rules of `arena bot submit`.

An archive comes from a client that may be hostile. It is unpacked into a fresh,
private folder, entry by entry, and refused with the entry named at the first one
that breaks a rule:

- a name that is absolute, holds `..`, or is not a file name arena stores
  (`botfiles.name_problem`: UTF-8, no control characters);
- the same path twice (a file and a folder of one name included), a path under a
  file or a symbolic link (what zip-slip through a link needs);
- a hard link, a device, a FIFO, or any entry that is not a file, a folder or a
  symbolic link;
- past the limits of a bot folder (`botfiles.LIMITS`: size per file and in all,
  entries, depth), counted on the bytes actually unpacked, never on what headers
  claim: a zip or tar bomb stops at the limit, with less than a limit in memory or on
  disk. A zip's central directory is measured before it is read (a million empty
  entries are refused without a million records in memory), a tar is read as a stream
  whose unpacked bytes are bounded (a header that claims a gigabyte is refused before
  it is read).

Symbolic links are written as links and left to `botfiles.read_folder`, the reader
of every submission, which stores a link inside the folder to one of its files as a
copy and refuses any other with its path: the same rule as at the terminal. The
unpacked folder is then submitted as a folder is (`arena.submissions.submit`): read
once, built in the sandbox, checked, stored.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import struct
import tarfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO

from arena.submissions import botfiles
from arena.submissions.botfiles import LIMITS, BotFolderError, Limits

#: A zip's central directory: at most this many bytes (about 2,000 entries with long
#: names), measured from its end record before zipfile reads it.
ZIP_DIRECTORY_BYTES = 2 * 2**20
#: A symbolic link's target: at most this many bytes.
LINK_BYTES = 4096
_CHUNK = 1 << 16


class ArchiveError(BotFolderError):
    """An archive that cannot be unpacked as a bot folder (one line naming the entry)."""


@dataclass
class _Unpacking:
    """What has been written so far, and what it may still take."""

    root: Path
    limits: Limits
    files: set[tuple[str, ...]] = field(default_factory=set)
    dirs: set[tuple[str, ...]] = field(default_factory=set)
    links: set[tuple[str, ...]] = field(default_factory=set)
    total: int = 0

    def entry(self, name: str, is_dir: bool = False) -> tuple[str, ...]:
        """The path parts of the entry `name`, checked and charged as one entry."""
        if "\\" in name:
            raise ArchiveError(f"{name!r}: a backslash in an entry name")
        if name.startswith("/"):
            raise ArchiveError(f"{name!r}: an absolute path")
        problem = botfiles.name_problem(name)
        if problem:
            raise ArchiveError(f"an entry with {problem.removeprefix('a ')}")
        parts = tuple(p for p in PurePosixPath(name).parts if p not in ("", "."))
        if ".." in parts:
            raise ArchiveError(f"{name!r}: a path with '..'")
        if not parts:
            if is_dir:
                return ()
            raise ArchiveError(f"{name!r}: an entry without a name")
        if len(parts) > self.limits.depth + 1:
            raise ArchiveError(f"{name}: folders nested deeper than {self.limits.depth}")
        seen = self.files | self.links
        if parts in seen or (parts in self.dirs and not is_dir):
            raise ArchiveError(f"{name}: the same path twice in the archive")
        if parts in self.dirs:
            return parts  # a folder named again (tar lists a folder before and after)
        for depth in range(1, len(parts)):
            if parts[:depth] in seen:
                raise ArchiveError(f"{name}: a path under a file or link of the archive")
        if len(self.files) + len(self.dirs) + len(self.links) + 1 > self.limits.entries:
            raise ArchiveError(f"{name}: more than {self.limits.entries} files and folders")
        return parts

    def folder(self, parts: tuple[str, ...]) -> int:
        """A descriptor of the folder at `parts` (made as needed, never through a link)."""
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for depth, part in enumerate(parts, 1):
                if parts[:depth] not in self.dirs:
                    os.mkdir(part, 0o755, dir_fd=fd)
                    self.dirs.add(parts[:depth])
                flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
                child = os.open(part, flags, dir_fd=fd)
                os.close(fd)
                fd = child
        except BaseException:
            os.close(fd)
            raise
        return fd

    def write(self, parts: tuple[str, ...], source: IO[bytes], executable: bool) -> None:
        """Copy `source` into the file at `parts`, charged as it is read."""
        name = "/".join(parts)
        folder = self.folder(parts[:-1])
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(parts[-1], flags, 0o755 if executable else 0o644, dir_fd=folder)
        finally:
            os.close(folder)
        self.files.add(parts)
        size = 0
        with os.fdopen(fd, "wb") as out:
            while chunk := source.read(_CHUNK):
                size += len(chunk)
                self.total += len(chunk)
                if size > self.limits.file_bytes:
                    limit = self.limits.file_bytes // 2**20
                    raise ArchiveError(f"{name}: larger than {limit} MiB")
                if self.total > self.limits.total_bytes:
                    limit = self.limits.total_bytes // 2**20
                    raise ArchiveError(f"{name}: more than {limit} MiB in all")
                out.write(chunk)

    def link(self, parts: tuple[str, ...], target: str) -> None:
        """A symbolic link (botfiles.read_folder decides whether it may stay)."""
        if not target or len(target.encode("utf-8", "surrogateescape")) > LINK_BYTES:
            raise ArchiveError(f"{'/'.join(parts)}: a link without a usable target")
        problem = botfiles.name_problem(target)
        if problem:
            raise ArchiveError(f"{'/'.join(parts)}: a link to {problem.removeprefix('a ')}")
        folder = self.folder(parts[:-1])
        try:
            os.symlink(target, parts[-1], dir_fd=folder)
        finally:
            os.close(folder)
        self.links.add(parts)

    def mkdir(self, parts: tuple[str, ...]) -> None:
        if parts:
            os.close(self.folder(parts))


class _Bounded(io.RawIOBase):
    """A stream that refuses to give more than `limit` bytes in all (a tar's unpacked bytes)."""

    def __init__(self, inner: IO[bytes], limit: int):
        self.inner, self.left = inner, limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        wanted = len(buffer)
        if wanted > self.left:
            wanted = self.left + 1  # one more shows that it goes on
        data = self.inner.read(wanted)
        if len(data) > self.left:
            raise ArchiveError("the archive unpacks to more than the limits of a bot folder")
        self.left -= len(data)
        buffer[: len(data)] = data
        return len(data)

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0 or size > self.left:
            size = self.left + 1
        chunks, got = [], 0
        while got < size:
            chunk = bytearray(min(size - got, 1 << 20))
            n = self.readinto(memoryview(chunk))
            if not n:
                break
            chunks.append(bytes(chunk[:n]))
            got += n
        return b"".join(chunks)


def kind_of(path: Path) -> str:
    """ "zip" or "tar.gz" by the file's first bytes; ArchiveError for anything else."""
    with open(path, "rb") as f:
        head = f.read(4)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "zip"
    if head.startswith(b"\x1f\x8b"):
        return "tar.gz"
    raise ArchiveError("not a .tar.gz or .zip archive of a bot folder")


def unpack(archive: Path, target: Path, limits: Limits = LIMITS) -> Path:
    """Unpack `archive` into the new, empty folder `target`; returns the bot folder in it
    (`target`, or the one folder the archive holds when bot.toml is inside that).

    Raises ArchiveError (a BotFolderError) at the first entry that breaks a rule (see
    the module); what was written stays in `target` for the caller to delete.
    """
    unpacking = _Unpacking(target, limits)
    if kind_of(archive) == "zip":
        _unzip(archive, unpacking)
    else:
        _untar(archive, unpacking)
    tops = {parts[0] for parts in unpacking.files | unpacking.dirs | unpacking.links}
    if ("bot.toml",) not in unpacking.files and len(tops) == 1:
        only = next(iter(tops))
        if (only,) in unpacking.dirs and (only, "bot.toml") in unpacking.files:
            return target / only
    return target


def _unzip(archive: Path, unpacking: _Unpacking) -> None:
    _check_zip_directory(archive, unpacking.limits)
    try:
        with zipfile.ZipFile(archive) as zipped:
            for info in zipped.infolist():
                mode = info.external_attr >> 16
                is_dir = info.is_dir()
                parts = unpacking.entry(info.filename, is_dir)
                if is_dir:
                    unpacking.mkdir(parts)
                elif stat.S_ISLNK(mode):
                    with zipped.open(info) as source:
                        target = source.read(LINK_BYTES + 1)
                    unpacking.link(parts, target.decode("utf-8", "surrogateescape"))
                elif stat.S_IFMT(mode) not in (0, stat.S_IFREG):
                    raise ArchiveError(f"{info.filename}: a device, FIFO or socket")
                else:
                    with zipped.open(info) as source:
                        unpacking.write(parts, source, bool(mode & stat.S_IXUSR))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError) as error:
        raise ArchiveError(f"a damaged zip archive ({error})") from None
    except RuntimeError as error:  # an encrypted entry
        raise ArchiveError(f"a zip entry that cannot be read ({error})") from None


def _check_zip_directory(archive: Path, limits: Limits) -> None:
    """Refuse a zip whose end record announces too many entries or too large a directory."""
    size = archive.stat().st_size
    with open(archive, "rb") as f:
        f.seek(max(0, size - (22 + 65535)))
        tail = f.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        raise ArchiveError("a damaged zip archive (no end of central directory)")
    _sig, _disk, _start, _here, entries, directory, _offset, _comment = struct.unpack(
        "<4s4H2LH", tail[at : at + 22]
    )
    if entries == 0xFFFF or directory == 0xFFFFFFFF:
        locator = tail.rfind(b"PK\x06\x07", 0, at)
        if locator < 0:
            raise ArchiveError("a damaged zip archive (no zip64 locator)")
        (offset,) = struct.unpack("<Q", tail[locator + 8 : locator + 16])
        with open(archive, "rb") as f:
            f.seek(offset)
            record = f.read(56)
        if len(record) < 56 or not record.startswith(b"PK\x06\x06"):
            raise ArchiveError("a damaged zip archive (no zip64 end record)")
        entries, directory = struct.unpack("<QQ", record[32:48])
    if entries > limits.entries:
        raise ArchiveError(f"more than {limits.entries} files and folders ({entries} entries)")
    if directory > ZIP_DIRECTORY_BYTES:
        raise ArchiveError(f"a zip directory of more than {ZIP_DIRECTORY_BYTES // 2**20} MiB")


def _untar(archive: Path, unpacking: _Unpacking) -> None:
    limits = unpacking.limits
    # The tar stream may hold the files, one 512-byte header per entry (and a few for
    # long names), and the end blocks: more unpacked bytes than that is a bomb.
    bound = limits.total_bytes + (limits.entries + 2) * 4 * 512 + 2**20
    try:
        with (
            open(archive, "rb") as raw,
            gzip.GzipFile(fileobj=raw) as unzipped,
            io.BufferedReader(_Bounded(unzipped, bound)) as stream,  # type: ignore[arg-type]
            tarfile.open(fileobj=stream, mode="r|") as tar,
        ):
            for member in tar:
                name = member.name
                parts = unpacking.entry(name, member.isdir())
                if member.isdir():
                    unpacking.mkdir(parts)
                elif member.issym():
                    unpacking.link(parts, member.linkname)
                elif member.islnk():
                    raise ArchiveError(f"{name}: a hard link (to {member.linkname})")
                elif not member.isreg():
                    raise ArchiveError(f"{name}: a device, FIFO or socket: only files and folders")
                else:
                    source = tar.extractfile(member)
                    assert source is not None
                    unpacking.write(parts, source, bool(member.mode & stat.S_IXUSR))
    except (tarfile.TarError, EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise ArchiveError(f"a damaged .tar.gz archive ({error})") from None
