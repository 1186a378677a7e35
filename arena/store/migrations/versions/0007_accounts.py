"""Accounts of the service (`arena serve`).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02

- `account` (name, owner, organiser, token_sha256, token_expires_at, created_at,
  revoked_at): who reaches the service with a token (`arena user add|token|revoke`).
  Only a token's sha256 is stored. An account owns the bots whose `bot.owner` is its
  `owner` (`account:NAME`, or the OS user it was made to act for); every bot
  registered before, by an OS user at the terminal, keeps its owner and stays that
  user's, so no existing row changes.

A table already there is left alone: a database whose revision was set back by hand
(as tests do to replay an older upgrade) upgrades again without an error.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the account table and its indexes."""
    moment = sa.DateTime(timezone=True)
    if "account" in sa.inspect(op.get_bind()).get_table_names():
        return
    op.create_table(
        "account",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("owner", sa.String(), nullable=False),
        sa.Column("organiser", sa.Boolean(), nullable=False),
        sa.Column("token_sha256", sa.String(), nullable=True),
        sa.Column("token_expires_at", moment, nullable=True),
        sa.Column("created_at", moment, nullable=False),
        sa.Column("revoked_at", moment, nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_account_name", "account", ["name"], unique=True)
    op.create_index("ix_account_owner", "account", ["owner"], unique=True)
    op.create_index("ix_account_token_sha256", "account", ["token_sha256"], unique=True)


def downgrade() -> None:
    op.drop_table("account")
