"""The store on SQLite (WAL, BEGIN IMMEDIATE) and on a real PostgreSQL server.

PostgreSQL tests use ARENA_TEST_POSTGRES (`.ci/run` starts a server and sets it):
each test gets a fresh database there (tests/databases.py).
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, text

import arena.store.recording as recording
from arena.errors import StoreError
from arena.results import headtohead, rating, reports
from arena.store import (
    MatchRecord,
    SeatRecord,
    Skill,
    Store,
    SuspensionRecord,
    VersionConflict,
    safe_url,
    shared_first,
)
from arena.store.models import Match, Tournament
from tests.databases import BACKENDS, database_url


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with database_url(request.param, tmp_path) as url:
        db = Store(url)
        yield db
        db.close()


def tournament(rules: int = 1, seed: int = 1) -> Tournament:
    return Tournament(
        name="t",
        game="take-that",
        game_version=rules,
        format="round-robin",
        players=2,
        rounds=1,
        seed=seed,
        variant={},
        settings={},
    )


def two_bots(store: Store) -> tuple[int, int]:
    a = store.add_bot_version("alpha", "a" * 64, "/x", ["x"], ["*"]).id or 0
    b = store.add_bot_version("beta", "b" * 64, "/y", ["y"], ["*"]).id or 0
    return a, b


def play(store: Store, tid: int, seats: list[SeatRecord], status: str = "normal") -> int:
    """Record the first unrecorded match of a tournament; its id."""
    match = store.matches(tid, recorded=False)[0]
    store.record(MatchRecord(match.id or 0, status, seats, replay='{"turns": []}'))
    return match.id or 0


def test_versions_count_up_per_bot(store: Store) -> None:
    first = store.add_bot_version("alpha", "a" * 64, "/x", ["python3", "bot.py"], ["*"])
    second = store.add_bot_version("alpha", "b" * 64, "/y", ["python3", "bot.py"], ["*"])
    other = store.add_bot_version("beta", "a" * 64, "/x", ["python3", "bot.py"], ["take-that"])
    assert (first.number, second.number, other.number) == (1, 2, 1)
    assert store.latest_version("alpha").sha256 == "b" * 64  # type: ignore[union-attr]
    assert store.bot_version_by_sha("alpha", "a" * 64).number == 1  # type: ignore[union-attr]
    assert store.bot_version_by_sha("beta", "b" * 64) is None


def test_a_version_stored_meanwhile_is_the_stores_own_conflict(store: Store) -> None:
    """The same contents stored again (what another command's submission at the same
    moment makes: a unique constraint) is a VersionConflict, an ArenaError of the store's,
    not SQLAlchemy's IntegrityError; nothing is stored twice."""
    store.add_bot_version("alpha", "a" * 64, "/x", ["python3", "bot.py"], ["*"])
    with pytest.raises(VersionConflict, match="'alpha': another command stored it"):
        store.add_bot_version("alpha", "a" * 64, "/x", ["python3", "bot.py"], ["*"])
    assert [v.number for v in store.versions(name="alpha")] == [1]


def test_a_match_is_recorded_once_with_its_ratings(store: Store) -> None:
    a, b = two_bots(store)
    tid = store.create_tournament(
        tournament(), [Match(number=0, game="take-that", seed=3, lineup=[a, b])]
    )
    match = store.matches(tid)[0]
    assert match.game_version == 1  # the tournament's rules, when the schedule does not say
    assert store.match_counts(tid) == (0, 1)
    win, loss = Skill(29.4, 7.2), Skill(20.6, 7.2)
    record = MatchRecord(
        match.id or 0,
        "normal",
        [
            SeatRecord(0, a, 5, 1, "ok", after=win, before=Skill.initial()),
            SeatRecord(1, b, -3, 2, "ok", after=loss, before=Skill.initial()),
        ],
        replay='{"game": "take-that"}',
    )
    store.record(record)
    store.record(record)  # a second attempt changes nothing
    assert store.match_counts(tid) == (1, 1)
    assert len(store.seat_rows(tournament_id=tid)) == 2
    assert store.skills([a, b], "take-that", 1) == {a: win, b: loss}
    board = store.leaderboard("take-that", 1)
    assert [row.bot for row in board] == ["alpha", "beta"]
    assert (board[0].games, board[0].wins, board[0].average_score) == (1, 1, 5)
    assert store.replay(match.id or 0) == '{"game": "take-that"}'


