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

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, inspect, text
from sqlmodel import SQLModel

import arena.store.models  # noqa: F401 - every table registered in SQLModel.metadata
from arena import ArenaError

FOLDER = Path(__file__).resolve().parent
#: A key for pg_advisory_xact_lock: "arena" in ASCII.
_LOCK_KEY = 0x6172656E61
#: What a database made before migrations is called in messages.
UNVERSIONED = "none (made before migrations)"


class MigrationError(ArenaError, RuntimeError):
    """The database cannot be brought to this arena's schema (a one-line reason)."""

    exit_code = 1


def config(connection: Connection | None = None) -> Config:
    """An Alembic configuration for arena's scripts, running on `connection`."""
    cfg = Config()
    cfg.set_main_option("script_location", str(FOLDER))
    cfg.attributes["connection"] = connection
    return cfg


def head() -> str:
    """The newest revision."""
    revision = ScriptDirectory.from_config(config()).get_current_head()
    assert revision is not None
    return revision


def known(revision: str) -> bool:
    """True when `revision` is one of arena's revisions."""
    return revision in {r.revision for r in ScriptDirectory.from_config(config()).walk_revisions()}


def current(connection: Connection) -> str | None:
    """The revision stamped in the database (None: new, or made before migrations)."""
    return MigrationContext.configure(connection).get_current_revision()


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
    if found is None and not _has_arena_tables(connection):
        SQLModel.metadata.create_all(connection)
        command.stamp(config(connection), newest)
        return newest
    notify(f"upgrading the database from revision {found or UNVERSIONED} to {newest}")
    command.upgrade(config(connection), newest)
    return newest
