"""A bot's build step, run in the same sandbox as the bot, on a scratch copy of its folder.

A build is the bot author's code like the bot itself, so it gets the same
confinement: its own uid, no network, a clean environment, rlimits and the
cgroup, a wall-clock limit, and at the end its whole process tree is killed.
It works on a writable scratch copy; what it leaves there is hostile, so only
new regular files and folders come back into the bot's folder, read without
following links, with plain permissions (no setuid/setgid/sticky bits), and
within a size budget. Links, devices, FIFOs and sockets are dropped, and no
file that the folder already had is replaced. What comes back obeys the rules the
folder is read by later (`arena.submissions.botfiles`: names, the number of files and
folders, the depth), or the build fails: a version that passed its build stays
readable, so usable, in every tournament.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import stat
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena import ArenaError
from arena.sandbox import launcher
from arena.sandbox.handle import Sandboxed
from arena.sandbox.limits import MIB, Limits
from arena.sandbox.start import launch
from arena.sandbox.uids import SandboxError
from arena.submissions import botfiles

#: The most a build may add to a bot's folder.
OUTPUT_BUDGET_BYTES = 256 * MIB
#: How much of the build's output is kept to explain a failure (a compiler's whole error).
TAIL_BYTES = 16000
_NOFOLLOW = os.O_RDONLY | os.O_NOFOLLOW
_DIRECTORY = _NOFOLLOW | os.O_DIRECTORY


@dataclass
class _Budget:
    """What a build may still add: bytes, and files and folders (`botfiles.LIMITS`)."""

    bytes: int
    entries: int

    def take(self, prefix: tuple[str, ...], name: str, is_folder: bool) -> None:
        """Charge one new entry `name` in the folder at `prefix`; BuildError past a rule."""
        problem = botfiles.name_problem(name)
        if problem:
            raise BuildError(f"build failed: it made {problem}")
        self.entries -= 1
        if self.entries < 0:
            most = botfiles.LIMITS.entries
            raise BuildError(f"build failed: with its output, more than {most} files and folders")
        if is_folder and len(prefix) + 1 > botfiles.LIMITS.depth:
            depth = botfiles.LIMITS.depth
            raise BuildError(f"build failed: it made folders nested deeper than {depth}")


class BuildError(ArenaError):
    """A build that failed, timed out or left something unusable; the message is one line.

    `output` is the tail of what the build wrote (stdout and stderr, as it wrote them):
    the compiler's error, for a person to read below the one-line message.
    """

    def __init__(self, message: str, output: str = ""):
        super().__init__(message)
        self.output = output


def run_build(
    argv: Sequence[str], folder: Path, limits: Limits, timeout_s: float
) -> list[tuple[str, ...]]:
    """Run `argv` in a sandbox on a copy of `folder`; copy what it made back. BuildError if not.

    Returns the relative paths of the files the build added to `folder`.
    """
    scratch = Path(tempfile.mkdtemp(prefix="build-", dir=launcher.staging().base.parent))
    try:
        scratch.chmod(0o711)  # the build's uid passes through to its copy
        work = scratch / "bot"
        shutil.copytree(folder, work, symlinks=True)
        code, said = _run(argv, work, limits, timeout_s)
        output = said.decode("utf-8", "surrogateescape")  # the bytes, shown as \\xff
        if code is None:
            raise BuildError(f"build timed out after {timeout_s:g} s", output)
        if code != 0:
            lines = output.strip().splitlines()
            last = lines[-1] if lines else f"exit code {code}"
            raise BuildError(f"build failed: {last}", output)
        return _copy_back(work, folder)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run(
    argv: Sequence[str], work: Path, limits: Limits, timeout_s: float
) -> tuple[int | None, bytes]:
    """The build's exit code (None: timed out) and the tail of its stdout and stderr."""
    try:
        box = launch(argv, work, limits, writable=True)
    except (OSError, SandboxError) as error:
        raise BuildError(f"build failed: {error}") from None
    try:
        said = _collect(box, time.monotonic() + timeout_s)
        return box.process.poll(), said
    finally:
        box.kill()  # the whole tree: a daemon the build started dies here


