"""The database: the only module with SQL. One short session per unit of work.

SQLite (the default, a file in the arena home) runs in WAL mode and every
writing transaction starts with BEGIN IMMEDIATE: a deferred transaction that
later upgrades to a write fails at once under contention instead of waiting.
Any other SQLAlchemy URL (PostgreSQL) works as it is.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import (
    Connection,
    Engine,
    and_,
    bindparam,
    case,
    delete,
    event,
    func,
    insert,
    inspect,
    make_url,
    update,
)
from sqlalchemy import select as select_columns
from sqlalchemy.exc import (
    ArgumentError,
    DataError,
    DBAPIError,
    IntegrityError,
    SQLAlchemyError,
)
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, create_engine, select

from arena.errors import StoreError, StoreInputError
from arena.home import HomeError, prepare_database
from arena.match import seeds
from arena.results.rating import Skill, inherited
from arena.status import VOID
from arena.store import migrations
from arena.store.migrations import MigrationError
from arena.store.models import (
    Bot,
    BotVersion,
    Match,
    MatchReplay,
    MatchSeat,
    Rating,
    Secret,
    Suspension,
    Tournament,
    now,
)
from arena.submissions import names


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


class NotOwnerError(ValueError):
    """A new version of a bot that belongs to another owner (a one-line reason)."""


class Refused(ValueError):
    """A retirement, removal, cancellation or deletion that cannot be done (one line why)."""


#: The status of a tournament stopped for good (`Store.cancel_tournament`).
CANCELLED = "cancelled"


class TournamentCancelled(StoreError):
    """A run's tournament was cancelled or deleted by another command: the run stops
    (exit code 1). Its unplayed matches are gone from the schedule already, so nothing
    more could be recorded; this only stops playing them."""


def default_home() -> Path:
    """ARENA_HOME, or the per-user data directory."""
    return Path(os.environ.get("ARENA_HOME") or platformdirs.user_data_dir("arena"))


def default_url(home: Path) -> str:
    """ARENA_DB, or the SQLite file in the arena home."""
    return os.environ.get("ARENA_DB") or f"sqlite:///{home / 'arena.db'}"


def safe_url(url: str) -> str:
    """The URL as it may be shown: never with its password.

    >>> safe_url("postgresql+psycopg://u:s3cret@db/arena")
    'postgresql+psycopg://u:***@db/arena'
    """
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(unreadable URL)"


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


@dataclass
class LeaderRow:
    """One line of a leaderboard."""

    bot: str
    version: int
    bot_version_id: int
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    score_sum: float = 0.0
    forfeits: int = 0
    #: Of the wins, those where the first place was shared with a rival (a tie).
    shared_wins: int = 0

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: the sort key."""
        return self.mu - 3 * self.sigma

    @property
    def average_score(self) -> float | None:
        """Mean final score over the games counted."""
        return self.score_sum / self.games if self.games else None


@dataclass
class SeatRecord:
    """What the coordinator stores for one seat of a finished match."""

    seat: int
    bot_version_id: int
    score: float | None
    rank: int | None
    status: str
    detail: str = ""
    stderr: str = ""
    before: Skill | None = None
    after: Skill | None = None


@dataclass
class MatchRecord:
    """What the coordinator stores for one finished (or suspended) match."""

    match_id: int
    status: str
    seats: list[SeatRecord]
    error: str = ""
    seconds: float = 0.0
    replay: str | None = None
    rated: bool = field(default=False)


@dataclass(frozen=True)
class SuspensionRecord:
    """A bot version suspended from a tournament by the match whose forfeit made its
    forfeits in a row reach the tournament's limit (`forfeits`: that streak's length)."""

    version_id: int
    match_id: int
    forfeits: int


