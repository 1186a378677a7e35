"""The schema as arena made it before migrations (arena/store/models.py at commit e68b507).

Revision ID: 0001
Revises:
Create Date: 2025-06-01

Databases made before migrations hold these tables (some also `bot.owner` and
`secret`, which 0002 adds where missing). On such a database arena runs this
revision too: it creates only the tables that are missing, so a database that
was made by create_all at any commit since e68b507 reaches the same schema.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _missing(name: str) -> bool:
    return not sa.inspect(op.get_bind()).has_table(name)


def upgrade() -> None:
    """Create the tables of e68b507 that are missing."""
    moment = sa.DateTime(timezone=True)
    if _missing("bot"):
        op.create_table(
            "bot",
            sa.Column("id", sa.Integer(), primary_key=True),
            sa.Column("name", sa.String(), nullable=False),
            sa.Column("created_at", moment, nullable=False),
        )
        op.create_index("ix_bot_name", "bot", ["name"], unique=True)
    if _missing("tournament"):
        op.create_table(
            "tournament",
            sa.Column("id", sa.Integer(), primary_key=True),
            sa.Column("name", sa.String(), nullable=False),
            sa.Column("game", sa.String(), nullable=False),
            sa.Column("game_version", sa.Integer(), nullable=False),
            sa.Column("format", sa.String(), nullable=False),
            sa.Column("players", sa.Integer(), nullable=False),
            sa.Column("rounds", sa.Integer(), nullable=False),
            sa.Column("seed", sa.Integer(), nullable=False),
            sa.Column("variant", sa.JSON(), nullable=False),
            sa.Column("settings", sa.JSON(), nullable=False),
            sa.Column("status", sa.String(), nullable=False),
            sa.Column("created_at", moment, nullable=False),
            sa.Column("finished_at", moment, nullable=True),
        )
        op.create_index("ix_tournament_game", "tournament", ["game"])
    if _missing("botversion"):
        op.create_table(
            "botversion",
            sa.Column("id", sa.Integer(), primary_key=True),
            sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bot.id"), nullable=False),
            sa.Column("number", sa.Integer(), nullable=False),
            sa.Column("sha256", sa.String(), nullable=False),
            sa.Column("folder", sa.String(), nullable=False),
            sa.Column("command", sa.JSON(), nullable=False),
            sa.Column("games", sa.JSON(), nullable=False),
            sa.Column("created_at", moment, nullable=False),
            sa.UniqueConstraint("bot_id", "number"),
            sa.UniqueConstraint("bot_id", "sha256"),
        )
        op.create_index("ix_botversion_bot_id", "botversion", ["bot_id"])
        op.create_index("ix_botversion_sha256", "botversion", ["sha256"])
    if _missing("match"):
        op.create_table(
            "match",
            sa.Column("id", sa.Integer(), primary_key=True),
            sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournament.id")),
            sa.Column("number", sa.Integer(), nullable=False),
            sa.Column("game", sa.String(), nullable=False),
            sa.Column("seed", sa.Integer(), nullable=False),
            sa.Column("lineup", sa.JSON(), nullable=False),
            sa.Column("recorded", sa.Boolean(), nullable=False),
            sa.Column("status", sa.String()),
            sa.Column("error", sa.String()),
            sa.Column("seconds", sa.Float()),
            sa.Column("replay", sa.Text()),
            sa.Column("recorded_at", moment),
            sa.UniqueConstraint("tournament_id", "number"),
        )
        op.create_index("ix_match_tournament_id", "match", ["tournament_id"])
        op.create_index("ix_match_recorded", "match", ["recorded"])
    if _missing("matchseat"):
        op.create_table(
            "matchseat",
            sa.Column("id", sa.Integer(), primary_key=True),
            sa.Column("match_id", sa.Integer(), sa.ForeignKey("match.id"), nullable=False),
            sa.Column("seat", sa.Integer(), nullable=False),
            sa.Column(
                "bot_version_id", sa.Integer(), sa.ForeignKey("botversion.id"), nullable=False
            ),
            sa.Column("score", sa.Float()),
            sa.Column("rank", sa.Integer()),
            sa.Column("status", sa.String(), nullable=False),
            sa.Column("detail", sa.String(), nullable=False),
            sa.Column("stderr", sa.Text(), nullable=False),
            sa.Column("mu_before", sa.Float()),
            sa.Column("sigma_before", sa.Float()),
            sa.Column("mu_after", sa.Float()),
            sa.Column("sigma_after", sa.Float()),
            sa.UniqueConstraint("match_id", "seat"),
        )
        op.create_index("ix_matchseat_match_id", "matchseat", ["match_id"])
        op.create_index("ix_matchseat_bot_version_id", "matchseat", ["bot_version_id"])
    if _missing("rating"):
        op.create_table(
            "rating",
            sa.Column("id", sa.Integer(), primary_key=True),
            sa.Column(
                "bot_version_id", sa.Integer(), sa.ForeignKey("botversion.id"), nullable=False
            ),
            sa.Column("game", sa.String(), nullable=False),
            sa.Column("mu", sa.Float(), nullable=False),
            sa.Column("sigma", sa.Float(), nullable=False),
            sa.Column("matches", sa.Integer(), nullable=False),
            sa.Column("updated_at", moment, nullable=False),
            sa.UniqueConstraint("bot_version_id", "game"),
        )
        op.create_index("ix_rating_game", "rating", ["game"])
        op.create_index("ix_rating_bot_version_id", "rating", ["bot_version_id"])
