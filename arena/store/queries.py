"""The reads: ratings and where a new version's starts, leaderboards, the seats and
matches behind a tournament's views, head-to-head and a bot's page, replays,
suspensions.

The all-time leaderboard reads the rating rows alone (their running counters: its
cost does not grow with the matches), its rating pools the pool links; a tournament's
board counts that tournament's seats by arena.store.counting, as the counters were
counted. No read loads a replay
but `replay`: they live in their own table.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import Connection, Select, bindparam, func
from sqlalchemy import select as select_columns
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

import arena.store.counting as counting
from arena.skill import Skill
from arena.status import VOID, MatchStatus, SeatStatus
from arena.store.database import Database
from arena.store.models import (
    Bot,
    BotVersion,
    Match,
    MatchReplay,
    MatchSeat,
    PoolLink,
    Rating,
    Suspension,
    Tournament,
)
from arena.store.records import Inherit, LeaderRow, SuspensionRecord


class Queries(Database):
    """What the reports, the runner's resume and the ladder read (see the module)."""

    # ----- ratings -------------------------------------------------------------
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
                    found[v] = prior(s, v, game, rules, self.inherit)
        return {v: found[v] for v in version_ids}

    def prior(self, version_id: int, game: str, rules: int) -> Skill:
        """Where an unrated version's rating starts: from its bot's newest earlier version
        rated at this game and rules version (through the store's `inherit` rule), or
        the initial rating."""
        with self.read() as s:
            return prior(s, version_id, game, rules, self.inherit)

    def tournament_skills(self, tournament_id: int) -> dict[int, Skill]:
        """Each version's rating after its last rated seat in a tournament (schedule order)."""
        with self.read() as s:
            return last_skills(s, tournament_id)

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

    # ----- leaderboards ------------------------------------------------------------
    def leaderboard(
        self, game: str, rules: int, tournament_id: int | None = None
    ) -> list[LeaderRow]:
        """Rows sorted by conservative rating (no replay is read).

        Without a tournament: the stored ratings at `game` under rules version
        `rules` with their running counters of all its recorded matches under those
        rules, read from the rating rows alone (its cost does not grow with the
        matches). With one: the rating each version ended that tournament with (its
        last `after` there), and that tournament's seats counted (`counting.count`).
        """
        if tournament_id is None:
            return self._all_time(game, rules)
        with self.read() as s:
            counted = statistics(s, game, rules, tournament_id)
            skills = {v: Skill.initial() for v in counted}
            skills.update(last_skills(s, tournament_id))
            labels = _labels(s, skills)
        rows = []
        for version, skill in skills.items():
            bot, number = labels[version]
            rows.append(
                LeaderRow(bot, number, version, skill.mu, skill.sigma, **counted.get(version, {}))
            )
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

    def seat_statistics(
        self, game: str, rules: int, tournament_id: int | None = None
    ) -> dict[int, dict[str, Any]]:
        """Bot version -> games, wins, shared_wins, score_sum, forfeits of the recorded
        seats at a game's rules version (of one tournament, or of all).

        What the rating rows' counters hold for all matches, counted afresh.
        """
        with self.read() as s:
            return statistics(s, game, rules, tournament_id)

    def opponents(self, game: str, rules: int) -> list[tuple[int, int]]:
        """Who played where at a game's rules version: (unit, version) for every version
        with a rated seat in a unit, for `rating.pools`: the stored pool links
        (`PoolLink`), one indexed read whose size grows with the tournaments and
        versions, not with the matches.

        A tournament is the unit, not a match: every format's schedule links the bots
        that play in it (a round robin's pairings, a gauntlet's challenger, a ladder's
        groups, recorded in schedule order). A match outside any tournament is linked
        through its lowest rated version (a negative unit: no clash with a tournament).
        """
        query = select_columns(col(PoolLink.unit), col(PoolLink.bot_version_id)).where(
            col(PoolLink.game) == game, col(PoolLink.game_version) == rules
        )
        with self.read() as s:
            return [(int(t), int(v)) for t, v in s.execute(query).all()]

    # ----- seats and matches ----------------------------------------------------------
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

    def seats_of_matches_with(
        self, version_ids: Sequence[int], game: str
    ) -> list[tuple[Match, MatchSeat]]:
        """Every seat of the recorded matches of `game` that one of these versions played,
        with its match, in schedule order (a bot's results by opponent, without reading
        the game's whole seat table)."""
        with self.read() as s:
            theirs = select(col(MatchSeat.match_id)).where(
                col(MatchSeat.bot_version_id).in_(list(version_ids))
            )
            query = (
                select(Match, MatchSeat)
                .join(MatchSeat, col(MatchSeat.match_id) == col(Match.id))
                .where(Match.recorded == True)  # noqa: E712 - SQL comparison
                .where(Match.game == game)
                .where(col(Match.id).in_(theirs))
                .order_by(col(Match.tournament_id), col(Match.number), col(MatchSeat.seat))
            )
            return [(m, seat) for m, seat in s.exec(query).all()]

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

    def matches_played(self, version_ids: Sequence[int]) -> dict[int, int]:
        """Recorded seats per bot version (each match a version played, once per seat)."""
        with self.read() as s:
            rows = s.execute(
                select(col(MatchSeat.bot_version_id), func.count())
                .where(col(MatchSeat.bot_version_id).in_(list(version_ids)))
                .group_by(col(MatchSeat.bot_version_id))
            ).all()
        return {version: int(n) for version, n in rows}

    def match_settings(self, game: str, rules: int) -> list[tuple[dict[str, Any], int]]:
        """The settings of every tournament with rated matches of `game` under `rules`,
        with how many: what the leaderboard says of the time controls it mixes."""
        with self.read() as s:
            rows = s.execute(
                select(col(Tournament.settings), func.count())
                .join(Match, col(Match.tournament_id) == col(Tournament.id))
                .where(
                    Match.game == game,
                    Match.game_version == rules,
                    Match.recorded == True,  # noqa: E712
                    col(Match.status).not_in(VOID),
                )
                .group_by(col(Tournament.id))
            ).all()
        return [(dict(settings or {}), int(n)) for settings, n in rows]

    def seat_statuses(self, tournament_id: int) -> dict[str, int]:
        """Recorded seats of a tournament per status word (ok, crash, timeout, ...: the
        keys of `--json`, plain strings)."""
        with self.read() as s:
            rows = s.execute(
                select(col(MatchSeat.status), func.count())
                .join(Match, col(Match.id) == col(MatchSeat.match_id))
                .where(Match.tournament_id == tournament_id, Match.recorded == True)  # noqa: E712
                .group_by(col(MatchSeat.status))
            ).all()
        return {status.value: int(n) for status, n in rows}

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

    # ----- a bot's forfeits and suspensions ---------------------------------------------
    def forfeits(
        self, name: str, limit: int = 10, suspended: bool = True
    ) -> list[tuple[Match, MatchSeat]]:
        """The most recent forfeits of any version of a bot (without `suspended`: only
        the matches it played, not those skipped because it was suspended)."""
        versions = (
            select_columns(col(BotVersion.id))
            .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
            .where(col(Bot.name) == name)
        )
        left_out = [SeatStatus.OK] if suspended else [SeatStatus.OK, SeatStatus.SUSPENDED]
        with self.read() as s:
            ids = list(s.execute(versions).scalars())
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
                    col(MatchSeat.status) != SeatStatus.OK,
                    col(Match.tournament_id).is_not(None),
                )
                .group_by(col(Match.tournament_id), col(MatchSeat.bot_version_id))
            ).all()
        return {(int(t), int(v)): int(n) for t, v, n in rows}

    def version_seats(
        self, version_id: int, tournament_ids: Sequence[int]
    ) -> list[tuple[int, int, int, MatchStatus | None, SeatStatus, bool]]:
        """One version's recorded seats in some tournaments, in schedule order: (tournament
        id, seat id, match id, match status, seat status, whether the match was skipped
        for a suspension: a seat `suspended`). Plain columns: `seats` loads the few rows
        worth showing."""
        other = aliased(MatchSeat)
        skipped = (
            select_columns(col(other.id))
            .where(col(other.match_id) == col(Match.id), col(other.status) == SeatStatus.SUSPENDED)
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

    # ----- replays ---------------------------------------------------------------------
    def replay(self, match_id: int) -> str | None:
        """The stored replay (JSON text) of one match, if it has one."""
        with self.read() as s:
            row = s.get(MatchReplay, match_id)
            return row.replay if row is not None else None


# ----- reads shared with recording (in its open transaction) ------------------------------
#: A read of stored seats as `counting.count` takes them (`counted_seats`).
CountedSeats = Select[int | None, MatchStatus | None, int, float | None, int | None, SeatStatus]


def counted_seats() -> CountedSeats:
    """The recorded seats as `counting.count` reads them: match id, match status, bot
    version, score, rank, seat status (narrow it with `.where`)."""
    return (
        select_columns(
            col(Match.id),
            col(Match.status),
            col(MatchSeat.bot_version_id),
            col(MatchSeat.score),
            col(MatchSeat.rank),
            col(MatchSeat.status),
        )
        .join(Match, col(Match.id) == col(MatchSeat.match_id))
        .where(col(Match.recorded) == True)  # noqa: E712 - SQL comparison
    )


def statistics(
    s: Session, game: str, rules: int, tournament_id: int | None
) -> dict[int, dict[str, Any]]:
    """`Queries.seat_statistics` in an open session."""
    seats = counted_seats().where(col(Match.game) == game, col(Match.game_version) == rules)
    if tournament_id is not None:
        seats = seats.where(col(Match.tournament_id) == tournament_id)
    # Core rows, not the ORM's: a board over many seats reads them all
    return counting.count(s.connection().execute(seats))


def last_skills(s: Session, tournament_id: int) -> dict[int, Skill]:
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


def prior(
    db: Session | Connection, version: int, game: str, rules: int, inherit: Inherit | None
) -> Skill:
    """Where an unrated version's rating starts, in an open session or connection: its
    bot's newest earlier version's rating at this game and rules version through
    `inherit` (None: not inherited), or the initial rating."""
    if inherit is None:
        return Skill.initial()
    row = db.execute(
        _prior_query(), {"p_version": version, "p_game": game, "p_rules": rules}
    ).first()
    return inherit(Skill(row.mu, row.sigma)) if row is not None else Skill.initial()


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


def _leader_row(*found: Any) -> LeaderRow:
    """A leaderboard row from a read of a rating row's columns (see `Queries._all_time`)."""
    bot, number, version, mu, sigma, games, wins, total, lost, shared = found
    return LeaderRow(
        bot, number, version, mu, sigma, int(games), int(wins), float(total), int(lost), int(shared)
    )
