"""The two databases tests run on: a SQLite file, and a fresh database on a real PostgreSQL server.

PostgreSQL tests use ARENA_TEST_POSTGRES (`.ci/run` starts a server and sets it);
each test gets its own new database on that server, dropped afterwards. Locally,
without a server, they are skipped; in CI (CI=true) a missing server fails.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url, text

POSTGRES = os.environ.get("ARENA_TEST_POSTGRES")
BACKENDS = ["sqlite", "postgresql"]


def need_postgres() -> str:
    """The server's URL, or skip (fail in CI) when there is none."""
    if not POSTGRES:
        if os.environ.get("CI"):
            pytest.fail("CI must provide ARENA_TEST_POSTGRES (a real PostgreSQL server)")
        pytest.skip("no PostgreSQL server (set ARENA_TEST_POSTGRES)")
    return POSTGRES


@contextmanager
def fresh_postgres() -> Iterator[str]:
    """The URL of a new, empty database on the test server, dropped at the end."""
    server = need_postgres()
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    name = f"arena_t_{uuid.uuid4().hex[:16]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def database_url(backend: str, folder: Path) -> Iterator[str]:
    """A URL of a new, empty database of `backend` (a SQLite file lives in `folder`)."""
    if backend == "sqlite":
        yield f"sqlite:///{folder / 'arena.db'}"
    else:
        with fresh_postgres() as url:
            yield url