class Store:
    """arena's database: bots, versions, tournaments, matches, seats, ratings, replays."""

    def __init__(
        self,
        url: str,
        *,
        busy_timeout: float = 30.0,
        notify: Callable[[str], None] | None = None,
    ):
        """Open the database at `url`, creating it or upgrading its schema if needed.

        A new database is made at the newest schema revision; an older one is
        upgraded after `notify` (default: a line on stderr) says so. SQLite waits
        up to `busy_timeout` seconds for a lock held by another process. Raises
        StoreInputError for a malformed URL, StoreError when it cannot be used.
        """
        self.url = url
        self.shown_url = safe_url(url)
        self.busy_timeout = busy_timeout
        self._password = _password(url)
        try:
            parsed = make_url(url)
        except ArgumentError as error:
            raise StoreInputError(f"bad database URL: {_first_line(error)}") from None
        try:
            if parsed.get_backend_name() == "sqlite":
                path = parsed.database or ""
                if path and path != ":memory:" and not path.startswith("file:"):
                    prepare_database(Path(path))  # 0600, this account's own
                self.reader = _sqlite_engine(url, False, busy_timeout)
                self.writer = _sqlite_engine(url, True, busy_timeout)
            else:
                self.reader = self.writer = create_engine(url, pool_pre_ping=True)
            self._migrate(notify or _to_stderr)
            self._stored_secret()  # made with the database, so that copies of it share it
        except StoreError as error:
            reason = str(error).removeprefix("database error: ")
            raise type(error)(f"cannot open database {self.shown_url}: {reason}") from None
        except MigrationError as error:
            raise StoreError(str(error)) from None
        except HomeError as error:
            raise StoreError(f"cannot open database {self.shown_url}: {error}") from None
        except ArgumentError as error:
            raise StoreInputError(
                f"bad database URL {self.shown_url}: {self._reason(error)}"
            ) from None
        except ImportError as error:
            raise StoreError(
                f"cannot open database {self.shown_url}: its driver is missing ({error.name})"
            ) from None
        except (SQLAlchemyError, OSError) as error:
            raise StoreError(
                f"cannot open database {self.shown_url}: {self._reason(error)}"
            ) from None

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
    def _guarded(self) -> Iterator[None]:
        """Around every transaction: `_SharedMemory.check` before, `note` after."""
        shared = self._shared_memory
        if shared is not None:
            shared.check()
        try:
            yield
        finally:
            if shared is not None:
                shared.note()

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading; StoreError when the database cannot be used."""
        try:
            with self._guarded(), Session(self.reader) as session:
                yield session
        except IntegrityError:
            raise
        except DBAPIError as error:
            raise StoreError(f"database error: {self._reason(error)}") from None

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session whose changes are committed together at the end, or not at all.

        StoreError (one line) when the database cannot be used: unreachable,
        locked beyond the timeout, full, read-only. IntegrityError passes through.
        """
        try:
            with self._guarded(), Session(self.writer) as session, session.begin():
                yield session
        except IntegrityError:
            raise
        except DBAPIError as error:
            raise StoreError(f"database error: {self._reason(error)}") from None

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

    # ----- the secret key of match seeds ---------------------------------
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

    # ----- bots -----------------------------------------------------------
    def bot_version_by_sha(self, name: str, sha256: str) -> BotVersion | None:
        """The version of `name` with these contents, if already stored."""
        with self.read() as s:
            return s.exec(
                select(BotVersion)
                .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
                .where(Bot.name == name, BotVersion.sha256 == sha256)
            ).first()

    def bot_owner(self, name: str) -> str | None:
        """Who owns the bot called `name`; None when no bot has that name."""
        with self.read() as s:
            return s.exec(select(Bot.owner).where(Bot.name == name)).first()

    def add_bot_version(
        self,
        name: str,
        sha256: str,
        folder: str,
        command: Sequence[str],
        games: Sequence[str],
        owner: str | None = None,
    ) -> BotVersion:
        """Store a new version n+1 of `name`, creating the bot, owned by `owner`, if new.

        `owner` defaults to the current OS user. Raises NotOwnerError when the bot
        exists and belongs to someone else (checked in the same transaction).
        """
        owner = owner if owner is not None else names.current_user()
        with self.write() as s:
            bot = s.exec(select(Bot).where(Bot.name == name)).first()
            if bot is None:
                bot = Bot(name=name, owner=owner)
                s.add(bot)
                s.flush()
            elif bot.owner != owner:
                raise NotOwnerError(f"bot {name!r} belongs to {bot.owner!r}, not to {owner!r}")
            last = s.exec(
                select(func.max(BotVersion.number)).where(BotVersion.bot_id == bot.id)
            ).one()
            version = BotVersion(
                bot_id=bot.id or 0,
                number=(last or 0) + 1,
                sha256=sha256,
                folder=folder,
                command=list(command),
                games=list(games),
            )
            s.add(version)
            s.flush()
            s.expunge(version)
            return version

    def latest_version(self, name: str) -> BotVersion | None:
        """The newest version of the bot called `name`."""
        with self.read() as s:
            return s.exec(
                select(BotVersion)
                .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
                .where(Bot.name == name)
                .order_by(col(BotVersion.number).desc())
            ).first()

    def versions(
        self, ids: Sequence[int] | None = None, name: str | None = None
    ) -> list[BotVersion]:
        """Bot versions by id, or every version of one bot, or all."""
        with self.read() as s:
            query = select(BotVersion).order_by(col(BotVersion.bot_id), col(BotVersion.number))
            if ids is not None:
                query = query.where(col(BotVersion.id).in_(list(ids)))
            if name is not None:
                query = query.join(Bot, col(Bot.id) == col(BotVersion.bot_id)).where(
                    Bot.name == name
                )
            return list(s.exec(query).all())

    def bot_names(self) -> dict[int, str]:
        """Bot id -> name."""
        with self.read() as s:
            return {b.id or 0: b.name for b in s.exec(select(Bot)).all()}

    def version_names(self) -> dict[int, tuple[str, int]]:
        """Bot version id -> (bot name, version number)."""
        names = self.bot_names()
        return {v.id or 0: (names[v.bot_id], v.number) for v in self.versions()}

    # ----- retiring and removing bots ----------------------------------------
    def retire(
        self, name: str, owner: str, number: int | None = None, retired: bool = True
    ) -> bool:
        """Retire the bot `name` (or only its version `number`), or reinstate it
        (`retired=False`); False when it already was so. Refused for no such bot or
        version, NotOwnerError when `owner` does not own it. Nothing else changes:
        its versions, matches, ratings and replays stay."""
        with self.write() as s:
            bot = _owned_bot(s, name, owner)
            target: Bot | BotVersion = bot
            if number is not None:
                found = s.exec(
                    select(BotVersion).where(
                        BotVersion.bot_id == bot.id, BotVersion.number == number
                    )
                ).first()
                if found is None:
                    raise Refused(
                        f"bot {name!r} has no version {number} (see `arena bot show {name}`)"
                    )
                target = found
            if (target.retired_at is not None) == retired:
                return False
            target.retired_at = now() if retired else None
            return True

    def retired_versions(self) -> set[int]:
        """The ids of the versions that play in no new tournament: retired, or of a retired bot."""
        with self.read() as s:
            rows = s.exec(
                select(BotVersion.id)
                .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
                .where(
                    (col(Bot.retired_at).is_not(None)) | (col(BotVersion.retired_at).is_not(None))
                )
            ).all()
        return {int(v) for v in rows if v is not None}

    def retired_bots(self) -> set[str]:
        """The names of the retired bots (not of those with only some versions retired)."""
        with self.read() as s:
            return set(s.exec(select(Bot.name).where(col(Bot.retired_at).is_not(None))).all())

    def playable_version(self, name: str) -> BotVersion | None:
        """The version a new tournament takes for the name `name`: its newest one not
        retired; None when there is none, or the bot is retired."""
        with self.read() as s:
            return s.exec(
                select(BotVersion)
                .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
                .where(
                    Bot.name == name,
                    col(Bot.retired_at).is_(None),
                    col(BotVersion.retired_at).is_(None),
                )
                .order_by(col(BotVersion.number).desc())
            ).first()

    def remove_bot(self, name: str, owner: str) -> list[str]:
        """Delete a bot that nothing refers to, with its versions, in one transaction;
        returns the stored folders no other version uses (the caller may delete them).

        Refused when any version has a recorded seat or a rating, or is in the schedule
        (or a ladder's pool) of a tournament: ratings, replays and schedules need it.
        """
        with self.write() as s:
            bot = _owned_bot(s, name, owner)
            versions = list(s.exec(select(BotVersion).where(BotVersion.bot_id == bot.id)).all())
            ids = {v.id or 0 for v in versions}
            why = _references(s, ids)
            if why:
                raise Refused(
                    f"bot {name!r} {why}, which the ratings, replays and schedules need: it "
                    f"cannot be removed; retire it instead (arena bot retire {name})"
                )
            folders = {v.folder for v in versions}
            s.execute(delete(BotVersion).where(col(BotVersion.bot_id) == bot.id))
            s.execute(delete(Bot).where(col(Bot.id) == bot.id))
            shared = s.exec(select(BotVersion.folder).where(col(BotVersion.folder).in_(folders)))
            return sorted(folders - set(shared.all()))

    # ----- tournaments ------------------------------------------------------
    def create_tournament(self, tournament: Tournament, schedule: Sequence[Match]) -> int:
        """Write a tournament and its whole schedule in one transaction; returns its id.

        A match without a rules version is played under the tournament's.
        """
        with self.write() as s:
            s.add(tournament)
            s.flush()
            for match in schedule:
                match.tournament_id = tournament.id
                if match.game_version is None:
                    match.game_version = tournament.game_version
                s.add(match)
            return tournament.id or 0

    def add_matches(self, tournament_id: int, matches: Sequence[Match]) -> list[Match]:
        """Append matches to a tournament's schedule in one transaction (a ladder's batch);
        returns its unrecorded matches, in schedule order, as stored.

        TournamentCancelled when it was cancelled or deleted: its row is locked first,
        as `cancel_tournament` locks it, so no match joins a cancelled schedule."""
        with self.write() as s:
            found = s.get(Tournament, tournament_id, with_for_update=True)
            if found is None or found.status == CANCELLED:
                done = "deleted" if found is None else "cancelled"
                raise TournamentCancelled(
                    f"tournament {tournament_id} was {done} by another command: run stopped"
                )
            for match in matches:
                match.tournament_id = tournament_id
                s.add(match)
        return self.matches(tournament_id, recorded=False)

    def tournament_skills(self, tournament_id: int) -> dict[int, Skill]:
        """Each version's rating after its last rated seat in a tournament (schedule order)."""
        with self.read() as s:
            return _last_skills(s, tournament_id)

    def tournament(self, tournament_id: int) -> Tournament | None:
        """One tournament by id."""
        with self.read() as s:
            return s.get(Tournament, tournament_id)

    def tournaments(self) -> list[Tournament]:
        """Every tournament, newest first."""
        with self.read() as s:
            return list(s.exec(select(Tournament).order_by(col(Tournament.id).desc())).all())

    def set_tournament_status(self, tournament_id: int, status: str) -> None:
        """Mark a tournament running, finished or interrupted; a cancelled one stays so
        (one statement: a cancel committed meanwhile by another command wins)."""
        with self.write() as s:
            s.execute(
                update(Tournament)
                .where(col(Tournament.id) == tournament_id, col(Tournament.status) != CANCELLED)
                .values(status=status, finished_at=now() if status == "finished" else None)
            )

    def tournament_status(self, tournament_id: int) -> str | None:
        """A tournament's status; None when it is gone (deleted)."""
        with self.read() as s:
            return s.exec(select(Tournament.status).where(Tournament.id == tournament_id)).first()

    def cancel_tournament(self, tournament_id: int) -> tuple[int, int]:
        """Stop a tournament for good; returns (recorded matches kept, unplayed dropped).

        Its unplayed matches are deleted from the schedule (nothing refers to them), so
        that no run, not even one still going, can record them: recording finds them
        gone. Its recorded matches, their ratings and replays stay. Refused for no such
        tournament, or one finished or cancelled already.
        """
        with self.write() as s:
            found = _tournament_for(s, tournament_id)  # locked: see `add_matches`
            if found.status in ("finished", CANCELLED):
                raise Refused(f"tournament {tournament_id} is {found.status} already")
            dropped = _delete_unplayed(s, tournament_id)
            kept = _match_count(s, tournament_id)
            settings = {**found.settings, "unplayed_when_cancelled": dropped}
            s.execute(
                update(Tournament)
                .where(col(Tournament.id) == tournament_id)
                .values(status=CANCELLED, finished_at=now(), settings=settings)
            )
            return kept, dropped

    def delete_tournament(self, tournament_id: int) -> int:
        """Delete a tournament that has no recorded match, with its schedule; returns
        the matches deleted. Refused when it has recorded matches: ratings depend on them."""
        with self.write() as s:
            found = _tournament_for(s, tournament_id)
            dropped = _delete_unplayed(s, tournament_id)
            kept = _match_count(s, tournament_id)  # also those recorded meanwhile
            if kept:
                stop = (
                    ""
                    if found.status in ("finished", CANCELLED)
                    else f"; stop it for good with arena tournament cancel {tournament_id}"
                )
                raise Refused(
                    f"tournament {tournament_id} has {kept} recorded matches: the ratings "
                    f"depend on them, so it cannot be deleted{stop}"
                )
            s.execute(delete(Tournament).where(col(Tournament.id) == tournament_id))
            return dropped

    def matches(self, tournament_id: int, recorded: bool | None = None) -> list[Match]:
        """A tournament's matches in schedule order (all, or only (un)recorded ones)."""
        with self.read() as s:
            query = select(Match).where(Match.tournament_id == tournament_id)
            if recorded is not None:
                query = query.where(Match.recorded == recorded)
            return list(s.exec(query.order_by(col(Match.number))).all())

    def match_counts(self, tournament_id: int) -> tuple[int, int]:
        """(recorded, scheduled) for one tournament."""
        with self.read() as s:
            rows = s.exec(
                select(Match.recorded, func.count())
                .where(Match.tournament_id == tournament_id)
                .group_by(col(Match.recorded))
            ).all()
        counts = {bool(recorded): n for recorded, n in rows}
        return counts.get(True, 0), sum(counts.values())

    # ----- results and ratings ------------------------------------------------
    def skills(self, version_ids: Sequence[int], game: str, rules: int) -> dict[int, Skill]:
        """Current skills of some versions at a game's rules version; an unrated version's
        is the one its first match starts from (`prior`)."""
        with self.read() as s:
            found = {
                r.bot_version_id: Skill(r.mu, r.sigma)
                for r in s.exec(
                    select(Rating).where(
                        col(Rating.bot_version_id).in_(list(version_ids)),
                        Rating.game == game,
                        Rating.game_version == rules,
                    )
                ).all()
            }
            for v in version_ids:
                if v not in found:
                    found[v] = _prior(s, v, game, rules)
        return {v: found[v] for v in version_ids}

    def prior(self, version_id: int, game: str, rules: int) -> Skill:
        """Where an unrated version's rating starts: its bot's newest earlier version rated
        at this game and rules version, sigma raised (`rating.inherited`); else the initial."""
        with self.read() as s:
            return _prior(s, version_id, game, rules)

    def record(
        self,
        record: MatchRecord,
        rate: Rater | None = None,
        *,
        suspensions: Sequence[SuspensionRecord] = (),
    ) -> None:
        """Store a match's result, seats, replay and rating changes in one transaction,
        with the suspensions it caused.

        `record_many` with one match: see there.
        """
        self.record_many([(record, rate)], suspensions=suspensions)

    def record_many(
        self,
        batch: Sequence[tuple[MatchRecord, Rater | None]],
        *,
        suspensions: Sequence[SuspensionRecord] = (),
    ) -> list[int]:
        """Store several finished matches, in schedule order, in one transaction, with
        the suspensions they caused (each with its match: ValueError for one whose
        match is not in the batch, or named twice).

        The rows are exactly those of recording the matches one by one: each match's
        ratings are those of its game under the rules version it was played under.
        With a rater, the seats' current skills (as the matches before it in the
        batch left them) are read, `rate(before)` gives the new ones, and both are
        stored. A match already recorded is left alone, so recording twice cannot
        duplicate it; the batch commits whole or not at all. The leaderboard's
        counters on the rating rows (`Rating.games`, ...) move with it.

        A match whose result the database refuses (its data, not the database's
        state: `_DATA_ERRORS`) never holds back the others: the batch is recorded one
        match at a time, and that match as void (`voided`). Returns the ids of the
        matches recorded so; StoreError when even that cannot be stored.

        Its cost does not grow with the database, and little with the batch: a few
        statements per batch (each an executemany), whatever its size. Only a
        version's first rating at a game and rules version (its prior, and its
        seats counted) reads more, once.
        """
        caused = _by_match(batch, suspensions)
        if not batch:
            return []
        try:
            self._record_together(batch, caused)
            return []
        except (_RecordedMeanwhile, _Unstorable):
            pass  # one at a time: skipping those recorded meanwhile, voiding the unstorable
        voided = []
        for record, rate in batch:
            alone = {record.match_id: caused.get(record.match_id, [])}
            with contextlib.suppress(_RecordedMeanwhile):
                try:
                    self._record_together([(record, rate)], alone)
                except _Unstorable as error:
                    self._record_void(record, error.reason, alone)
                    voided.append(record.match_id)
        return voided

    def _record_together(
        self,
        batch: Sequence[tuple[MatchRecord, Rater | None]],
        suspensions: dict[int, list[SuspensionRecord]],
    ) -> None:
        try:
            with self.connection() as db:
                _Batch(db, now()).record(batch, suspensions)
        except _DATA_ERRORS as error:
            raise _Unstorable(self._reason(error)) from None

    def _record_void(
        self, record: MatchRecord, reason: str, suspensions: dict[int, list[SuspensionRecord]]
    ) -> None:
        """Record a match whose result cannot be stored as void, with the reason (and the
        suspensions it caused: the run counted its forfeits)."""
        try:
            self._record_together([(voided(record, reason), None)], suspensions)
        except _Unstorable as error:
            raise StoreError(
                f"database error: match {record.match_id} cannot be stored, even as void: "
                f"{error.reason}"
            ) from None

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        """A Core connection in one writing transaction; errors as in `write`, except
        that a DataError (data the database refuses) passes through too."""
        try:
            with self._guarded(), self.writer.begin() as connection:
                yield connection
        except (IntegrityError, DataError):
            raise
        except DBAPIError as error:
            raise StoreError(f"database error: {self._reason(error)}") from None

    def suspensions(self, tournament_id: int) -> list[SuspensionRecord]:
        """The suspensions of a tournament, in schedule order (those of one match as
        they were recorded)."""
        query = (
            select_columns(
                col(Suspension.bot_version_id), col(Suspension.match_id), col(Suspension.forfeits)
            )
            .join(Match, col(Match.id) == col(Suspension.match_id))
            .where(col(Match.tournament_id) == tournament_id)
            .order_by(col(Match.number), col(Suspension.id))
        )
        with self.read() as s:
            return [SuspensionRecord(*row) for row in s.execute(query).all()]

    def replay(self, match_id: int) -> str | None:
        """The stored replay (JSON text) of one match, if it has one."""
        with self.read() as s:
            row = s.get(MatchReplay, match_id)
            return row.replay if row is not None else None

    # ----- queries ---------------------------------------------------------------
    def seat_rows(
        self, game: str | None = None, tournament_id: int | None = None
    ) -> list[tuple[Match, MatchSeat]]:
        """Recorded seats with their matches, in schedule order (for one tournament's resume)."""
        with self.read() as s:
            query = (
                select(Match, MatchSeat)
                .join(MatchSeat, col(MatchSeat.match_id) == col(Match.id))
                .where(Match.recorded == True)  # noqa: E712 - SQL comparison
            )
            if game is not None:
                query = query.where(Match.game == game)
            if tournament_id is not None:
                query = query.where(Match.tournament_id == tournament_id)
            query = query.order_by(col(Match.tournament_id), col(Match.number), col(MatchSeat.seat))
            return [(m, seat) for m, seat in s.exec(query).all()]

    def ratings(self, game: str, rules: int) -> list[Rating]:
        """Every stored rating at a game under one rules version."""
        with self.read() as s:
            return list(
                s.exec(
                    select(Rating).where(Rating.game == game, Rating.game_version == rules)
                ).all()
            )

    def ratings_of(self, version_ids: Sequence[int]) -> list[Rating]:
        """Every stored rating of some bot versions, with its counters (`Rating.games`, ...)."""
        with self.read() as s:
            return list(
                s.exec(
                    select(Rating)
                    .where(col(Rating.bot_version_id).in_(list(version_ids)))
                    .order_by(col(Rating.game), col(Rating.game_version).desc())
                ).all()
            )

    def matches_played(self, version_ids: Sequence[int]) -> dict[int, int]:
        """Recorded seats per bot version (each match a version played, once per seat)."""
        with self.read() as s:
            rows = s.execute(
                select(col(MatchSeat.bot_version_id), func.count())
                .where(col(MatchSeat.bot_version_id).in_(list(version_ids)))
                .group_by(col(MatchSeat.bot_version_id))
            ).all()
        return {version: int(n) for version, n in rows}

    def leaderboard(
        self, game: str, rules: int, tournament_id: int | None = None
    ) -> list[LeaderRow]:
        """Rows sorted by conservative rating (no replay is read).

        Without a tournament: the stored ratings at `game` under rules version
        `rules` with their running counters of all its recorded matches under those
        rules, read from the rating rows alone (its cost does not grow with the
        matches). With one: the rating each version ended that tournament with (its
        last `after` there), and statistics of that tournament, aggregated in SQL.
        """
        if tournament_id is None:
            return self._all_time(game, rules)
        with self.read() as s:
            counted = _statistics(s, game, rules, tournament_id)
            skills = {v: Skill.initial() for v in counted}
            skills.update(_last_skills(s, tournament_id))
            labels = self._labels(s, skills)
        rows = []
        for version, skill in skills.items():
            bot, number = labels[version]
            row = LeaderRow(bot, number, version, skill.mu, skill.sigma)
            found = counted.get(version)
            if found is not None:
                row.games, row.wins = found["games"], found["wins"]
                row.score_sum, row.forfeits = found["score_sum"], found["forfeits"]
                row.shared_wins = found["shared_wins"]
            rows.append(row)
        return sorted(rows, key=lambda r: (-r.conservative, r.bot, r.version))

    def _all_time(self, game: str, rules: int) -> list[LeaderRow]:
        """The leaderboard of every recorded match: one indexed read of the rating rows."""
        query = (
            select_columns(
                col(Bot.name),
                col(BotVersion.number),
                col(Rating.bot_version_id),
                col(Rating.mu),
                col(Rating.sigma),
                col(Rating.games),
                col(Rating.wins),
                col(Rating.score_sum),
                col(Rating.forfeits),
                col(Rating.shared_wins),
            )
            .join(BotVersion, col(BotVersion.id) == col(Rating.bot_version_id))
            .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
            .where(col(Rating.game) == game, col(Rating.game_version) == rules)
        )
        with self.read() as s:
            rows = [_leader_row(*found) for found in s.execute(query)]
        return sorted(rows, key=lambda r: (-r.conservative, r.bot, r.version))

    def opponents(self, game: str, rules: int) -> list[tuple[int, int]]:
        """Who played where at a game's rules version: (tournament id, version) for every
        version with a rated seat in it, for `rating.pools`.

        A tournament is the unit, not a match: every format's schedule links the bots
        that play in it (a round robin's pairings, a gauntlet's challenger, a ladder's
        groups, recorded in schedule order), and this read is a third of the cost of
        listing every match's seats (87 against 224 ms over 100,000 matches). A match
        outside any tournament counts as one of its own (negative id: no clash).
        """
        unit = func.coalesce(col(Match.tournament_id), -col(Match.id))
        query = (
            select_columns(unit, col(MatchSeat.bot_version_id))
            .join(Match, col(Match.id) == col(MatchSeat.match_id))
            .where(
                col(Match.game) == game,
                col(Match.game_version) == rules,
                col(MatchSeat.mu_after).is_not(None),
            )
            .distinct()
        )
        with self.read() as s:
            return [(int(t), int(v)) for t, v in s.execute(query).all()]

    def seat_statistics(
        self, game: str, rules: int, tournament_id: int | None = None
    ) -> dict[int, dict[str, Any]]:
        """Bot version -> games, wins, score_sum, forfeits, aggregated in SQL from the
        recorded seats at a game's rules version (of one tournament, or of all).

        What the rating rows' counters hold for all matches, counted afresh.
        """
        with self.read() as s:
            return _statistics(s, game, rules, tournament_id)

    @staticmethod
    def _labels(s: Session, versions: Any) -> dict[int, tuple[str, int]]:
        """Bot version id -> (bot name, version number), for some versions (None: none)."""
        if not versions:
            return {}
        rows = s.execute(
            select(col(BotVersion.id), col(Bot.name), col(BotVersion.number))
            .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
            .where(col(BotVersion.id).in_(list(versions)))
        ).all()
        return {version: (name, number) for version, name, number in rows}

    def forfeits(
        self, name: str, limit: int = 10, suspended: bool = True
    ) -> list[tuple[Match, MatchSeat]]:
        """The most recent forfeits of any version of a bot (without `suspended`: only
        the matches it played, not those skipped because it was suspended)."""
        ids = [v.id for v in self.versions(name=name)]
        left_out = ("ok",) if suspended else ("ok", "suspended")
        with self.read() as s:
            query = (
                select(Match, MatchSeat)
                .join(MatchSeat, col(MatchSeat.match_id) == col(Match.id))
                .where(
                    col(MatchSeat.bot_version_id).in_(ids), col(MatchSeat.status).not_in(left_out)
                )
                .order_by(col(Match.recorded_at).desc(), col(Match.id).desc())
                .limit(limit)
            )
            return [(m, seat) for m, seat in s.exec(query).all()]

    def seat_statuses(self, tournament_id: int) -> dict[str, int]:
        """Recorded seats of a tournament per status (ok, crash, timeout, ...)."""
        with self.read() as s:
            rows = s.execute(
                select(col(MatchSeat.status), func.count())
                .join(Match, col(Match.id) == col(MatchSeat.match_id))
                .where(Match.tournament_id == tournament_id, Match.recorded == True)  # noqa: E712
                .group_by(col(MatchSeat.status))
            ).all()
        return {status: int(n) for status, n in rows}

    def void_matches(self, tournament_id: int) -> int:
        """How many recorded matches of a tournament were voided (arena.status.VOID)."""
        with self.read() as s:
            return int(
                s.execute(
                    select(func.count()).where(
                        Match.tournament_id == tournament_id, col(Match.status).in_(VOID)
                    )
                ).scalar_one()
            )

    def void_match_rows(self, tournament_id: int) -> list[Match]:
        """The recorded matches of a tournament that were voided (arena.status.VOID), in
        schedule order; each with its reason (`Match.error`)."""
        with self.read() as s:
            return list(
                s.exec(
                    select(Match)
                    .where(Match.tournament_id == tournament_id, col(Match.status).in_(VOID))
                    .order_by(col(Match.number))
                ).all()
            )

    def forfeit_tournaments(self, version_ids: Sequence[int]) -> dict[tuple[int, int], int]:
        """(tournament id, bot version) -> that version's seats not `ok` there, for some
        versions: where a suspension may have happened (`reports.suspensions`)."""
        with self.read() as s:
            rows = s.execute(
                select_columns(
                    col(Match.tournament_id), col(MatchSeat.bot_version_id), func.count()
                )
                .join(Match, col(Match.id) == col(MatchSeat.match_id))
                .where(
                    col(MatchSeat.bot_version_id).in_(list(version_ids)),
                    col(MatchSeat.status) != "ok",
                    col(Match.tournament_id).is_not(None),
                )
                .group_by(col(Match.tournament_id), col(MatchSeat.bot_version_id))
            ).all()
        return {(int(t), int(v)): int(n) for t, v, n in rows}

    def version_seats(
        self, version_id: int, tournament_ids: Sequence[int]
    ) -> list[tuple[int, int, int, str | None, str, bool]]:
        """One version's recorded seats in some tournaments, in schedule order: (tournament
        id, seat id, match id, match status, seat status, whether the match was skipped
        for a suspension: a seat `suspended`). Plain columns: `seats` loads the few rows
        worth showing."""
        other = aliased(MatchSeat)
        skipped = (
            select_columns(col(other.id))
            .where(col(other.match_id) == col(Match.id), col(other.status) == "suspended")
            .exists()
        )
        query = (
            select_columns(
                col(Match.tournament_id),
                col(MatchSeat.id),
                col(Match.id),
                col(Match.status),
                col(MatchSeat.status),
                skipped,
            )
            .join(MatchSeat, col(MatchSeat.match_id) == col(Match.id))
            .where(
                col(MatchSeat.bot_version_id) == version_id,
                col(Match.tournament_id).in_(list(tournament_ids)),
                col(Match.recorded) == True,  # noqa: E712 - SQL comparison
            )
            .order_by(col(Match.tournament_id), col(Match.number), col(MatchSeat.seat))
        )
        with self.read() as s:
            return [
                (int(t), int(seat), int(match), status, seat_status, bool(gone))
                for t, seat, match, status, seat_status, gone in s.execute(query).all()
            ]

    def seats(self, seat_ids: Sequence[int]) -> list[tuple[Match, MatchSeat]]:
        """Some recorded seats with their matches, in schedule order."""
        with self.read() as s:
            query = (
                select(Match, MatchSeat)
                .join(MatchSeat, col(MatchSeat.match_id) == col(Match.id))
                .where(col(MatchSeat.id).in_(list(seat_ids)))
                .order_by(col(Match.tournament_id), col(Match.number), col(MatchSeat.seat))
            )
            return [(m, seat) for m, seat in s.exec(query).all()]


