"""The catalog: bots, their versions and owners; retiring and removing them.

A bot is a name its owner registered; its code lives in immutable, numbered
versions (content-addressed: the same folder twice is one version). A retired bot
or version plays in no new tournament and keeps its history; only a bot that nothing
refers to (no seat, rating, schedule or ladder pool) may be removed.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func
from sqlalchemy import select as select_columns
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from arena import ArenaError
from arena.errors import StoreError
from arena.store.database import Database
from arena.store.models import Bot, BotVersion, Match, MatchSeat, Rating, Tournament, now
from arena.submissions import names


class NotOwnerError(ArenaError, ValueError):
    """A new version of a bot that belongs to another owner (a one-line reason)."""


class Refused(ArenaError, ValueError):
    """A retirement, removal, cancellation or deletion that cannot be done (one line why)."""


class VersionConflict(StoreError):
    """A new version that lost a race: another command stored the same bot, the same
    contents or the same version number at the same moment (a unique constraint). Looking
    again finds what that command stored; trying again numbers after it."""


class Catalog(Database):
    """Bots, versions and owners (see the module)."""

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
        exists and belongs to someone else (checked in the same transaction), and
        VersionConflict when another command stored this bot or version meanwhile.
        """
        owner = owner if owner is not None else names.current_user()
        try:
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
        except IntegrityError:
            raise VersionConflict(
                f"bot {name!r}: another command stored it at the same moment"
            ) from None

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
        bots = self.bot_names()
        return {v.id or 0: (bots[v.bot_id], v.number) for v in self.versions()}

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
        select_columns(col(Match.tournament_id), col(Match.lineup)).where(
            col(Match.recorded) == False  # noqa: E712 - SQL comparison
        )
    ):
        if versions & set(lineup):
            return f"is in the schedule of tournament {tournament_id}"
    for tournament in s.exec(select(Tournament)).all():
        if versions & {int(v) for v in tournament.settings.get("versions", [])}:
            return f"is in the pool of tournament {tournament.id}"
    return ""
