"""Tournaments on a Dask cluster (a LocalCluster of worker processes): same results as a
local run, bots shipped by content, a killed worker costs one re-run, a lost scheduler
stops the run for `resume` to finish."""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from arena.match.run import MatchResult, MatchSpec
from arena.players.pool import BotPool
from arena.players.process import BotProcess
from arena.protocol.messages import PROTOCOL_VERSION
from arena.results import reports
from arena.sandbox.limits import Limits
from arena.store import Store
from arena.submissions import submit as registry
from arena.tournament import dask_executor, runner
from arena.tournament.config import ConfigError, TournamentConfig, check_name, dask_address
from arena.tournament.dask_executor import DaskExecutor, run_on_worker
from arena.tournament.execution import ExecutorLost

BOTS = ("random", "first-legal")
#: Small tournament: 2 bots, 3 deals, each in both seat orders, 1 round per match.
CONFIG = TournamentConfig(
    game="take-that", bots=BOTS, rounds=3, seed=9, variant={"rounds": 1}, decision_timeout=5.0
)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The workers' bot cache (workers inherit the environment when they start)."""
    root = tmp_path_factory.mktemp("worker-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_WORKER_CACHE", str(root))
        yield root


@pytest.fixture(scope="module")
def cluster(cache: Path) -> Iterator[LocalCluster]:
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as local:
        yield local


#: How long a test waits for its cluster's workers (a missing one fails it, never hangs it).
WORKERS_TIMEOUT_S = 120


@pytest.fixture
def client(cluster: LocalCluster) -> Iterator[Client]:
    with Client(cluster, set_as_default=False) as connected:
        connected.wait_for_workers(2, timeout=WORKERS_TIMEOUT_S)
        yield connected


@pytest.fixture
def dying_client(cache: Path) -> Iterator[Client]:
    """A cluster of its own, for a test whose matches kill workers: the nannies bring
    them back, but once, under load, one did not, and the module's shared cluster was
    left a worker short for every later test."""
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as local,
        Client(local, set_as_default=False) as connected,
    ):
        connected.wait_for_workers(2, timeout=WORKERS_TIMEOUT_S)
        yield connected


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An arena home with both bots registered (smoke-tested once), as a template database."""
    folder = tmp_path_factory.mktemp("home")
    store = Store(f"sqlite:///{folder / 'template.db'}")
    for bot in BOTS:
        registry.submit(store, folder, bot)
    store.close()
    return folder


def store_in(folder: Path, home: Path) -> Store:
    """A fresh copy of the template database (its bots stored in `home`)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(home / "template.db", folder / "arena.db")
    return Store(f"sqlite:///{folder / 'arena.db'}")


@pytest.fixture(scope="module")
def expected(
    home: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[dict[str, object]], list[tuple[object, ...]]]:
    """Leaderboard and per-seat rows of the tournament played locally, in this process."""
    store = store_in(tmp_path_factory.mktemp("local"), home)
    tid = runner.create(store, home, CONFIG)
    runner.run(store, tid)
    return reports.leaderboard(store, "take-that", tid), seat_rows(store, tid)


def seat_rows(store: Store, tid: int) -> list[tuple[object, ...]]:
    return [
        (m.number, m.status, s.seat, s.score, s.rank, s.status, s.mu_after, s.sigma_after)
        for m, s in store.seat_rows(tournament_id=tid)
    ]


Expected = tuple[list[dict[str, object]], list[tuple[object, ...]]]


def test_dask_results_and_leaderboard_equal_a_local_run(
    tmp_path: Path, home: Path, expected: Expected, client: Client, cache: Path
) -> None:
    expected_board, expected_rows = expected
    store = store_in(tmp_path, home)
    tid = runner.create(store, home, CONFIG)
    executor = DaskExecutor(client.scheduler.address, client=client)
    runner.run(store, tid, executor=executor)
    # Each worker process keeps its bots alive between matches (at most two per bot here:
    # a deal's second seat order needs processes that have not played it)...
    idle = client.run(dask_executor.idle_bots)
    assert set(idle) == set(client.nthreads()) and max(idle.values()) <= 4, idle
    assert sum(idle.values()) >= 2, idle
    executor.shutdown()
    assert client.run(dask_executor.idle_bots) == dict.fromkeys(idle, 0)  # ...until the run ends
    assert store.match_counts(tid) == (6, 6)
    assert reports.leaderboard(store, "take-that", tid) == expected_board
    assert seat_rows(store, tid) == expected_rows
    assert {row[1] for row in expected_rows} == {"normal"}
    # The workers ran the bots from their own verified copies, named by sha256: the C bot
    # was built there (the coordinator's stored copy is somewhere else entirely).
    shas = {v.sha256 for v in store.versions()}
    assert shas <= {p.name for p in cache.iterdir()}
    first_legal = next(v for v in store.versions() if v.command == ["./first-legal"])
    assert (cache / first_legal.sha256 / "first-legal").is_file()
    assert executor.reruns() == {}