def _owned_bot(s: Session, name: str, owner: str) -> Bot:
    """The bot `name` if `owner` owns it; Refused or NotOwnerError."""
    bot = s.exec(select(Bot).where(Bot.name == name)).first()
    if bot is None:
        raise Refused(f"no bot called {name!r} (see `arena bot list`)")
    if bot.owner != owner:
        raise NotOwnerError(f"bot {name!r} belongs to {bot.owner!r}, not to {owner!r}")
    return bot


def _references(s: Session, versions: set[int]) -> str:
    """What refers to some bot versions, said as "has ...", or "" for nothing."""
    seats = s.execute(
        select(func.count()).where(col(MatchSeat.bot_version_id).in_(versions))
    ).scalar_one()
    if seats:
        return f"has played recorded matches ({seats} seats)"
    if s.execute(select(func.count()).where(col(Rating.bot_version_id).in_(versions))).scalar_one():
        return "has ratings"
    for tournament_id, lineup in s.execute(
        select_columns(col(Match.tournament_id), col(Match.lineup)).where(_unrecorded())
    ):
        if versions & set(lineup):
            return f"is in the schedule of tournament {tournament_id}"
    for tournament in s.exec(select(Tournament)).all():
        if versions & {int(v) for v in tournament.settings.get("versions", [])}:
            return f"is in the pool of tournament {tournament.id}"
    return ""


