"""What a sandbox keeps from a bot: channels to other sandboxes, host paths, descriptors.

Issue 11 items 4 and 8: two seats of one owner must not pass a hidden hand
through locks or file events on a file they share, and nothing of the host
(paths, arena's descriptors) may be visible from inside.
"""

from __future__ import annotations

import ctypes
import dataclasses
import json
import mmap
import os
import platform
import re
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arena.match.run import MatchResult, run_match
from arena.sandbox import bwrap, detection, launcher, runtimes, uids, view
from arena.sandbox.limits import Limits
from arena.sandbox.start import launch
from arena.status import MatchStatus, SeatStatus
from tests.helpers import TEST_BOTS, bot_ref_for, sandboxed
from tests.test_match import spec

needs_bwrap = pytest.mark.skipif(not sandboxed(), reason="bubblewrap is not available here")
needs_filter = pytest.mark.skipif(
    not sandboxed() or not detection.protections().seccomp, reason="no seccomp filter here"
)
PROBE = Path(__file__).parent / "probes" / "syscalls.py"


@pytest.fixture
def unfiltered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sandboxes without the seccomp filter (everything else unchanged)."""
    real = detection.protections()
    monkeypatch.setattr(detection, "protections", lambda: dataclasses.replace(real, seccomp=False))


def colluders() -> MatchResult:
    colluder = bot_ref_for("colluder")
    return run_match(spec(colluder, colluder, timeout=2.0))


# ----- item 4: no covert channel between seats -------------------------------------
@needs_filter
def test_colluding_seats_learn_nothing_through_locks_or_file_events() -> None:
    result = colluders()
    assert result.status is MatchStatus.NORMAL
    assert [s.status for s in result.seats] == [SeatStatus.OK] * 2, result.seats[1].detail
    sender, listener = result.seats[0].stderr, result.seats[1].stderr
    for call in ("F_SETLK", "F_OFD_SETLK", "flock"):
        assert f"colluder: {call} denied (ENOLCK)" in sender
    assert "colluder: inotify_init1 denied (EPERM)" in listener
    assert "colluder: F_GETLK denied (ENOLCK)" in listener


@needs_filter
def test_colluding_seats_of_two_matches_at_once_learn_nothing() -> None:
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _n: colluders(), range(2)))
    for result in results:
        assert [s.status for s in result.seats] == [SeatStatus.OK] * 2, result.seats[1].detail


@needs_bwrap
def test_without_the_filter_the_colluders_do_pass_the_hand(unfiltered: None) -> None:
    """The pair is a real attack: namespaces alone leave every one of its channels open."""
    listener = colluders().seats[1]
    assert listener.status is SeatStatus.ILLEGAL
    assert "learned F_GETLK" in listener.detail


def probe_syscalls() -> dict[str, str]:
    box = launch(["/usr/bin/python3", "-c", PROBE.read_text()], TEST_BOTS / "polite", Limits())
    try:
        out, err = box.process.communicate(timeout=20)
    finally:
        box.kill()
    # Unfiltered, PTRACE_TRACEME succeeds and the traced probe's exit status is lost:
    # what it printed is the answer.
    assert out.strip(), err.decode()
    return dict(json.loads(out))


#: What each probe call answers under the filter where that is not EPERM.
NOT_EPERM = {
    **dict.fromkeys(
        ("fcntl F_SETLK", "fcntl F_SETLK, upper bits set", "fcntl F_GETLK", "flock"), "ENOLCK"
    ),
    "fcntl F_OFD_SETLK": "ENOLCK",
    "preadv2 RWF_NOWAIT": "ENOTSUP",
    # issue 30: AIO and mincore look absent; eviction and flushing hints do nothing
    **dict.fromkeys(("io_setup", "mincore"), "ENOSYS"),
    **dict.fromkeys(
        ("fadvise64 DONTNEED", "readahead", "madvise MADV_PAGEOUT", "madvise MADV_COLD"), "ok"
    ),
    **dict.fromkeys(("sync", "syncfs", "sync_file_range"), "ok"),
    **dict.fromkeys(
        (
            "socket AF_VSOCK",
            "socket AF_VSOCK, upper bits set",
            "socket AF_INET",
            "socket AF_INET6",
            "socket AF_PACKET",
            "socketpair AF_INET",
        ),
        "EAFNOSUPPORT",
    ),
    # what a bot needs keeps working
    **dict.fromkeys(("fcntl F_GETFL", "preadv2", "socket AF_UNIX", "socket AF_NETLINK"), "ok"),
}


@needs_filter
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the probe uses x86_64 numbers")
def test_the_filter_refuses_each_listed_call_and_keeps_ordinary_ones() -> None:
    found = probe_syscalls()
    assert {name: found[name] for name in NOT_EPERM} == NOT_EPERM
    refused = [name for name in found if name not in NOT_EPERM]
    assert {name: found[name] for name in refused} == dict.fromkeys(refused, "EPERM")


@needs_bwrap
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the probe uses x86_64 numbers")
def test_without_the_filter_the_probe_calls_succeed(unfiltered: None) -> None:
    """The refusals above are the filter's, not the namespaces' or the uid's."""
    found = probe_syscalls()
    opened = ("fcntl F_SETLK", "fcntl F_SETLK, upper bits set", "flock", "inotify_init1")
    opened += ("io_setup", "socket AF_VSOCK", "socket AF_VSOCK, upper bits set", "socket AF_INET")
    assert {name: found[name] for name in (*opened, "keyctl", "add_key")} == dict.fromkeys(
        (*opened, "keyctl", "add_key"), "ok"
    )