def _collect(box: Sandboxed, deadline: float) -> bytes:
    """Read output until the build exits or the deadline passes; keep the last part."""
    process = box.process
    assert process.stdin and process.stdout and process.stderr
    process.stdin.close()
    streams = [process.stdout.fileno(), process.stderr.fileno()]
    tail = b""
    while streams and time.monotonic() < deadline:
        ready, _w, _x = select.select(
            streams, [], [], min(0.2, max(0.0, deadline - time.monotonic()))
        )
        for fd in ready:
            chunk = os.read(fd, 65536)
            if chunk:
                tail = (tail + chunk)[-TAIL_BYTES:]
            else:
                streams.remove(fd)
        if not ready and process.poll() is not None:
            break  # exited; a leftover child holding the pipes must not keep us here
    if streams and process.poll() is None:
        return tail  # still running at the deadline: the caller sees poll() is None
    with contextlib.suppress(Exception):
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
    return tail


def _copy_back(work: Path, folder: Path) -> list[tuple[str, ...]]:
    """Copy the build's new files into `folder` safely; undo them all if one step fails.

    Returns the relative paths of the new files.
    """
    made: list[tuple[int, str, bool]] = []  # (parent fd, name, is a folder), in creation order
    added: list[tuple[str, ...]] = []  # the new files' relative paths
    fds: list[int] = []
    budget = _Budget(OUTPUT_BUDGET_BYTES, botfiles.LIMITS.entries - botfiles.count_entries(folder))
    try:
        source = os.open(work, _DIRECTORY)
        target = os.open(folder, _DIRECTORY)
        fds += [source, target]
        _copy_folder(source, target, budget, made, fds, ((), added))
    except BaseException:
        for parent, name, is_folder in reversed(made):
            with contextlib.suppress(OSError):
                (os.rmdir if is_folder else os.unlink)(name, dir_fd=parent)
        raise
    finally:
        for fd in fds:
            os.close(fd)
    return added


def _copy_folder(
    source: int,
    target: int,
    budget: _Budget,
    made: list[tuple[int, str, bool]],
    fds: list[int],
    where: tuple[tuple[str, ...], list[tuple[str, ...]]],
) -> None:
    """Copy new entries of the folder open at `source` into the one open at `target`.

    `where` is this folder's relative path and the list of new files' paths to extend.
    """
    prefix, added = where
    for entry in os.scandir(source):
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            try:
                os.mkdir(entry.name, 0o755, dir_fd=target)
                made.append((target, entry.name, True))
                budget.take(prefix, entry.name, is_folder=True)  # past a rule: all undone
            except FileExistsError:
                pass
            try:  # O_NOFOLLOW: a link the folder had in that place is not entered
                inner_target = os.open(entry.name, _DIRECTORY, dir_fd=target)
            except OSError:
                continue
            fds.append(inner_target)
            inner_source = os.open(entry.name, _DIRECTORY, dir_fd=source)
            fds.append(inner_source)
            _copy_folder(
                inner_source, inner_target, budget, made, fds, ((*prefix, entry.name), added)
            )
        elif stat.S_ISREG(info.st_mode) and _copy_file(
            source, target, entry.name, info, budget, made
        ):
            added.append((*prefix, entry.name))
            budget.take(prefix, entry.name, is_folder=False)


def _copy_file(
    source: int,
    target: int,
    name: str,
    info: os.stat_result,
    budget: _Budget,
    made: list[tuple[int, str, bool]],
) -> bool:
    """Copy one new regular file with plain permissions (0755 if executable, else 0644).

    False when the folder had a file of that name (it is kept, not replaced).
    """
    budget.bytes -= info.st_size
    if budget.bytes < 0:
        raise BuildError(f"build failed: its output exceeds {OUTPUT_BUDGET_BYTES // MIB} MiB")
    mode = 0o755 if info.st_mode & 0o111 else 0o644
    try:
        out = os.open(
            name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode, dir_fd=target
        )
    except FileExistsError:
        return False  # the folder had it: a build adds files, it does not replace the bot's own
    made.append((target, name, False))
    with os.fdopen(out, "wb") as sink:
        os.fchmod(sink.fileno(), mode)  # exactly this mode, whatever the umask
        with os.fdopen(os.open(name, _NOFOLLOW, dir_fd=source), "rb") as src:
            shutil.copyfileobj(src, sink)
    return True