def _unrecorded() -> Any:
    return col(Match.recorded) == False  # noqa: E712 - SQL comparison


def _tournament_for(s: Session, tournament_id: int) -> Tournament:
    """The tournament's row, locked until the transaction ends (PostgreSQL; SQLite's
    writing transactions exclude each other anyway)."""
    found = s.get(Tournament, tournament_id, with_for_update=True)
    if found is None:
        raise Refused(f"no tournament {tournament_id} (see `arena tournament list`)")
    return found


def _delete_unplayed(s: Session, tournament_id: int) -> int:
    """Delete a tournament's unrecorded matches (no seat, replay or rating refers to one)."""
    result = s.execute(
        delete(Match).where(col(Match.tournament_id) == tournament_id, _unrecorded())
    )
    return int(getattr(result, "rowcount", 0) or 0)  # a CursorResult: DML has a rowcount


def _match_count(s: Session, tournament_id: int) -> int:
    return int(
        s.execute(
            select(func.count()).where(col(Match.tournament_id) == tournament_id)
        ).scalar_one()
    )


def _leader_row(*found: Any) -> LeaderRow:
    """A leaderboard row from a read of a rating row's columns (see `Store._all_time`)."""
    bot, number, version, mu, sigma, games, wins, total, lost, shared = found
    return LeaderRow(
        bot, number, version, mu, sigma, int(games), int(wins), float(total), int(lost), int(shared)
    )


