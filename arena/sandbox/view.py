"""What a match sandbox sees of the system (its view), every page of it resident (issue 30).

A bot's sandbox does not see all of /usr, whose page cache would be a channel: a
sender reads a page of a shared system file, a receiver times the first read of
it, and where the page was cold the time tells. A match sandbox sees instead:

- /etc, and /bin/sh with the files it needs to run (the start marker runs in it);
- its program and what that needs: the ELF closure (PT_INTERP, DT_NEEDED found
  through the ld.so cache and the default folders, RUNPATH/RPATH with $ORIGIN), read
  as data (`read_elf`), never by running the program or ldd on it;
- for an interpreter, its library trees: a Python's sys.path and site folders (asked
  of the interpreter itself, isolated, only when it is a trusted system one, as
  `arena.sandbox.pythonpath` does), a JDK's home (bin, conf, lib, release), Node's
  module folders; and the ELF closure of every shared object in them;
- the ELF closure of every ELF file in the bot's staged folder, and for its shell
  scripts the programs they name (the shebang's interpreter, and each word of a
  shell script that is a program on the sandbox's PATH: `exec java ...` in a
  launcher brings the JDK); what the folder asks for is capped (`FOLDER_BUDGET`);
- the folders of its runtime (`arena.sandbox.runtimes`) and of a program installed
  elsewhere (`arena.sandbox.bwrap.toolchain`), as before, with their ELF closure;
- /usr/lib/locale/C.utf8 (LANG=C.UTF-8) and the zone file /etc/localtime names.

The sandbox gets all of it as copies on the tmpfs of the staged copies: the single
files in this process's view root (`Root`), the trees as copies shared by the arena
processes of this user (`arena.sandbox.trees`, one per content); only files larger than
COPY_MOST_BYTES are bound from the host (a file has no names to look up). So every folder a
bot can look a name up in is a tmpfs one, and tmpfs keeps no negative dentries: a
lookup of a missing name leaves no trace that another sandbox could time (a folder
bound from ext4 or overlay remembers each missing name, a channel of about 600-1000
bit/s).

Before any sandbox of this process sees a view, every file in it (the copies, and the
large host files) is read and, where arena may lock memory (root, or CAP_IPC_LOCK, or a
large enough RLIMIT_MEMLOCK), kept mapped and locked (mlock) by the process's keeper
(`KEEPER`, a small process of arena's that lives as long as its stdin, so the worker's
own memory stays its own), so that reclaim (or swap, for the copies) cannot make a page
of it cold again. Then no page a bot can reach is cold and a first read's time says
nothing; files outside the views are not in the sandbox at all. Without the lock, pages
may go cold again under memory pressure (`arena doctor` says so). A build sees the
whole system instead (`bwrap.system_binds`): it needs compilers, and plays no match.

A view is computed once per process for a program, folder and runtime (`for_bot`).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import multiprocessing.util
import os
import re
import resource
import shutil
import stat
import struct
import subprocess
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from arena.sandbox import bwrap as bw
from arena.sandbox import pythonpath
from arena.sandbox import trees as shared

#: Always in a match sandbox: the system's configuration, and the shell of the start marker.
ALWAYS = ("/etc", "/bin/sh")
#: Small trees every view has when they exist (the C.UTF-8 locale of LANG).
ALWAYS_TREES = ("/usr/lib/locale/C.utf8", "/usr/lib/locale/C.UTF-8")
#: Where ld.so looks after its cache (and the folders of /etc/ld.so.conf).
DEFAULT_LIB_DIRS = ("/lib64", "/usr/lib64", "/lib", "/usr/lib")
#: Node's module folders (Debian's and npm's), when they exist.
NODE_DIRS = ("/usr/share/nodejs", "/usr/lib/nodejs", "/usr/lib/node_modules")
NODE_LOCAL = "/usr/local/lib/node_modules"
#: What of a JDK's home a program needs at run time (not jmods, include, man, legal).
JDK_PARTS = ("bin", "conf", "lib", "release")
#: The most bytes of system files a bot's folder may add to its view (ELF files it needs,
#: programs its scripts name); past it, what else it asks for is left out (the loader
#: then says which library it cannot open).
FOLDER_BUDGET = 512 * 2**20
#: The most names (libraries, programs) a bot's folder may ask for.
FOLDER_NAMES = 200
#: A file of a bot's folder read as an ELF or a script only up to this size.
SCAN_BYTES = 256 * 2**20
SCRIPT_BYTES = 64 * 1024
_WORD = re.compile(rb"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
_SHELLS = frozenset({"sh", "dash", "bash", "ash", "ksh", "mksh", "zsh", "busybox"})
_PYTHON = re.compile(r"python\d*(\.\d+)?")
_ELF_MAGIC = b"\x7fELF"


@dataclass(frozen=True)
class _Layout:
    """The structures of one ELF class and byte order that read_elf reads."""

    header: struct.Struct  # from e_type (offset 16) to e_shstrndx
    segment: struct.Struct  # p_type, p_offset first (the 64-bit order moves p_flags)
    section: struct.Struct
    dynamic: struct.Struct


def _layout(bits: int, order: str) -> _Layout:
    word = "Q" if bits == 64 else "I"
    return _Layout(
        struct.Struct(f"{order}HHI{word}{word}{word}IHHHHHH"),
        struct.Struct(f"{order}II" if bits == 32 else f"{order}I4xQ"),
        struct.Struct(f"{order}II{word}{word}{word}{word}II{word}{word}"),
        struct.Struct(f"{order}{'q' if bits == 64 else 'i'}{word}"),
    )


#: By (EI_CLASS, EI_DATA): 1 is 32-bit or little-endian, 2 is 64-bit or big-endian.
_LAYOUTS = {
    (klass, data): _layout(32 * klass, "<" if data == 1 else ">")
    for klass in (1, 2)
    for data in (1, 2)
}
PT_INTERP = 3
SHT_DYNAMIC = 6
DT_NULL, DT_NEEDED, DT_RPATH, DT_RUNPATH = 0, 1, 15, 29


@dataclass
class View:
    """The system folders, files and links one match sandbox sees (paths as on the host)."""

    trees: set[str] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    links: dict[str, str] = field(default_factory=dict)

    def top_trees(self) -> list[str]:
        """The trees not inside another one: each is one bind."""
        return sorted(
            t for t in self.trees if not any(o != t and bw.under(t, (o,)) for o in self.trees)
        )

    def regular_files(self) -> list[str]:
        """Every regular file a sandbox with this view can read."""
        found = {f for f in self.files if not bw.under(f, tuple(self.trees))}
        for tree in self.trees:
            for folder, _dirs, names in os.walk(tree):
                for name in names:
                    path = os.path.join(folder, name)
                    with contextlib.suppress(OSError):
                        if stat.S_ISREG(os.lstat(path).st_mode):
                            found.add(path)
        return sorted(found)


# ----- ELF files, read as data -------------------------------------------------------
@dataclass(frozen=True)
class Elf:
    """What ld.so reads of one ELF file: its class and machine, interpreter, needs, paths."""

    kind: tuple[int, int]
    interpreter: str | None
    needed: tuple[str, ...]
    search: tuple[str, ...]  # RPATH then RUNPATH entries, $ORIGIN not yet replaced


#: The ELF facts of files already read, by the file (device, inode) and its change time.
_ELF_READ: dict[tuple[int, ...], Elf | None] = {}
_ELF_READ_MOST = 20_000
_ELF_READ_LOCK = threading.Lock()


def read_elf(path: str) -> Elf | None:
    """The ELF facts of `path`, or None when it is not a (readable, well-formed) ELF file.

    The file may be a bot's: it is only read, and anything read_elf cannot make
    sense of counts as no ELF at all. Each view reads the same system libraries (a
    Python's are hundreds): what a file held is kept by its identity and change time
    (fstat of the open file, so a file replaced or written since is read again).
    """
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
            with _ELF_READ_LOCK:
                if key in _ELF_READ:
                    return _ELF_READ[key]
            found = _parse_elf(handle, info.st_size)
    except OSError:
        return None
    with _ELF_READ_LOCK:
        if len(_ELF_READ) >= _ELF_READ_MOST:
            _ELF_READ.clear()
        _ELF_READ[key] = found
    return found


def _parse_elf(handle: BinaryIO, size: int) -> Elf | None:
    """read_elf of the open `handle` (at its start), of `size` bytes.

    Read with `struct` as ld.so's facts need: the header, the program headers (PT_INTERP)
    and the section headers, each SHT_DYNAMIC section's tags (DT_NEEDED, DT_RPATH,
    DT_RUNPATH) up to DT_NULL with their strings from the section it links to. Every
    offset is checked against the file: a table or string past its end, a string that is
    not UTF-8, is no ELF at all. (pyelftools read the same facts 20 times slower: a cold
    view of a Python bot spent about 0.6 s of CPU in it, in every arena process.)
    """
    try:
        head = handle.read(64)
        kind = _kind_of(head)
        if kind is None or size > SCAN_BYTES or head[5] not in (1, 2) or head[4] not in (1, 2):
            return None
        layout = _LAYOUTS[(head[4], head[5])]
        _type, _machine, _version, _entry, phoff, shoff, *rest = layout.header.unpack_from(head, 16)
        _flags, _ehsize, phentsize, phnum, shentsize, shnum, _shstrndx = rest

        def read(offset: int, length: int) -> bytes:
            if offset < 0 or length < 0 or offset + length > size:
                raise ValueError("past the end of the file")
            handle.seek(offset)
            found = handle.read(length)
            if len(found) != length:
                raise ValueError("past the end of the file")
            return found

        def string(offset: int) -> str:
            if not 0 <= offset < size:
                raise ValueError("past the end of the file")
            handle.seek(offset)
            chunks: list[bytes] = []
            while True:
                chunk = handle.read(256)
                if not chunk:
                    raise ValueError("a string without its end")
                text, end, _rest = chunk.partition(b"\0")
                chunks.append(text)
                if end:
                    return b"".join(chunks).decode("utf-8")

        interpreter = None
        if phoff and phnum:
            table = read(phoff, phnum * phentsize)
            for at in range(0, len(table), phentsize):
                p_type, p_offset = layout.segment.unpack_from(table, at)[:2]
                if p_type == PT_INTERP:
                    interpreter = string(p_offset)
        sections: list[tuple[int, ...]] = []
        if shoff:
            first = layout.section.unpack_from(read(shoff, layout.section.size))
            count = shnum or first[5]  # e_shnum 0: the count is in section 0's sh_size
            table = read(shoff, count * shentsize)
            sections = [
                layout.section.unpack_from(table, at) for at in range(0, len(table), shentsize)
            ]
        needed: list[str] = []
        search: list[str] = []
        for _name, sh_type, _sh_flags, _addr, sh_offset, _sh_size, sh_link, *_ in sections:
            if sh_type != SHT_DYNAMIC:
                continue
            strings = sections[sh_link][4]
            at = sh_offset
            while True:
                tag, value = layout.dynamic.unpack(read(at, layout.dynamic.size))
                at += layout.dynamic.size
                if tag == DT_NULL:
                    break
                if tag == DT_NEEDED:
                    needed.append(string(strings + value))
                elif tag in (DT_RPATH, DT_RUNPATH):
                    search += string(strings + value).split(":")
        return Elf(kind, interpreter, tuple(needed), tuple(search))
    except (OSError, ValueError, IndexError, OverflowError, struct.error):
        return None


def _elf_kind(path: str) -> tuple[int, int] | None:
    """(class, machine) of an ELF file from its header alone, or None."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(20)
    except OSError:
        return None
    return _kind_of(head)


