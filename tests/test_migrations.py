"""Schema migrations: a database of the first revision, with real results in it, upgrades
to the newest on SQLite and on PostgreSQL, and every row survives.

The old database is built with revision 0001's own DDL (the schema of e68b507, what
users' databases hold), then filled with the rows of a tournament really played by
this arena, in the old layout (replays inside `match`, ratings without a rules version).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, MetaData, create_engine, select, text
from sqlmodel import SQLModel
from typer.testing import CliRunner

from arena.cli import app
from arena.errors import StoreError
from arena.results import reports
from arena.store import UNSTORABLE, MatchRecord, SeatRecord, Store, SuspensionRecord, migrations
from arena.store.models import Match, Tournament
from arena.submissions import names
from arena.tournament import runner
from arena.tournament.config import TournamentConfig
from tests.databases import BACKENDS, database_url
from tests.helpers import register_unchecked

#: The tables and columns of revision 0001, in an order that respects foreign keys.
OLD = {
    "bot": ["id", "name", "created_at"],
    "botversion": ["id", "bot_id", "number", "sha256", "folder", "command", "games", "created_at"],
    "tournament": [
        "id",
        "name",
        "game",
        "game_version",
        "format",
        "players",
        "rounds",
        "seed",
        "variant",
        "settings",
        "status",
        "created_at",
        "finished_at",
    ],
    "match": [
        "id",
        "tournament_id",
        "number",
        "game",
        "seed",
        "lineup",
        "recorded",
        "status",
        "error",
        "seconds",
        "replay",
        "recorded_at",
    ],
    "matchseat": [
        "id",
        "match_id",
        "seat",
        "bot_version_id",
        "score",
        "rank",
        "status",
        "detail",
        "stderr",
        "mu_before",
        "sigma_before",
        "mu_after",
        "sigma_after",
    ],
    "rating": ["id", "bot_version_id", "game", "mu", "sigma", "matches", "updated_at"],
}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """A current database with a tournament really played (bots registered, rated)."""
    home = tmp_path_factory.mktemp("played")
    store = Store(f"sqlite:///{home / 'arena.db'}")
    settings = TournamentConfig(
        game="take-that", bots=("random", "first-legal"), rounds=6, seed=5, decision_timeout=2.0
    )
    tid = runner.create(store, home, settings)
    runner.run(store, tid, workers=1)
    assert store.match_counts(tid) == (12, 12)
    return store


@pytest.fixture(scope="module")
def suspending(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, list[SuspensionRecord]]:
    """A current database with a tournament really played in which a bot that crashes in
    every match was suspended, and the suspensions as the runner told them while it ran."""
    home = tmp_path_factory.mktemp("suspending")
    store = Store(f"sqlite:///{home / 'arena.db'}")
    crasher = register_unchecked(store, "flaky")
    settings = TournamentConfig(
        game="take-that",
        bots=("random", crasher, "first-legal"),
        rounds=2,
        seed=5,
        decision_timeout=2.0,
        suspend_after=2,
    )
    tid = runner.create(store, home, settings)
    told: list[tuple[int, str]] = []
    runner.run(
        store,
        tid,
        workers=1,
        on_progress=lambda p: told.extend((p.match.id or 0, label) for label in p.suspended_now),
    )
    versions = {f"{bot} v{number}": v for v, (bot, number) in store.version_names().items()}
    return store, [SuspensionRecord(versions[label], match, 2) for match, label in told]


def old_database(connection: Connection) -> None:
    """Revision 0001's DDL, stamped 0001 (as if made by the first migrating arena)."""
    command.upgrade(migrations.config(connection), "0001")


def copy_into_old_layout(source: Store, connection: Connection) -> None:
    """The played rows, written in the layout of revision 0001."""
    tables = MetaData()
    tables.reflect(connection, only=list(OLD))
    replays = {}
    with source.reader.connect() as src:
        for match_id, replay in src.execute(text("SELECT match_id, replay FROM matchreplay")):
            replays[match_id] = replay
        current = MetaData()
        current.reflect(src, only=list(OLD))
        for name, columns in OLD.items():
            rows = []
            for row in src.execute(select(current.tables[name]).order_by(text("id"))).mappings():
                values = {c: row[c] for c in columns if c in row}
                if name == "match":
                    values["replay"] = replays.get(row["id"])
                    if connection.dialect.name == "postgresql":
                        # INTEGER there: an old PostgreSQL database held no larger seed
                        values["seed"] %= 2**31
                rows.append(values)
            connection.execute(tables.tables[name].insert(), rows)
    if connection.dialect.name == "postgresql":  # explicit ids: move the sequences on
        for name in OLD:
            connection.execute(
                text(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), MAX(id)) FROM {name}")
            )