# ----- item 8: leftovers that leak ---------------------------------------------------
@needs_bwrap
def test_the_bot_sees_no_host_path_and_only_descriptors_0_1_2(tmp_path: Path) -> None:
    folder = tmp_path / "checkout-like" / "mybot"
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text('name = "mybot"\ncommand = ["./run"]\n')
    tmp_path.chmod(0o755)  # reachable, so that nothing but the design keeps the path out
    (tmp_path / "checkout-like").chmod(0o755)
    script = (
        "ls /proc/self/fd; echo ---; tr '\\0' ' ' </proc/1/cmdline;"
        " tr '\\0' ' ' </proc/self/cmdline; cat /proc/self/mountinfo;"
        " tr '\\0' ' ' </proc/self/environ; echo; pwd; echo $HOME"
    )
    box = launch(["/bin/sh", "-c", script, str(folder / "run")], folder, Limits())
    try:
        out, err = box.process.communicate(timeout=20)
    finally:
        box.kill()
    assert box.process.returncode == 0, err
    descriptors, seen = out.decode().split("---\n", 1)
    assert descriptors.split() == ["0", "1", "2", "3"]  # 3: ls's own listing of the directory
    checkout = Path(__file__).resolve().parents[1]
    host = [tmp_path, checkout, uids.runtime_dir(), launcher.staging().base, Path.home()]
    for path in host:
        assert str(path) not in seen, f"{path} is visible inside the sandbox"
    assert "/bot/run" in seen  # the argv names the folder by its mount point
    assert seen.rstrip().splitlines()[-2:] == ["/bot", "/bot"]  # cwd and HOME


@needs_bwrap
def test_staged_copies_live_on_a_tmpfs_of_their_own() -> None:
    base = launcher.staging().base.parent
    if bwrap.mount_type("/dev/shm") == "tmpfs":
        assert base.parent == Path("/dev/shm")
    else:
        assert base == uids.runtime_dir()


