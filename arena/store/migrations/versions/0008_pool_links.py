"""The rating pools' links, kept as matches are recorded.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03

- `poollink` (game, game_version, unit, bot_version_id), all four the primary key: a
  bot version with a rated seat (`matchseat.mu_after` set) in a unit of play at a
  game's rules version, written by `Store.record` in the transaction of the seat.
  The leaderboard's pools read it instead of a DISTINCT over every rated seat, which
  grew with every recorded match. The unit is the match's tournament; a match outside
  any tournament is linked through its lowest rated version (minus its id).
- Filled here from the seats recorded before, by that rule.

A table already there is left alone: a database whose revision was set back by hand
(as tests do to replay an older upgrade) upgrades again without an error or a second
copy of its rows.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_match = sa.table(
    "match", sa.column("id"), sa.column("tournament_id"), sa.column("game"),
    sa.column("game_version"),
)  # fmt: skip
_seat = sa.table(
    "matchseat", sa.column("match_id"), sa.column("bot_version_id"), sa.column("mu_after")
)


def upgrade() -> None:
    """Create the table, then link every rated seat recorded before."""
    bind = op.get_bind()
    if "poollink" in sa.inspect(bind).get_table_names():
        return
    links = op.create_table(
        "poollink",
        sa.Column("game", sa.String(), nullable=False),
        sa.Column("game_version", sa.Integer(), nullable=False),
        sa.Column("unit", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), sa.ForeignKey("botversion.id"), nullable=False),
        sa.PrimaryKeyConstraint("game", "game_version", "unit", "bot_version_id"),
    )
    assert links is not None
    other = _seat.alias("other")
    lowest = (
        sa.select(sa.func.min(other.c.bot_version_id))
        .where(other.c.match_id == _match.c.id, other.c.mu_after.is_not(None))
        .scalar_subquery()
    )
    rated = (
        sa.select(
            _match.c.game,
            _match.c.game_version,
            sa.func.coalesce(_match.c.tournament_id, -lowest),
            _seat.c.bot_version_id,
        )
        .select_from(_seat.join(_match, _match.c.id == _seat.c.match_id))
        .where(_seat.c.mu_after.is_not(None))
        .distinct()
    )
    bind.execute(
        links.insert().from_select(["game", "game_version", "unit", "bot_version_id"], rated)
    )


def downgrade() -> None:
    op.drop_table("poollink")