def test_issue_12_seeds_of_64_bits_are_stored(store: Store) -> None:
    """PostgreSQL refused 48-bit match seeds (INTEGER columns): they are BIGINT."""
    a, b = two_bots(store)
    big = 2**63 - 1
    tid = store.create_tournament(
        tournament(seed=big),
        [Match(number=0, game="take-that", seed=2**48 - 1, lineup=[a, b])],
    )
    assert store.tournament(tid).seed == big  # type: ignore[union-attr]
    assert store.matches(tid)[0].seed == 2**48 - 1


def test_issue_12_replays_live_apart_from_matches(store: Store) -> None:
    """Statistics read the match table; the replay blobs are in their own table."""
    columns = {c["name"] for c in inspect(store.reader).get_columns("match")}
    assert "replay" not in columns
    a, b = two_bots(store)
    tid = store.create_tournament(
        tournament(), [Match(number=0, game="take-that", seed=1, lineup=[a, b])]
    )
    match_id = play(store, tid, [SeatRecord(0, a, 1, 1, "ok"), SeatRecord(1, b, 0, 2, "ok")])
    assert store.replay(match_id) == '{"turns": []}'
    assert store.replay(match_id + 1000) is None


def test_issue_12_ratings_and_leaderboards_are_per_rules_version(store: Store) -> None:
    a, b = two_bots(store)
    old = store.create_tournament(
        tournament(rules=1), [Match(number=0, game="take-that", seed=1, lineup=[a, b])]
    )
    new = store.create_tournament(
        tournament(rules=2), [Match(number=0, game="take-that", seed=2, lineup=[a, b])]
    )

    def rated(tid: int, winner: int, loser: int) -> None:
        match = store.matches(tid)[0]
        seats = [SeatRecord(0, winner, 1, 1, "ok"), SeatRecord(1, loser, 0, 2, "ok")]

        def rate(before: list[Skill]) -> list[Skill]:  # a fixed, visible rating step
            return [Skill(before[0].mu + 1, 8.0), Skill(before[1].mu - 1, 8.0)]

        store.record(MatchRecord(match.id or 0, "normal", seats), rate)

    rated(old, a, b)
    rated(new, b, a)
    assert store.skills([a, b], "take-that", 1) == {a: Skill(26, 8), b: Skill(24, 8)}
    assert store.skills([a, b], "take-that", 2) == {a: Skill(24, 8), b: Skill(26, 8)}
    assert [r.bot for r in store.leaderboard("take-that", 1)] == ["alpha", "beta"]
    assert [r.bot for r in store.leaderboard("take-that", 2)] == ["beta", "alpha"]
    assert all(r.games == 1 for r in store.leaderboard("take-that", 2))
    assert reports.leaderboard(store, "take-that", rules=2)[0]["bot"] == "beta"
    details = reports.bot_details(store, "alpha")
    assert details is not None
    assert [(r["rules"], r["mu"], r["games"]) for r in details["ratings"]] == [
        (2, 24.0, 1),
        (1, 26.0, 1),
    ]
    assert details["versions"][0]["matches"] == 2


def test_statistics_count_games_wins_forfeits_and_head_to_head_in_sql(store: Store) -> None:
    a, b = two_bots(store)
    c = store.add_bot_version("gamma", "c" * 64, "/z", ["z"], ["*"]).id or 0
    schedule = [Match(number=i, game="take-that", seed=i, lineup=[a, b, c]) for i in range(4)]
    tid = store.create_tournament(tournament(), schedule)
    rate = lambda before: [Skill(s.mu + 1, s.sigma) for s in before]  # noqa: E731
    for seats, status in [
        ([(a, 3, 1, "ok"), (b, 2, 2, "ok"), (c, 1, 3, "ok")], "normal"),
        ([(a, 1, 2, "ok"), (b, 5, 1, "ok"), (c, None, 3, "crash")], "forfeit"),
        ([(a, None, None, "ok"), (b, None, None, "ok"), (c, None, None, "ok")], "platform-error"),
        ([(a, 2, 1, "ok"), (b, 2, 1, "ok"), (c, 0, 3, "timeout")], "forfeit"),
    ]:
        match = store.matches(tid, recorded=False)[0]
        records = [SeatRecord(i, *seat) for i, seat in enumerate(seats)]
        store.record(
            MatchRecord(match.id or 0, status, records),
            None if status == "platform-error" else rate,
        )
    board = {r.bot: r for r in store.leaderboard("take-that", 1, tid)}
    assert (board["alpha"].games, board["alpha"].wins, board["alpha"].score_sum) == (3, 2, 6)
    assert (board["gamma"].games, board["gamma"].forfeits) == (2, 2)  # no score: no game
    assert board["beta"].mu == 25 + 3  # its rating after its last rated match
    pairs = {(r["bot"], r["opponent"]): r for r in headtohead.table_for_tournament(store, tid)}
    assert [pairs["alpha v1", "beta v1"][k] for k in ("wins", "draws", "losses")] == [1, 1, 1]
    assert [pairs["alpha v1", "gamma v1"][k] for k in ("wins", "draws", "losses")] == [3, 0, 0]
    details = reports.tournament_details(store, tid)
    assert details is not None
    assert details["forfeits"] == {"crash": 1, "timeout": 1}
    assert details["platform_errors"] == 1
    assert details["rules"] == 1
    # issue 14: the tie for first in the last match is a shared first, not a win
    standings = {r["bot"]: (r["wins"], r["shared_1st"]) for r in details["standings"]}
    assert standings == {"alpha": (1, 1), "beta": (1, 1), "gamma": (0, 0)}


