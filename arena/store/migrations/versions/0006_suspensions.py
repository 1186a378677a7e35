"""Suspensions recorded when they happen.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-12

- `suspension` (bot version, match, forfeits): a bot version suspended from a
  tournament, written by `Store.record` in the transaction of the match whose
  forfeit completed the streak. Before, nothing recorded a suspension: the runner
  found it again on resume, and `arena bot show` worked it out once more.
- Filled here for the tournaments recorded before, by the rule the runner applied
  (arena/tournament/suspensions.py; runner.py `_Suspensions` before): per
  tournament, a version's seats are counted in schedule order, a seat not `ok` adds
  one to its forfeits in a row, an `ok` one clears them; once they reach the
  tournament's `suspend_after` (default 5; below 1: never, as in `arena match` runs)
  the version is suspended by that match. A void match (`platform-error`) counts for
  nobody, unless the store voided it because its result could not be stored (the run
  had counted it); nor does a match skipped for a suspension (a seat `suspended`).

Statuses are compared as arena.status members: their words are what databases hold,
which no release may change without a migration of its own. A table already there is
left alone: a database whose
revision was set back by hand (as tests do to replay an older upgrade) upgrades again
without an error or a second copy of its rows.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from alembic import op

from arena.status import MatchStatus, SeatStatus

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

#: How the reason of a match the store voided begins (arena.store.UNSTORABLE then).
_UNSTORABLE = "its result could not be stored: "
_DEFAULT_LIMIT = 5

_tournament = sa.table("tournament", sa.column("id"), sa.column("settings", sa.JSON))
_match = sa.table(
    "match",
    sa.column("id"),
    sa.column("tournament_id"),
    sa.column("number"),
    sa.column("recorded"),
    sa.column("status"),
    sa.column("error"),
)
_seat = sa.table(
    "matchseat",
    sa.column("match_id"),
    sa.column("seat"),
    sa.column("bot_version_id"),
    sa.column("status"),
)


def upgrade() -> None:
    """Create the table, then record the suspensions of the tournaments played before."""
    bind = op.get_bind()
    if "suspension" in sa.inspect(bind).get_table_names():
        return
    suspension = op.create_table(
        "suspension",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("match_id", sa.Integer(), sa.ForeignKey("match.id"), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), sa.ForeignKey("botversion.id"), nullable=False),
        sa.Column("forfeits", sa.Integer(), nullable=False),
        sa.UniqueConstraint("match_id", "bot_version_id"),
    )
    op.create_index("ix_suspension_match_id", "suspension", ["match_id"])
    op.create_index("ix_suspension_bot_version_id", "suspension", ["bot_version_id"])
    assert suspension is not None
    rows = [
        {"match_id": match_id, "bot_version_id": version, "forfeits": limit}
        for tournament_id, limit in _candidates(bind)
        for match_id, version in _suspended(bind, tournament_id, limit)
    ]
    if rows:
        bind.execute(suspension.insert(), rows)


def _candidates(bind: sa.Connection) -> Iterator[tuple[int, int]]:
    """(tournament id, suspend_after) of the tournaments where some version has at least
    that many seats not `ok`: only there can a streak have reached it."""
    limits = {
        int(tid): int((settings or {}).get("suspend_after", _DEFAULT_LIMIT))
        for tid, settings in bind.execute(sa.select(_tournament.c.id, _tournament.c.settings))
    }
    most: dict[int, int] = {}
    forfeits = (
        sa.select(_match.c.tournament_id, _seat.c.bot_version_id, sa.func.count())
        .select_from(_seat.join(_match, _match.c.id == _seat.c.match_id))
        .where(_seat.c.status != SeatStatus.OK.value, _match.c.tournament_id.is_not(None))
        .group_by(_match.c.tournament_id, _seat.c.bot_version_id)
    )
    for tid, _version, count in bind.execute(forfeits):
        most[int(tid)] = max(most.get(int(tid), 0), int(count))
    for tid in sorted(most):
        limit = limits.get(tid, _DEFAULT_LIMIT)
        if limit >= 1 and most[tid] >= limit:
            yield tid, limit


def _suspended(bind: sa.Connection, tournament_id: int, limit: int) -> list[tuple[int, int]]:
    """(match id, version) of each suspension in one tournament, in schedule order."""
    streak: dict[int, int] = {}
    found: list[tuple[int, int]] = []
    gone: set[int] = set()
    for (match_id, match_status, error), rows in _recorded(bind, tournament_id):
        seats = [(int(version), status) for *_match, version, status in rows]
        stored_void = (error or "").startswith(_UNSTORABLE)  # the run had counted it
        if (match_status == MatchStatus.PLATFORM_ERROR and not stored_void) or any(
            status == SeatStatus.SUSPENDED for _version, status in seats
        ):
            continue
        for version, status in seats:
            streak[version] = streak.get(version, 0) + 1 if status != SeatStatus.OK else 0
            if streak[version] >= limit and version not in gone:
                gone.add(version)
                found.append((match_id, version))
    return found


def _recorded(bind: sa.Connection, tournament_id: int) -> Iterator[tuple[Any, Iterator[Any]]]:
    """A tournament's recorded seats in schedule and seat order, grouped by match:
    ((match id, status, error), its rows ending in (version, seat status))."""
    query = (
        sa.select(
            _match.c.id, _match.c.status, _match.c.error, _seat.c.bot_version_id, _seat.c.status
        )
        .select_from(_match.join(_seat, _seat.c.match_id == _match.c.id))
        .where(_match.c.tournament_id == tournament_id, _match.c.recorded == sa.true())
        .order_by(_match.c.number, _seat.c.seat)
    )
    return itertools.groupby(bind.execute(query), key=lambda row: tuple(row[:3]))


def downgrade() -> None:
    op.drop_table("suspension")
