"""The per-bot cgroup: memory limit, CPU share and process cap, with and without bubblewrap.

The starver (tests/bots/starver) starts up to 300 busy children, each in its own
session and allowed on every core; here its processes are read back from the
cgroup files of the running bot. The files a cgroup gets are also checked for
both cgroup versions on plain directories, since this machine has only one.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.match.run import run_match
from arena.players.process import BotProcess
from arena.sandbox import cgroup, detection, report
from arena.sandbox.detection import Protections
from arena.sandbox.limits import MIB, Limits, from_settings
from arena.status import MatchStatus, SeatStatus
from tests.helpers import TEST_BOTS, bot_ref_for, sandboxed
from tests.test_match import descendants, spec
from tests.test_sandbox import start_message

STARVER_LIMITS = Limits(processes=32, cpu_percent=50, memory_bytes=256 * MIB)


def active(name: str) -> bool:
    """True when bots get controller `name` here."""
    return cgroup.find_root(name)[0] is not None


needs_cpu_and_pids = pytest.mark.skipif(
    not (active("cpu") and active("pids")), reason="no cpu and pids cgroup controllers here"
)
needs_memory = pytest.mark.skipif(not active("memory"), reason="no memory cgroup here")


@pytest.fixture(params=["bwrap", "none"])
def sandbox_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test inside bubblewrap and again with ARENA_SANDBOX=none (cgroups still on)."""
    if request.param == "bwrap" and not sandboxed():
        pytest.skip("bubblewrap is not available here")
    if request.param == "none":
        monkeypatch.setenv("ARENA_SANDBOX", "none")
        found = detection.protections()
        bare = Protections(None, "turned off", False, "", found.cgroup, found.cgroup_reason)
        monkeypatch.setattr(detection, "protections", lambda: bare)
    return str(request.param)


def _dir_of(dirs: tuple[Path, ...], name: str) -> Path:
    """The directory of controller `name` among a bot's cgroup directories."""
    parent = cgroup.find_root(name)[0]
    assert parent is not None and parent.path is not None
    (found,) = [d for d in dirs if d.parent == parent.path]
    return found


def _procs(path: Path) -> set[int]:
    return {int(p) for p in (path / "cgroup.procs").read_text().split()}


def _session(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[3])


def _ours(names: tuple[str, ...] = cgroup.CONTROLLERS) -> set[Path]:
    """The bot cgroups this test process has now, in every hierarchy."""
    found: set[Path] = set()
    for controller in cgroup.controllers():
        if controller.path is not None and controller.name in names:
            found |= set(controller.path.glob(f"arena-{os.getpid()}-*"))
    return found


