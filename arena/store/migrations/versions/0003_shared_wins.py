"""Shared first places counted on the ratings.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25

- `rating.shared_wins`: of a rating's wins (seats ranked 1 of matches counted as
  games), those whose first place was shared with a rival: another seat ranked 1 and
  none ranked 2 (`arena.store.shared_first`). The leaderboard shows outright wins and
  shared firsts apart (issue 14) from the rating rows alone, as it reads the other
  counters; here it is counted from the seats already recorded.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

#: Per rating row: its version's seats ranked 1 at its game and rules version, of
#: recorded matches that are not void, with a score, that share the first place.
_COUNT = """
UPDATE rating SET shared_wins = (
    SELECT COUNT(*) FROM matchseat s JOIN match m ON m.id = s.match_id
    WHERE s.bot_version_id = rating.bot_version_id
      AND m.game = rating.game AND m.game_version = rating.game_version
      AND m.recorded AND COALESCE(m.status, '') != 'platform-error'
      AND s.rank = 1 AND s.score IS NOT NULL
      AND EXISTS (SELECT 1 FROM matchseat o
                  WHERE o.match_id = s.match_id AND o.rank = 1 AND o.seat != s.seat)
      AND NOT EXISTS (SELECT 1 FROM matchseat o WHERE o.match_id = s.match_id AND o.rank = 2)
)
"""


def upgrade() -> None:
    """Add the counter (0 for a new row) and count it for the rows there are."""
    with op.batch_alter_table("rating") as table:
        table.add_column(sa.Column("shared_wins", sa.Integer(), nullable=False, server_default="0"))
    op.execute(_COUNT)
    with op.batch_alter_table("rating") as table:
        table.alter_column("shared_wins", server_default=None, existing_type=sa.Integer())


def downgrade() -> None:
    with op.batch_alter_table("rating") as table:
        table.drop_column("shared_wins")