def _shared() -> Any:
    """True for a seat whose match has another seat ranked 1 and none ranked 2.

    Ranks are 1 + the rivals ahead (in team games: the teams ahead), so a lone
    winner, or a lone winning team, leaves a runner-up ranked 2: a first place is
    shared when another seat is ranked 1 too and none is ranked 2. (Team matches of
    earlier arenas, ranked by seats, 1 3 1 3, count as shared.) `shared_first` is
    the same rule for one match in Python.
    """
    rival = aliased(MatchSeat)
    of_match = col(rival.match_id) == col(MatchSeat.match_id)
    other_first = (
        select_columns(col(rival.id))
        .where(of_match, col(rival.rank) == 1, col(rival.seat) != col(MatchSeat.seat))
        .exists()
    )
    runner_up = select_columns(col(rival.id)).where(of_match, col(rival.rank) == 2).exists()
    return and_(other_first, ~runner_up)


def shared_first(ranks: Sequence[int | None]) -> bool:
    """True when a match's first place is shared: two or more seats ranked 1, none 2.

    >>> shared_first([1, 1, 3]), shared_first([1, 2, 1, 2]), shared_first([1, 2])
    (True, False, False)
    """
    return sum(1 for r in ranks if r == 1) > 1 and 2 not in ranks


def _seat_stats() -> Any:
    """Per bot version: games counted, wins (and of them shared firsts), score sum and
    forfeits of recorded seats.

    A seat counts as a game unless its match was void or it has no score; every
    seat not `ok` is a forfeit.
    """
    counted = and_(func.coalesce(Match.status, "").not_in(VOID), col(MatchSeat.score).is_not(None))
    return (
        select_columns(
            col(MatchSeat.bot_version_id).label("bot_version_id"),
            func.sum(case((counted, 1), else_=0)).label("games"),
            func.sum(case((and_(counted, col(MatchSeat.rank) == 1), 1), else_=0)).label("wins"),
            func.sum(case((and_(counted, col(MatchSeat.rank) == 1, _shared()), 1), else_=0)).label(
                "shared_wins"
            ),
            func.sum(case((counted, MatchSeat.score), else_=0.0)).label("score_sum"),
            func.sum(case((col(MatchSeat.status) != "ok", 1), else_=0)).label("forfeits"),
        )
        .join(Match, col(Match.id) == col(MatchSeat.match_id))
        .where(col(Match.recorded) == True)  # noqa: E712 - SQL comparison
        .group_by(col(MatchSeat.bot_version_id))
    )


