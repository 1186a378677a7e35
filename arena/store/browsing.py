"""The reads of the service's pages (`arena serve`): a match's seats, a bot's recent
matches, and who owns the versions in a lineup (what an account may see of a seat)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select as select_columns
from sqlmodel import col, select

from arena.store.database import Database
from arena.store.models import Bot, BotVersion, Match, MatchReplay, MatchSeat


class Browsing(Database):
    """Reads for the service's pages (see the module)."""

    def match_seats(self, match_id: int) -> list[MatchSeat]:
        """The recorded seats of one match, in seat order (none before it is recorded)."""
        with self.read() as s:
            query = select(MatchSeat).where(MatchSeat.match_id == match_id)
            return list(s.exec(query.order_by(col(MatchSeat.seat))).all())

    def bot_matches(self, name: str, limit: int = 50) -> list[tuple[Match, MatchSeat]]:
        """The most recent recorded seats of any version of the bot `name`, newest first."""
        with self.read() as s:
            query = (
                select(Match, MatchSeat)
                .join(MatchSeat, col(MatchSeat.match_id) == col(Match.id))
                .join(BotVersion, col(BotVersion.id) == col(MatchSeat.bot_version_id))
                .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
                .where(Bot.name == name, col(Match.recorded) == True)  # noqa: E712 - SQL
                .order_by(col(Match.recorded_at).desc(), col(Match.id).desc())
                .limit(limit)
            )
            return [(m, seat) for m, seat in s.exec(query).all()]

    def recent_matches(self, limit: int) -> list[Match]:
        """The newest recorded matches of every tournament, newest first (one read, where
        merging every bot's `bot_matches` took one a bot)."""
        with self.read() as s:
            query = (
                select(Match)
                .where(col(Match.recorded) == True)  # noqa: E712 - SQL
                .order_by(col(Match.recorded_at).desc(), col(Match.id).desc())
                .limit(limit)
            )
            return list(s.exec(query).all())

    def rating_points(self, name: str, limit: int) -> list[tuple[int, str, int, int, float, float]]:
        """The bot `name`'s newest `limit` rated seats, newest first, as (match id, game,
        rules version, version id, mu after, sigma after): a rating plot's points, read as
        columns (a seat's stderr and the match's row are never loaded)."""
        with self.read() as s:
            query = (
                select_columns(
                    col(Match.id),
                    col(Match.game),
                    col(Match.game_version),
                    col(MatchSeat.bot_version_id),
                    col(MatchSeat.mu_after),
                    col(MatchSeat.sigma_after),
                )
                .join(MatchSeat, col(MatchSeat.match_id) == col(Match.id))
                .join(BotVersion, col(BotVersion.id) == col(MatchSeat.bot_version_id))
                .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
                .where(
                    col(Bot.name) == name,
                    col(Match.recorded) == True,  # noqa: E712 - SQL
                    col(MatchSeat.mu_after).is_not(None),
                    col(MatchSeat.sigma_after).is_not(None),
                )
                .order_by(col(Match.recorded_at).desc(), col(Match.id).desc())
                .limit(limit)
            )
            return [
                (int(m), str(g), int(r), int(v), float(mu), float(sigma))
                for m, g, r, v, mu, sigma in s.execute(query).all()
            ]

    def has_replay(self, match_id: int) -> bool:
        """Whether a match has a stored replay (its text is not read)."""
        with self.read() as s:
            query = select_columns(col(MatchReplay.match_id)).where(
                col(MatchReplay.match_id) == match_id
            )
            return s.execute(query).first() is not None

    def version_owners(self, version_ids: Sequence[int]) -> dict[int, str]:
        """Bot version id -> the owner of its bot."""
        with self.read() as s:
            rows = s.execute(
                select_columns(col(BotVersion.id), col(Bot.owner))
                .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
                .where(col(BotVersion.id).in_(list(version_ids)))
            ).all()
        return {int(v): str(owner) for v, owner in rows}