def _kind_of(head: bytes) -> tuple[int, int] | None:
    """(class, machine) of an ELF file's first 20 bytes, or None."""
    if len(head) < 20 or head[:4] != _ELF_MAGIC:
        return None
    little = head[5] == 1
    machine = int.from_bytes(head[18:20], "little" if little else "big")
    return (64 if head[4] == 2 else 32, machine)


@functools.cache
def _ld_cache() -> dict[str, tuple[str, ...]]:
    """The ld.so cache as `ldconfig -p` prints it: library name -> paths (system's ldconfig)."""
    found: dict[str, list[str]] = {}
    ldconfig = shutil.which("ldconfig", path="/sbin:/usr/sbin:/usr/bin:/bin")
    if ldconfig is None:
        return {}
    try:
        out = subprocess.run(
            [ldconfig, "-p"], capture_output=True, timeout=30, check=False, env={}
        ).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        return {}
    for line in out.splitlines()[1:]:
        name, _, path = line.strip().partition(" => ")
        if path:
            found.setdefault(name.split(" (", 1)[0], []).append(path.strip())
    return {name: tuple(paths) for name, paths in found.items()}


@functools.cache
def _conf_dirs() -> tuple[str, ...]:
    """The folders of /etc/ld.so.conf and the files it includes, in order."""
    dirs: list[str] = []

    def read(path: Path, depth: int) -> None:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            for line in path.read_text().splitlines():
                line = line.split("#", 1)[0].strip()
                if line.startswith("include") and depth < 4:
                    pattern = line.split(None, 1)[1] if " " in line else ""
                    base = Path("/") if pattern.startswith("/") else path.parent
                    for included in sorted(base.glob(pattern.lstrip("/"))):
                        read(included, depth + 1)
                elif line.startswith("/"):
                    dirs.append(line)

    read(Path("/etc/ld.so.conf"), 0)
    return tuple(dirs)


