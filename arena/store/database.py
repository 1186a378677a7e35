"""The database itself: engines, sessions, the schema brought up to date on first use,
URLs, and database errors as one line.

SQLite (the default, a file in the arena home) runs in WAL mode and every
writing transaction starts with BEGIN IMMEDIATE: a deferred transaction that
later upgrades to a write fails at once under contention instead of waiting.
Any other SQLAlchemy URL (PostgreSQL) works as it is. Each unit of work (the
catalog, tournaments, recording, queries: the other modules of arena.store) opens
one short session or connection here per call, never one held across a match.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, event, inspect, make_url
from sqlalchemy.exc import ArgumentError, DataError, DBAPIError, IntegrityError, SQLAlchemyError
from sqlmodel import Session, create_engine

import arena.store.migrations as migrations
from arena import settings
from arena.errors import StoreError, StoreInputError
from arena.home import HomeError, prepare_database
from arena.match import seeds
from arena.store.migrations import MigrationError
from arena.store.models import Secret
from arena.store.records import Inherit


def default_home() -> Path:
    """ARENA_HOME, or the per-user data directory."""
    return settings.home()


def default_url(home: Path) -> str:
    """ARENA_DB, or the SQLite file in the arena home."""
    return settings.database_url(home)


def safe_url(url: str) -> str:
    """The URL as it may be shown: never with its password.

    >>> safe_url("postgresql+psycopg://u:s3cret@db/arena")
    'postgresql+psycopg://u:***@db/arena'
    """
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(unreadable URL)"


def sqlite_file(url: str) -> Path | None:
    """The file a SQLite URL keeps its database in; None for another database, one in
    memory or named by a `file:` URI, and for a URL that does not parse (opening the
    store says what is wrong with it).

    >>> sqlite_file("sqlite:////srv/arena/arena.db")
    PosixPath('/srv/arena/arena.db')
    >>> [sqlite_file(u) for u in ("sqlite://", "postgresql+psycopg://u@db/arena", "nonsense")]
    [None, None, None]
    """
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    path = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or path in ("", ":memory:"):
        return None
    return None if path.startswith("file:") else Path(path)


def _sqlite_engine(
    url: str, immediate: bool, busy_timeout: float, foreign_keys: bool = True
) -> Engine:
    engine = create_engine(url, connect_args={"timeout": busy_timeout, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # In WAL mode NORMAL still survives a crash of arena (only a power cut may lose
        # the last commits) and saves an fsync per recorded match.
        cursor.execute("PRAGMA synchronous=NORMAL")
        # Off only while migrating: rebuilding a referenced table needs it off.
        cursor.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


#: What `schema_revision` says of a database that holds no tables (or no file) yet.
NEW_DATABASE = "new"


def _sqlite_file_exists(database: str | None) -> bool:
    """True unless `database` names a SQLite file that does not exist (memory counts as one)."""
    if not database or database == ":memory:" or database.startswith("file:"):
        return True
    return Path(database).exists()


def schema_revision(url: str) -> tuple[str | None, str]:
    """(the database's schema revision, the newest this arena knows), changing nothing.

    NEW_DATABASE when it holds no tables yet (for SQLite: no file, which is not
    created); None when it was made before migrations. StoreError
    (StoreInputError for a malformed URL) when it cannot be read.
    """
    shown = safe_url(url)
    try:
        engine = create_engine(url)
    except ArgumentError as error:
        raise StoreInputError(f"bad database URL {shown}: {_first_line(error)}") from None
    except ImportError as error:
        raise StoreError(
            f"cannot open database {shown}: its driver is missing ({error.name})"
        ) from None
    if engine.url.get_backend_name() == "sqlite" and not _sqlite_file_exists(engine.url.database):
        engine.dispose()  # a look must not create the file: the database is new
        return NEW_DATABASE, migrations.head()
    try:
        with engine.connect() as connection:
            if not inspect(connection).get_table_names():
                return NEW_DATABASE, migrations.head()
            return migrations.current(connection), migrations.head()
    except (SQLAlchemyError, OSError) as error:
        password = _password(url)
        line = _first_line(error)
        line = line.replace(password, "***") if password else line
        raise StoreError(f"cannot open database {shown}: {line}") from None
    finally:
        engine.dispose()


class _SharedMemory:
    """SQLite's wal-index file (`-shm`), which SQLite maps into this process's memory.

    Truncated by another process, the mapped pages are gone: SQLite's next touch of
    them kills the process with SIGBUS, no message, its tournament left `running`.
    So before each transaction the file is compared with what it was after the last
    one: truncated, it is given its size back (zeros: SQLite rebuilds the index from
    the WAL, as after a crash) and the transaction stops with a one-line StoreError,
    as a full disk does; made read-only, it stops too (other processes can no longer
    share the index). The transaction after that one (marking the run `interrupted`)
    goes on. A file replaced or removed is left to SQLite: the pages arena maps are
    the old file's, still there.
    """

    def __init__(self, path: Path):
        self.path = path
        self.seen: os.stat_result | None = None

    def _stat(self) -> os.stat_result | None:
        try:
            return os.stat(self.path)
        except OSError:
            return None

    def note(self) -> None:
        self.seen = self._stat()

    def check(self) -> None:
        seen, found = self.seen, self._stat()
        self.seen = found
        if (
            seen is None
            or found is None
            or (found.st_ino, found.st_dev)
            != (
                seen.st_ino,
                seen.st_dev,
            )
        ):
            return
        problem = ""
        if found.st_size < seen.st_size:
            with contextlib.suppress(OSError):
                os.truncate(self.path, seen.st_size)  # the mapped pages exist again
            self.note()
            problem = "was truncated by another process"
        elif not os.access(self.path, os.W_OK):
            problem = "was made read-only"
        if problem:
            raise StoreError(f"database error: its shared-memory file {self.path} {problem}")


#: What opening a database may raise, each said in one line by `Database._unopened`.
_OPENING_ERRORS = (
    StoreError,
    MigrationError,
    HomeError,
    ArgumentError,
    ImportError,
    SQLAlchemyError,
    OSError,
)


class Database:
    """A connection to arena's database: its engines, sessions and errors. The store's
    units of work (arena.store.Store) build on it."""

    #: Reads run here; on SQLite their transactions begin deferred.
    reader: Engine
    #: Writes run here; on SQLite every transaction begins IMMEDIATE.
    writer: Engine

    def __init__(
        self,
        url: str,
        *,
        busy_timeout: float = 30.0,
        notify: Callable[[str], None] | None = None,
        inherit: Inherit | None = None,
    ):
        """Open the database at `url`, creating it or upgrading its schema if needed.

        A new database is made at the newest schema revision; an older one is
        upgraded after `notify` (default: a line on stderr) says so. SQLite waits
        up to `busy_timeout` seconds for a lock held by another process. `inherit`:
        where a bot's new version starts its rating from its predecessor's
        (arena.results.rating.inherited; None: at the initial rating, as a first
        version does). Raises StoreInputError for a malformed URL, StoreError when
        it cannot be used.
        """
        self.url = url
        self.shown_url = safe_url(url)
        self.busy_timeout = busy_timeout
        self.inherit = inherit
        self._password = _password(url)
        try:
            parsed = make_url(url)
        except ArgumentError as error:
            raise StoreInputError(f"bad database URL: {_first_line(error)}") from None
        try:
            self._open(parsed.get_backend_name(), parsed.database or "")
            self._migrate(notify or _to_stderr)
            self._stored_secret()  # made with the database, so that copies of it share it
        except _OPENING_ERRORS as error:
            raise self._unopened(error) from None

    def _open(self, backend: str, path: str) -> None:
        """The reading and the writing engine (one for a server database)."""
        if backend == "sqlite":
            if path and path != ":memory:" and not path.startswith("file:"):
                prepare_database(Path(path))  # 0600, this account's own
            self.reader = _sqlite_engine(self.url, False, self.busy_timeout)
            self.writer = _sqlite_engine(self.url, True, self.busy_timeout)
        else:
            self.reader = self.writer = create_engine(self.url, pool_pre_ping=True)

    def _unopened(self, error: Exception) -> StoreError:
        """What opening the database raises for `error`: one line naming the database."""
        shown = self.shown_url
        if isinstance(error, StoreError):
            reason = str(error).removeprefix("database error: ")
            return type(error)(f"cannot open database {shown}: {reason}")
        if isinstance(error, MigrationError):
            return StoreError(str(error))
        if isinstance(error, HomeError):
            return StoreError(f"cannot open database {shown}: {error}")
        if isinstance(error, ArgumentError):
            return StoreInputError(f"bad database URL {shown}: {self._reason(error)}")
        if isinstance(error, ImportError):
            return StoreError(f"cannot open database {shown}: its driver is missing ({error.name})")
        return StoreError(f"cannot open database {shown}: {self._reason(error)}")

    def _migrate(self, notify: Callable[[str], None]) -> None:
        """Bring the schema to the newest revision (nothing to do on most opens)."""
        with self.reader.connect() as connection:
            if migrations.current(connection) == migrations.head():
                return
        sqlite = self.writer.dialect.name == "sqlite"
        engine = (
            _sqlite_engine(self.url, True, self.busy_timeout, foreign_keys=False)
            if sqlite
            else self.writer
        )
        try:
            with engine.begin() as connection:
                migrations.prepare(connection, notify)
                if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                    raise MigrationError("the upgraded database fails its foreign-key check")
        finally:
            if sqlite:
                engine.dispose()

    def close(self) -> None:
        """Release the connections."""
        self.reader.dispose()
        self.writer.dispose()
        if self._shared_memory is not None:
            self._shared_memory.seen = None  # closed: SQLite may make the file anew

    @functools.cached_property
    def _shared_memory(self) -> _SharedMemory | None:
        """The wal-index file of a SQLite database file (None for any other database)."""
        parsed = make_url(self.url)
        path = parsed.database or ""
        if parsed.get_backend_name() != "sqlite" or path in ("", ":memory:"):
            return None
        return None if path.startswith("file:") else _SharedMemory(Path(path + "-shm"))

    @contextmanager
    def _guarded(self, passing: tuple[type[DBAPIError], ...] = (IntegrityError,)) -> Iterator[None]:
        """Around every transaction, the one place its errors are said: the shared-memory
        file checked before (`_SharedMemory.check`) and noted after, and a database error
        raised as a one-line StoreError, but for those `passing` through unchanged for
        the store's units to handle (a unique constraint that another command's write
        won, a value the database refuses).

        The units' sessions and connections are opened inside it, so that it sees what
        they raise on entering, in their body and on commit. A unit that handles more
        than an IntegrityError itself says so here, not around it: this mapping runs
        first, and would have made the error a StoreError already (`connection`: a
        DataError, PostgreSQL's "integer out of range", is recording's to void).
        """
        shared = self._shared_memory
        if shared is not None:
            shared.check()
        try:
            yield
        except passing:
            raise
        except DBAPIError as error:
            raise StoreError(f"database error: {self._reason(error)}") from None
        finally:
            if shared is not None:
                shared.note()

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading; StoreError when the database cannot be used."""
        with self._guarded(), Session(self.reader) as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session whose changes are committed together at the end, or not at all.

        StoreError (one line) when the database cannot be used: unreachable,
        locked beyond the timeout, full, read-only. IntegrityError passes through.
        """
        with self._guarded(), Session(self.writer) as session, session.begin():
            yield session

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        """A Core connection in one writing transaction; errors as in `write`, except
        that a DataError (data the database refuses) passes through too."""
        with self._guarded(passing=(IntegrityError, DataError)), self.writer.begin() as connection:
            yield connection

    def _reason(self, error: BaseException) -> str:
        """One line about a database error, never with the URL's password."""
        line = _first_line(error)
        if "database is locked" in line:
            line = (
                f"the database is locked by another process (waited {self.busy_timeout:g} s); "
                "try again when it is done"
            )
        elif "disk is full" in line or "No space left" in line:
            line = f"the disk is full ({line})"
        if self._password:
            line = line.replace(self._password, "***")
        return line

    def secret(self) -> bytes:
        """The key this database's match seeds are derived with (arena.match.seeds).

        ARENA_SECRET (hex) overrides the stored key, so that two databases can
        reproduce each other's matches. StoreError when ARENA_SECRET is malformed.
        """
        try:
            override = seeds.env_secret()
        except seeds.SecretError as error:
            raise StoreInputError(str(error)) from None
        return override if override is not None else self._stored_secret()

    def _stored_secret(self) -> bytes:
        """The stored key, made on first use (of two processes racing, the first one's)."""
        with self.read() as s:
            row = s.get(Secret, 1)
        if row is None:
            try:
                with self.write() as s:
                    if s.get(Secret, 1) is None:
                        s.add(Secret(key=seeds.new_secret().hex()))
            except IntegrityError:
                pass  # another process stored its key first: use that one
            with self.read() as s:
                row = s.get(Secret, 1)
        assert row is not None
        return seeds.parse_secret(row.key)


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _password(url: str) -> str | None:
    try:
        return make_url(url).password or None
    except ArgumentError:
        return None


def _first_line(error: BaseException) -> str:
    text = str(getattr(error, "orig", None) or error)
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__