def old_rows(connection: Connection) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the old tables in the old columns (the replay from wherever it is)."""
    upgraded = "matchreplay" in set(connection.dialect.get_table_names(connection))
    found = {}
    for name, columns in OLD.items():
        listed = ", ".join("r.replay" if upgraded and c == "replay" else f"t.{c}" for c in columns)
        if name == "match" and upgraded:
            query = (
                f"SELECT {listed} FROM match t"
                " LEFT JOIN matchreplay r ON r.match_id = t.id ORDER BY t.id"
            )
        else:
            query = f"SELECT {listed} FROM {name} t ORDER BY t.id"
        found[name] = [tuple(row) for row in connection.execute(text(query))]
    return found


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database_url(request.param, tmp_path) as found:
        yield found


def test_issue_12_a_first_revision_database_with_results_upgrades_and_keeps_every_row(
    played: Store, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(names, "current_user", lambda: "olga")
    engine = create_engine(url)
    with engine.begin() as connection:
        old_database(connection)
        copy_into_old_layout(played, connection)
    with engine.connect() as connection:
        before = old_rows(connection)
    assert len(before["match"]) == 12 and len(before["rating"]) == 2
    assert all(row[OLD["match"].index("replay")] for row in before["match"])

    said: list[str] = []
    store = Store(url, notify=said.append)
    assert said == ["upgrading the database from revision 0001 to 0008"]
    with engine.connect() as connection:
        assert migrations.current(connection) == migrations.head()
        assert old_rows(connection) == before  # every row, every old column, every replay
        # the schema is exactly the one a new database gets
        diff = compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
        assert diff == []
    tid = store.tournaments()[0].id
    for tournament in (None, tid):
        assert reports.leaderboard(store, "take-that", tournament) == reports.leaderboard(
            played, "take-that", tournament
        )
    assert counters(store) == counters(played)  # filled by 0002 / kept by Store.record
    assert reports.tournament_details(store, tid or 0) == reports.tournament_details(
        played, tid or 0
    )
    assert {m.game_version for m in store.matches(tid or 0)} == {1}
    assert store.bot_owner("random") == names.BUNDLED_OWNER  # the owners' data rule
    # it goes on working: a new bot, a new tournament recorded after the copied ids
    assert store.add_bot_version("mine", "f" * 64, "/x", ["x"], ["*"]).number == 1
    assert store.bot_owner("mine") == "olga"
    said.clear()
    Store(url, notify=said.append).close()  # a second open changes nothing
    assert said == []
    store.close()
    engine.dispose()


def counters(store: Store, rules: int = 1) -> dict[int, tuple[Any, ...]]:
    """Each rating's leaderboard counters: (games, wins, shared wins, score sum, forfeits)."""
    return {
        r.bot_version_id: (r.games, r.wins, r.shared_wins, r.score_sum, r.forfeits)
        for r in store.ratings("take-that", rules)
    }


def counted_afresh(store: Store, rules: int = 1) -> dict[int, tuple[Any, ...]]:
    """The same, aggregated in SQL from the recorded seats."""
    return {v: tuple(n.values()) for v, n in store.seat_statistics("take-that", rules).items()}


