"""The database: the only module with SQL. One short session per unit of work.

SQLite (the default, a file in the arena home) runs in WAL mode and every
writing transaction starts with BEGIN IMMEDIATE: a deferred transaction that
later upgrades to a write fails at once under contention instead of waiting.
Any other SQLAlchemy URL (PostgreSQL) works as it is.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import Engine, bindparam, event, func, inspect
from sqlalchemy import text as sql
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError
from sqlmodel import Session, SQLModel, col, create_engine, select

from arena import names, seeds
from arena.manifest import bundled_names
from arena.models import Bot, BotVersion, Match, MatchSeat, Rating, Secret, Tournament, now
from arena.rating import Skill


class StoreError(RuntimeError):
    """The database cannot be opened or used (a one-line reason for the user)."""


class NotOwnerError(ValueError):
    """A new version of a bot that belongs to another owner (a one-line reason)."""


def default_home() -> Path:
    """ARENA_HOME, or the per-user data directory."""
    return Path(os.environ.get("ARENA_HOME") or platformdirs.user_data_dir("arena"))


def default_url(home: Path) -> str:
    """ARENA_DB, or the SQLite file in the arena home."""
    return os.environ.get("ARENA_DB") or f"sqlite:///{home / 'arena.db'}"


def _sqlite_engine(url: str, immediate: bool) -> Engine:
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # In WAL mode NORMAL still survives a crash of arena (only a power cut may lose
        # the last commits) and saves an fsync per recorded match.
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


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


class Store:
    """arena's database: bots, versions, tournaments, matches, seats, ratings."""

    def __init__(self, url: str):
        """Open (and create if needed) the database at `url`."""
        self.url = url
        try:
            if url.startswith("sqlite"):
                path = url.split("///", 1)[-1]
                if path and path != ":memory:":
                    Path(path).parent.mkdir(parents=True, exist_ok=True)
                self.reader = _sqlite_engine(url, immediate=False)
                self.writer = _sqlite_engine(url, immediate=True)
            else:
                self.reader = self.writer = create_engine(url, pool_pre_ping=True)
            SQLModel.metadata.create_all(self.writer)
            _add_bot_owners(self.writer)
            self._stored_secret()  # made with the database, so that copies of it share it
        except (SQLAlchemyError, ImportError, OSError) as error:
            raise StoreError(f"cannot open database {url}: {_first_line(error)}") from None

    def close(self) -> None:
        """Release the connections."""
        self.reader.dispose()
        self.writer.dispose()

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading."""
        with Session(self.reader) as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session whose changes are committed together at the end, or not at all."""
        try:
            with Session(self.writer) as session, session.begin():
                yield session
        except OperationalError as error:
            raise StoreError(f"database error: {_first_line(error)}") from None

    # ----- the secret key of match seeds ---------------------------------
    def secret(self) -> bytes:
        """The key this database's match seeds are derived with (arena.seeds).

        ARENA_SECRET (hex) overrides the stored key, so that two databases can
        reproduce each other's matches. StoreError when ARENA_SECRET is malformed.
        """
        try:
            override = seeds.env_secret()
        except seeds.SecretError as error:
            raise StoreError(str(error)) from None
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

    # ----- tournaments ------------------------------------------------------
    def create_tournament(self, tournament: Tournament, schedule: Sequence[Match]) -> int:
        """Write a tournament and its whole schedule in one transaction; returns its id."""
        with self.write() as s:
            s.add(tournament)
            s.flush()
            for match in schedule:
                match.tournament_id = tournament.id
                s.add(match)
            return tournament.id or 0

    def tournament(self, tournament_id: int) -> Tournament | None:
        """One tournament by id."""
        with self.read() as s:
            return s.get(Tournament, tournament_id)

    def tournaments(self) -> list[Tournament]:
        """Every tournament, newest first."""
        with self.read() as s:
            return list(s.exec(select(Tournament).order_by(col(Tournament.id).desc())).all())

    def set_tournament_status(self, tournament_id: int, status: str) -> None:
        """Mark a tournament running or finished."""
        with self.write() as s:
            tournament = s.get(Tournament, tournament_id)
            if tournament is not None:
                tournament.status = status
                tournament.finished_at = now() if status == "finished" else None

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
    def skills(self, version_ids: Sequence[int], game: str) -> dict[int, Skill]:
        """Current skills of some versions at a game (initial when unrated)."""
        with self.read() as s:
            return self._skills(s, version_ids, game)

    @staticmethod
    def _skills(s: Session, version_ids: Sequence[int], game: str) -> dict[int, Skill]:
        found = {
            r.bot_version_id: Skill(r.mu, r.sigma)
            for r in s.exec(
                select(Rating).where(
                    col(Rating.bot_version_id).in_(list(version_ids)), Rating.game == game
                )
            ).all()
        }
        return {v: found.get(v, Skill.initial()) for v in version_ids}

    def record(
        self,
        game: str,
        record: MatchRecord,
        rate: Callable[[list[Skill]], list[Skill]] | None = None,
    ) -> None:
        """Store a match's result, seats, replay and rating changes in one transaction.

        With `rate`, the seats' current skills are read, `rate(before)` gives the new
        ones, and both are stored, all inside the same transaction. A match already
        recorded is left alone, so recording twice cannot duplicate it.
        """
        with self.write() as s, s.no_autoflush:
            match = s.get(Match, record.match_id)
            if match is None or match.recorded:
                return
            match.recorded = True
            match.status = record.status
            match.error = record.error or None
            match.seconds = record.seconds
            match.replay = record.replay
            match.recorded_at = now()
            versions = [seat.bot_version_id for seat in record.seats]
            ratings = {
                r.bot_version_id: r
                for r in s.exec(
                    select(Rating).where(
                        col(Rating.bot_version_id).in_(versions), Rating.game == game
                    )
                ).all()
            }
            if rate is not None:
                before = [
                    Skill(r.mu, r.sigma) if (r := ratings.get(v)) else Skill.initial()
                    for v in versions
                ]
                for seat, old, new in zip(record.seats, before, rate(before), strict=True):
                    seat.before, seat.after = old, new
            for seat in record.seats:
                s.add(_seat_row(record.match_id, seat))
                if seat.after is not None:
                    rating = ratings.get(seat.bot_version_id)
                    if rating is None:
                        rating = Rating(
                            bot_version_id=seat.bot_version_id, game=game, mu=0, sigma=0
                        )
                        ratings[seat.bot_version_id] = rating
                    rating.mu, rating.sigma = seat.after.mu, seat.after.sigma
                    rating.matches += 1
                    rating.updated_at = now()
                    s.add(rating)

    # ----- queries ---------------------------------------------------------------
    def seat_rows(
        self, game: str | None = None, tournament_id: int | None = None
    ) -> list[tuple[Match, MatchSeat]]:
        """Recorded seats with their matches, in schedule order."""
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

    def ratings(self, game: str) -> list[Rating]:
        """Every stored rating at a game."""
        with self.read() as s:
            return list(s.exec(select(Rating).where(Rating.game == game)).all())

    def ratings_of(self, version_id: int) -> list[Rating]:
        """Every stored rating of one bot version."""
        with self.read() as s:
            return list(s.exec(select(Rating).where(Rating.bot_version_id == version_id)).all())

    def leaderboard(self, game: str, tournament_id: int | None = None) -> list[LeaderRow]:
        """Rows sorted by conservative rating.

        Without a tournament: the stored ratings. With one: the rating each version
        ended that tournament with (its last `after` there), and stats of that tournament.
        """
        names = self.version_names()
        rows: dict[int, LeaderRow] = {}
        if tournament_id is None:
            for r in self.ratings(game):
                bot, number = names[r.bot_version_id]
                rows[r.bot_version_id] = LeaderRow(bot, number, r.bot_version_id, r.mu, r.sigma)
        seats = self.seat_rows(game=game, tournament_id=tournament_id)
        for match, seat in seats:
            row = rows.get(seat.bot_version_id)
            if row is None:
                if tournament_id is None:
                    continue
                bot, number = names[seat.bot_version_id]
                initial = Skill.initial()
                row = LeaderRow(bot, number, seat.bot_version_id, initial.mu, initial.sigma)
                rows[seat.bot_version_id] = row
            if tournament_id is not None and seat.mu_after is not None:
                row.mu, row.sigma = seat.mu_after, seat.sigma_after or row.sigma
            _count(row, match, seat)
        return sorted(rows.values(), key=lambda r: (-r.conservative, r.bot, r.version))

    def forfeits(self, name: str, limit: int = 10) -> list[tuple[Match, MatchSeat]]:
        """The most recent forfeits of any version of a bot."""
        ids = [v.id for v in self.versions(name=name)]
        with self.read() as s:
            query = (
                select(Match, MatchSeat)
                .join(MatchSeat, col(MatchSeat.match_id) == col(Match.id))
                .where(col(MatchSeat.bot_version_id).in_(ids), MatchSeat.status != "ok")
                .order_by(col(Match.recorded_at).desc(), col(Match.id).desc())
                .limit(limit)
            )
            return [(m, seat) for m, seat in s.exec(query).all()]

    def head_to_head(self, tournament_id: int) -> dict[tuple[int, int], list[int]]:
        """(version a, version b) -> [matches where a ranked better, equal, worse]."""
        by_match: dict[int, list[MatchSeat]] = defaultdict(list)
        for match, seat in self.seat_rows(tournament_id=tournament_id):
            if match.status != "platform-error" and seat.rank is not None:
                by_match[match.id or 0].append(seat)
        table: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
        for seats in by_match.values():
            for a in seats:
                for b in seats:
                    if a.bot_version_id == b.bot_version_id:
                        continue
                    assert a.rank is not None and b.rank is not None
                    index = 0 if a.rank < b.rank else 1 if a.rank == b.rank else 2
                    table[(a.bot_version_id, b.bot_version_id)][index] += 1
        return dict(table)


