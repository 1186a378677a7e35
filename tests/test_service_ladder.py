"""The open ladder of `arena serve`: it keeps playing, takes in a new version at its next
batch (which then plays first), and a server killed with kill -9 at any moment loses
nothing and counts nothing twice when it starts again (as the tournament tests do)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import text

from arena.service.ladder import LadderSpec, OpenLadders, load_specs, pool, round_name
from arena.status import TournamentStatus
from arena.store import MatchRecord, SeatRecord, Store, SuspensionRecord
from arena.store.models import Match, Tournament
from arena.tournament.config import ConfigError
from tests.helpers import register_unchecked

SPEC = LadderSpec(
    game="take-that", players=2, matches=1000, bundled=("random", "first-legal"), workers=1
)


def until(
    condition: Callable[[], bool], what: str, process: subprocess.Popen[bytes] | None = None
) -> None:
    """Wait for `condition`, looking at the database (an event, not a time measured)."""
    deadline = time.monotonic() + 120
    while not condition():
        assert time.monotonic() < deadline, f"waited in vain for {what}"
        assert process is None or process.poll() is None, "the server exited"
        time.sleep(0.05)


def rounds(store: Store) -> list[int]:
    return sorted(t.id or 0 for t in store.tournaments() if t.name == round_name("take-that"))


def recorded(store: Store, tid: int) -> int:
    return store.match_counts(tid)[0]


def counted_once(store: Store) -> None:
    """Every recorded seat counted once in its version's rating, the recorded matches of
    each round a prefix of its schedule."""
    with store.reader.connect() as db:
        seats = dict(
            db.execute(
                text(
                    "SELECT s.bot_version_id, COUNT(*) FROM matchseat s JOIN match m"
                    " ON m.id = s.match_id WHERE m.recorded GROUP BY s.bot_version_id"
                )
            ).all()
        )
        rated = dict(db.execute(text("SELECT bot_version_id, matches FROM rating")).all())
    assert seats == rated
    for tid in rounds(store):
        numbers = sorted(m.number for m in store.matches(tid, recorded=True))
        assert numbers == list(range(len(numbers)))


@pytest.mark.slow
def test_a_new_version_is_admitted_at_the_next_batch_and_plays_first(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    ladders = OpenLadders(store, tmp_path, [SPEC])
    ladders.start()
    try:
        until(lambda: bool(rounds(store)) and recorded(store, rounds(store)[0]) >= 4, "matches")
        first = rounds(store)[0]
        register_unchecked(store, "polite")
        new = store.latest_version("polite")
        assert new is not None
        ladders.poke()
        until(
            lambda: len(rounds(store)) >= 2 and recorded(store, rounds(store)[-1]) >= 2, "round 2"
        )
        second = store.tournament(rounds(store)[-1])
        assert second is not None and store.tournament(first).status == TournamentStatus.FINISHED  # type: ignore[union-attr]
        opening = store.matches(second.id or 0)[0]
        assert new.id in opening.lineup  # the most uncertain plays first
    finally:
        ladders.stop(60)
    assert not any(t.is_alive() for t in ladders.threads)
    assert store.tournament(rounds(store)[-1]).status == TournamentStatus.FINISHED  # type: ignore[union-attr]
    counted_once(store)


@pytest.mark.slow
def test_kill_9_then_serve_again_goes_on_where_it_was(tmp_path: Path) -> None:
    (tmp_path / "ladder.toml").write_text(
        '[[ladder]]\ngame = "take-that"\nmatches = 1000\nbundled = ["random", "first-legal"]\n'
    )
    env = {**os.environ, "ARENA_HOME": str(tmp_path)}
    command = [
        sys.executable,
        "-m",
        "arena",
        "serve",
        "--port",
        "0",
        "--ladder",
        str(tmp_path / "ladder.toml"),
    ]
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    server = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    until(lambda: bool(rounds(store)) and recorded(store, rounds(store)[0]) >= 5, "matches", server)
    os.kill(server.pid, signal.SIGKILL)
    server.wait()
    first = rounds(store)[0]
    assert store.tournament(first).status == TournamentStatus.RUNNING  # type: ignore[union-attr]
    killed_at = recorded(store, first)
    counted_once(store)
    server = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    try:
        until(lambda: recorded(store, first) >= killed_at + 6, "the round resumed", server)
        assert rounds(store) == [first]  # the same round went on: its pool is the same
        server.send_signal(signal.SIGTERM)
        assert server.wait(60) == 0
    finally:
        server.kill()
        server.wait()
    counted_once(store)
    assert store.tournament(first).status in (TournamentStatus.FINISHED, TournamentStatus.RUNNING)  # type: ignore[union-attr]


def test_a_ladder_file_is_checked_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "l.toml"
    for body, error in (
        ("", "give each game's ladder as a [[ladder]] table"),
        ('[[ladder]]\ngame = "take-that"\nspeed = 2\n', "unknown ladder setting 'speed'"),
        ('[[ladder]]\ngame = "take-that"\nbundled = ["nobody"]\n', "no bundled bot 'nobody'"),
        ('[[ladder]]\ngame = "take-that"\n[[ladder]]\ngame = "take-that"\n', "one ladder per game"),
    ):
        path.write_text(body)
        with pytest.raises(ConfigError, match=error.replace("[", r"\[")):
            load_specs(path)
    path.write_text('[[ladder]]\ngame = "krumme10"\nplayers = 3\n')
    assert load_specs(path)[0].players == 3


def test_a_suspended_version_sits_out_until_its_cooldown_has_passed(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    a, b = (store.add_bot_version(n, n * 64, "/x", ["x"], ["*"]).id or 0 for n in "ab")
    tid = store.create_tournament(
        Tournament(
            name=round_name("take-that"), game="take-that", game_version=1, format="ladder",
            players=2, rounds=1, seed=1, variant={}, settings={},
        ),
        [Match(number=0, game="take-that", game_version=1, seed=1, lineup=[a, b])],
    )  # fmt: skip
    match_id = store.matches(tid)[0].id or 0
    seats = [SeatRecord(0, a, 1.0, 1, "ok"), SeatRecord(1, b, None, 2, "crash")]
    store.record(
        MatchRecord(match_id, "forfeit", seats), suspensions=[SuspensionRecord(b, match_id, 1)]
    )
    spec = LadderSpec(game="take-that", bundled=(), cooldown=600)
    assert pool(store, spec) == (["a"], frozenset({a}))
    spec = LadderSpec(game="take-that", bundled=(), cooldown=0)
    assert pool(store, spec) == (["a", "b"], frozenset({a, b}))  # cooled down: retried


@pytest.mark.slow
def test_the_ladder_of_arena_serve_plays_on_dask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from distributed import LocalCluster

    (tmp_path / "ladder.toml").write_text(
        '[[ladder]]\ngame = "take-that"\nmatches = 1000\nbundled = ["random", "first-legal"]\n'
    )
    monkeypatch.setenv("ARENA_WORKER_CACHE", str(tmp_path / "worker-cache"))  # the workers'
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        address = cluster.scheduler_address.removeprefix("tcp://")
        command = [sys.executable, "-m", "arena", "serve", "--port", "0"]
        command += ["--ladder", str(tmp_path / "ladder.toml"), "--executor", f"dask://{address}"]
        env = {**os.environ, "ARENA_HOME": str(tmp_path)}
        server = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
        try:
            until(
                lambda: bool(rounds(store)) and recorded(store, rounds(store)[0]) >= 4,
                "matches played on the cluster",
                server,
            )
            server.send_signal(signal.SIGTERM)
            assert server.wait(60) == 0
        finally:
            server.kill()
            server.wait()
    # the worker played them: it unpacked the bundled versions into its own cache
    assert any((tmp_path / "worker-cache").iterdir())
    counted_once(store)
