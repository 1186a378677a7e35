"""The database schema's history, as Alembic revisions shipped inside the package.

Revision 0001 is the schema as arena made it before it had migrations (commit
e68b507); 0002 brings such a database to the current tables. `prepare` runs on
every open of a database: a new one is created at the newest revision and
stamped, an older one is upgraded in one transaction, under a lock (SQLite's
write lock, a PostgreSQL advisory lock), so that two commands opening it at
once upgrade it once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, inspect, text
from sqlmodel import SQLModel

import arena.store.models  # noqa: F401 - every table registered in SQLModel.metadata
from arena import ArenaError

if TYPE_CHECKING:
    from alembic.config import Config

FOLDER = Path(__file__).resolve().parent
#: The newest revision, known without Alembic: a database already at it (nearly every
#: open) needs none, and importing it costs every command about 0.4 s. A test checks
#: that it is the scripts' head (`scripts_head`).
HEAD = "0008"
#: A key for pg_advisory_xact_lock: "arena" in ASCII.
_LOCK_KEY = 0x6172656E61
#: What a database made before migrations is called in messages.
UNVERSIONED = "none (made before migrations)"


class MigrationError(ArenaError, RuntimeError):
    """The database cannot be brought to this arena's schema (a one-line reason)."""

    exit_code = 1


def config(connection: Connection | None = None) -> Config:
    """An Alembic configuration for arena's scripts, running on `connection`."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(FOLDER))
    cfg.attributes["connection"] = connection
    return cfg


def head() -> str:
    """The newest revision."""
    return HEAD


def scripts_head() -> str:
    """The newest revision, as the revision scripts say (Alembic reads them)."""
    from alembic.script import ScriptDirectory

    revision = ScriptDirectory.from_config(config()).get_current_head()
    assert revision is not None
    return revision


def known(revision: str) -> bool:
    """True when `revision` is one of arena's revisions."""
    from alembic.script import ScriptDirectory

    return revision in {r.revision for r in ScriptDirectory.from_config(config()).walk_revisions()}


def current(connection: Connection) -> str | None:
    """The revision stamped in the database (None: new, or made before migrations):
    Alembic's version table, read as Alembic reads it, without importing Alembic."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    rows = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    if len(rows) > 1:  # arena's history has one branch: Alembic refuses this too
        raise MigrationError(f"the database is stamped with {len(rows)} schema revisions")
    return str(rows[0][0]) if rows else None


def _has_arena_tables(connection: Connection) -> bool:
    return bool({"bot", "tournament", "match"} & set(inspect(connection).get_table_names()))


def prepare(connection: Connection, notify: Callable[[str], None]) -> str:
    """Bring the database on `connection` to the newest revision; returns it.

    The caller owns the transaction (and commits it). A new database gets the
    current tables and is stamped; one at an older revision, or made before
    migrations, is upgraded after `notify("upgrading the database from ...")`.
    Raises MigrationError for a revision this arena does not know (a newer arena's).
    """
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
    newest = head()
    found = current(connection)
    if found == newest:
        return newest
    if found is not None and not known(found):
        raise MigrationError(
            f"the database is at schema revision {found}, which this arena does not know "
            f"(its newest is {newest}): it was made by a newer arena; upgrade arena"
        )
    from alembic import command

    if found is None and not _has_arena_tables(connection):
        SQLModel.metadata.create_all(connection)
        command.stamp(config(connection), newest)
        return newest
    notify(f"upgrading the database from revision {found or UNVERSIONED} to {newest}")
    command.upgrade(config(connection), newest)
    return newest
