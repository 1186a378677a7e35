"""Every table of arena's database, in one module (as the SQLModel docs lay it out).

Bots are submitted as immutable, content-addressed versions; ratings belong to
a (bot version, game, rules version) triple; a tournament's whole schedule is
written as Match rows before play, so an interrupted tournament resumes where it
stopped. Replays live in their own table, which statistics never read.

The schema changes only through a migration (`arena/store/migrations/versions/`):
a change here needs a new revision there (tests/test_migrations.py checks that the
migrated schema is this one). Statuses are arena.status members, stored as their
words in the VARCHAR columns of before (`StatusColumn`), so older databases read the
same and the schema did not change.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, ClassVar

from sqlalchemy import JSON, BigInteger, Column, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

from arena.status import MatchStatus, SeatStatus, TournamentStatus
from arena.store.text import BotString, BotText


def now() -> datetime:
    """The current time in UTC."""
    return datetime.now(UTC)


class StatusColumn(TypeDecorator[StrEnum]):
    """A status column: the member's word as VARCHAR, read back as the member.

    A word that is not a member fails on the way in (ValueError), so a misspelt
    status never reaches the database.
    """

    impl = String
    cache_ok = True
    #: The status enum of the column (set by each subclass).
    members: ClassVar[type[StrEnum]]
    #: Each word (and NULL) -> its member: rows are read by one dict lookup a value,
    #: not an Enum call (a tournament's board reads tens of thousands).
    _by_word: ClassVar[dict[str | None, StrEnum | None]]

    def __init_subclass__(cls, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        cls._by_word = {None: None, **{member.value: member for member in cls.members}}

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        member = value if isinstance(value, self.members) else self.members(value)
        return member.value

    def process_result_value(self, value: Any, dialect: Dialect) -> StrEnum | None:
        return self._by_word[value]

    def result_processor(self, dialect: Dialect, coltype: object) -> Any:
        """`process_result_value` as the dict's own lookup (KeyError for a word that is
        not a member)."""
        return self._by_word.__getitem__


class SeatStatusColumn(StatusColumn):
    """A seat's status (arena.status.SeatStatus)."""

    members = SeatStatus
    cache_ok = True


class MatchStatusColumn(StatusColumn):
    """A match's status (arena.status.MatchStatus)."""

    members = MatchStatus
    cache_ok = True


class TournamentStatusColumn(StatusColumn):
    """A tournament's status (arena.status.TournamentStatus)."""

    members = TournamentStatus
    cache_ok = True