def find_library(name: str, kind: tuple[int, int], search: Iterable[str]) -> list[str]:
    """Where ld.so may load library `name` from for an object of `kind` (first: RPATH ones).

    Every match of the cache is kept (hardware-capability variants too): a superset of
    what ld.so opens, so that it finds in the sandbox whichever it picks.
    """
    if "/" in name:
        return [name] if name.startswith("/") and _elf_kind(name) == kind else []
    found: list[str] = []
    for folder in search:
        candidate = os.path.join(folder, name)
        if _elf_kind(candidate) == kind:
            return [candidate]
    for candidate in _ld_cache().get(name, ()):
        if _elf_kind(candidate) == kind:
            found.append(candidate)
    if found:
        return found
    for folder in (*_conf_dirs(), *DEFAULT_LIB_DIRS):
        candidate = os.path.join(folder, name)
        if _elf_kind(candidate) == kind:
            return [candidate]
    return []


# ----- building a view ------------------------------------------------------------------
class _Builder:
    """Collects a view: paths with the links on their way, trees, ELF closures."""

    def __init__(self, folder: str | None = None, path: str = bw.SANDBOX_PATH) -> None:
        self.view = View()
        self.path = path  # the sandbox's PATH (a runtime's entries first)
        self.folder = folder  # the bot's staged folder: its files are not the system's
        self.seen_elf: set[str] = set()
        self.seen_program: set[str] = set()
        self.budget = FOLDER_BUDGET
        self.names = FOLDER_NAMES
        self.charging = False  # True while the bot's folder is what asks

    def in_folder(self, path: str) -> bool:
        return self.folder is not None and bw.under(path, (self.folder,))

    def add(self, path: str, depth: int = 0) -> str | None:
        """Add `path` and every symbolic link on the way to it; its real path (None: missing)."""
        if depth > 40 or not path.startswith("/"):
            return None
        parts = [p for p in os.path.normpath(path).split("/") if p]
        current = ""
        for index, part in enumerate(parts):
            candidate = f"{current}/{part}"
            try:
                info = os.lstat(candidate)
            except OSError:
                return None
            if stat.S_ISLNK(info.st_mode):
                target = os.readlink(candidate)
                if not self.in_folder(candidate):
                    self.view.links[candidate] = target
                resolved = os.path.normpath(os.path.join(current or "/", target))
                rest = "/".join(parts[index + 1 :])
                return self.add(f"{resolved}/{rest}" if rest else resolved, depth + 1)
            current = candidate
        if not current or self.in_folder(current):
            return current or None
        info = os.lstat(current)
        if stat.S_ISREG(info.st_mode):
            if current not in self.view.files and self.charging:
                if self.budget < info.st_size:
                    return None
                self.budget -= info.st_size
            self.view.files.add(current)
        return current

    def add_tree(self, tree: str, follow: bool = True) -> None:
        """Add a folder whole, the ELF closure of its shared objects and programs, and
        (`follow`) what links in it point to out of it."""
        real = self.add(tree)
        if real is None or not os.path.isdir(real) or real in self.view.trees:
            return
        self.view.trees.add(real)
        for folder, dirs, names in os.walk(real):
            for name in dirs + names:
                path = os.path.join(folder, name)
                with contextlib.suppress(OSError):
                    info = os.lstat(path)
                    if stat.S_ISLNK(info.st_mode) and follow:
                        target = os.path.realpath(path)
                        if not bw.under(target, (real,)) and os.path.exists(target):
                            if os.path.isdir(target):
                                self.add(path)  # the link itself is in the tree
                                self.add_tree(target)
                            else:
                                self.add_elf(self.add(path))
                    elif stat.S_ISREG(info.st_mode) and (".so" in name or info.st_mode & 0o111):
                        self.add_elf(path)

    def add_elf(self, path: str | None) -> None:
        """Add the ELF closure of `path` (nothing when it is not an ELF file)."""
        if path is None or path in self.seen_elf:
            return
        self.seen_elf.add(path)
        elf = read_elf(path)
        if elf is None:
            return
        origin = os.path.dirname(path)
        if elf.interpreter:
            self.add_elf(self.add(elf.interpreter))
        search = [s.replace("$ORIGIN", origin).replace("${ORIGIN}", origin) for s in elf.search]
        for name in elf.needed:
            if self.charging:
                self.names -= 1
                if self.names < 0:
                    return
            for library in find_library(name, elf.kind, [s for s in search if s]):
                self.add_elf(self.add(library))

    def add_program(self, program: str) -> None:
        """Add a program (a path, or a name on the sandbox's PATH) and what it needs to run."""
        if not program.startswith("/"):
            if "/" in program:
                return  # relative to /bot: the folder's own files are scanned as such
            found = shutil.which(program, path=self.path)
            if found is None:
                return
            program = found
        if program in self.seen_program:
            return
        self.seen_program.add(program)
        real = self.add(program)
        if real is None:
            return
        if self.charging:
            self.names -= 1
            if self.names < 0:
                return
        self.add_elf(real)
        name = os.path.basename(real)
        if _PYTHON.fullmatch(name) and not self.in_folder(real):
            for tree in python_trees(real):
                self.add_tree(tree)
        elif name == "java" and os.path.basename(os.path.dirname(real)) == "bin":
            home = os.path.dirname(os.path.dirname(real))
            if os.path.isdir(os.path.join(home, "lib")):
                for part in JDK_PARTS:
                    path = os.path.join(home, part)
                    if os.path.isdir(path):
                        self.add_tree(path)
                    elif os.path.isfile(path):
                        self.add(path)
        elif name in ("node", "nodejs"):
            local = os.path.join(os.path.dirname(os.path.dirname(real)), "lib", "node_modules")
            for tree in (*NODE_DIRS, NODE_LOCAL, local):
                if os.path.isdir(tree):
                    self.add_tree(tree)
        self.add_script(real)

    def add_script(self, path: str) -> None:
        """For a script: its interpreter; for a shell script, each program it names."""
        head = _head(path)
        if not head.startswith(b"#!"):
            return
        words = head[2:].split(b"\n", 1)[0].split()
        if not words:
            return
        interpreter = words[0].decode("utf-8", "replace")
        self.add_program(interpreter)
        shell = os.path.basename(interpreter)
        if shell == "env" and len(words) > 1:
            named = words[1].decode("utf-8", "replace")
            self.add_program(named)
            shell = os.path.basename(named)
        if shell in _SHELLS:
            self.add_words(head)

    def add_words(self, text: bytes) -> None:
        """Each word of `text` that names a program on the sandbox's PATH."""
        for word in dict.fromkeys(_WORD.findall(text)):
            name = word.decode("ascii", "replace")
            if shutil.which(name, path=self.path) is not None:
                self.add_program(name)

    def add_folder(self, folder: str) -> None:
        """What the ELF files and scripts of the bot's staged folder need (within budget)."""
        self.charging = True
        try:
            for directory, _dirs, names in os.walk(folder):
                for name in sorted(names):
                    path = os.path.join(directory, name)
                    with contextlib.suppress(OSError):
                        info = os.lstat(path)
                        if stat.S_ISREG(info.st_mode):
                            self.add_elf(path)
                            self.add_script(path)
                            if name.endswith(".sh"):  # `sh bot.sh`: a script without #!
                                self.add_words(_head(path))
        finally:
            self.charging = False


