"""Builds may take file locks (issue 31 item 4); seats still see no lock at all.

cargo (flock on Cargo.lock and its package cache) and go (fcntl on go.mod) cannot build
without locks, so a build gets the seccomp filter without the lock rules
(`seccomp.program(build=True)`). Builds can run while matches run (`arena bot submit`
beside a tournament, a Dask worker building a version between its matches), and a
build sees files a seat sees too (the system, arena's referees at /arena/python, a
runtime's folders): so the proof is that a seat cannot learn of a lock, whoever holds
it. Every lock call fails in a seat, the test ones included, and /proc/locks is a
constant file: what a seat sees is the same with and without a build holding locks on
the files they share.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.sandbox import detection, launcher, view
from arena.sandbox.limits import Limits
from arena.sandbox.start import launch
from arena.submissions.manifest import build_outputs, load_manifest, prepare
from tests.helpers import TEST_BOTS, sandboxed

needs_filter = pytest.mark.skipif(
    not sandboxed() or not detection.protections().seccomp, reason="no seccomp filter here"
)
#: Files a build and a seat both see: the system (the seat's view has its own copy of a small
#: file), and arena's referees.
SHARED = ("/usr/bin/env", "/arena/python/arena/__init__.py")

HOLD = """
import fcntl, os, struct, sys
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))
print("held", flush=True)
sys.stdin.read()  # hold them until arena closes stdin (or kills the build)
"""

LOOK = """
import errno, fcntl, json, os, struct, sys
seen = {}
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDWR if path.startswith("/tmp") else os.O_RDONLY)
    wanted = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)
    for name, call in (
        ("flock", lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)),
        ("F_GETLK", lambda: struct.unpack("hhqqi", fcntl.fcntl(fd, fcntl.F_GETLK, wanted))[0]),
        ("F_OFD_GETLK", lambda: struct.unpack("hhqqi", fcntl.fcntl(fd, 36, wanted))[0]),
    ):
        try:
            seen[f"{path} {name}"] = f"answered {call()}"
        except OSError as error:
            seen[f"{path} {name}"] = errno.errorcode[error.errno]
seen["/proc/locks"] = open("/proc/locks").read()
print(json.dumps(seen))
"""


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A scratch folder where a build's is (`run_build`): the build's uid reaches it."""
    base = Path(tempfile.mkdtemp(prefix="build-", dir=launcher.staging().base.parent))
    base.chmod(0o711)
    (base / "bot").mkdir(mode=0o755)
    yield base / "bot"
    shutil.rmtree(base, ignore_errors=True)


def python() -> str:
    return shutil.which("python3", path="/usr/bin:/bin") or sys.executable


def host_bound() -> str:
    """A file of the seat's view bound from the host (too large to copy: the seat's
    Python itself, or another), the same inode as the build's."""
    seen = view.build([python()], None)
    large = [f for f in seen.regular_files() if os.path.getsize(f) > view.COPY_MOST_BYTES]
    real = os.path.realpath(python())
    assert large, "no file of a Python seat's view is bound from the host"
    return real if real in large else large[0]


@contextmanager
def build_holding_locks(scratch: Path, paths: tuple[str, ...] = SHARED) -> Iterator[None]:
    """A build-profile sandbox (a build's, on a scratch copy) holding locks on `paths`."""
    box = launch([python(), "-c", HOLD, *paths], scratch, Limits(), writable=True)
    try:
        assert box.process.stdout is not None
        line = box.process.stdout.readline()
        assert line == b"held\n", box.process.stderr.read() if box.process.stderr else ""
        yield
    finally:
        box.kill()


def seat_looks(paths: tuple[str, ...] = SHARED) -> dict[str, str]:
    """What a seat (a bot's sandbox) learns of the locks on the files at `paths`."""
    box = launch([python(), "-c", LOOK, *paths], TEST_BOTS / "polite", Limits())
    try:
        out, err = box.process.communicate(timeout=30)
    finally:
        box.kill()
    assert out.strip(), err.decode()
    return dict(json.loads(out))


@needs_filter
def test_a_build_takes_every_kind_of_lock(tmp_path: Path) -> None:
    folder = tmp_path / "build_locks"
    # without what a build in place left there (tests/test_match.py runs every test bot)
    shutil.copytree(
        TEST_BOTS / "build_locks", folder, ignore=shutil.ignore_patterns("locks.txt", "own.lock")
    )
    prepare(load_manifest(folder))  # BotFolderError (No locks available) before the fix
    assert ("locks.txt",) in build_outputs(folder)
    taken = (folder / "locks.txt").read_text()
    assert "own.lock: flock, F_SETLK, F_OFD_SETLK taken" in taken
    assert "/usr/bin/env: flock, F_SETLK, F_OFD_SETLK taken" in taken


@needs_filter
def test_a_seat_sees_no_lock_that_a_running_build_holds(scratch: Path) -> None:
    shared = (*SHARED, host_bound())
    alone = seat_looks(shared)
    with build_holding_locks(scratch, shared):
        beside = seat_looks(shared)
    assert beside == alone  # not one bit of the build's locks
    for path in shared:
        for call in ("flock", "F_GETLK", "F_OFD_GETLK"):
            assert beside[f"{path} {call}"] == "ENOLCK"
    assert beside["/proc/locks"] == ""


@pytest.mark.skipif(not sandboxed(), reason="bubblewrap is not available here")
def test_without_the_seat_filter_the_build_lock_shows(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unfiltered, a seat sees the build's lock on a file its view binds from the host
    (the same inode); not on /usr/bin/env, of which the match's system view
    (arena.sandbox.view, issue 30 item 6) gives it its own copy."""
    real = detection.protections()
    monkeypatch.setattr(detection, "protections", lambda: dataclasses.replace(real, seccomp=False))
    shared = (*SHARED, host_bound())
    with build_holding_locks(scratch, shared):
        seen = seat_looks(shared)
    assert seen[f"{shared[-1]} flock"] in ("EWOULDBLOCK", "EAGAIN"), seen
    assert seen[f"{shared[-1]} F_GETLK"] == f"answered {fcntl.F_RDLCK}", seen
    assert seen["/usr/bin/env flock"] not in ("EWOULDBLOCK", "EAGAIN")
    assert seen["/usr/bin/env F_GETLK"] != f"answered {fcntl.F_RDLCK}"


def test_the_seat_filter_still_refuses_locks() -> None:
    """The build profile is a second program: the seats' filter keeps every lock rule."""
    if not detection.protections().seccomp:
        pytest.skip("no seccomp filter here")
    from arena.sandbox import seccomp

    assert seccomp.program() != seccomp.program(build=True)
    assert len(seccomp.program()) > len(seccomp.program(build=True))