class Bot(SQLModel, table=True):
    """A bot name; its code lives in its versions, which only its owner may add."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    #: Who registered the name: the submitting OS user (`arena.submissions.names`), "arena" for
    #: the bundled bots. A database made before owners were kept gets the user who
    #: first opens it with this arena (migration 0002).
    owner: str = Field(default="")
    created_at: datetime = Field(default_factory=now)
    #: Set by `arena bot retire`: no version plays in a new tournament or ladder; its
    #: history stays (migration 0005). None: it plays.
    retired_at: datetime | None = None


class BotVersion(SQLModel, table=True):
    """One immutable submission of a bot: a copy of its folder named by its sha256."""

    __table_args__ = (
        UniqueConstraint("bot_id", "number"),
        UniqueConstraint("bot_id", "sha256"),
    )

    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    number: int
    sha256: str = Field(index=True)
    #: Where the stored copy of the folder lives (under the arena home).
    folder: str
    command: list[str] = Field(sa_column=Column(JSON, nullable=False))
    games: list[str] = Field(sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=now)
    #: Set by `arena bot retire NAME --version N`: this version alone no longer plays
    #: (the bot's name then stands for its newest version not retired).
    retired_at: datetime | None = None


class Tournament(SQLModel, table=True):
    """A tournament: its settings and whether it has finished."""

    id: int | None = Field(default=None, primary_key=True)
    name: str
    game: str = Field(index=True)
    game_version: int
    format: str
    players: int
    rounds: int
    #: Any seed up to 2**63 - 1, hence BIGINT.
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    variant: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    #: Everything else the run needs (timeouts, limits, suspension threshold, ...).
    settings: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    #: scheduled -> running -> finished (or interrupted, resumable), or cancelled for
    #: good (`Store.cancel_tournament`): never played again, its recorded matches kept.
    status: TournamentStatus = Field(
        default=TournamentStatus.SCHEDULED, sa_type=TournamentStatusColumn, nullable=False
    )
    created_at: datetime = Field(default_factory=now)
    finished_at: datetime | None = None


class Match(SQLModel, table=True):
    """One scheduled match; `recorded` once its result (or suspension) is stored."""

    __table_args__ = (
        UniqueConstraint("tournament_id", "number"),
        # Leaderboards: the recorded matches of one game under one rules version.
        Index("ix_match_game_version_recorded", "game", "game_version", "recorded"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int | None = Field(default=None, foreign_key="tournament.id", index=True)
    #: Position in the tournament's schedule; results are recorded and rated in this order.
    number: int
    game: str
    #: The rules version of the game it is played under (the tournament's).
    game_version: int
    #: The public pairing seed: 48 bits, hence BIGINT.
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    #: The bot versions by seat, as scheduled.
    lineup: list[int] = Field(sa_column=Column(JSON, nullable=False))
    recorded: bool = Field(default=False, index=True)
    #: How it ended (arena.status.MatchStatus), once recorded.
    status: MatchStatus | None = Field(default=None, sa_type=MatchStatusColumn)
    #: Why a void match was voided; may quote a bot (any text: arena.store.text).
    error: str | None = Field(default=None, sa_type=BotString)
    seconds: float | None = None
    recorded_at: datetime | None = None


class MatchReplay(SQLModel, table=True):
    """The replay of a recorded match (JSON text): apart, so that statistics never load it."""

    match_id: int = Field(
        sa_column=Column(ForeignKey("match.id"), primary_key=True, autoincrement=False)
    )
    replay: str = Field(sa_column=Column(BotText, nullable=False))


class MatchSeat(SQLModel, table=True):
    """One seat of a recorded match: score, rank, status and the rating change."""

    __table_args__ = (UniqueConstraint("match_id", "seat"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True)
    seat: int
    bot_version_id: int = Field(foreign_key="botversion.id", index=True)
    score: float | None = None
    rank: int | None = None
    #: How the seat's game ended (arena.status.SeatStatus).
    status: SeatStatus = Field(sa_type=SeatStatusColumn, nullable=False)
    #: The bot's own text, any of it (arena.store.text): a forfeit's detail may quote
    #: the bot's invalid line.
    detail: str = Field(default="", sa_type=BotString)
    stderr: str = Field(default="", sa_column=Column(BotText, nullable=False, default=""))
    mu_before: float | None = None
    sigma_before: float | None = None
    mu_after: float | None = None
    sigma_after: float | None = None


class Suspension(SQLModel, table=True):
    """A bot version suspended from a tournament, recorded with the match whose forfeit
    made its streak of forfeits in a row reach the tournament's `suspend_after`: it
    plays no more there (migration 0006 found those of earlier tournaments again)."""

    __table_args__ = (UniqueConstraint("match_id", "bot_version_id"),)

    id: int | None = Field(default=None, primary_key=True)
    #: The match whose forfeit completed the streak (its tournament is the match's).
    match_id: int = Field(foreign_key="match.id", index=True)
    bot_version_id: int = Field(foreign_key="botversion.id", index=True)
    #: The forfeits in a row that suspended it.
    forfeits: int


class Rating(SQLModel, table=True):
    """The current TrueSkill rating of one bot version at one game under one rules version.

    It also keeps the leaderboard's running counters of that version's recorded seats
    at that game and rules version, updated in the transaction that records a match
    (`Store.record`), so that the leaderboard reads these rows alone, as
    arena.store.counting counts: a seat is a game unless its match was void or it has
    no score, a game ranked 1 a win, a seat not `ok` a forfeit. A row is made with a
    version's first rated seat, its counters then counted from the seats recorded so far.
    """

    __table_args__ = (
        UniqueConstraint(
            "bot_version_id", "game", "game_version", name="uq_rating_version_game_rules"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    bot_version_id: int = Field(foreign_key="botversion.id", index=True)
    game: str = Field(index=True)
    #: The game's rules version: a rules change starts every bot afresh.
    game_version: int
    mu: float
    sigma: float
    #: Rated seats (the rating was updated that many times).
    matches: int = 0
    #: Seats counted as games (not void, with a score), those ranked 1, their scores' sum.
    games: int = 0
    wins: int = 0
    score_sum: float = 0.0
    #: Of the wins, those whose first place was shared with a rival (`counting.shared_first`).
    shared_wins: int = 0
    #: Seats not `ok` (crash, timeout, ..., suspended).
    forfeits: int = 0
    updated_at: datetime = Field(default_factory=now)


class PoolLink(SQLModel, table=True):
    """A bot version with a rated seat in a unit of play at a game's rules version: the
    edges of the rating pools' graph (`Store.opponents`, arena.results.rating.pools).

    Written in the transaction that records the seat (`Store.record`), once per pair,
    so it grows with the tournaments and versions, not with the matches (migration
    0008 filled it from the seats of before). The unit is the match's tournament; a
    match outside any tournament is linked through its lowest rated version (the unit
    is minus that version's id), which joins the same versions as a unit per match.
    """

    game: str = Field(primary_key=True)
    game_version: int = Field(primary_key=True)
    unit: int = Field(primary_key=True)
    bot_version_id: int = Field(foreign_key="botversion.id", primary_key=True)


class Secret(SQLModel, table=True):
    """The database's secret key for match seeds (arena.match.seeds): one row, made once,
    never shown."""

    id: int = Field(default=1, primary_key=True)
    #: 32 random bytes as hex; never given to a bot, a worker or a report.
    key: str
    created_at: datetime = Field(default_factory=now)


class Account(SQLModel, table=True):
    """Someone who reaches the service (`arena serve`) with a token: an author, or an
    organiser (migration 0007). Only the token's sha256 is kept: the token itself is
    printed once, by `arena user add` or `arena user token`, and never stored."""

    id: int | None = Field(default=None, primary_key=True)
    #: The account's name (the bot name pattern, arena.submissions.names).
    name: str = Field(index=True, unique=True)
    #: The owner its bots are recorded under (`Bot.owner`): `account:NAME`, or an OS
    #: user's name when the account was made to act for that user (`--os-user`).
    owner: str = Field(index=True, unique=True)
    #: Organisers suspend and reinstate any version and see every bot's private output.
    organiser: bool = False
    #: sha256 (hex) of the current token; None once revoked.
    token_sha256: str | None = Field(default=None, index=True, unique=True)
    #: When the current token stops being accepted (None: it does not expire).
    token_expires_at: datetime | None = None
    created_at: datetime = Field(default_factory=now)
    revoked_at: datetime | None = None
