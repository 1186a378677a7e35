"""Recording: the batched writes of finished matches, with their seats, ratings,
replays, the suspensions they caused and the rating pools' links, in one transaction
per batch.

The tournament runner records results strictly in schedule order; each match is
rated under the rules version it was played under, from its seats' skills as the
matches before it left them. A batch stores exactly the rows of recording its
matches one by one, in a few executemany statements whatever its size; the
leaderboard's counters on the rating rows (arena.store.counting) move with it.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from sqlalchemy import Connection, and_, bindparam, insert, update
from sqlalchemy import select as select_columns
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DataError, IntegrityError
from sqlmodel import col

import arena.store.counting as counting
import arena.store.queries as queries
from arena.errors import StoreError
from arena.match.results import SeatResult
from arena.skill import Skill
from arena.status import MatchStatus
from arena.store.database import Database
from arena.store.models import Match, MatchReplay, MatchSeat, PoolLink, Rating, Suspension, now
from arena.store.records import Inherit, MatchRecord, Rater, SuspensionRecord


class Recording(Database):
    """Recording finished matches (see the module)."""

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
        A seat is the worker's `SeatResult` as it came, with its stored version
        (ValueError for one without); of its stderr the last `STDERR_KEPT`
        characters are kept.
        With a rater, the seats' current skills (as the matches before it in the
        batch left them) are read, `rate(before)` gives the new ones, and both are
        stored. A match already recorded is left alone, so recording twice cannot
        duplicate it; the batch commits whole or not at all. The leaderboard's
        counters on the rating rows (`Rating.games`, ...) move with it, and the
        rating pools' links (`PoolLink`) of its rated seats are added.

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
        _check_versions(batch)
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
                _Batch(db, now(), self.inherit).record(batch, suspensions)
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
    """A match as void (a platform error, unrated): only its seats' bots and statuses kept.

    The statuses stay so that a resume counts forfeit streaks as the run did.
    """
    seats = [SeatResult(s.seat, s.bot_version_id, None, None, s.status) for s in record.seats]
    return MatchRecord(
        record.match_id, MatchStatus.PLATFORM_ERROR, seats, UNSTORABLE + reason, record.seconds
    )


@dataclass
class _Standing:
    """One version's rating at one game and rules version while a batch is recorded:
    its row (if it has one), its current skill, and what the batch adds to the row."""

    row_id: int | None
    skill: Skill | None  # None: no row and no prior read yet
    matches: int = 0
    tally: dict[str, Any] = field(default_factory=lambda: dict.fromkeys(counting.COUNTERS, 0))
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

    def __init__(self, db: Connection, stamp: Any, inherit: Inherit | None):
        self.db, self.stamp, self.sql = db, stamp, _recording()
        self.inherit = inherit
        self.standings: dict[tuple[int, str, int], _Standing] = {}
        self.seats: list[dict[str, Any]] = []

    def record(
        self,
        batch: Sequence[tuple[MatchRecord, Rater | None]],
        suspensions: dict[int, list[SuspensionRecord]],
    ) -> None:
        db, sql = self.db, self.sql
        ids = [record.match_id for record, _rate in batch]
        rows = db.execute(sql.find, {"m_ids": ids}).all()
        found = {row.id: (row.game, row.game_version) for row in rows}
        units = {row.id: row.tournament_id for row in rows}
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
        links: set[tuple[str, int, int, int]] = set()
        for record, rate in todo:
            game, rules = found[record.match_id]
            self._rate(record, rate, game, rules)
            links.update(_links(record, game, rules, units[record.match_id]))
        self._flush()
        if links:
            self._link(links)

    def _link(self, links: set[tuple[str, int, int, int]]) -> None:
        """Store the pool links of the batch's rated seats (`PoolLink`), each once."""
        dialect = self.db.dialect.name
        if dialect not in _SKIPPING_INSERTS:  # another database: those not stored yet
            table = _link_t()
            units = {unit for _game, _rules, unit, _version in links}
            stored = select_columns(*table.c).where(table.c.unit.in_(units))
            links -= {tuple(row) for row in self.db.execute(stored)}
        rows = [
            {"game": game, "game_version": rules, "unit": unit, "bot_version_id": version}
            for game, rules, unit, version in sorted(links)
        ]
        if rows:
            self.db.execute(_link_insert(dialect), rows)

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
            versions.update(_version(seat) for seat in record.seats)
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
            _version(seat): self.standings[(_version(seat), game, rules)] for seat in record.seats
        }
        if rate is not None:
            before = [
                self._skill(standing[_version(seat)], _version(seat), game, rules)
                for seat in record.seats
            ]
            for seat, old, new in zip(record.seats, before, rate(before), strict=True):
                seat.before, seat.after = old, new
        self.seats.extend(_seat_values(record.match_id, seat) for seat in record.seats)
        # the last seat of a version seated twice wins, as with one seat each
        final = {_version(seat): seat for seat in record.seats if seat.after is not None}
        counts = Counter(_version(seat) for seat in record.seats if seat.after is not None)
        for version, tally in _counters(record).items():
            entry = standing[version]
            last = final.get(version)
            if last is not None and last.after is not None:
                if entry.row_id is None and not entry.rated:
                    entry.matches = 0  # its first rating: earlier seats are counted afresh
                entry.skill, entry.rated = last.after, True
                entry.matches += counts[version]
            elif entry.row_id is None and not entry.rated:
                continue  # no rating yet: its row, when made, counts these seats
            entry.add(tally)

    def _skill(self, entry: _Standing, version: int, game: str, rules: int) -> Skill:
        """A version's current skill; for its first rating, its prior (read once)."""
        if entry.skill is None:
            self._flush()  # the prior reads rating rows: the batch's changes first
            entry.skill = queries.prior(self.db, version, game, rules, self.inherit)
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
            entry.tally = dict.fromkeys(counting.COUNTERS, 0)
        if rated:
            db.execute(sql.rate, rated)
        if counted:
            db.execute(sql.add, counted)

    def _new_row(self, version: int, game: str, rules: int, entry: _Standing) -> int:
        """A version's first rating row: its counters count every seat recorded so far
        (this batch's too: they are written), so the batch's tally is not added."""
        assert entry.skill is not None
        seats = self.db.execute(
            self.sql.count, {"c_version": version, "c_game": game, "c_rules": rules}
        )
        totals = counting.count(seats).get(version, counting.zero())
        made = self.db.execute(
            self.sql.new_rating,
            {
                "bot_version_id": version,
                "game": game,
                "game_version": rules,
                "mu": entry.skill.mu,
                "sigma": entry.skill.sigma,
                "matches": entry.matches,
                **totals,
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
    if not suspensions:
        return {}
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


def _links(
    record: MatchRecord, game: str, rules: int, tournament_id: int | None
) -> list[tuple[str, int, int, int]]:
    """A match's pool links (`PoolLink`): its unit with each version of a rated seat."""
    rated = {_version(seat) for seat in record.seats if seat.after is not None}
    if not rated:
        return []
    unit = tournament_id if tournament_id is not None else -min(rated)
    return [(game, rules, unit, version) for version in rated]


#: The dialects whose inserts can skip a row already stored, as `_link_insert` makes them.
_SKIPPING_INSERTS: dict[str, Callable[[Any], Any]] = {
    "sqlite": sqlite.insert,
    "postgresql": postgresql.insert,
}


def _link_t() -> Any:
    return PoolLink.__table__  # type: ignore[attr-defined]


@cache
def _link_insert(dialect: str) -> Any:
    """The insert of pool links: one another recorder stored meanwhile is skipped (ON
    CONFLICT DO NOTHING), not refused, which would void the batch's matches."""
    skipping = _SKIPPING_INSERTS.get(dialect)
    return insert(_link_t()) if skipping is None else skipping(_link_t()).on_conflict_do_nothing()


def _check_versions(batch: Sequence[tuple[MatchRecord, Rater | None]]) -> None:
    """ValueError for a seat without a stored version (`bot_version_id` None: a bot
    played outside the store, a caller's mistake, not a result to void)."""
    for record, _rate in batch:
        for seat in record.seats:
            if seat.bot_version_id is None:
                raise ValueError(f"match {record.match_id}: seat {seat.seat} has no stored version")


def _version(seat: SeatResult) -> int:
    """The stored version of a seat of a checked batch (`_check_versions`)."""
    assert seat.bot_version_id is not None
    return seat.bot_version_id


def _counters(record: MatchRecord) -> dict[int, dict[str, Any]]:
    """What one match adds to each of its versions' counters (arena.store.counting)."""
    added: dict[int, dict[str, Any]] = {}
    seats = [(_version(s), s.score, s.rank, s.status) for s in record.seats]
    counting.tally(record.status.void, seats, added)
    return added


#: How much of a seat's stderr is stored (the tail: where a crash says why; a bot's
#: process keeps up to 8 KiB of it, arena.players.process.STDERR_TAIL_BYTES).
STDERR_KEPT = 4000


def _seat_values(match_id: int, seat: SeatResult) -> dict[str, Any]:
    return {
        "match_id": match_id,
        "seat": seat.seat,
        "bot_version_id": seat.bot_version_id,
        "score": seat.score,
        "rank": seat.rank,
        "status": seat.status,
        "detail": seat.detail,
        "stderr": seat.stderr[-STDERR_KEPT:],
        "mu_before": seat.before.mu if seat.before else None,
        "sigma_before": seat.before.sigma if seat.before else None,
        "mu_after": seat.after.mu if seat.after else None,
        "sigma_after": seat.after.sigma if seat.after else None,
    }


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
    counters = {name: rating_t.c[name] + bindparam(f"r_{name}") for name in counting.COUNTERS}
    this_rating = rating_t.c.id == bindparam("r_id")
    return _Recording(
        find=select_columns(
            match_t.c.id, match_t.c.game, match_t.c.game_version, match_t.c.tournament_id
        ).where(match_t.c.id.in_(bindparam("m_ids", expanding=True)), not_yet),
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
        count=queries.counted_seats().where(
            col(Match.id).in_(
                select_columns(col(MatchSeat.match_id)).where(
                    col(MatchSeat.bot_version_id) == bindparam("c_version")
                )
            ),
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
