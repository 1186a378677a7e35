"""Bot owners, the seed secret, 64-bit seeds, rules versions in the data, replays apart,
leaderboard counters on the ratings.

Revision ID: 0002
Revises: 0001
Create Date: 2025-06-02

- `bot.owner` (where missing): the bundled bots' names belong to "arena", every
  other bot to the OS user who upgrades (the one whose arena it is).
- `secret` (where missing): made on first use by the store.
- `tournament.seed` and `match.seed` become BIGINT (seeds are 48 bits and more).
- `match.game_version`: the tournament's rules version (1 for a match without one).
- `rating.game_version`: ratings are per (bot version, game, rules version). A
  rating whose seats were all played under one rules version (the usual case)
  keeps its row and value; one mixed from several versions is split, each
  version getting the rating after its last rated seat and its own match count
  (the row keeps the newest version's).
- `rating.games`, `wins`, `score_sum`, `forfeits`: the leaderboard's running
  counters (arena.store.models.Rating), counted here from the recorded seats of each
  rating's version at its game and rules version (after any split).
- `match.replay` moves to its own table `matchreplay`, which statistics never read.
- An index on match (game, game_version, recorded) for the leaderboards.

SQLite cannot change a column's type or constraints in place: there the three
changed tables are rebuilt (arena runs migrations with foreign-key checks off and
runs `PRAGMA foreign_key_check` before committing).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from alembic import op

from arena.submissions import names
from arena.submissions.manifest import bundled_names

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_SQLITE_TABLES = {
    "tournament": """CREATE TABLE "{name}" (
        id INTEGER NOT NULL, name VARCHAR NOT NULL, game VARCHAR NOT NULL,
        game_version INTEGER NOT NULL, format VARCHAR NOT NULL, players INTEGER NOT NULL,
        rounds INTEGER NOT NULL, seed BIGINT NOT NULL, variant JSON NOT NULL,
        settings JSON NOT NULL, status VARCHAR NOT NULL, created_at DATETIME NOT NULL,
        finished_at DATETIME, PRIMARY KEY (id))""",
    "match": """CREATE TABLE "{name}" (
        id INTEGER NOT NULL, tournament_id INTEGER, number INTEGER NOT NULL,
        game VARCHAR NOT NULL, game_version INTEGER NOT NULL, seed BIGINT NOT NULL,
        lineup JSON NOT NULL, recorded BOOLEAN NOT NULL, status VARCHAR, error VARCHAR,
        seconds FLOAT, recorded_at DATETIME, PRIMARY KEY (id),
        UNIQUE (tournament_id, number),
        FOREIGN KEY(tournament_id) REFERENCES tournament (id))""",
    "rating": """CREATE TABLE "{name}" (
        id INTEGER NOT NULL, bot_version_id INTEGER NOT NULL, game VARCHAR NOT NULL,
        game_version INTEGER NOT NULL, mu FLOAT NOT NULL, sigma FLOAT NOT NULL,
        matches INTEGER NOT NULL, games INTEGER NOT NULL, wins INTEGER NOT NULL,
        score_sum FLOAT NOT NULL, forfeits INTEGER NOT NULL, updated_at DATETIME NOT NULL,
        PRIMARY KEY (id),
        CONSTRAINT uq_rating_version_game_rules UNIQUE (bot_version_id, game, game_version),
        FOREIGN KEY(bot_version_id) REFERENCES botversion (id))""",
}
_INDEXES = {
    "tournament": [("ix_tournament_game", ["game"])],
    "match": [("ix_match_tournament_id", ["tournament_id"]), ("ix_match_recorded", ["recorded"])],
    "rating": [("ix_rating_game", ["game"]), ("ix_rating_bot_version_id", ["bot_version_id"])],
}
#: The leaderboard's counters on `rating`, each with its type.
_COUNTERS: dict[str, sa.types.TypeEngine[Any]] = {
    "games": sa.Integer(),
    "wins": sa.Integer(),
    "score_sum": sa.Float(),
    "forfeits": sa.Integer(),
}


def _columns(table: str) -> list[str]:
    return [c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)]


def upgrade() -> None:
    """Owners, secret, BIGINT seeds, rules versions, replays apart."""
    bind = op.get_bind()
    _owners()
    if not sa.inspect(bind).has_table("secret"):
        op.create_table(
            "secret",
            sa.Column("id", sa.Integer(), primary_key=True),
            sa.Column("key", sa.String(), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        )
    op.add_column("match", sa.Column("game_version", sa.Integer(), nullable=True))
    op.execute(
        "UPDATE match SET game_version = COALESCE((SELECT t.game_version FROM tournament t"
        " WHERE t.id = match.tournament_id), 1)"
    )
    op.create_table(
        "matchreplay",
        sa.Column("match_id", sa.Integer(), sa.ForeignKey("match.id"), primary_key=True),
        sa.Column("replay", sa.Text(), nullable=False),
    )
    op.execute(
        "INSERT INTO matchreplay (match_id, replay)"
        " SELECT id, replay FROM match WHERE replay IS NOT NULL"
    )
    op.add_column("rating", sa.Column("game_version", sa.Integer(), nullable=True))
    for name, type_ in _COUNTERS.items():
        op.add_column("rating", sa.Column(name, type_, nullable=True))
    extra = _split_ratings(bind)
    _count(bind, extra)
    if bind.dialect.name == "sqlite":
        for table in ("tournament", "match", "rating"):
            _rebuild_sqlite(bind, table)
    else:
        op.alter_column("tournament", "seed", type_=sa.BigInteger(), existing_nullable=False)
        op.alter_column("match", "seed", type_=sa.BigInteger(), existing_nullable=False)
        op.alter_column("match", "game_version", nullable=False, existing_type=sa.Integer())
        op.drop_column("match", "replay")
        op.alter_column("rating", "game_version", nullable=False, existing_type=sa.Integer())
        for name, type_ in _COUNTERS.items():
            op.alter_column("rating", name, nullable=False, existing_type=type_)
        for unique in sa.inspect(bind).get_unique_constraints("rating"):
            if sorted(unique["column_names"]) == ["bot_version_id", "game"] and unique["name"]:
                op.drop_constraint(unique["name"], "rating", type_="unique")
        op.create_unique_constraint(
            "uq_rating_version_game_rules", "rating", ["bot_version_id", "game", "game_version"]
        )
    op.create_index("ix_match_game_version_recorded", "match", ["game", "game_version", "recorded"])
    if extra:  # only now: the old unique (bot version, game) is gone
        bind.execute(
            sa.text(
                "INSERT INTO rating (bot_version_id, game, game_version, mu, sigma, matches,"
                " games, wins, score_sum, forfeits, updated_at) VALUES (:version, :game, :rules,"
                " :mu, :sigma, :matches, :games, :wins, :score_sum, :forfeits, :updated)"
            ),
            extra,
        )


def _owners() -> None:
    """Add `bot.owner` where missing: bundled names are arena's, the others the upgrader's."""
    if "owner" in _columns("bot"):
        return
    op.add_column("bot", sa.Column("owner", sa.String(), nullable=False, server_default=""))
    bundled = sorted(bundled_names())
    if bundled:
        op.get_bind().execute(
            sa.text("UPDATE bot SET owner = :owner WHERE name IN :names").bindparams(
                sa.bindparam("names", expanding=True)
            ),
            {"owner": names.BUNDLED_OWNER, "names": bundled},
        )
    op.get_bind().execute(
        sa.text("UPDATE bot SET owner = :owner WHERE owner = ''"),
        {"owner": names.current_user()},
    )


def _split_ratings(bind: sa.Connection) -> list[dict[str, object]]:
    """Give every rating its rules version; the rows for the older versions of a split one."""
    seats = bind.execute(
        sa.text(
            "SELECT s.bot_version_id, m.game, m.game_version, s.mu_after, s.sigma_after"
            " FROM matchseat s JOIN match m ON m.id = s.match_id"
            " WHERE s.mu_after IS NOT NULL AND s.sigma_after IS NOT NULL"
            " ORDER BY m.recorded_at, m.id, s.seat"
        )
    ).all()
    # (version, game) -> rules version -> [last mu, last sigma, rated seats]
    history: dict[tuple[int, str], dict[int, list[float]]] = defaultdict(dict)
    newest: dict[tuple[int, str], int] = {}
    for version, game, rules, mu, sigma in seats:
        entry = history[(version, game)].setdefault(rules, [0.0, 0.0, 0])
        entry[0], entry[1], entry[2] = mu, sigma, entry[2] + 1
        newest[(version, game)] = rules
    ratings = bind.execute(
        sa.text("SELECT id, bot_version_id, game, matches, updated_at FROM rating")
    ).all()
    extra: list[dict[str, object]] = []
    for rating_id, version, game, matches, updated in ratings:
        key = (version, game)
        if key not in newest:  # no rated seat left (not made by arena): the game's newest rules
            bind.execute(
                sa.text(
                    "UPDATE rating SET game_version = COALESCE((SELECT MAX(t.game_version)"
                    " FROM tournament t WHERE t.game = :game), 1) WHERE id = :id"
                ),
                {"game": game, "id": rating_id},
            )
            continue
        rules_now = newest[key]
        mixed = len(history[key]) > 1
        bind.execute(
            sa.text("UPDATE rating SET game_version = :rules, matches = :matches WHERE id = :id"),
            {
                "rules": rules_now,
                "matches": int(history[key][rules_now][2]) if mixed else matches,
                "id": rating_id,
            },
        )
        for rules, (mu, sigma, count) in history[key].items():
            if rules != rules_now:
                extra.append(
                    {
                        "version": version,
                        "game": game,
                        "rules": rules,
                        "mu": mu,
                        "sigma": sigma,
                        "matches": int(count),
                        "updated": updated,
                    }
                )
    return extra


def _count(bind: sa.Connection, extra: list[dict[str, object]]) -> None:
    """Fill the counters of every rating (and of the `extra` rows still to be inserted)
    from the recorded seats, as arena.store counts them: a seat is a game unless its
    match was void or it has no score, a game ranked 1 a win, every seat not ok a forfeit.
    """
    counted = "COALESCE(m.status, '') <> 'platform-error' AND s.score IS NOT NULL"
    rows = bind.execute(
        sa.text(
            "SELECT s.bot_version_id, m.game, m.game_version,"
            f" SUM(CASE WHEN {counted} THEN 1 ELSE 0 END),"
            f" SUM(CASE WHEN {counted} AND s.rank = 1 THEN 1 ELSE 0 END),"
            f" SUM(CASE WHEN {counted} THEN s.score ELSE 0.0 END),"
            " SUM(CASE WHEN s.status <> 'ok' THEN 1 ELSE 0 END)"
            " FROM matchseat s JOIN match m ON m.id = s.match_id WHERE m.recorded"
            " GROUP BY s.bot_version_id, m.game, m.game_version"
        )
    ).all()
    totals = {
        (version, game, rules): {
            "games": int(games or 0),
            "wins": int(wins or 0),
            "score_sum": float(score or 0.0),
            "forfeits": int(lost or 0),
        }
        for version, game, rules, games, wins, score, lost in rows
    }
    zero = {"games": 0, "wins": 0, "score_sum": 0.0, "forfeits": 0}
    ratings = bind.execute(sa.text("SELECT id, bot_version_id, game, game_version FROM rating"))
    updates = [
        {"id": rating_id, **totals.get((version, game, rules), zero)}
        for rating_id, version, game, rules in ratings
    ]
    if updates:
        bind.execute(
            sa.text(
                "UPDATE rating SET games = :games, wins = :wins, score_sum = :score_sum,"
                " forfeits = :forfeits WHERE id = :id"
            ),
            updates,
        )
    for row in extra:
        row.update(totals.get((row["version"], row["game"], row["rules"]), zero))


def _rebuild_sqlite(bind: sa.Connection, table: str) -> None:
    """Copy a table into its new definition (SQLite cannot alter columns in place)."""
    new = f"_new_{table}"
    bind.exec_driver_sql(_SQLITE_TABLES[table].format(name=new))
    columns = ", ".join(c for c in _columns(new))
    bind.exec_driver_sql(f'INSERT INTO "{new}" ({columns}) SELECT {columns} FROM "{table}"')
    bind.exec_driver_sql(f'DROP TABLE "{table}"')
    bind.exec_driver_sql(f'ALTER TABLE "{new}" RENAME TO "{table}"')
    for name, columns_of in _INDEXES[table]:
        op.create_index(name, table, columns_of)