def _head(path: str) -> bytes:
    """The first SCRIPT_BYTES of a file (b"" if it cannot be read)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(SCRIPT_BYTES)
    except OSError:
        return b""


@functools.cache
def python_trees(real: str) -> tuple[str, ...]:
    """The library folders of the Python at `real`: its sys.path and site folders.

    Asked of the interpreter (isolated: -I) only when it is a trusted system one
    (`pythonpath._trusted`); otherwise its installation's lib folder is taken.
    """
    if not pythonpath._trusted(real):
        prefix = os.path.dirname(os.path.dirname(real))
        return tuple(p for p in (os.path.join(prefix, "lib"),) if os.path.isdir(p))
    code = "import sys, site\nfor p in [*sys.path, *site.getsitepackages()]: print(p)\n"
    try:
        out = subprocess.run(
            [real, "-I", "-c", code],
            capture_output=True,
            timeout=30,
            check=False,
            env={"PATH": bw.SANDBOX_PATH},
            stdin=subprocess.DEVNULL,
        ).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(
        dict.fromkeys(p for p in out.splitlines() if p.startswith("/") and os.path.isdir(p))
    )


def build(
    argv: list[str], folder: Path | None, trees: Iterable[str] = (), path: Iterable[str] = ()
) -> View:
    """The view of a match sandbox running `argv` from the staged `folder`.

    `trees`: folders bound whole besides (a runtime's, a toolchain's prefix), with their
    ELF closure; `path`: PATH entries before the sandbox's (a runtime's), where the
    programs named are looked up first.
    """
    builder = _Builder(
        str(folder) if folder is not None else None, ":".join([*path, bw.SANDBOX_PATH])
    )
    builder.add_tree("/etc", follow=False)  # its links (alternatives) lead to whole systems
    for tree in ALWAYS_TREES:
        if os.path.isdir(tree):
            builder.add_tree(tree)
    localtime = os.path.realpath("/etc/localtime")
    if os.path.isfile(localtime):
        builder.add(localtime)
    builder.add_program("/bin/sh")
    for tree in trees:
        builder.add_tree(tree)
    if argv:
        builder.add_program(argv[0])
    if folder is not None:
        builder.add_folder(str(folder))
        builder.charging = True
        try:
            for word in argv[1:]:  # `env X=1 python3 ...`, `sh -c "exec java ..."`
                builder.add_words(word.encode("utf-8", "replace"))
                if os.path.basename(argv[0]) in _SHELLS:  # `sh run` (a script in the folder)
                    script = os.path.join(str(folder), word)
                    if bw.under(os.path.realpath(script), (str(folder),)):
                        builder.add_words(_head(script))
        finally:
            builder.charging = False
    return builder.view


# ----- every page of a view resident, and kept so -----------------------------------------
#: Lock what is made resident (tests switch it off to see what the lock alone does).
LOCK = True
#: Bytes of locked memory that count as "may lock": a JDK's view is about 200 MB.
LOCK_ENOUGH = 1 << 30
CAP_IPC_LOCK = 14


def may_lock() -> tuple[bool, str]:
    """Whether this process may lock a view's pages in memory, and why (for `arena doctor`)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:") and int(line.split()[1], 16) >> CAP_IPC_LOCK & 1:
                return True, "CAP_IPC_LOCK (root)" if os.geteuid() == 0 else "CAP_IPC_LOCK"
    soft, _hard = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    if soft == resource.RLIM_INFINITY or soft >= LOCK_ENOUGH:
        return True, f"RLIMIT_MEMLOCK {'unlimited' if soft < 0 else soft // 2**20}"
    return False, f"RLIMIT_MEMLOCK is {soft // 1024} KiB and no CAP_IPC_LOCK"