class Spectators:
    """What a run tells the live pages (arena.service.live.Live's interface)."""

    def __init__(self) -> None:
        self.told: list[tuple[str, int]] = []

    def start(self, match_id: int, header: dict[str, object]) -> None:
        self.told.append(("start", match_id))

    def event(self, match_id: int, event: dict[str, object]) -> None:
        self.told.append(("event", match_id))

    def end(self, match_id: int) -> None:
        self.told.append(("end", match_id))


def test_a_run_on_dask_with_spectators_plays_as_usual_and_publishes_no_moves(
    tmp_path: Path, home: Path, expected: Expected, cluster: LocalCluster
) -> None:
    store = store_in(tmp_path, home)
    tid = runner.create(store, home, CONFIG)
    spectators = Spectators()
    name = "dask://" + cluster.scheduler_address.removeprefix("tcp://")
    runner.run(store, tid, executor=name, pin_workers=False, spectators=spectators)
    assert store.match_counts(tid) == (6, 6)
    assert seat_rows(store, tid) == expected[1]
    # no start and no move crosses from a Dask worker; each match's view ends as recorded
    assert spectators.told == [("end", m.id) for m in store.matches(tid)]


def test_tournament_file_key_names_the_executor(tmp_path: Path, home: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('game = "take-that"\nbots = ["a", "b"]\nexecutor = "dask://sched:8786"\n')
    from arena.tournament.config import load

    assert load(path).executor == "dask://sched:8786"
    assert dask_address(check_name("dask://sched:8786")) == "tcp://sched:8786"
    with pytest.raises(ConfigError, match="dask://HOST:PORT"):
        runner.create(
            store_in(tmp_path, home),
            home,
            CONFIG.__class__(**{**CONFIG.__dict__, "executor": "spark://x"}),
        )


# ----- a worker that dies in the middle of a match ------------------------------
class _DyingPool(BotPool):
    """Kills the worker process when the second seat's bot is asked for: mid-match."""

    def __init__(self) -> None:
        super().__init__(reuse=False)
        self.calls = 0

    def acquire(
        self,
        name: str,
        argv: tuple[str, ...],
        folder: Path,
        limits: Limits,
        deal: int | None = None,
        protocol: int = PROTOCOL_VERSION,
    ) -> BotProcess:
        self.calls += 1
        if self.calls == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().acquire(name, argv, folder, limits, deal, protocol)


def kill_worker_in(
    spec: MatchSpec, reuse: bool, victim: str, marker: str, kills: int
) -> MatchResult:
    """The worker task, except that the first `kills` attempts at match `victim` kill their
    worker (`marker`.N files, created atomically, count the attempts across workers)."""
    pool = None
    if spec.match_id.endswith(victim):
        for attempt in range(kills):
            try:
                os.close(os.open(f"{marker}.{attempt}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                continue
            pool = _DyingPool()
            break
    return run_on_worker(spec, reuse, pool)


def test_a_worker_killed_mid_match_costs_one_rerun_and_changes_nothing(
    tmp_path: Path, home: Path, expected: Expected, dying_client: Client
) -> None:
    expected_board, expected_rows = expected
    store = store_in(tmp_path, home)
    tid = runner.create(store, home, CONFIG)
    executor = DaskExecutor(dying_client.scheduler.address, client=dying_client)
    marker = str(tmp_path / "killed")
    executor.task = functools.partial(kill_worker_in, victim="-m3", marker=marker, kills=1)
    runner.run(store, tid, executor=executor)
    executor.shutdown()
    assert Path(f"{marker}.0").exists()  # the worker really was killed
    # m3 was charged with the lost worker once and played again (so were the other
    # unfinished matches of its chunk: which of them was playing is not known)
    charged = {match.split("-")[1]: n for match, n in executor.reruns().items()}
    assert charged["m3"] == 1 and max(charged.values()) == 1
    assert store.match_counts(tid) == (6, 6)
    assert seat_rows(store, tid) == expected_rows  # nobody forfeited, nothing voided
    assert reports.leaderboard(store, "take-that", tid) == expected_board


def test_a_match_whose_rerun_loses_its_worker_too_is_void_not_a_forfeit(
    tmp_path: Path, home: Path, dying_client: Client
) -> None:
    store = store_in(tmp_path, home)
    config = TournamentConfig(**{**CONFIG.__dict__, "rounds": 1})  # type: ignore[arg-type]
    tid = runner.create(store, home, config)
    executor = DaskExecutor(dying_client.scheduler.address, client=dying_client)
    marker = str(tmp_path / "killed")
    executor.task = functools.partial(kill_worker_in, victim="-m0", marker=marker, kills=2)
    runner.run(store, tid, executor=executor)
    executor.shutdown()
    rows = seat_rows(store, tid)
    assert [(r[0], r[1], r[5]) for r in rows if r[0] == 0] == [
        (0, "platform-error", "ok"),
        (0, "platform-error", "ok"),
    ]
    assert [r[1] for r in rows if r[0] == 1] == ["normal", "normal"]
    details = reports.tournament_details(store, tid)
    assert details is not None and details["forfeits"] == {} and details["platform_errors"] == 1


def test_a_stuck_callback_elsewhere_in_the_process_does_not_stop_a_run(
    tmp_path: Path, home: Path, expected: Expected, client: Client
) -> None:
    """Dask runs every done-callback of a process on one thread. A callback stuck there
    (another executor fetching from a client that was closed) must not stop this run:
    each executor fetches its results on a thread of its own."""
    import threading

    _board, expected_rows = expected
    release = threading.Event()
    stuck = client.submit(lambda: 1, pure=False)
    stuck.add_done_callback(lambda _future: release.wait(120))  # holds the shared thread
    store = store_in(tmp_path, home)
    tid = runner.create(store, home, CONFIG)
    executor = DaskExecutor(client.scheduler.address, client=client)
    finished = threading.Event()

    def run() -> None:
        runner.run(store, tid, executor=executor)
        finished.set()

    player = threading.Thread(target=run, daemon=True)
    player.start()
    try:
        assert finished.wait(90), "the run waited on the blocked callback thread"
    finally:
        release.set()
        player.join(30)
        executor.shutdown()
    assert seat_rows(store, tid) == expected_rows


def test_chunks_of_matches_give_the_results_of_a_local_run(
    tmp_path: Path, home: Path, expected: Expected, client: Client
) -> None:
    """Several matches per task (the first ones alone, while a thread is idle)."""
    expected_board, expected_rows = expected
    store = store_in(tmp_path, home)
    tid = runner.create(store, home, CONFIG)
    executor = DaskExecutor(client.scheduler.address, client=client)
    executor.chunk_size = 3
    assert executor.slots == 2 * executor.threads * dask_executor.MAX_CHUNK
    runner.run(store, tid, executor=executor)
    executor.shutdown()
    assert executor.submitted < 6  # the first 2 alone (idle threads), then chunks
    assert seat_rows(store, tid) == expected_rows
    assert reports.leaderboard(store, "take-that", tid) == expected_board
    assert executor.reruns() == {}


def test_the_chunk_size_follows_the_match_durations(client: Client) -> None:
    executor = DaskExecutor(client.scheduler.address, client=client)
    try:
        assert executor._size() == 0  # nothing timed yet: matches go out alone or wait
        executor._played, executor._seconds = 10, 10 * dask_executor.CHUNK_SECONDS / 4
        assert executor._size() == 4
        executor._seconds = 10 * 60.0  # long matches: one per task
        assert executor._size() == 1
        executor._seconds = 0.0  # instant ones: capped
        assert executor._size() == dask_executor.MAX_CHUNK
    finally:
        executor.shutdown()


@pytest.mark.parametrize(("kills", "status"), [(1, "normal"), (2, "platform-error")])
def test_a_match_killing_its_worker_inside_a_chunk_costs_only_itself(
    tmp_path: Path, home: Path, expected: Expected, dying_client: Client, kills: int, status: str
) -> None:
    """m3 is the second match of a chunk (m2, m3, m4, m5): killed once, the chunk plays
    again; killed twice, m3 is void and the others play, none voided nor forfeited."""
    _board, expected_rows = expected
    store = store_in(tmp_path, home)
    tid = runner.create(store, home, CONFIG)
    executor = DaskExecutor(dying_client.scheduler.address, client=dying_client)
    executor.chunk_size = 4
    marker = str(tmp_path / "killed")
    executor.task = functools.partial(kill_worker_in, victim="-m3", marker=marker, kills=kills)
    runner.run(store, tid, executor=executor)
    executor.shutdown()
    assert Path(f"{marker}.{kills - 1}").exists()  # the workers really were killed
    rows = seat_rows(store, tid)
    assert {r[1] for r in rows if r[0] == 3} == {status}
    # The same play in every other match (their ratings differ once m3 is void).
    played = [r[:6] for r in rows if r[0] != 3]
    assert played == [r[:6] for r in expected_rows if r[0] != 3]
    if kills == 1:
        assert rows == expected_rows
    details = reports.tournament_details(store, tid)
    assert details is not None and details["forfeits"] == {}
    assert details["platform_errors"] == kills - 1


# ----- losing the scheduler -----------------------------------------------------------
def test_a_lost_scheduler_stops_the_run_and_resume_finishes_it(
    tmp_path: Path, home: Path, expected: Expected, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected_board, expected_rows = expected
    # One match a chunk, so that two are in flight when the second is recorded and two
    # not yet sent: the run cannot finish once the scheduler has gone (with bigger
    # chunks all six could arrive together, before the plug is pulled).
    monkeypatch.setattr(dask_executor, "MAX_CHUNK", 1)
    store = store_in(tmp_path, home)
    tid = runner.create(store, home, CONFIG)
    doomed = LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=":0"
    )
    address = doomed.scheduler_address

    def pull_the_plug(progress: runner.Progress) -> None:
        if progress.done == 2:
            doomed.close()

    with pytest.raises(ExecutorLost, match="resume"):
        runner.run(
            store,
            tid,
            executor="dask://" + address.removeprefix("tcp://"),
            on_progress=pull_the_plug,
        )
    done, total = store.match_counts(tid)
    assert 2 <= done < total == 6
    assert store.tournament(tid).status == "interrupted"  # type: ignore[union-attr]
    assert [m.number for m in store.matches(tid, recorded=True)] == list(range(done))
    runner.run(store, tid)  # resume, here on the local pool
    assert store.match_counts(tid) == (6, 6)
    assert seat_rows(store, tid) == expected_rows
    assert reports.leaderboard(store, "take-that", tid) == expected_board


def test_doctor_checks_every_worker(client: Client) -> None:
    from typer.testing import CliRunner

    from arena.cli import app

    address = "dask://" + client.scheduler.address.removeprefix("tcp://")
    done = CliRunner().invoke(app, ["doctor", "--executor", address, "--json"])
    assert done.exit_code == 0, done.output
    rows = json.loads(done.stdout.splitlines()[-1])
    assert {r["worker"] for r in rows} == set(client.nthreads())
    checks = {r["check"] for r in rows}
    assert {"bubblewrap", "rlimits", "python", "bot cache", "smoke match"} <= checks
    smoke = [r for r in rows if r["check"] == "smoke match"]
    assert len(smoke) == 2 and all(r["ok"] for r in smoke), smoke


def test_the_command_line_runs_on_the_cluster_and_refuses_a_bad_executor(
    tmp_path: Path, home: Path, client: Client
) -> None:
    from typer.testing import CliRunner

    from arena.cli import app

    shutil.copy(home / "template.db", tmp_path / "arena.db")
    address = "dask://" + client.scheduler.address.removeprefix("tcp://")
    args = ["--home", str(tmp_path), "tournament", "run", "--game", "take-that"]
    args += ["--bots", ",".join(BOTS), "--deals", "1", "--variant", "rounds=1", "--quiet"]
    done = CliRunner().invoke(app, [*args, "--executor", address, "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout.splitlines()[-1])["played"] == 2
    bad = CliRunner().invoke(app, [*args, "--executor", "spark://x:1"])
    assert bad.exit_code == 2 and "dask://HOST:PORT" in bad.output


def test_no_dask_worker_process_meets_a_deal_twice(tmp_path: Path, client: Client) -> None:
    """Issue 17, item 1, on Dask: each worker's shared pool keeps bots apart from deals."""
    from tests import test_deal_memory

    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tid = runner.create(store, tmp_path, test_deal_memory.CONFIG)
    results: list[MatchResult] = []
    executor = DaskExecutor(client.scheduler.address, client=client)
    runner.run(store, tid, executor=executor, on_progress=lambda p: results.append(p.result))  # type: ignore[arg-type]
    executor.shutdown()
    assert store.match_counts(tid) == (24, 24)
    test_deal_memory.check(test_deal_memory.deals_by_process(results))
