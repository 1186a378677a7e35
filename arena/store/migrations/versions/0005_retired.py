"""Retired bots and versions.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-10

- `bot.retired_at`, `botversion.retired_at` (NULL: it plays): `arena bot retire`
  keeps a bot, or one version, with its history, ratings and replays, but no new
  tournament or ladder takes it (`arena bot reinstate` clears it). Every row made
  before plays, as it did.

A column already there is left alone: a database whose revision was set back by
hand (as tests do to replay an older upgrade) upgrades again without an error.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_TABLES = ("bot", "botversion")


def upgrade() -> None:
    """Add the two nullable columns (no row changes: NULL is "plays")."""
    inspector = sa.inspect(op.get_bind())
    for table in _TABLES:
        if "retired_at" not in {c["name"] for c in inspector.get_columns(table)}:
            op.add_column(table, sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    for table in _TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("retired_at")