@dataclass(frozen=True)
class _Recording:
    """`Store.record`'s statements, built once (SQLAlchemy then reuses their compiled form)."""

    find: Any
    mark: Any
    replay: Any
    ratings: Any
    seats: Any
    suspension: Any
    count: Any
    new_rating: Any
    rate: Any
    add: Any


@cache
def _recording() -> _Recording:
    match_t, seat_t, rating_t = (Match.__table__, MatchSeat.__table__, Rating.__table__)  # type: ignore[attr-defined]
    unrecorded = and_(match_t.c.id == bindparam("m_id"), match_t.c.recorded == False)  # noqa: E712
    not_yet = match_t.c.recorded == False  # noqa: E712
    counters = {name: rating_t.c[name] + bindparam(f"r_{name}") for name in _COUNTERS}
    this_rating = rating_t.c.id == bindparam("r_id")
    return _Recording(
        find=select_columns(match_t.c.id, match_t.c.game, match_t.c.game_version).where(
            match_t.c.id.in_(bindparam("m_ids", expanding=True)), not_yet
        ),
        mark=update(match_t)
        .where(unrecorded)
        .values(
            recorded=True,
            status=bindparam("m_status"),
            error=bindparam("m_error"),
            seconds=bindparam("m_seconds"),
            recorded_at=bindparam("m_at"),
        ),
        replay=insert(MatchReplay.__table__),  # type: ignore[attr-defined]
        ratings=select_columns(
            rating_t.c.id, rating_t.c.bot_version_id, rating_t.c.mu, rating_t.c.sigma
        ).where(
            rating_t.c.bot_version_id.in_(bindparam("r_versions", expanding=True)),
            rating_t.c.game == bindparam("r_game"),
            rating_t.c.game_version == bindparam("r_rules"),
        ),
        seats=insert(seat_t),
        suspension=insert(Suspension.__table__),  # type: ignore[attr-defined]
        count=_seat_stats().where(
            col(MatchSeat.bot_version_id) == bindparam("c_version"),
            col(Match.game) == bindparam("c_game"),
            col(Match.game_version) == bindparam("c_rules"),
        ),
        new_rating=insert(rating_t),
        rate=update(rating_t)
        .where(this_rating)
        .values(
            mu=bindparam("r_mu"),
            sigma=bindparam("r_sigma"),
            matches=rating_t.c.matches + bindparam("r_matches"),
            updated_at=bindparam("r_at"),
            **counters,
        ),
        add=update(rating_t).where(this_rating).values(**counters),
    )