def test_issue_14_a_first_place_is_shared_only_between_rivals(store: Store) -> None:
    """Ranks count rivals ahead (in team games: teams), so a lone winner or winning team
    leaves a runner-up at rank 2; team mates ranked 1 alone did not share their win."""
    a, b = two_bots(store)
    lineups = [[a, b, a, b]] * 3 + [[a, b]]
    schedule = [Match(number=i, game="krumme10", seed=i, lineup=x) for i, x in enumerate(lineups)]
    tid = store.create_tournament(tournament(), schedule)
    for ranks in [(1, 2, 1, 2), (1, 1, 1, 1), (2, 1, 2, 1), (1, 1)]:
        match = store.matches(tid, recorded=False)[0]
        seats = [SeatRecord(i, [a, b][i % 2], 1.0, r, "ok") for i, r in enumerate(ranks)]
        store.record(MatchRecord(match.id or 0, "normal", seats))
    for tournament_id in (tid, None):
        counted = store.seat_statistics("krumme10", 1, tournament_id)
        assert {v: (n["wins"], n["shared_wins"]) for v, n in counted.items()} == {
            a: (5, 3),
            b: (5, 3),
        }
    assert store.seat_statistics("take-that", 1) == {}
    assert [shared_first(r) for r in [(1, 2, 1, 2), (1, 1, 1, 1), (1, 1)]] == [False, True, True]


def test_issue_14_rating_rows_count_shared_first_places(store: Store) -> None:
    """The all-time leaderboard reads shared firsts from the rating rows, as its other
    counters: a tie for first is a shared win, not an outright one."""
    a, b = two_bots(store)
    schedule = [Match(number=i, game="take-that", seed=i, lineup=[a, b]) for i in range(3)]
    tid = store.create_tournament(tournament(), schedule)
    for ranks in [(1, 2), (1, 1), (2, 1)]:
        match = store.matches(tid, recorded=False)[0]
        seats = [
            SeatRecord(i, v, 1.0, r, "ok")
            for i, (v, r) in enumerate(zip((a, b), ranks, strict=True))
        ]
        store.record(MatchRecord(match.id or 0, "normal", seats), lambda before: before)
    assert counters(store) == {a: (3, 2, 1, 3.0, 0), b: (3, 2, 1, 3.0, 0)}
    assert counters(store) == counted_afresh(store)
    board = {
        row["bot"]: (row["wins"], row["shared_1st"])
        for row in reports.leaderboard(store, "take-that")
    }
    assert board == {"alpha": (1, 1), "beta": (1, 1)}


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