#: The keeper: a small process of arena's (never a bot's) that reads the files it is
#: sent (NUL-separated paths; an empty one ends a batch) and keeps each one mapped and
#: locked for as long as its stdin is open, so the worker's own memory stays its own.
#: It answers a batch with "LOCKED_BYTES READ_BYTES". argv[1] is 1 to lock, 0 to read only.
KEEPER = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.mlock.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
import sys
lock, locked, read, data, buffer = sys.argv[1] == "1", 0, 0, b"", bytearray(1 << 20)
while chunk := os.read(0, 1 << 16):
    *paths, data = (data + chunk).split(b"\0")
    for path in paths:
        if not path:
            os.write(1, b"%d %d\n" % (locked, read))
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        size = os.fstat(fd).st_size
        address = libc.mmap(None, size, 1, 1, fd, 0) if lock and size else None
        if address not in (None, ctypes.c_void_p(-1).value):
            if libc.mlock(address, size) == 0:
                locked += size
                os.close(fd)
                continue
            libc.munmap(address, size)
        while os.readv(fd, [buffer]) > 0:
            pass
        read += size
        os.close(fd)
"""


@dataclass
class Resident:
    """The files this process made resident, held by its keeper (locked where it may)."""

    pid: int = field(default_factory=os.getpid)
    sent: set[str] = field(default_factory=set)
    locked: int = 0
    read: int = 0
    keeper: subprocess.Popen[bytes] | None = None

    def _keeper(self) -> subprocess.Popen[bytes]:
        if self.keeper is None:
            self.keeper = subprocess.Popen(
                [sys.executable, "-I", "-c", KEEPER, "1" if LOCK else "0"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={"PATH": bw.SANDBOX_PATH},
                start_new_session=True,  # Ctrl-C is arena's to handle, not the keeper's
                close_fds=True,
            )
        return self.keeper

    def files(self, paths: Iterable[str]) -> None:
        """Make `paths` resident (and locked where the keeper may): done when this returns."""
        batch = [p for p in dict.fromkeys(paths) if p not in self.sent and "\0" not in p]
        if not batch:
            return
        keeper = self._keeper()
        assert keeper.stdin is not None and keeper.stdout is not None
        message = b"".join(os.fsencode(p) + b"\0" for p in batch) + b"\0"
        try:
            keeper.stdin.write(message)
            keeper.stdin.flush()
            answer = keeper.stdout.readline().split()
            self.locked, self.read = int(answer[0]), int(answer[1])
        except (OSError, ValueError, IndexError) as error:
            raise OSError(f"the keeper of the system view failed ({error})") from None
        self.sent.update(batch)

    def locked_bytes(self) -> int:
        """How many bytes of files this process's keeper holds locked."""
        return self.locked

    def release(self) -> None:
        """Let the keeper go (its locks go with it); tests, and a process's end."""
        if self.keeper is not None:
            with contextlib.suppress(OSError):
                if self.keeper.stdin is not None:
                    self.keeper.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.keeper.wait(timeout=10)
            if self.keeper.stdout is not None:
                self.keeper.stdout.close()
            self.keeper = None
        self.sent.clear()