#: The leaderboard's counters on a rating row (`_seat_stats` counts them afresh).
_COUNTERS = ("games", "wins", "shared_wins", "score_sum", "forfeits")


def _statistics(
    s: Session, game: str, rules: int, tournament_id: int | None
) -> dict[int, dict[str, Any]]:
    """`Store.seat_statistics` in an open session."""
    stats = _seat_stats().where(col(Match.game) == game, col(Match.game_version) == rules)
    if tournament_id is not None:
        stats = stats.where(col(Match.tournament_id) == tournament_id)
    return {row.bot_version_id: _totals(row) for row in s.execute(stats).all()}


def _totals(row: Any) -> dict[str, Any]:
    """The counters of one row of `_seat_stats` (zeros for none)."""
    if row is None:
        return {"games": 0, "wins": 0, "shared_wins": 0, "score_sum": 0.0, "forfeits": 0}
    return {
        "games": int(row.games or 0),
        "wins": int(row.wins or 0),
        "shared_wins": int(row.shared_wins or 0),
        "score_sum": float(row.score_sum or 0.0),
        "forfeits": int(row.forfeits or 0),
    }


def _counters(record: MatchRecord) -> dict[int, dict[str, Any]]:
    """What one match adds to each of its versions' counters, as `_seat_stats` counts it."""
    void = record.status in VOID
    shared = shared_first([seat.rank for seat in record.seats])
    added: dict[int, dict[str, Any]] = {}
    for seat in record.seats:
        tally = added.setdefault(
            seat.bot_version_id,
            {"games": 0, "wins": 0, "shared_wins": 0, "score_sum": 0.0, "forfeits": 0},
        )
        if not void and seat.score is not None:
            tally["games"] += 1
            tally["wins"] += seat.rank == 1
            tally["shared_wins"] += seat.rank == 1 and shared
            tally["score_sum"] += seat.score
        tally["forfeits"] += seat.status != "ok"
    return added


def _last_skills(s: Session, tournament_id: int) -> dict[int, Skill]:
    """Each version's rating after its last rated seat in a tournament (schedule order)."""
    order = func.row_number().over(
        partition_by=col(MatchSeat.bot_version_id),
        order_by=(col(Match.number).desc(), col(MatchSeat.seat).desc()),
    )
    last = (
        select(
            col(MatchSeat.bot_version_id).label("version"),
            col(MatchSeat.mu_after).label("mu"),
            col(MatchSeat.sigma_after).label("sigma"),
            order.label("position"),
        )
        .join(Match, col(Match.id) == col(MatchSeat.match_id))
        .where(Match.tournament_id == tournament_id, col(MatchSeat.mu_after).is_not(None))
        .subquery()
    )
    rows = s.execute(
        select(last.c.version, last.c.mu, last.c.sigma).where(last.c.position == 1)
    ).all()
    return {
        v: Skill(mu, sigma if sigma is not None else Skill.initial().sigma) for v, mu, sigma in rows
    }


@cache
def _prior_query() -> Any:
    """The newest earlier version of a version's bot rated at a game and rules version."""
    rating_t, version_t = Rating.__table__, BotVersion.__table__  # type: ignore[attr-defined]
    earlier, this = version_t.alias("earlier"), version_t.alias("this")
    return (
        select_columns(rating_t.c.mu, rating_t.c.sigma)
        .select_from(
            rating_t.join(earlier, earlier.c.id == rating_t.c.bot_version_id).join(
                this, this.c.bot_id == earlier.c.bot_id
            )
        )
        .where(
            this.c.id == bindparam("p_version"),
            earlier.c.number < this.c.number,
            rating_t.c.game == bindparam("p_game"),
            rating_t.c.game_version == bindparam("p_rules"),
        )
        .order_by(earlier.c.number.desc())
        .limit(1)
    )


def _prior(db: Session | Connection, version: int, game: str, rules: int) -> Skill:
    """`Store.prior` in an open session or connection (read once per version, game, rules)."""
    row = db.execute(
        _prior_query(), {"p_version": version, "p_game": game, "p_rules": rules}
    ).first()
    return inherited(Skill(row.mu, row.sigma)) if row is not None else Skill.initial()


#: What rates one match: the seats' skills before -> after (arena.results.rating.rate, bound).
Rater = Callable[[list[Skill]], list[Skill]]


class _RecordedMeanwhile(Exception):
    """A match of a batch was recorded by another connection since it was read."""


#: What a database (or its driver, binding a value) raises for a value it refuses,
#: as against a state of its own (full, locked, read-only, gone: a StoreError).
_DATA_ERRORS = (DataError, IntegrityError, UnicodeError, OverflowError)


