"""The store on SQLite (WAL, BEGIN IMMEDIATE) and on a real PostgreSQL server.

PostgreSQL tests use ARENA_TEST_POSTGRES (`.ci/run` starts a server and sets it).
Locally, without a server, they are skipped; in CI (CI=true) a missing server fails.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

from arena.models import Match, Tournament
from arena.rating import Skill
from arena.store import MatchRecord, SeatRecord, Store

POSTGRES = os.environ.get("ARENA_TEST_POSTGRES")


def backends() -> list[str]:
    return ["sqlite", "postgresql"]


@pytest.fixture(params=backends())
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "sqlite":
        return Store(f"sqlite:///{tmp_path / 'arena.db'}")
    if not POSTGRES:
        if os.environ.get("CI"):
            pytest.fail("CI must provide ARENA_TEST_POSTGRES (a real PostgreSQL server)")
        pytest.skip("no PostgreSQL server (set ARENA_TEST_POSTGRES)")
    db = Store(POSTGRES)
    with db.writer.begin() as connection:  # a clean slate for each test
        for table in ("matchseat", "rating", "match", "tournament", "botversion", "bot"):
            connection.execute(text(f'DELETE FROM "{table}"'))
    return db


def test_versions_count_up_per_bot(store: Store) -> None:
    first = store.add_bot_version("alpha", "a" * 64, "/x", ["python3", "bot.py"], ["*"])
    second = store.add_bot_version("alpha", "b" * 64, "/y", ["python3", "bot.py"], ["*"])
    other = store.add_bot_version("beta", "a" * 64, "/x", ["python3", "bot.py"], ["take-that"])
    assert (first.number, second.number, other.number) == (1, 2, 1)
    assert store.latest_version("alpha").sha256 == "b" * 64  # type: ignore[union-attr]
    assert store.bot_version_by_sha("alpha", "a" * 64).number == 1  # type: ignore[union-attr]
    assert store.bot_version_by_sha("beta", "b" * 64) is None


def test_a_match_is_recorded_once_with_its_ratings(store: Store) -> None:
    a = store.add_bot_version("alpha", "a" * 64, "/x", ["x"], ["*"]).id or 0
    b = store.add_bot_version("beta", "b" * 64, "/y", ["y"], ["*"]).id or 0
    tournament = Tournament(
        name="t",
        game="take-that",
        game_version=1,
        format="round-robin",
        players=2,
        rounds=1,
        seed=1,
        variant={},
        settings={},
    )
    tid = store.create_tournament(
        tournament, [Match(number=0, game="take-that", seed=3, lineup=[a, b])]
    )
    match = store.matches(tid)[0]
    assert store.match_counts(tid) == (0, 1)
    win, loss = Skill(29.4, 7.2), Skill(20.6, 7.2)
    record = MatchRecord(
        match.id or 0,
        "normal",
        [
            SeatRecord(0, a, 5, 1, "ok", after=win, before=Skill.initial()),
            SeatRecord(1, b, -3, 2, "ok", after=loss, before=Skill.initial()),
        ],
    )
    store.record("take-that", record)
    store.record("take-that", record)  # a second attempt changes nothing
    assert store.match_counts(tid) == (1, 1)
    assert len(store.seat_rows(tournament_id=tid)) == 2
    assert store.skills([a, b], "take-that") == {a: win, b: loss}
    board = store.leaderboard("take-that")
    assert [row.bot for row in board] == ["alpha", "beta"]
    assert (board[0].games, board[0].wins, board[0].average_score) == (1, 1, 5)


def test_sqlite_uses_wal_and_writers_begin_immediate(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    with store.read() as session:
        assert session.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    with store.write() as session:
        session.execute(text("SELECT 1"))  # only a read, yet the write lock is already held
        other = sqlite3.connect(tmp_path / "arena.db", timeout=0, isolation_level=None)
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("BEGIN IMMEDIATE")
        other.close()