def _seat_row(match_id: int, seat: SeatRecord) -> MatchSeat:
    return MatchSeat(
        match_id=match_id,
        seat=seat.seat,
        bot_version_id=seat.bot_version_id,
        score=seat.score,
        rank=seat.rank,
        status=seat.status,
        detail=seat.detail,
        stderr=seat.stderr,
        mu_before=seat.before.mu if seat.before else None,
        sigma_before=seat.before.sigma if seat.before else None,
        mu_after=seat.after.mu if seat.after else None,
        sigma_after=seat.after.sigma if seat.after else None,
    )


def _count(row: LeaderRow, match: Match, seat: MatchSeat) -> None:
    """Add one recorded seat to a leaderboard row's statistics."""
    if seat.status != "ok":
        row.forfeits += 1
    if match.status == "platform-error" or seat.score is None:
        return
    row.games += 1
    row.score_sum += seat.score
    if seat.rank == 1:
        row.wins += 1


def _add_bot_owners(engine: Engine) -> None:
    """Give a database made before bots had owners the `bot.owner` column.

    The bundled bots get their owner, every other bot the user opening the
    database (the one whose arena it is). Of two processes racing, one adds it.
    """
    if "owner" in {c["name"] for c in inspect(engine).get_columns("bot")}:
        return
    try:
        with engine.begin() as connection:
            connection.execute(sql("ALTER TABLE bot ADD COLUMN owner VARCHAR NOT NULL DEFAULT ''"))
            bundled = {"owner": names.BUNDLED_OWNER, "names": bundled_names()}
            connection.execute(
                sql("UPDATE bot SET owner = :owner WHERE name IN :names").bindparams(
                    bindparam("names", expanding=True)
                ),
                bundled,
            )
            user = {"owner": names.current_user()}
            connection.execute(sql("UPDATE bot SET owner = :owner WHERE owner = ''"), user)
    except SQLAlchemyError:
        if "owner" not in {c["name"] for c in inspect(engine).get_columns("bot")}:
            raise


def _first_line(error: BaseException) -> str:
    text = str(getattr(error, "orig", None) or error)
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__