@needs_bwrap
def test_doctor_reports_the_filter_and_sandboxed_builds() -> None:
    from typer.testing import CliRunner

    from arena.cli import app

    result = CliRunner().invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["protection"]: row for row in json.loads(result.stdout)["protections"]}
    assert rows["seccomp filter"]["active"] is detection.protections().seccomp
    assert "file locks" in rows["seccomp filter"]["detail"]
    assert rows["bot builds sandboxed"]["active"] is True
    kernel = rows["no channel through machine-wide kernel state"]
    assert kernel["active"] is detection.protections().seccomp
    assert "/proc/sys" in kernel["detail"] and "AF_UNIX" in kernel["detail"]
    residual = json.loads(result.stdout)["residual_channels"]
    channels = " ".join(row["channel"] for row in residual)
    assert all(word in channels for word in ("sysinfo", "CPU", "first touch"))
    assert all("bit/s" in row["measured"] for row in residual)


# ----- issue 30, items 1, 6, 11: machine-wide kernel state --------------------------
@pytest.fixture
def unmasked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sandboxes that see the real /proc/sys, /proc statistics and /dev/pts."""
    monkeypatch.setattr(bwrap.ProcFiles, "args", lambda _self, _limits: [])


def kernel_pair() -> MatchResult:
    bot = bot_ref_for("kernel_memory")
    return run_match(spec(bot, bot, timeout=2.0))


def pair_learned(result: MatchResult) -> list[tuple[int, str, int]]:
    """(card a seat learned, channel, the other seat's smallest first card) for each seat."""
    assert result.replay is not None, result.status
    hands = result.replay["events"][0]["outcome"]["hands"]
    return [
        (int(card), channel, min(hands[1 - index]))
        for index, seat in enumerate(result.seats)
        for card, channel in re.findall(r"learned (\d+) through (\w+)", seat.stderr)
    ]


@pytest.mark.usefixtures("counters_alone")
@needs_filter
def test_colluding_seats_learn_nothing_through_kernel_counters() -> None:
    result = kernel_pair()
    assert [s.status for s in result.seats] == [SeatStatus.OK] * 2
    assert pair_learned(result) == []
    for seat in result.seats:
        assert "io_setup failed (ENOSYS)" in seat.stderr
        assert "openpty failed (ENOENT)" in seat.stderr


@pytest.mark.usefixtures("counters_alone")
@needs_bwrap
def test_unconfined_the_colluders_pass_the_hand_through_kernel_counters(
    unfiltered: None, unmasked: None
) -> None:
    found = pair_learned(kernel_pair())
    assert sorted(channel for _card, channel, _right in found) == ["aio", "aio", "pty", "pty"]
    assert all(card == right for card, _channel, right in found), found


#: What a sandbox reads of machine-wide state; another sandbox's work must not change it.
GLOBAL_STATE = [f"/proc/{name}" for name in (*bwrap.CONSTANT_PROC, "meminfo")]
READER = (
    'dump() { for f in "$@"; do cat "$f" 2>/dev/null; done; ls -R /proc/sys /proc/pressure; }\n'
    'dump "$@"; echo ===; read -r _; dump "$@"'
)
BUSY = (
    "import os, threading\n"
    "pids = [os.fork() or os._exit(0) for _ in range(60)]\n"  # the fork counter, loadavg's pid
    "[os.waitpid(p, 0) for p in pids]\n"
    "files = [open('/bot/bot.toml') for _ in range(100)]\n"  # fs/file-nr
    "memory = bytearray(200 << 20)\n"  # meminfo, vmstat, buddyinfo
    "threads = [threading.Thread(target=sum, args=(range(10**5),)) for _ in range(50)]\n"
    "[t.start() for t in threads]; [t.join() for t in threads]\n"  # ctxt, interrupts
)


def global_state_twice() -> tuple[str, str]:
    """What one sandbox reads before and after another sandbox has been busy."""
    argv = ["/bin/sh", "-c", READER, "reader", *GLOBAL_STATE]
    reader = launch(argv, TEST_BOTS / "polite", Limits())
    try:
        assert reader.process.stdout is not None and reader.process.stdin is not None
        before = b""
        while not before.endswith(b"===\n"):
            chunk = os.read(reader.process.stdout.fileno(), 65536)
            assert chunk, "the reader stopped"
            before += chunk
        busy = launch(["/usr/bin/python3", "-c", BUSY], TEST_BOTS / "polite", Limits())
        try:
            assert busy.process.wait(timeout=60) == 0, busy.process.communicate()[1]
        finally:
            busy.kill()
        after, _err = reader.process.communicate(b"go\n", timeout=20)
    finally:
        reader.kill()
    return before.decode()[:-4], after.decode()


@needs_bwrap
def test_another_sandboxs_work_leaves_global_proc_files_unchanged() -> None:
    before, after = global_state_twice()
    assert "MemTotal:" in before and "processes 0" in before
    assert before == after


@needs_bwrap
def test_unmasked_the_global_proc_files_show_another_sandboxs_work(unmasked: None) -> None:
    before, after = global_state_twice()
    assert "aio-nr" in before  # /proc/sys is the real one
    lines = [
        {ln.split()[0]: ln for ln in text.splitlines() if ln.strip()} for text in (before, after)
    ]
    for key in ("processes", "MemFree:", "ctxt"):
        assert lines[0][key] != lines[1][key], key


EVICT = (
    "import os, sys\nfd = os.open(sys.argv[1], os.O_RDONLY)\n"
    "os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)\n"
)


@pytest.fixture
def shared_file(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, runtimes.Runtime]]:
    """A file on disk in a sandbox's view that no other process locks (the folder of a
    runtime of its own; too large to copy, so bound from the host: a view copies smaller
    files onto a tmpfs), made resident but not locked: only the filter keeps it cached."""
    root = Path(tempfile.mkdtemp(prefix="arena-evict-", dir="/var/tmp"))  # /tmp: hidden
    root.chmod(0o755)
    shared = root / "shared.txt"
    with shared.open("w") as handle:
        line = "a page of a shared read-only file\n"
        handle.write(line * (view.COPY_MOST_BYTES // len(line) + 2000))
        handle.flush()
        os.fsync(handle.fileno())  # a dirty page cannot be dropped
    shared.chmod(0o644)
    view.forget()
    monkeypatch.setattr(view, "LOCK", False)
    yield shared, runtimes.Runtime("evict", (str(root),))
    view.forget()
    shutil.rmtree(root, ignore_errors=True)


def cached_pages(path: Path) -> tuple[int, int]:
    """(pages of `path` in the page cache, pages in all), as the host's mincore says."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    size = path.stat().st_size
    pages = -(-size // mmap.PAGESIZE)
    with path.open("rb") as handle:
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, handle.fileno(), 0)
        assert address not in (None, ctypes.c_void_p(-1).value)
    try:
        vector = (ctypes.c_ubyte * pages)()
        assert libc.mincore(ctypes.c_void_p(address), size, vector) == 0, ctypes.get_errno()
        return sum(byte & 1 for byte in vector), pages
    finally:
        libc.munmap(ctypes.c_void_p(address), size)


def evict_from_a_sandbox(shared: Path, runtime: runtimes.Runtime) -> tuple[int, int]:
    """Cache `shared`, let a sandboxed bot ask the kernel to drop it; what stays cached."""
    shared.read_bytes()
    assert cached_pages(shared)[0] == cached_pages(shared)[1]
    argv = ["/usr/bin/python3", "-c", EVICT, str(shared)]
    box = launch(argv, TEST_BOTS / "polite", Limits(), runtime=runtime)
    try:
        _out, err = box.process.communicate(timeout=20)
    finally:
        box.kill()
    assert box.process.returncode == 0, err
    return cached_pages(shared)


@needs_filter
def test_a_bot_cannot_evict_a_system_file_from_the_page_cache(
    shared_file: tuple[Path, runtimes.Runtime],
) -> None:
    cached, pages = evict_from_a_sandbox(*shared_file)
    assert cached == pages


@needs_bwrap
def test_unfiltered_a_bot_does_evict_a_system_file(
    unfiltered: None, shared_file: tuple[Path, runtimes.Runtime]
) -> None:
    cached, pages = evict_from_a_sandbox(*shared_file)
    assert cached < pages
