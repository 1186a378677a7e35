"""arena's referees (`arena.games`) and its orjson on every bot's Python path, nothing else.

A search bot imports `arena.games` to simulate the match it plays (protocol/SEARCH.md).
Each arena process makes one copy of exactly `arena/__init__.py` and the `.py` files
of `arena/games` (and its compiled modules, below), next to its staged bot folders;
the sandbox binds it read-only at MOUNT and PYTHONPATH names it, so the store, the
seeds and the checkout (or site-packages) it came from stay out of reach. Without
bubblewrap PYTHONPATH names the copy itself.

Beside them goes one more file: the compiled extension module of the orjson that arena
itself runs, as the top-level module `orjson` under its full ABI-tagged name
(`orjson.cpython-311-x86_64-linux-gnu.so`). A Python finds an extension module only
under one of its own `importlib.machinery.EXTENSION_SUFFIXES`, so exactly the bot
Pythons that can load it (same implementation, version, ABI flags and platform as
arena's) import it, and every other Python passes over the file as if it were not there
(its own orjson, if it has one, is found as before). It is copied only when it needs
no library beside it, and only under that full tag, never as an `.abi3.so` or bare
`.so` that other Pythons would try to load. One regular file, no metadata, no
package folder: nothing else of arena's environment goes with it.

arena.games' own compiled modules (Twirkle's playout engine, `arena/games/twirkle/_engine.c`,
built by the install where a C compiler was found) go with the `.py` files under the same
rule: only under this interpreter's full extension suffix, and not onto a noexec file
system. A bot Python that cannot load one passes over it, and the game plays in pure
Python (`arena/games/twirkle/fast.py`).

Bots run with PYTHONDONTWRITEBYTECODE=1 and cannot write the copy, so the copy gets
its byte-code before a bot uses it, for the Python the bot's command runs: compiled in
this process when that Python has arena's own version, or by that Python itself when it
is a system interpreter arena may run. Any other Python compiles the package in memory
at every start (about 25-45 ms more).
"""

from __future__ import annotations

import compileall
import contextlib
import importlib.machinery
import os
import re
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import arena
from arena.sandbox import bwrap as bw

#: Where the copy is mounted inside the sandbox: PYTHONPATH there.
MOUNT = "/arena/python"
#: How long a system Python may take to compile the copy before it is left uncompiled.
COMPILE_TIMEOUT_S = 60.0


class GamesCopy:
    """A read-only copy of arena/__init__.py, arena/games/ and orjson: PYTHONPATH's root."""

    def __init__(self, root: Path):
        """Copy the running arena's package files and orjson's module into `root` (made afresh)."""
        self.root = root
        self.owner = os.getpid()
        self._lock = threading.Lock()
        self._compiled: set[str] = set()
        _copy_package(Path(arena.__file__).parent, root)
        #: The copy of arena's orjson extension in `root`, or None (see the module docstring).
        self.orjson = _copy_orjson(root)
        bw.open_up(root)

    def compile_for(self, program: str) -> None:
        """Compile the copy's byte-code for `program` when it is a Python arena may run; once."""
        real = os.path.realpath(program)
        if not os.path.basename(real).startswith("python") or real in self._compiled:
            return
        with self._lock:
            if real in self._compiled:
                return
            if _same_version(real):
                compileall.compile_dir(self.root, quiet=1, optimize=0, workers=1)
            elif _trusted(real):
                _compile_with(real, self.root)
            self._compiled.add(real)
            bw.open_up(self.root)

    def remove(self) -> None:
        """Delete the copy when this process, its maker, is done with its bots (not a fork)."""
        if os.getpid() == self.owner:
            shutil.rmtree(self.root, ignore_errors=True)


def _copy_package(package: Path, root: Path) -> None:
    """`package`'s __init__.py and games/**.py under root/arena, with the games' compiled
    modules (`games_extensions`) where they can be mapped: no byte-code, no stray files."""
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(root)  # a copy of an earlier arena process with this pid
    (root / "arena").mkdir(parents=True)
    shutil.copy2(package / "__init__.py", root / "arena" / "__init__.py")
    sources = sorted((package / "games").rglob("*.py"))
    if not os.statvfs(root).f_flag & os.ST_NOEXEC:  # (where no Python could map them)
        sources += games_extensions(package)
    for source in sources:
        target = root / "arena" / source.relative_to(package)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def games_extensions(package: Path) -> list[Path]:
    """arena.games' compiled modules built for this interpreter (Twirkle's playout engine):
    only files named with its full extension suffix, which a Python of another ABI never
    tries to load."""
    return sorted((package / "games").rglob("*" + importlib.machinery.EXTENSION_SUFFIXES[0]))


def orjson_extension() -> Path | None:
    """The running arena's orjson extension module file, when a bot's Python may be given it.

    That is a file named with this interpreter's full extension suffix (its first
    EXTENSION_SUFFIXES entry, e.g. `.cpython-311-x86_64-linux-gnu.so`) with no
    bundled libraries beside it (a wheel repaired by auditwheel keeps those in
    `orjson.libs`, which would have to be copied too). Works alike from a checkout's
    venv or a wheel install: it is found through the imported module.
    """
    try:
        import orjson
    except ImportError:
        return None
    tag = importlib.machinery.EXTENSION_SUFFIXES[0]
    for module in (sys.modules.get("orjson.orjson"), orjson):  # a package, or a bare module
        origin = getattr(module, "__file__", None)
        if not origin or not origin.endswith(tag):
            continue
        path = Path(origin)
        beside = path.parent.parent if module is not orjson else path.parent
        if path.is_file() and not (beside / "orjson.libs").exists():
            return path
    return None


def _copy_orjson(root: Path) -> Path | None:
    """Copy arena's orjson extension to root as the top-level module `orjson`; None if not given."""
    source = orjson_extension()
    if source is None or os.statvfs(root).f_flag & os.ST_NOEXEC:
        return None  # on a noexec file system no Python could map it (and it would shadow theirs)
    target = root / ("orjson" + importlib.machinery.EXTENSION_SUFFIXES[0])
    shutil.copyfile(source, target)
    return target


def _same_version(real: str) -> bool:
    """True for arena's own Python, or one named like it (pythonX.Y): its byte-code fits.

    A wrong guess costs only time: a Python ignores byte-code of another magic number.
    """
    if sys.implementation.name != "cpython" or sys.pycache_prefix is not None:
        return False  # its byte-code would not be CPython's, or would go elsewhere
    if real == os.path.realpath(sys.executable):
        return True
    version = re.fullmatch(r"python(\d+)\.(\d+)", os.path.basename(real))
    return version is not None and tuple(map(int, version.groups())) == sys.version_info[:2]


def _trusted(real: str) -> bool:
    """True for a system interpreter: under /usr and friends, root's own, writable by no one else.

    arena runs it outside the sandbox (to compile its own source), so a Python that a
    bot's author could have placed (in a home, in /tmp) never qualifies.
    """
    try:
        info = os.stat(real)
    except OSError:
        return False
    owned = info.st_uid == 0 and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    return bw.under(real, bw.SYSTEM_DIRS) and stat.S_ISREG(info.st_mode) and owned


def _compile_with(python: str, root: Path) -> None:
    """Compile `root` with another Python (isolated from any environment); best effort."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            [python, "-I", "-m", "compileall", "-q", str(root)],
            env={"PATH": bw.SANDBOX_PATH},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=COMPILE_TIMEOUT_S,
            check=False,
        )