# ----- the view root: a copy of everything a view shows, on a tmpfs -------------------------
#: A file of a view larger than this is bound from the host (and locked), not copied.
COPY_MOST_BYTES = shared.COPY_MOST_BYTES


class Root:
    """This process's view root, beside its staged copies: every view's links, copies of its
    single files (libraries, programs), and folders where its trees are mounted: copies
    (/etc, a Python's library folders, a JDK's home) that the arena processes of this user
    share (`arena.sandbox.trees`), beside the root. A file too large to copy is bound
    from the host over an empty file.

    Both are on the tmpfs of the staged copies (/dev/shm), so every folder a match
    sandbox can look a name up in is a tmpfs one: tmpfs keeps no negative dentries (its
    dentries are deleted at their last reference, `always_delete_dentry`), so a lookup of
    a missing name leaves nothing that a later lookup, in another sandbox, could time; a
    folder bound from the host (ext4, overlay) would remember each missing name looked up
    in it (issue 30: about 430-540 bit/s). Only single files come from the host, and a
    file has no names to look up.

    bubblewrap reads /proc/self/mountinfo again at every mount it makes, so a sandbox
    start costs about 0.5 ms per bind (a Python bot's view has about 190 single files
    and links: 120 ms instead of 26 ms). A sandbox binds instead the few top-level
    folders of this root (copies on a tmpfs, where no page is ever cold while there is
    no swap), its trees, and its few files too large to copy.
    """

    def __init__(self, root: Path) -> None:
        """The root goes at `root` (made afresh; `remove` takes it away); the shared tree
        copies beside it, in `trees`."""
        self.root = root
        self.owner = os.getpid()
        self.shared = shared.Shared(root.parent / "trees")
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(mode=0o755, parents=True)
        os.chmod(root, 0o755)

    def _at(self, path: str) -> Path:
        return self.root / path.lstrip("/")

    def _folder(self, path: Path) -> None:
        path.mkdir(mode=0o755, parents=True, exist_ok=True)

    def place(self, view: View) -> list[str]:
        """Put `view` in the root; the bubblewrap arguments that show it to a sandbox."""
        tops = view.top_trees()
        roots = tuple(tops)
        big: list[str] = []
        for link, target in sorted(view.links.items()):
            at = self._at(link)
            if bw.under(link, roots) or os.path.lexists(at):
                continue
            self._folder(at.parent)
            os.symlink(target, at)
        for path in sorted(view.files):
            if bw.under(path, roots):
                continue
            at = self._at(path)
            info = os.stat(path)
            if info.st_size > COPY_MOST_BYTES:
                big.append(path)
                if not at.exists():
                    self._folder(at.parent)
                    at.touch(mode=0o644)  # where bubblewrap mounts it
            elif not at.exists():
                self._folder(at.parent)
                shared.copy_file(path, at, info, 0o755 if info.st_mode & 0o111 else 0o644)
        mounted: list[str] = []
        for tree in tops:
            copy = self.shared.get(tree)
            self._folder(self._at(tree))  # a mount point
            mounted += ["--ro-bind", str(copy.source), tree]
            big += copy.large
        # The root holds every view of this process; a sandbox is shown only the top-level
        # entries its own view has (another view's /var/tmp toolchain is not its system).
        used = {p.split("/")[1] for p in [*view.links, *view.files, *tops]}
        args: list[str] = []
        for entry in sorted(os.listdir(self.root)):
            at, inside = self.root / entry, "/" + entry
            if entry not in used:
                continue
            if at.is_symlink():
                args += ["--symlink", os.readlink(at), inside]
            elif at.is_dir():
                args += ["--ro-bind", str(at), inside]
        args += mounted
        for path in big:
            args += ["--ro-bind", path, path]
        return args

    def resident(self, view: View) -> list[str]:
        """Every file a sandbox with `view` can read, where it is: its copy (in the root or
        a shared tree copy), or the host's file for one too large to copy (to make them
        resident)."""
        roots = tuple(view.top_trees())
        found = []
        for path in sorted(view.files):
            if not bw.under(path, roots):
                large = os.path.getsize(path) > COPY_MOST_BYTES
                found.append(path if large else str(self._at(path)))
        for tree in roots:
            copy = self.shared.get(tree)
            found += [*copy.copies, *copy.large]
        return found

    def remove(self) -> None:
        """Delete the root, and the shared tree copies no other process holds (at exit)."""
        if os.getpid() == self.owner:
            self.shared.release()
            shutil.rmtree(self.root, ignore_errors=True)