class _Unstorable(Exception):
    """The database refused a value of a batch (`_DATA_ERRORS`); `reason` says which."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


#: How the reason of a match voided by `Store.record_many` begins.
UNSTORABLE = "its result could not be stored: "


def voided(record: MatchRecord, reason: str) -> MatchRecord:
    """A match as void (platform-error, unrated): only its seats' bots and statuses kept.

    The statuses stay so that a resume counts forfeit streaks as the run did.
    """
    seats = [SeatRecord(s.seat, s.bot_version_id, None, None, s.status) for s in record.seats]
    return MatchRecord(
        record.match_id, "platform-error", seats, UNSTORABLE + reason, record.seconds
    )


@dataclass
class _Standing:
    """One version's rating at one game and rules version while a batch is recorded:
    its row (if it has one), its current skill, and what the batch adds to the row."""

    row_id: int | None
    skill: Skill | None  # None: no row and no prior read yet
    matches: int = 0
    tally: dict[str, Any] = field(default_factory=lambda: dict.fromkeys(_COUNTERS, 0))
    rated: bool = False  # the batch rated it: mu and sigma change

    def add(self, tally: dict[str, Any]) -> None:
        for name, amount in tally.items():
            self.tally[name] += amount

    @property
    def changed(self) -> bool:
        return self.rated or any(self.tally.values())


class _Batch:
    """`Store.record_many` in one open transaction.

    Ratings are chained in memory, match after match in schedule order, and the rows
    are written together at the end (`_flush`): the match rows, seats and replays as
    executemany inserts and updates, each rating row once. Before a query that must
    see the batch's earlier matches (a version's prior, a new rating row's count of its
    seats so far), what is pending is written first, so it reads what recording one
    match at a time would have read.
    """

    def __init__(self, db: Connection, stamp: Any):
        self.db, self.stamp, self.sql = db, stamp, _recording()
        self.standings: dict[tuple[int, str, int], _Standing] = {}
        self.seats: list[dict[str, Any]] = []

    def record(
        self,
        batch: Sequence[tuple[MatchRecord, Rater | None]],
        suspensions: dict[int, list[SuspensionRecord]],
    ) -> None:
        db, sql = self.db, self.sql
        ids = [record.match_id for record, _rate in batch]
        found = {
            row.id: (row.game, row.game_version) for row in db.execute(sql.find, {"m_ids": ids})
        }
        todo = [(record, rate) for record, rate in batch if record.match_id in found]
        if not todo:
            return
        marked = db.execute(sql.mark, [self._mark_values(record) for record, _rate in todo])
        if marked.rowcount != len(todo):
            raise _RecordedMeanwhile
        replays = [
            {"match_id": record.match_id, "replay": record.replay}
            for record, _rate in todo
            if record.replay is not None
        ]
        if replays:
            db.execute(sql.replay, replays)
        caused = [
            {"match_id": s.match_id, "bot_version_id": s.version_id, "forfeits": s.forfeits}
            for record, _rate in todo
            for s in suspensions.get(record.match_id, [])
        ]
        if caused:
            db.execute(sql.suspension, caused)
        self._read_standings(todo, found)
        for record, rate in todo:
            game, rules = found[record.match_id]
            self._rate(record, rate, game, rules)
        self._flush()

    def _mark_values(self, record: MatchRecord) -> dict[str, Any]:
        return {
            "m_id": record.match_id,
            "m_status": record.status,
            "m_error": record.error or None,
            "m_seconds": record.seconds,
            "m_at": self.stamp,
        }

    def _read_standings(
        self, todo: list[tuple[MatchRecord, Rater | None]], found: dict[int, tuple[str, int]]
    ) -> None:
        """The rating rows of every version in the batch (one query per game and rules)."""
        wanted: dict[tuple[str, int], set[int]] = {}
        for record, _rate in todo:
            versions = wanted.setdefault(found[record.match_id], set())
            versions.update(seat.bot_version_id for seat in record.seats)
        for (game, rules), versions in wanted.items():
            rows = self.db.execute(
                self.sql.ratings, {"r_versions": sorted(versions), "r_game": game, "r_rules": rules}
            )
            for row in rows:
                self.standings[(row.bot_version_id, game, rules)] = _Standing(
                    row.id, Skill(row.mu, row.sigma)
                )
            for version in versions:
                self.standings.setdefault((version, game, rules), _Standing(None, None))

    def _rate(self, record: MatchRecord, rate: Rater | None, game: str, rules: int) -> None:
        """One match: its seats' skills before and after, its seat rows, its counters."""
        standing = {
            seat.bot_version_id: self.standings[(seat.bot_version_id, game, rules)]
            for seat in record.seats
        }
        if rate is not None:
            before = [
                self._skill(standing[seat.bot_version_id], seat.bot_version_id, game, rules)
                for seat in record.seats
            ]
            for seat, old, new in zip(record.seats, before, rate(before), strict=True):
                seat.before, seat.after = old, new
        self.seats.extend(_seat_values(record.match_id, seat) for seat in record.seats)
        # the last seat of a version seated twice wins, as with one seat each
        final = {seat.bot_version_id: seat for seat in record.seats if seat.after is not None}
        counts = Counter(seat.bot_version_id for seat in record.seats if seat.after is not None)
        for version, tally in _counters(record).items():
            entry = standing[version]
            last = final.get(version)
            if last is not None and last.after is not None:
                if entry.row_id is None and not entry.rated:
                    entry.matches = 0  # its first rating: earlier seats are counted in SQL
                entry.skill, entry.rated = last.after, True
                entry.matches += counts[version]
            elif entry.row_id is None and not entry.rated:
                continue  # no rating yet: its row, when made, counts these seats
            entry.add(tally)

    def _skill(self, entry: _Standing, version: int, game: str, rules: int) -> Skill:
        """A version's current skill; for its first rating, its prior (read once)."""
        if entry.skill is None:
            self._flush()  # the prior reads rating rows: the batch's changes first
            entry.skill = _prior(self.db, version, game, rules)
        return entry.skill

    def _flush(self) -> None:
        """Write what is pending: seat rows, then every changed rating row."""
        db, sql = self.db, self.sql
        if self.seats:
            db.execute(sql.seats, self.seats)
            self.seats = []
        rated, counted = [], []
        for (version, game, rules), entry in self.standings.items():
            if not entry.changed:
                continue
            counters = {f"r_{name}": amount for name, amount in entry.tally.items()}
            if entry.row_id is None:
                entry.row_id = self._new_row(version, game, rules, entry)
            elif entry.rated:
                assert entry.skill is not None
                rated.append(
                    {"r_id": entry.row_id, "r_matches": entry.matches, **counters}
                    | {"r_mu": entry.skill.mu, "r_sigma": entry.skill.sigma, "r_at": self.stamp}
                )
            else:
                counted.append({"r_id": entry.row_id, **counters})
            entry.matches, entry.rated = 0, False
            entry.tally = dict.fromkeys(_COUNTERS, 0)
        if rated:
            db.execute(sql.rate, rated)
        if counted:
            db.execute(sql.add, counted)

    def _new_row(self, version: int, game: str, rules: int, entry: _Standing) -> int:
        """A version's first rating row: its counters count every seat recorded so far
        (this batch's too: they are written), so the batch's tally is not added."""
        assert entry.skill is not None
        totals = self.db.execute(
            self.sql.count, {"c_version": version, "c_game": game, "c_rules": rules}
        ).first()
        made = self.db.execute(
            self.sql.new_rating,
            {
                "bot_version_id": version,
                "game": game,
                "game_version": rules,
                "mu": entry.skill.mu,
                "sigma": entry.skill.sigma,
                "matches": entry.matches,
                **_totals(totals),
                "updated_at": self.stamp,
            },
        )
        key = made.inserted_primary_key
        assert key is not None
        return int(key[0])


def _by_match(
    batch: Sequence[tuple[MatchRecord, Rater | None]], suspensions: Sequence[SuspensionRecord]
) -> dict[int, list[SuspensionRecord]]:
    """The suspensions by the match that caused them; ValueError for one whose match is
    not in the batch, or one named twice (a caller's mistake, not a result to void)."""
    matches = {record.match_id for record, _rate in batch}
    caused: dict[int, list[SuspensionRecord]] = {}
    for suspension in suspensions:
        if suspension.match_id not in matches:
            raise ValueError(f"{suspension}: its match is not among those recorded")
        same = caused.get(suspension.match_id, [])
        if any(s.version_id == suspension.version_id for s in same):
            raise ValueError(f"{suspension}: its version is suspended twice by that match")
        caused.setdefault(suspension.match_id, []).append(suspension)
    return caused


def _seat_values(match_id: int, seat: SeatRecord) -> dict[str, Any]:
    return {
        "match_id": match_id,
        "seat": seat.seat,
        "bot_version_id": seat.bot_version_id,
        "score": seat.score,
        "rank": seat.rank,
        "status": seat.status,
        "detail": seat.detail,
        "stderr": seat.stderr,
        "mu_before": seat.before.mu if seat.before else None,
        "sigma_before": seat.before.sigma if seat.before else None,
        "mu_after": seat.after.mu if seat.after else None,
        "sigma_after": seat.after.sigma if seat.after else None,
    }


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