def test_issue_12_the_upgrade_counts_forfeits_and_void_matches_into_the_ratings(
    played: Store, url: str
) -> None:
    """0002 fills the leaderboard's counters from the seats already recorded, counting a
    forfeit and a void match as the leaderboard does; recording goes on from there."""
    engine = create_engine(url)
    with engine.begin() as connection:
        old_database(connection)
        copy_into_old_layout(played, connection)
        # match 3 was void (no scores, no rating change); in match 5 the first seat crashed
        connection.execute(text("UPDATE match SET status = 'platform-error' WHERE number = 3"))
        connection.execute(
            text(
                "UPDATE matchseat SET score = NULL, rank = NULL, status = 'crash'"
                " WHERE seat = 1 AND match_id = (SELECT id FROM match WHERE number = 3)"
            )
        )
        connection.execute(
            text(
                "UPDATE matchseat SET status = 'timeout' WHERE seat = 0"
                " AND match_id = (SELECT id FROM match WHERE number = 5)"
            )
        )
    store = Store(url, notify=lambda _line: None)
    fresh = counted_afresh(store)
    assert counters(store) == fresh
    assert sorted(games for games, _wins, _shared, _score, _lost in fresh.values()) == [11, 11]
    assert sum(lost for _games, _wins, _shared, _score, lost in fresh.values()) == 2
    by_bot = {row["bot"]: row for row in reports.leaderboard(store, "take-that")}
    assert {row["games"] for row in by_bot.values()} == {11}

    # recording goes on from the filled counters
    a, b = sorted(fresh)
    tid = store.create_tournament(
        Tournament(
            name="after", game="take-that", game_version=1, format="round-robin", players=2,
            rounds=1, seed=1, variant={}, settings={},
        ),
        [Match(number=0, game="take-that", seed=1, lineup=[a, b])],
    )  # fmt: skip
    match = store.matches(tid)[0]
    seats = [SeatRecord(0, a, 7, 1, "ok"), SeatRecord(1, b, None, 2, "crash")]
    store.record(MatchRecord(match.id or 0, "forfeit", seats), lambda s: s)
    assert counters(store) == counted_afresh(store)
    assert counters(store)[a][:2] == (fresh[a][0] + 1, fresh[a][1] + 1)
    assert counters(store)[b][4] == fresh[b][4] + 1
    store.close()
    engine.dispose()


def test_a_new_database_is_made_at_the_newest_revision_silently(url: str) -> None:
    said: list[str] = []
    Store(url, notify=said.append).close()
    assert said == []
    engine = create_engine(url)
    with engine.connect() as connection:
        assert migrations.current(connection) == migrations.head()
    engine.dispose()


