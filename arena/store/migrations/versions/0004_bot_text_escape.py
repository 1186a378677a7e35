"""Bot text stores any string: the escape character already stored is escaped.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

From this revision the columns that hold a bot's text (`matchseat.detail`,
`matchseat.stderr`, `match.error`, `matchreplay.replay`) write NUL, lone
surrogates and U+0010 (DLE) as U+0010 and four hex digits (arena.store.text),
and read them back. So that a row stored before reads back as it was, every
U+0010 already in those columns is written as U+0010 "0010" here. Only rows
holding one are rewritten (nearly none: replays are JSON, which escapes it);
the search reads bytes on SQLite, where text may hold a NUL that stops its
string functions.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

#: (table, key column, text column) of every column of bot text.
_COLUMNS = (
    ("matchseat", "id", "detail"),
    ("matchseat", "id", "stderr"),
    ("match", "id", "error"),
    ("matchreplay", "match_id", "replay"),
)
_ESCAPE = "\x10"


def _holding_escape(column: str, sqlite: bool) -> str:
    return (
        f"instr(CAST({column} AS BLOB), X'10') > 0" if sqlite else f"strpos({column}, chr(16)) > 0"
    )


def upgrade() -> None:
    """Escape the escape character wherever it is stored (as storedtext.to_stored does)."""
    connection = op.get_bind()
    sqlite = connection.dialect.name == "sqlite"
    for table, key, column in _COLUMNS:
        rows = connection.execute(
            sa.text(
                f'SELECT {key}, {column} FROM "{table}" WHERE {_holding_escape(column, sqlite)}'
            )
        ).all()
        if rows:
            connection.execute(
                sa.text(f'UPDATE "{table}" SET {column} = :value WHERE {key} = :key'),
                [{"key": k, "value": v.replace(_ESCAPE, _ESCAPE + "0010")} for k, v in rows],
            )


def downgrade() -> None:
    """Nothing in the schema changed; rows keep their escaped text (an older arena shows
    the escapes)."""