# ----- once per process -----------------------------------------------------------------
_LOCK = threading.Lock()
_VIEWS: dict[tuple[object, ...], list[str]] = {}
_RESIDENT: Resident | None = None


def forget() -> None:
    """Release this process's resident files and views: the next sandbox computes its own."""
    global _RESIDENT
    with _LOCK:
        if _RESIDENT is not None and _RESIDENT.pid == os.getpid():
            _RESIDENT.release()
        _RESIDENT = None
        _VIEWS.clear()


def resident() -> Resident:
    """This process's resident files (a forked worker locks its own: locks are not inherited)."""
    global _RESIDENT
    if _RESIDENT is None or _RESIDENT.pid != os.getpid():
        _RESIDENT = Resident()
        _VIEWS.clear()
        atexit.register(_RESIDENT.release)  # the keeper goes with its process, awaited
        multiprocessing.util.Finalize(None, _RESIDENT.release, exitpriority=5)
    return _RESIDENT


def keepers() -> list[int]:
    """The pid of this process's keeper while it runs (the one process arena keeps)."""
    found = _RESIDENT
    if found is None or found.pid != os.getpid() or found.keeper is None:
        return []
    return [found.keeper.pid]


def for_bot(
    root: Root,
    argv: list[str],
    folder: Path | None,
    key: str,
    trees: tuple[str, ...] = (),
    path: tuple[str, ...] = (),
) -> list[str]:
    """bubblewrap arguments for the view of a match sandbox, made resident before it returns.

    `key` names the folder's content (its staged copy is made afresh, its path is not
    the same); the view is computed, placed in `root` and made resident once per process
    for each key, program, `trees` and `path` (`build`).
    """
    cache_key = (key, tuple(argv), trees, path)
    with _LOCK:
        warm = resident()
        binds = _VIEWS.get(cache_key)
        if binds is None:
            view = build(argv, folder, trees, path)
            binds = root.place(view)
            warm.files(root.resident(view))
            _VIEWS[cache_key] = binds
        return binds