def test_issue_12_a_database_locked_too_long_is_a_one_line_store_error(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    store = Store(f"sqlite:///{path}", busy_timeout=0.05)
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process writing, and writing, and writing
    try:
        with pytest.raises(StoreError, match="locked by another process") as caught:
            store.add_bot_version("alpha", "a" * 64, "/x", ["x"], ["*"])
        assert "\n" not in str(caught.value)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert store.add_bot_version("alpha", "a" * 64, "/x", ["x"], ["*"]).number == 1


def test_issue_12_a_read_only_database_is_a_one_line_store_error(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    Store(f"sqlite:///{path}").close()
    read_only = Store(f"sqlite:///file:{path}?mode=ro&uri=true")
    with pytest.raises(StoreError, match="readonly") as caught:
        read_only.add_bot_version("alpha", "a" * 64, "/x", ["x"], ["*"])
    assert "\n" not in str(caught.value)
    assert read_only.bot_owner("alpha") is None


def test_urls_are_shown_without_their_password() -> None:
    assert (
        safe_url("postgresql+psycopg://u:s3cret@host:5/db")
        == "postgresql+psycopg://u:***@host:5/db"
    )
    assert "s3cret" not in safe_url("not a url s3cret")


def counters(store: Store, game: str = "take-that", rules: int = 1) -> dict[int, tuple[Any, ...]]:
    """Each rating's leaderboard counters: (games, wins, shared wins, score sum, forfeits)."""
    return {
        r.bot_version_id: (r.games, r.wins, r.shared_wins, r.score_sum, r.forfeits)
        for r in store.ratings(game, rules)
    }


def counted_afresh(
    store: Store, game: str = "take-that", rules: int = 1
) -> dict[int, tuple[Any, ...]]:
    """The same, aggregated in SQL from every recorded seat (as the leaderboard once did)."""
    return {v: tuple(found.values()) for v, found in store.seat_statistics(game, rules).items()}


def test_issue_12_leaderboard_counters_move_with_each_recorded_match(store: Store) -> None:
    """The all-time leaderboard reads counters kept on the rating rows: they count what
    the seats say, including a void match, a forfeit, a suspension and a version seated
    twice, and a version's forfeit from before it had a rating."""
    a, b = two_bots(store)
    c = store.add_bot_version("gamma", "c" * 64, "/z", ["z"], ["*"]).id or 0
    d = store.add_bot_version("delta", "d" * 64, "/w", ["w"], ["*"]).id or 0
    lineups = [[a, b], [a, b, c], [a, b, c], [a, b, c, d], [a, b, c], [a, a, b]]
    schedule = [Match(number=i, game="take-that", seed=i, lineup=x) for i, x in enumerate(lineups)]
    tid = store.create_tournament(tournament(), schedule)

    def rate(before: list[Skill]) -> list[Skill]:
        return [Skill(s.mu + 1, s.sigma) for s in before]

    def record(status: str, seats: list[tuple[Any, ...]], rated: bool) -> None:
        match = store.matches(tid, recorded=False)[0]
        records = [SeatRecord(i, v, *rest) for i, (v, *rest) in enumerate(seats)]
        store.record(MatchRecord(match.id or 0, status, records), rate if rated else None)

    # void, before anyone has a rating: beta's crash is a forfeit all the same
    record("platform-error", [(a, None, None, "ok"), (b, None, None, "crash")], False)
    assert counters(store) == {}
    record("normal", [(a, 3, 1, "ok"), (b, 1, 3, "ok"), (c, 2, 2, "ok")], True)
    assert counters(store) == {a: (1, 1, 0, 3, 0), b: (1, 0, 0, 1, 1), c: (1, 0, 0, 2, 0)}
    record("forfeit", [(a, 5, 1, "ok"), (b, 0, 2, "ok"), (c, -1, 3, "timeout")], True)

    def skills() -> dict[int, tuple[Any, ...]]:
        return {
            r.bot_version_id: (r.mu, r.sigma, r.matches, r.updated_at)
            for r in store.ratings("take-that", 1)
        }

    rated_so_far = skills()
    # void again: no game, no rating change, but gamma's crash is a forfeit
    seats = [(a, None, None, "ok"), (b, None, None, "ok"), (c, None, None, "crash")]
    record("platform-error", [*seats, (d, None, None, "ok")], False)
    # a suspended bot's skipped match (as the runner records it): unrated
    seats = [(a, None, None, "suspended"), (b, None, None, "ok"), (c, None, None, "ok")]
    record("forfeit", seats, False)
    assert skills() == rated_so_far
    assert counters(store) == {a: (2, 2, 0, 8, 1), b: (2, 0, 0, 1, 1), c: (2, 0, 0, 1, 2)}
    # alpha seated twice: both seats count
    record("normal", [(a, 4, 1, "ok"), (a, 2, 2, "ok"), (b, 1, 3, "ok")], True)

    assert counters(store) == {a: (4, 3, 0, 14, 1), b: (3, 0, 0, 2, 1), c: (2, 0, 0, 1, 2)}
    assert counters(store) == {v: n for v, n in counted_afresh(store).items() if v != d}
    assert {v: matches for v, (_mu, _sigma, matches, _at) in skills().items()} == {a: 4, b: 3, c: 2}
    board = reports.leaderboard(store, "take-that")
    assert [
        (row["bot"], row["games"], row["wins"], row["avg_score"], row["forfeits"]) for row in board
    ] == [
        ("alpha", 4, 3, 3.5, 1),
        ("beta", 3, 0, 0.667, 1),
        ("gamma", 2, 0, 0.5, 2),
    ]  # delta, only ever in a void match, has no rating and is not on the board
    # the tournament's own board aggregates its seats: the same numbers here
    # (ranked by its points: the order may differ from the all-time board's)
    per_tournament = reports.leaderboard(store, "take-that", tid)
    assert sorted(
        (r["bot"], r["games"], r["forfeits"]) for r in per_tournament if r["bot"] != "delta"
    ) == sorted((r["bot"], r["games"], r["forfeits"]) for r in board)
    details = reports.bot_details(store, "alpha")
    assert details is not None and details["ratings"][0]["games"] == 4


# ----- batches: several matches in one transaction ------------------------------------
def _random_schedule(store: Store, rng: Any, matches: int) -> tuple[int, list[MatchRecord]]:
    """A tournament of `matches` matches among six versions (two bots with two versions
    each: a new version starts from its predecessor's rating) and their records: rated,
    void, forfeited, suspended, versions seated twice. Records carry no skills yet."""
    versions = [
        store.add_bot_version(f"b{i % 4}", f"{i:064x}", "/x", ["x"], ["*"]).id or 0
        for i in range(6)
    ]
    lineups = [rng.sample(versions, rng.randint(2, 4)) for _ in range(matches)]
    for lineup in lineups[::7]:
        lineup.append(lineup[0])  # a version seated twice
    schedule = [Match(number=i, game="take-that", seed=i, lineup=x) for i, x in enumerate(lineups)]
    tid = store.create_tournament(tournament(), schedule)
    records = []
    for match in store.matches(tid):
        kind = rng.choice(["normal", "normal", "normal", "forfeit", "platform-error", "suspended"])
        seats = []
        for i, version in enumerate(match.lineup):
            if kind == "suspended":
                seats.append(SeatRecord(i, version, None, None, "suspended", "bot suspended"))
                continue
            status = "timeout" if kind == "forfeit" and i == 1 else "ok"
            score = None if kind == "platform-error" else rng.randint(-5, 20)
            rank = None if score is None else rng.randint(1, len(match.lineup))
            seats.append(SeatRecord(i, version, score, rank, status, "", "err" * i))
        status = "forfeit" if kind == "suspended" else kind  # as the runner records a skip
        records.append(MatchRecord(match.id or 0, status, seats, replay=f'{{"m": {match.number}}}'))
    return tid, records


def _rater(record: MatchRecord) -> Any:
    if record.status == "platform-error" or record.seats[0].status == "suspended":
        return None
    ranks = [seat.rank or len(record.seats) for seat in record.seats]
    return lambda before: rating.rate("take-that", before, ranks)


def _stored(store: Store, tid: int) -> tuple[Any, ...]:
    seats = [
        (
            m.number,
            m.status,
            s.seat,
            s.bot_version_id,
            s.score,
            s.rank,
            s.status,
            s.stderr,
            s.mu_before,
            s.sigma_before,
            s.mu_after,
            s.sigma_after,
        )
        for m, s in store.seat_rows(tournament_id=tid)
    ]
    ratings = sorted(
        (
            r.bot_version_id,
            r.mu,
            r.sigma,
            r.matches,
            r.games,
            r.wins,
            r.shared_wins,
            r.score_sum,
            r.forfeits,
        )
        for r in store.ratings("take-that", 1)
    )
    board = [(r.bot, r.version, r.mu, r.sigma) for r in store.leaderboard("take-that", 1)]
    replays = [store.replay(m.id or 0) for m in store.matches(tid)]
    links = sorted(store.opponents("take-that", 1))
    return seats, ratings, board, replays, store.match_counts(tid), links


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_batch_stores_exactly_what_one_match_at_a_time_stores(
    backend: str, tmp_path: Path
) -> None:
    """Ratings chained in memory through a batch give the very rows (skills, counters,
    first ratings from a predecessor's) of recording each match in its own transaction."""
    stored = []
    for split in ("one by one", "batches"):
        rng = random.Random(5)
        folder = tmp_path / split.replace(" ", "-")
        folder.mkdir()
        with database_url(backend, folder) as url:
            store = Store(url)
            tid, records = _random_schedule(store, rng, 60)
            cut = random.Random(9)
            start = 0
            while start < len(records):
                size = 1 if split == "one by one" else cut.choice([1, 2, 5, 17, 40])
                chunk = records[start : start + size]
                store.record_many([(r, _rater(r)) for r in chunk])
                start += size
            stored.append(_stored(store, tid))
            assert counters(store) == counted_afresh(store)  # the counters count every seat
            assert set(store.opponents("take-that", 1)) == units_of(store)
            store.close()
    assert stored[0] == stored[1]
    _seats, ratings, _board, _replays, counts, _links = stored[1]
    assert counts == (60, 60) and len(ratings) == 6


def test_a_batch_skips_matches_already_recorded_and_commits_whole(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tid, records = _random_schedule(store, random.Random(3), 10)
    store.record_many([(r, _rater(r)) for r in records[:4]])
    before = _stored(store, tid)
    store.record_many([(r, _rater(r)) for r in records[:4]])  # again: nothing changes
    assert _stored(store, tid) == before

    def broken(before: list[Skill]) -> list[Skill]:
        raise ZeroDivisionError  # the batch fails at its last match

    with pytest.raises(ZeroDivisionError):
        store.record_many([(records[4], _rater(records[4])), (records[5], broken)])
    assert _stored(store, tid) == before  # nothing of the failed batch was kept
    assert counters(store) == counted_afresh(store)
    store.close()


#: Text a bot can make arena keep: NUL (PostgreSQL text cannot hold it), lone surrogates
#: (`surrogateescape`'s invalid UTF-8; neither database encodes them), the store's own
#: escape character alone and followed by what looks like an escape, U+FFFD.
BOT_TEXTS = (
    "before\x00after",
    "\x00",
    "bad \udc80\udcff utf-8 \ud800",
    "\x10",
    "\x100000 \x10dc80 \x10zzzz \x10\x10",
    "line 1\nline 2\t\ufffd \u202eevil\x1b[2J",
    "",
)


def test_issue_30_any_text_a_bot_can_produce_is_stored_and_read_back_as_it_was(
    store: Store,
) -> None:
    """A NUL failed the whole transaction on PostgreSQL, a lone surrogate on both."""
    a, b = two_bots(store)
    schedule = [Match(number=i, game="take-that", seed=i, lineup=[a, b]) for i in range(7)]
    tid = store.create_tournament(tournament(), schedule)
    records = [
        MatchRecord(
            match.id or 0,
            "platform-error",
            [SeatRecord(0, a, None, None, "invalid", said, said), SeatRecord(1, b, 1, 1, "ok")],
            error=said,
            replay=said,
        )
        for match, said in zip(store.matches(tid), BOT_TEXTS, strict=True)
    ]
    store.record_many([(records[0], None)])  # alone, and then the others as one batch
    store.record_many([(record, None) for record in records[1:]])
    seats = [seat for _match, seat in store.seat_rows(tournament_id=tid) if seat.seat == 0]
    assert [(seat.detail, seat.stderr) for seat in seats] == [(t, t) for t in BOT_TEXTS]
    voided = store.void_match_rows(tid)
    assert [match.error or "" for match in voided] == list(BOT_TEXTS)
    assert [store.replay(match.id or 0) for match in voided] == list(BOT_TEXTS)
    assert [seat.detail for _m, seat in store.forfeits("alpha", limit=10)][::-1] == list(BOT_TEXTS)


def test_issue_30_rows_stored_before_the_escape_read_back_as_they_were(store: Store) -> None:
    """Revision 0004 escapes the escape character of older rows (SQLite ones may hold a
    NUL before it, which stops SQLite's string functions)."""
    a, b = two_bots(store)
    tid = store.create_tournament(
        tournament(), [Match(number=0, game="take-that", seed=1, lineup=[a, b])]
    )
    match_id = play(store, tid, [SeatRecord(0, a, 1, 1, "ok"), SeatRecord(1, b, 0, 2, "ok")])
    sqlite = store.writer.dialect.name == "sqlite"
    old = ("x\x00" if sqlite else "x") + "\x100000 \x10 \x10zz"  # as an older arena stored it
    with store.writer.begin() as db:  # raw SQL: what an older arena wrote, unescaped
        db.execute(text("UPDATE matchseat SET stderr = :v, detail = :w"), {"v": old, "w": old})
        db.execute(text("UPDATE match SET error = :v"), {"v": old})
        db.execute(text("UPDATE matchreplay SET replay = :v"), {"v": old})
        db.execute(text("UPDATE alembic_version SET version_num = '0003'"))
    told: list[str] = []
    again = Store(store.url, notify=told.append)
    assert told == ["upgrading the database from revision 0003 to 0008"]
    seats = [seat for _match, seat in again.seat_rows(tournament_id=tid)]
    assert [(seat.stderr, seat.detail) for seat in seats] == [(old, old), (old, old)]
    assert [m.error for m in again.matches(tid)] == [old]
    assert again.replay(match_id) == old
    again.close()


def test_issue_30_a_result_that_cannot_be_stored_is_void_and_the_rest_of_its_batch_kept(
    store: Store,
) -> None:
    """A value the database refuses (here a rank beyond 64 bits) failed the whole batch,
    every time it was resumed: now that match alone is void, with the reason."""
    a, b = two_bots(store)
    schedule = [Match(number=i, game="take-that", seed=i, lineup=[a, b]) for i in range(3)]
    tid = store.create_tournament(tournament(), schedule)
    records = [
        MatchRecord(
            match.id or 0,
            "forfeit",
            [SeatRecord(0, a, 3, 2**64 if i == 1 else 1, "ok"), SeatRecord(1, b, 0, 2, "timeout")],
            replay="{}",
        )
        for i, match in enumerate(store.matches(tid))
    ]
    voided = store.record_many([(r, _rater(r)) for r in records])
    assert voided == [records[1].match_id]
    assert store.match_counts(tid) == (3, 3)
    [void] = store.void_match_rows(tid)
    assert void.id == records[1].match_id
    assert void.error is not None and void.error.startswith("its result could not be stored: ")
    assert store.replay(void.id or 0) is None
    rows = store.seat_rows(tournament_id=tid)
    assert [(seat.status, seat.rank) for m, seat in rows if m.id == void.id] == [
        ("ok", None),
        ("timeout", None),
    ]
    assert [seat.mu_after is not None for _m, seat in rows] == [
        True,
        True,
        False,
        False,
        True,
        True,
    ]
    assert counters(store) == counted_afresh(store)


def test_issue_30_a_replay_quoting_a_lone_surrogate_is_still_json() -> None:
    """orjson refuses lone surrogates: the coordinator died building such a replay. The
    replay spells a byte that was not UTF-8 (U+DC80 for 0x80) as the terminal does."""
    from arena.tournament.recording import replay_text

    replay = {"events": [{"forfeit": 0, "detail": "not JSON: a\udc80\x00b\ud800"}]}
    assert json.loads(replay_text(replay)) == {
        "events": [{"forfeit": 0, "detail": "not JSON: a\\x80\x00b\\ud800"}]
    }


# ----- suspensions ------------------------------------------------------------------
def test_a_suspension_is_recorded_with_the_match_that_caused_it(store: Store) -> None:
    """In that match's transaction: a match recorded again, a batch that fails, or a
    result the database refuses (the match is void) neither doubles nor loses one."""
    a, b = two_bots(store)
    schedule = [Match(number=i, game="take-that", seed=i, lineup=[a, b]) for i in range(5)]
    tid = store.create_tournament(tournament(), schedule)
    ids = [m.id or 0 for m in store.matches(tid)]

    def crashed(match_id: int, rank: int = 2) -> MatchRecord:
        seats = [SeatRecord(0, a, None, rank, "crash"), SeatRecord(1, b, 1, 1, "ok")]
        return MatchRecord(match_id, "forfeit", seats)

    store.record(crashed(ids[0]))
    alpha = SuspensionRecord(a, ids[1], 2)
    store.record(crashed(ids[1]), suspensions=[alpha])
    store.record(crashed(ids[1]), suspensions=[alpha])  # recorded already: nothing changes
    assert store.suspensions(tid) == [alpha]

    def broken(before: list[Skill]) -> list[Skill]:
        raise ZeroDivisionError

    beta = SuspensionRecord(b, ids[2], 3)
    with pytest.raises(ZeroDivisionError):
        store.record_many([(crashed(ids[2]), None), (crashed(ids[3]), broken)], suspensions=[beta])
    assert store.suspensions(tid) == [alpha]  # the failed batch kept nothing
    refused = crashed(ids[3], rank=2**64)  # a rank no database holds: the match is void
    assert store.record_many([(crashed(ids[2]), None), (refused, None)], suspensions=[beta]) == [
        ids[3]
    ]
    gamma = SuspensionRecord(b, ids[4], 4)
    store.record_many([(crashed(ids[4]), None)], suspensions=[gamma])
    assert store.suspensions(tid) == [alpha, beta, gamma]  # in schedule order
    assert store.suspensions(tid + 1) == []


def test_a_suspension_names_a_match_of_its_batch_once(store: Store) -> None:
    a, b = two_bots(store)
    schedule = [Match(number=i, game="take-that", seed=i, lineup=[a, b]) for i in range(2)]
    tid = store.create_tournament(tournament(), schedule)
    first, second = (m.id or 0 for m in store.matches(tid))
    record = MatchRecord(
        first, "normal", [SeatRecord(0, a, 1, 1, "ok"), SeatRecord(1, b, 0, 2, "ok")]
    )
    with pytest.raises(ValueError, match="not among those recorded"):
        store.record(record, suspensions=[SuspensionRecord(a, second, 5)])
    with pytest.raises(ValueError, match="suspended twice"):
        store.record(record, suspensions=[SuspensionRecord(a, first, 5)] * 2)
    assert store.match_counts(tid) == (0, 2)  # refused before anything was written


# ----- the rating pools' links ------------------------------------------------------
def units_of(store: Store, game: str = "take-that", rules: int = 1) -> set[tuple[int, int]]:
    """(unit, version) of every rated seat, worked out from the seats: the match's
    tournament, or minus the lowest rated version of a match outside any."""
    rated = [
        (m, seat)
        for m, seat in store.seat_rows(game)
        if seat.mu_after is not None and m.game_version == rules
    ]
    lowest: dict[int, int] = {}
    for m, seat in rated:
        lowest[m.id or 0] = min(lowest.get(m.id or 0, seat.bot_version_id), seat.bot_version_id)
    unit = {
        m.id: m.tournament_id if m.tournament_id is not None else -lowest[m.id or 0]
        for m, _ in rated
    }
    return {(unit[m.id], seat.bot_version_id) for m, seat in rated}


def outside_tournaments(store: Store, lineup: list[int]) -> int:
    """A match of no tournament (as databases of before may hold), scheduled; its id."""
    with store.write() as s:
        match = Match(number=0, game="take-that", game_version=1, seed=1, lineup=lineup)
        s.add(match)
        s.flush()
        return match.id or 0


def test_pool_links_are_stored_with_the_rated_seats_once_each(store: Store) -> None:
    """`opponents` reads the links recording stores: each rated seat's (unit, version)
    once, none for a void or unrated match, none of a batch that failed; a link another
    recorder stored meanwhile is skipped, not a reason to void the match."""
    rng = random.Random(4)
    tid, records = _random_schedule(store, rng, 30)
    store.record_many([(r, _rater(r)) for r in records[:20]])
    rated = {(tid, s.bot_version_id) for r in records[:20] if _rater(r) for s in r.seats}
    assert set(store.opponents("take-that", 1)) == units_of(store) == rated

    def broken(before: list[Skill]) -> list[Skill]:
        raise ZeroDivisionError

    newcomer = store.add_bot_version("newcomer", "e" * 64, "/x", ["x"], ["*"]).id or 0
    other = store.create_tournament(
        tournament(seed=2), [Match(number=0, game="take-that", seed=1, lineup=[newcomer, 1])]
    )
    [late] = store.matches(other)
    seats = [SeatRecord(0, newcomer, 1, 1, "ok"), SeatRecord(1, 1, 0, 2, "ok")]
    with pytest.raises(ZeroDivisionError):
        store.record(MatchRecord(late.id or 0, "normal", seats), broken)
    assert set(store.opponents("take-that", 1)) == rated  # nothing of the failed batch
    with store.writer.begin() as db:  # as if another recorder had just stored one of them
        db.execute(
            text("INSERT INTO poollink VALUES ('take-that', 1, :t, :v)"),
            {"t": other, "v": newcomer},
        )
    store.record(MatchRecord(late.id or 0, "normal", seats), lambda before: before)
    assert store.void_matches(other) == 0
    store.record_many([(r, _rater(r)) for r in records[20:]])
    lone = outside_tournaments(store, [newcomer, 2, 3])
    seats = [SeatRecord(0, newcomer, 1, 1, "ok"), SeatRecord(1, 2, 0, 2, "ok")]
    store.record(MatchRecord(lone, "normal", [*seats, SeatRecord(2, 3, 0, 2, "ok")]), lambda b: b)
    links = store.opponents("take-that", 1)
    assert len(links) == len(set(links))  # once each
    assert set(links) == units_of(store)
    assert {(u, v) for u, v in links if u < 0} == {(-2, newcomer), (-2, 2), (-2, 3)}
    assert store.opponents("take-that", 2) == []


def test_pool_links_on_a_database_without_a_skipping_insert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another SQLAlchemy database: the links stored already are read first and left out."""
    monkeypatch.setattr(recording, "_SKIPPING_INSERTS", {})
    recording._link_insert.cache_clear()
    monkeypatch.setattr(recording, "_link_insert", recording._link_insert.__wrapped__)
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    a, b = two_bots(store)
    schedule = [Match(number=i, game="take-that", seed=i, lineup=[a, b]) for i in range(2)]
    tid = store.create_tournament(tournament(), schedule)
    for match in store.matches(tid):
        seats = [SeatRecord(0, a, 1, 1, "ok"), SeatRecord(1, b, 0, 2, "ok")]
        store.record(MatchRecord(match.id or 0, "normal", seats), lambda before: before)
    assert store.void_matches(tid) == 0
    assert sorted(store.opponents("take-that", 1)) == [(tid, a), (tid, b)]
    store.close()