@needs_cpu_and_pids
def test_starver_is_held_by_its_cgroup(sandbox_mode: str) -> None:
    """Every process it starts, whatever its session, is counted and shares one CPU quota."""
    bot = BotProcess("starver", bot_ref_for("starver").argv, TEST_BOTS / "starver", STARVER_LIMITS)
    bot.spawn()
    try:
        bot.start_match(start_message(), time.monotonic() + 20)
        assert bot.sandbox is not None
        dirs = bot.sandbox.cgroup_dirs
        cpu, pids = _dir_of(dirs, "cpu"), _dir_of(dirs, "pids")
        version = cgroup.find_root("cpu")[0].version  # type: ignore[union-attr]
        if version == 1:
            quota = (cpu / "cpu.cfs_quota_us").read_text().split()
            quota += (cpu / "cpu.cfs_period_us").read_text().split()
        else:
            quota = (cpu / "cpu.max").read_text().split()
        assert quota == [str(cgroup.CPU_PERIOD_US // 2), str(cgroup.CPU_PERIOD_US)]  # 50 %
        assert (pids / "pids.max").read_text().strip() == "32"
        inside = _procs(pids)
        assert _procs(cpu) == inside  # the same processes under both controllers
        assert 20 < len(inside) <= 32
        assert len({_session(pid) for pid in inside}) > 20  # the children left the session
        children = [pid for pid in inside if len(os.sched_getaffinity(pid)) == os.cpu_count()]
        assert len(children) > 20
        answer = bot.decide({"type": "decide", "id": 1, "legal": [7]}, time.monotonic() + 20)
        assert answer == 7  # it could not start all 300: the cap held
        started = int(re.findall(r"started (\d+) of 300", bot.stderr_tail())[0])
        assert 20 < started < 32
    finally:
        bot.close(grace=0)
    assert not any(Path(f"/proc/{pid}").exists() for pid in inside)
    assert not any(path.exists() for path in dirs)


@needs_cpu_and_pids
def test_a_match_with_the_starver_leaves_nothing_behind(sandbox_mode: str) -> None:
    polite, starver = bot_ref_for("polite"), bot_ref_for("starver")
    before, cgroups_before = descendants(), _ours()
    result = run_match(spec(polite, starver, timeout=2.0, limits=STARVER_LIMITS))
    assert result.status in (MatchStatus.NORMAL, MatchStatus.FORFEIT), result.error
    assert result.seats[0].status is SeatStatus.OK
    # Its own answers wait behind its own children (a loaded machine may make it late),
    # but it never answers the illegal decision: the process cap held.
    assert result.seats[1].status in (SeatStatus.OK, SeatStatus.TIMEOUT), result.seats[1].detail
    assert descendants() - before == set()
    assert _ours() - cgroups_before == set()


@needs_memory
def test_a_bot_killed_at_the_memory_limit_says_so(sandbox_mode: str) -> None:
    hog = bot_ref_for("memory_hog_c")
    limits = Limits(memory_bytes=128 * MIB, address_space_bytes=1024 * MIB)
    result = run_match(spec(bot_ref_for("polite"), hog, timeout=1.0, limits=limits))
    seat = result.seats[1]
    assert seat.status is SeatStatus.CRASH
    assert seat.detail.endswith(": killed at the memory limit (128 MiB)"), seat.detail


def test_doctor_reports_each_controller() -> None:
    result = CliRunner().invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["protection"]: r for r in json.loads(result.stdout)["protections"]}
    for controller in cgroup.controllers():
        row = rows[f"cgroup {controller.name}"]
        assert row["active"] is (controller.path is not None)
        assert row["detail"].startswith(controller.reason)


@pytest.fixture
def fresh_lookup() -> Iterator[None]:
    """Look the controllers up again for this test's environment, and again after it."""
    cgroup.controllers.cache_clear()
    yield
    cgroup.controllers.cache_clear()


def test_a_controller_can_be_turned_off(
    monkeypatch: pytest.MonkeyPatch, fresh_lookup: None
) -> None:
    monkeypatch.setenv("ARENA_SANDBOX_CGROUP", "memory,pids")
    cpu, reason = cgroup.find_root("cpu")
    assert cpu is None and reason == "not in ARENA_SANDBOX_CGROUP=memory,pids"
    monkeypatch.setenv("ARENA_SANDBOX_CGROUP", "off")
    cgroup.controllers.cache_clear()
    assert cgroup.status() == (
        False,
        "; ".join(f"{n}: turned off by ARENA_SANDBOX_CGROUP=off" for n in cgroup.CONTROLLERS),
    )
    assert cgroup.create(Limits()) is None


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (
            1,
            {
                "memory.limit_in_bytes": "268435456",
                "memory.memsw.limit_in_bytes": "268435456",
                "cpu.cfs_period_us": "20000",
                "cpu.cfs_quota_us": "10000",
                "cpu.shares": "1024",
                "pids.max": "32",
            },
        ),
        (
            2,
            {
                "memory.max": "268435456",
                "memory.swap.max": "0",
                "cpu.max": "10000 20000",
                "cpu.weight": "100",
                "pids.max": "32",
            },
        ),
    ],
)
def test_bot_cgroup_files_per_version(
    version: int, expected: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v1: a directory per controller hierarchy; v2: one directory with every file."""
    parents = {n: tmp_path / (n if version == 1 else "unified") for n in cgroup.CONTROLLERS}
    for path in parents.values():
        path.mkdir(exist_ok=True)
    found = tuple(cgroup.Controller(n, p, version, "fake") for n, p in parents.items())
    monkeypatch.setattr(cgroup, "controllers", lambda: found)
    group = cgroup.create(STARVER_LIMITS)
    assert group is not None
    assert len(group.dirs) == (4 if version == 1 else 1)  # v1: cpuacct has its own hierarchy
    assert group.procs_files == tuple(str(d / "cgroup.procs") for d in group.dirs)
    written = {f.name: f.read_text() for d in group.dirs for f in d.iterdir()}
    assert written == expected


def test_v2_hierarchy_is_found_where_the_controller_is_delegated(tmp_path: Path) -> None:
    mount = cgroup.Mount("cgroup2", "/", tmp_path, frozenset())
    own = tmp_path / "arena.service"
    own.mkdir()
    (own / "cgroup.subtree_control").write_text("cpu memory\n")
    assert cgroup.locate("cpu", [mount], {"": "/arena.service"}) == (own, 2)
    missing = cgroup.locate("pids", [mount], {"": "/arena.service"})
    assert missing == f"cgroup v2: pids is not delegated to arena ({own}/cgroup.subtree_control)"


def test_doctor_warns_without_a_cpu_controller(
    monkeypatch: pytest.MonkeyPatch, fresh_lookup: None
) -> None:
    monkeypatch.setenv("ARENA_SANDBOX_CGROUP", "memory,pids")
    result = CliRunner().invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    assert "warning: no CPU cgroup here" in result.stderr
    rows = {r["protection"]: r for r in report.report()}
    assert rows["cgroup cpu"]["active"] is False
    assert "can make the bots beside it time out" in rows["cgroup cpu"]["detail"]
    # no cpuacct either: answers are charged wall time, and doctor says so
    assert "warning: no CPU accounting for bots here" in result.stderr
    assert rows["cgroup cpuacct"]["active"] is False
    assert "charged wall time" in rows["cgroup cpuacct"]["detail"]


def test_a_run_without_cpu_accounting_warns_once(
    monkeypatch: pytest.MonkeyPatch, fresh_lookup: None, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("ARENA_SANDBOX_CGROUP", "memory,pids")
    monkeypatch.setattr(cgroup, "_WARNED_UNCOUNTED", False)
    with caplog.at_level("WARNING", logger="arena.sandbox"):
        for _ in range(2):
            group = cgroup.create(Limits())
            if group is not None:
                group.remove()
    warned = [r.getMessage() for r in caplog.records if "no CPU accounting" in r.getMessage()]
    assert len(warned) == 1 and "charged wall time" in warned[0]


def test_a_tournament_may_lower_the_cpu_share() -> None:
    assert from_settings({"cpu_percent": 50}).cpu_percent == 50
    assert from_settings({"cpu_percent": 400}).cpu_percent == Limits().cpu_percent


def _counter(path: Path, key: str) -> int:
    """One `key value` line of a cgroup's flat-keyed file (cpu.stat, pids.events)."""
    for line in path.read_text().splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    raise AssertionError(f"no {key} in {path}")


@needs_cpu_and_pids
def test_fork_churn_is_charged_to_the_churners_cgroup(sandbox_mode: str) -> None:
    """fork_churn's 16 threads fork children that exit at once, without end. The kernel
    does that work (copying, tearing down, reaping) in the churner's own tasks: its
    children are in its cgroup (never more alive than the cap) and the CPU quota
    throttles it, so its fork rate is bounded by its quota. Polled, not timed."""
    limits = Limits(processes=24, cpu_percent=50, memory_bytes=256 * MIB)
    bot = BotProcess("churn", bot_ref_for("fork_churn").argv, TEST_BOTS / "fork_churn", limits)
    bot.spawn()
    try:
        bot.start_match(start_message(), time.monotonic() + 20)
        assert bot.sandbox is not None
        cpu, pids = (
            _dir_of(bot.sandbox.cgroup_dirs, "cpu"),
            _dir_of(bot.sandbox.cgroup_dirs, "pids"),
        )
        first = _procs(cpu)
        seen: set[int] = set()
        give_up = time.monotonic() + 30
        started: set[tuple[int, str]] = set()  # (pid, start time): a pid is soon reused
        while time.monotonic() < give_up and not (
            _counter(cpu / "cpu.stat", "nr_throttled") > 0 and len(seen - first) > 10
        ):
            now = _procs(cpu)  # forked children, each in the churner's own cgroup
            seen |= now
            started |= {(pid, when) for pid in now if (when := _start_time(pid))}
        assert _counter(cpu / "cpu.stat", "nr_throttled") > 0  # the quota holds its forking
        assert int((pids / "pids.peak").read_text()) <= 24  # never more alive than the cap
        assert len(seen - first) > 10
        answer = bot.decide({"type": "decide", "id": 1, "legal": [7]}, time.monotonic() + 20)
        assert answer == 7  # the churner still plays
    finally:
        bot.close(grace=0)
    # Gone: not even a zombie. Without bubblewrap (no pid namespace of its own) a child the
    # churner forked as it was killed is orphaned to arena, the subreaper, which reaps only
    # the processes it killed: that zombie is dead but stays (a known leak of
    # ARENA_SANDBOX=none), so there a zombie counts as gone.
    dead = ("Z", "X") if sandbox_mode == "none" else ()
    assert started and not any(_start_time(pid, dead) == when for pid, when in started)


def _start_time(pid: int, dead: tuple[str, ...] = ()) -> str:
    """When a process started (/proc/PID/stat's 22nd field), or "" once it is gone or in
    one of the `dead` states ("Z", a zombie): with the pid, it names one process, where
    the pid alone may already name a newer one."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return ""
    return "" if fields[0] in dead else fields[19]


@pytest.mark.skipif(not active("cpuacct"), reason="no cpuacct cgroup here")
def test_two_lookups_of_the_controllers_at_once_both_find_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A probe made while another probe of the same controller is in progress (two
    threads of one process looking the controllers up at once) succeeds: with a name per
    process and controller, the second one failed with EEXIST, and the process then
    charged every answer wall time (bench_fairness --hog: a polite timeout)."""
    (cpuacct,) = [c for c in cgroup.controllers() if c.name == "cpuacct"]
    assert cpuacct.path is not None
    real, inner = cgroup._settings, []

    def overlapping(name: str, version: int, limits: Limits) -> list[tuple[str, str, bool]]:
        if not inner:  # the other thread's probe, made while this one's child exists
            inner.append("running")
            inner[0] = cgroup._probe(name, cpuacct.path, version)
        return real(name, version, limits)

    monkeypatch.setattr(cgroup, "_settings", overlapping)
    assert cgroup._probe("cpuacct", cpuacct.path, cpuacct.version) is None
    assert inner == [None]
    assert not list(cpuacct.path.glob(f"arena-{os.getpid()}-*-probe-*")), "a probe was left"
