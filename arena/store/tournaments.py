"""Tournaments and their schedules: written whole before play (or batch by batch by a
ladder), looked up, marked as they run, cancelled for good or deleted.

A cancel and a run may race (two commands): the tournament's row is locked by the
writes that decide (`add_matches`, `cancel_tournament`), and a status change never
overwrites a cancel, so no match joins or is recorded in a cancelled schedule.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func, update
from sqlmodel import Session, col, select

from arena.errors import StoreError
from arena.status import TournamentStatus
from arena.store.catalog import Refused
from arena.store.database import Database
from arena.store.models import Match, Tournament, now


class TournamentCancelled(StoreError):
    """A run's tournament was cancelled or deleted by another command: the run stops
    (exit code 1). Its unplayed matches are gone from the schedule already, so nothing
    more could be recorded; this only stops playing them."""


#: The statuses of a tournament that plays no more (cancel refuses them).
_STOPPED = (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)


class Tournaments(Database):
    """Tournaments, their schedules and statuses (see the module)."""

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
            if found is None or found.status is TournamentStatus.CANCELLED:
                done = "deleted" if found is None else "cancelled"
                raise TournamentCancelled(
                    f"tournament {tournament_id} was {done} by another command: run stopped"
                )
            for match in matches:
                match.tournament_id = tournament_id
                s.add(match)
        return self.matches(tournament_id, recorded=False)

    def tournament(self, tournament_id: int) -> Tournament | None:
        """One tournament by id."""
        with self.read() as s:
            return s.get(Tournament, tournament_id)

    def tournaments(self) -> list[Tournament]:
        """Every tournament, newest first."""
        with self.read() as s:
            return list(s.exec(select(Tournament).order_by(col(Tournament.id).desc())).all())

    def set_tournament_status(self, tournament_id: int, status: TournamentStatus) -> None:
        """Mark a tournament running, finished or interrupted; a cancelled one stays so
        (one statement: a cancel committed meanwhile by another command wins)."""
        with self.write() as s:
            s.execute(
                update(Tournament)
                .where(
                    col(Tournament.id) == tournament_id,
                    col(Tournament.status) != TournamentStatus.CANCELLED,
                )
                .values(
                    status=status,
                    finished_at=now() if status is TournamentStatus.FINISHED else None,
                )
            )

    def tournament_status(self, tournament_id: int) -> TournamentStatus | None:
        """A tournament's status; None when it is gone (deleted)."""
        with self.read() as s:
            query = select(col(Tournament.status)).where(Tournament.id == tournament_id)
            return s.exec(query).first()

    def cancel_tournament(self, tournament_id: int) -> tuple[int, int]:
        """Stop a tournament for good; returns (recorded matches kept, unplayed dropped).

        Its unplayed matches are deleted from the schedule (nothing refers to them), so
        that no run, not even one still going, can record them: recording finds them
        gone. Its recorded matches, their ratings and replays stay. Refused for no such
        tournament, or one finished or cancelled already.
        """
        with self.write() as s:
            found = _tournament_for(s, tournament_id)  # locked: see `add_matches`
            if found.status in _STOPPED:
                raise Refused(f"tournament {tournament_id} is {found.status} already")
            dropped = _delete_unplayed(s, tournament_id)
            kept = _match_count(s, tournament_id)
            settings = {**found.settings, "unplayed_when_cancelled": dropped}
            s.execute(
                update(Tournament)
                .where(col(Tournament.id) == tournament_id)
                .values(status=TournamentStatus.CANCELLED, finished_at=now(), settings=settings)
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
                    if found.status in _STOPPED
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

    def match(self, match_id: int) -> Match | None:
        """One match by its database id."""
        with self.read() as s:
            return s.get(Match, match_id)

    def match_at(self, tournament_id: int, number: int) -> Match | None:
        """The match at position `number` of a tournament's schedule (its label
        `t{tournament_id}-m{number}`)."""
        with self.read() as s:
            query = select(Match).where(
                Match.tournament_id == tournament_id, Match.number == number
            )
            return s.exec(query).first()


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
        delete(Match).where(
            col(Match.tournament_id) == tournament_id,
            col(Match.recorded) == False,  # noqa: E712 - SQL comparison
        )
    )
    return int(getattr(result, "rowcount", 0) or 0)  # a CursorResult: DML has a rowcount


def _match_count(s: Session, tournament_id: int) -> int:
    return int(
        s.execute(
            select(func.count()).where(col(Match.tournament_id) == tournament_id)
        ).scalar_one()
    )