def test_a_database_made_before_migrations_is_upgraded_from_none(
    played: Store, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    with engine.begin() as connection:
        old_database(connection)
        copy_into_old_layout(played, connection)
        connection.execute(text("DROP TABLE alembic_version"))  # made by create_all at e68b507
    said: list[str] = []
    store = Store(url, notify=said.append)
    assert said == ["upgrading the database from revision none (made before migrations) to 0008"]
    assert reports.leaderboard(store, "take-that") == reports.leaderboard(played, "take-that")
    engine.dispose()


def test_a_rating_made_under_two_rules_versions_is_split(played: Store, tmp_path: Path) -> None:
    """Before rules versions were kept, a version's rating ran on across a rules change."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    with engine.begin() as connection:
        old_database(connection)
        copy_into_old_layout(played, connection)
        # the tournament's last 4 matches were "played under v2"
        connection.execute(text("UPDATE tournament SET game_version = 1"))
        connection.execute(
            text(
                "INSERT INTO tournament (id, name, game, game_version, format, players, rounds,"
                " seed, variant, settings, status, created_at) SELECT 2, name, game, 2, format,"
                " players, rounds, seed, variant, settings, status, created_at FROM tournament"
            )
        )
        connection.execute(text("UPDATE match SET tournament_id = 2 WHERE number >= 8"))
    store = Store(url, notify=lambda _line: None)
    last = {  # each version's rating after its last seat of each rules version
        (seat.bot_version_id, match.game_version): (seat.mu_after, seat.sigma_after)
        for match, seat in store.seat_rows()
    }
    for rules in (1, 2):
        ratings = store.ratings("take-that", rules)
        assert {(r.bot_version_id, r.matches) for r in ratings} == {
            (v, 8 if rules == 1 else 4) for v, _r in last if _r == rules
        }
        assert all((r.mu, r.sigma) == last[(r.bot_version_id, rules)] for r in ratings)
    assert [row["games"] for row in reports.leaderboard(store, "take-that", rules=1)] == [8, 8]
    assert [row["games"] for row in reports.leaderboard(store, "take-that", rules=2)] == [4, 4]
    for rules in (1, 2):
        assert counters(store, rules) == counted_afresh(store, rules)
    engine.dispose()


def test_a_database_of_a_newer_arena_is_refused_in_one_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    Store(url).close()
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0999'"))
    engine.dispose()
    with pytest.raises(StoreError, match="made by a newer arena; upgrade arena") as caught:
        Store(url)
    assert "\n" not in str(caught.value)


def test_arena_db_current_and_upgrade(played: Store, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    with engine.begin() as connection:
        old_database(connection)
        copy_into_old_layout(played, connection)
    engine.dispose()
    cli = CliRunner()
    base = ["--home", str(tmp_path), "--db", url]
    shown = cli.invoke(app, [*base, "db", "current", "--json"])
    assert shown.exit_code == 0, shown.output
    assert '"revision":"0001"' in shown.stdout and '"newest":"0008"' in shown.stdout
    upgraded = cli.invoke(app, [*base, "db", "upgrade"])
    assert upgraded.exit_code == 0, upgraded.output
    assert upgraded.stderr.strip() == "upgrading the database from revision 0001 to 0008"
    assert "at revision 0008" in upgraded.stdout
    again = cli.invoke(app, [*base, "db", "upgrade"])
    assert again.exit_code == 0 and again.stderr == ""


def test_arena_db_current_says_new_of_a_new_database_and_creates_nothing(
    tmp_path: Path,
) -> None:
    """Issue 31 item 20: `db current` on a new database is not 'made before migrations'."""
    cli = CliRunner()
    shown = cli.invoke(app, ["--home", str(tmp_path / "home"), "db", "current", "--json"])
    assert shown.exit_code == 0, shown.output
    assert '"revision":"new"' in shown.stdout
    assert not (tmp_path / "home" / "arena.db").exists()
    line = cli.invoke(app, ["--home", str(tmp_path / "home"), "db", "current"]).stdout
    assert "no database yet" in line and "before migrations" not in line


def test_suspensions_of_tournaments_played_before_are_found_as_the_runner_made_them(
    suspending: tuple[Store, list[SuspensionRecord]], url: str
) -> None:
    """0006 records the suspensions of tournaments played before: those the runner made
    (and told of), and `bot show` reports them as it did."""
    played, made = suspending
    assert [s.version_id for s in made] == [played.latest_version("flaky").id]  # type: ignore[union-attr]
    engine = create_engine(url)
    with engine.begin() as connection:
        old_database(connection)
        copy_into_old_layout(played, connection)
    store = Store(url, notify=lambda _line: None)
    tid = store.tournaments()[0].id or 0
    assert store.suspensions(tid) == made
    shown, before = reports.bot_details(store, "flaky"), reports.bot_details(played, "flaky")
    assert shown is not None and before is not None
    assert shown["suspensions"] == before["suspensions"]
    store.close()
    engine.dispose()


def test_0006_finds_suspensions_by_the_runners_rule(tmp_path: Path) -> None:
    """Forfeits in a row per version in schedule order, to the tournament's suspend_after
    (5 when unset, never below 1); a void match counts for nobody unless the store voided
    it (the run had counted it), nor does a match skipped for a suspension."""
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    a, b, c = (store.add_bot_version(n, n * 64, "/x", ["x"], ["*"]).id or 0 for n in "abc")
    words = {"o": "ok", "x": "crash", "t": "timeout", "s": "suspended"}

    def tournament(settings: dict[str, Any], *matches: tuple[list[int], str, str]) -> list[int]:
        """A tournament's matches recorded with their lineups, seat statuses (one letter
        each) and match status; the ids of its matches."""
        schedule = [
            Match(number=i, game="take-that", seed=i, lineup=lineup)
            for i, (lineup, _seats, _status) in enumerate(matches)
        ]
        tid = store.create_tournament(
            Tournament(
                name="t", game="take-that", game_version=1, format="round-robin", players=3,
                rounds=1, seed=1, variant={}, settings=settings,
            ),
            schedule,
        )  # fmt: skip
        ids = [m.id or 0 for m in store.matches(tid)]
        for match_id, (lineup, seats, status) in zip(ids, matches, strict=True):
            error = UNSTORABLE + "a rank too large" if status == "stored void" else ""
            records = [
                SeatRecord(i, v, None, None, words[w])
                for i, (v, w) in enumerate(zip(lineup, seats, strict=True))
            ]
            store.record(
                MatchRecord(
                    match_id, status.replace("stored void", "platform-error"), records, error
                )
            )
        return [tid, *ids]

    two, *ids = tournament(
        {"suspend_after": 2},
        ([a, b, c], "xtx", "forfeit"),  # a 1, b 1, c 1
        ([a, b, c], "xxx", "platform-error"),  # void: counts for nobody
        ([a, b, c], "oxo", "stored void"),  # counted: a 0, b 2 (suspended), c 0
        ([a, b], "os", "forfeit"),  # skipped: b is suspended
        ([a, c], "xt", "forfeit"),  # a 1, c 1
        ([c, a], "tx", "forfeit"),  # c 2, a 2: both suspended, in seat order
    )
    unset, *more = tournament({}, *[([a, b, c], "xoo", "forfeit")] * 5)
    never, *_ = tournament({"suspend_after": 0}, *[([a, b, c], "xxx", "forfeit")] * 2)
    with store.writer.begin() as db:  # a database of before: no suspension table
        db.execute(text("DROP TABLE suspension"))
        db.execute(text("UPDATE alembic_version SET version_num = '0005'"))
    store.close()
    said: list[str] = []
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}", notify=said.append)
    assert said == ["upgrading the database from revision 0005 to 0008"]
    assert store.suspensions(two) == [
        SuspensionRecord(b, ids[2], 2),
        SuspensionRecord(c, ids[5], 2),
        SuspensionRecord(a, ids[5], 2),
    ]
    assert store.suspensions(unset) == [SuspensionRecord(a, more[4], 5)]
    assert store.suspensions(never) == []
    store.close()


def test_the_newest_revision_known_without_alembic_is_the_scripts_head() -> None:
    # arena.store opens a database at the newest revision without importing Alembic
    assert migrations.HEAD == migrations.head() == migrations.scripts_head()


def test_0008_links_the_rated_seats_recorded_before_as_recording_does(url: str) -> None:
    """The pool links of a database of before are what recording would have stored:
    per tournament its rated versions; a match of no tournament through its lowest
    rated version; none for a void or unrated match. The pools stay the same."""
    store = Store(url)
    a, b, c, d = (store.add_bot_version(n, n * 64, "/x", ["x"], ["*"]).id or 0 for n in "abcd")

    def played(lineups: list[list[int]], rated: bool = True) -> int:
        schedule = [
            Match(number=i, game="take-that", game_version=1, seed=i, lineup=lineup)
            for i, lineup in enumerate(lineups)
        ]
        tid = store.create_tournament(
            Tournament(
                name="t", game="take-that", game_version=1, format="round-robin", players=2,
                rounds=1, seed=1, variant={}, settings={},
            ),
            schedule,
        )  # fmt: skip
        for match in store.matches(tid):
            seats = [SeatRecord(i, v, 1 - i, i + 1, "ok") for i, v in enumerate(match.lineup)]
            store.record(
                MatchRecord(match.id or 0, "normal", seats), (lambda s: s) if rated else None
            )
        return tid

    first, second = played([[a, b], [b, a]]), played([[c, d]])
    played([[a, c]], rated=False)  # recorded without a rating: links nobody
    with store.write() as s:  # a match of no tournament, as databases of before may hold
        lone = Match(number=0, game="take-that", game_version=1, seed=1, lineup=[d, b])
        s.add(lone)
        s.flush()
        lone_id = lone.id or 0
    seats = [SeatRecord(0, d, 1, 1, "ok"), SeatRecord(1, b, 0, 2, "ok")]
    store.record(MatchRecord(lone_id, "normal", seats), lambda s: s)
    recorded = sorted(store.opponents("take-that", 1))
    assert recorded == sorted(
        [(first, a), (first, b), (second, c), (second, d), (-min(b, d), b), (-min(b, d), d)]
    )
    board = reports.leaderboard(store, "take-that")
    with store.writer.begin() as db:  # the database of before: no links
        db.execute(text("DROP TABLE poollink"))
        db.execute(text("UPDATE alembic_version SET version_num = '0007'"))
    store.close()
    said: list[str] = []
    store = Store(url, notify=said.append)
    assert said == ["upgrading the database from revision 0007 to 0008"]
    assert sorted(store.opponents("take-that", 1)) == recorded
    assert reports.leaderboard(store, "take-that") == board
    assert {row["pool"] for row in board} == {1}  # the lone match joins the two pools
    store.close()
