"""What the service's pages hold, with each viewer's share of the private parts.

Everyone sees leaderboards, bots, versions, matches and replays (stored replays are
of finished matches, whose hidden cards are no secret any more). Only a bot's owner
and the organisers see its private output: stderr tails, forfeit details and its
seat's debug text. The rows are those of the local commands (arena.results.reports),
so `arena remote` renders them with the same tables.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import orjson

from arena.games import load_game
from arena.results import reports
from arena.service.auth import Viewer
from arena.service.errors import NotFound
from arena.service.kept import Kept
from arena.store import LeaderRow, Store

#: The keys of a forfeit row and of a seat that only its owner and organisers see.
PRIVATE_KEYS = ("detail", "stderr_tail", "stderr", "debug")
#: Seconds a board is served from memory before it is read again (when something was
#: recorded since: its stamp); a bot's page and the home page's lists, kept.FRESH.
BOARD_FRESH = 0.5
#: What the pages hold (arena.service.kept), for every store the process serves.
KEPT = Kept()


@dataclass(frozen=True)
class Answer:
    """A page as the JSON API sends it: its rows, their JSON, and the JSON's ETag."""

    rows: Any
    body: bytes
    etag: str

    @classmethod
    def of(cls, rows: Any) -> Answer:
        body = orjson.dumps(rows)
        return cls(rows, body, '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"')


@dataclass(frozen=True)
class Board:
    """A board as served, and the store's state it was read from (`board_stamp`)."""

    stamp: tuple[list[LeaderRow], frozenset[int]]
    answer: Answer


@dataclass(frozen=True)
class BotPage:
    """A bot's page whole (its owner's and the organisers') and without its private parts."""

    owner: str | None
    whole: Answer
    public: Answer

    def shown(self, viewer: Viewer) -> Answer:
        return self.whole if viewer.sees(self.owner) else self.public


def _public(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in PRIVATE_KEYS}


def board_stamp(store: Store, game: str, rules: int) -> tuple[list[LeaderRow], frozenset[int]]:
    """What a board is computed from that changes: its rating rows (their counters grow
    with every rated seat, so the pools cannot change without them) and the retired
    versions. Two small reads, against the board's read of every rated seat's pool."""
    return store.leaderboard(game, rules), frozenset(store.retired_versions())


def _board_read(store: Store, game: str, latest: bool, rules: int | None) -> Callable[[Any], Any]:
    current = rules or load_game(game).spec.version

    def read(kept: Board | None) -> Board:
        stamp = board_stamp(store, game, current)  # read first: a record after it is seen next
        if kept is not None and kept.stamp == stamp:
            return kept
        rows = reports.leaderboard(store, game, None, rules, latest=latest)
        return Board(stamp, Answer.of(reports.mark_retired(store, rows)))

    return read


def _board_key(store: Store, game: str, latest: bool, rules: int | None) -> Hashable:
    load_game(game)  # an unknown game: its one-line error
    return ("board", store.url, game, latest, rules)


def board(store: Store, game: str, latest: bool, rules: int | None) -> list[dict[str, Any]]:
    """A game's all-time board, as `arena leaderboard GAME --json` prints it (at most
    BOARD_FRESH seconds old while it is read often; the rows are shared: not to change)."""
    return board_answer(store, game, latest, rules).rows  # type: ignore[no-any-return]


def board_answer(store: Store, game: str, latest: bool, rules: int | None) -> Answer:
    """`board` with its JSON and ETag."""
    key = _board_key(store, game, latest, rules)
    found: Board = KEPT.get(key, _board_read(store, game, latest, rules), BOARD_FRESH)
    return found.answer


async def aboard_answer(store: Store, game: str, latest: bool, rules: int | None) -> Answer:
    """`board_answer` for the event loop."""
    key = _board_key(store, game, latest, rules)
    found: Board = await KEPT.aget(key, _board_read(store, game, latest, rules), BOARD_FRESH)
    return found.answer


def _bot_read(store: Store, name: str) -> Callable[[Any], Any]:
    def read(_kept: BotPage | None) -> BotPage | None:
        details = reports.bot_details(store, name)
        if details is None:
            return None
        public = {
            **details,
            "recent_forfeits": [_public(r) for r in details["recent_forfeits"]],
            "suspensions": [
                {**s, "forfeits": [_public(r) for r in s["forfeits"]]}
                for s in details["suspensions"]
            ],
        }
        return BotPage(details["owner"], Answer.of(details), Answer.of(public))

    return read


def bot_answer(store: Store, viewer: Viewer, name: str) -> Answer:
    """A bot's page (`arena bot show NAME --json`), private parts for its owner only."""
    found: BotPage | None = KEPT.get(("bot", store.url, name), _bot_read(store, name))
    if found is None:
        raise NotFound(f"no bot called {name!r}")
    return found.shown(viewer)


async def abot_answer(store: Store, viewer: Viewer, name: str) -> Answer:
    """`bot_answer` for the event loop."""
    found: BotPage | None = await KEPT.aget(("bot", store.url, name), _bot_read(store, name))
    if found is None:
        raise NotFound(f"no bot called {name!r}")
    return found.shown(viewer)


def bot(store: Store, viewer: Viewer, name: str) -> dict[str, Any]:
    """`bot_answer`'s rows (shared: not to change)."""
    return bot_answer(store, viewer, name).rows  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Shared:
    """Rows as read once for every viewer: whole, without their private parts, and the
    owner of each row's private parts; `shown` is a viewer's share (per request)."""

    whole: list[dict[str, Any]]
    public: list[dict[str, Any]]
    owners: tuple[str | None, ...]

    @classmethod
    def of(cls, rows: list[dict[str, Any]], owners: list[str | None]) -> Shared:
        return cls(rows, [_public(row) for row in rows], tuple(owners))

    def shown(self, viewer: Viewer) -> list[dict[str, Any]]:
        seen = [viewer.sees(owner) for owner in self.owners]
        if not any(seen):
            return self.public
        return [w if s else p for w, p, s in zip(self.whole, self.public, seen, strict=True)]


def _matches_read(store: Store, name: str, limit: int) -> Shared | None:
    owner = store.bot_owner(name)
    if owner is None:
        return None
    numbers = {v.id: v.number for v in store.versions(name=name)}
    rows = []
    for match, seat in store.bot_matches(name, limit):
        rows.append(
            {
                "match": match.id,
                "tournament": match.tournament_id,
                "game": match.game,
                "version": numbers.get(seat.bot_version_id),
                "seat": seat.seat,
                "score": seat.score,
                "rank": seat.rank,
                "status": str(seat.status),
                "match_status": None if match.status is None else str(match.status),
                "recorded": None
                if match.recorded_at is None
                else match.recorded_at.isoformat(timespec="seconds"),
                "detail": seat.detail,
            }
        )
    return Shared.of(rows, [owner] * len(rows))


def matches(store: Store, viewer: Viewer, name: str, limit: int) -> list[dict[str, Any]]:
    """A bot's most recent recorded matches (a row per seat it held), newest first."""
    found = _matches_read(store, name, limit)
    if found is None:
        raise NotFound(f"no bot called {name!r}")
    return found.shown(viewer)


def kept_matches(store: Store, name: str, limit: int) -> Shared:
    """`matches` for every viewer, read at most once a second (a page's: kept.FRESH)."""
    found: Shared | None = KEPT.get(
        ("matches", store.url, name, limit), lambda _kept: _matches_read(store, name, limit)
    )
    if found is None:
        raise NotFound(f"no bot called {name!r}")
    return found


@dataclass(frozen=True)
class MatchPage:
    """One match as read once for every viewer: its rows but the seats, the seats
    (`Shared`), and whether it has a stored replay."""

    head: dict[str, Any]
    seats: Shared
    replay: bool

    def shown(self, viewer: Viewer) -> dict[str, Any]:
        return {**self.head, "seats": self.seats.shown(viewer)}


def _match_read(store: Store, match_id: int) -> MatchPage | None:
    found = store.match(match_id)
    if found is None:
        return None
    owners = store.version_owners(found.lineup)
    labels = {v.id: v for v in store.versions(ids=found.lineup)}
    names = store.bot_names()
    seats, seat_owners = [], []
    for seat in store.match_seats(match_id):
        version = labels.get(seat.bot_version_id)
        seats.append(
            {
                "seat": seat.seat,
                "bot": None if version is None else names.get(version.bot_id),
                "version": None if version is None else version.number,
                "score": seat.score,
                "rank": seat.rank,
                "status": str(seat.status),
                "mu_after": seat.mu_after,
                "sigma_after": seat.sigma_after,
                "detail": seat.detail,
                "stderr_tail": seat.stderr[-reports.STDERR_TAIL :],
            }
        )
        seat_owners.append(owners.get(seat.bot_version_id))
    head = {
        "match": found.id,
        "tournament": found.tournament_id,
        "number": found.number,
        "game": found.game,
        "rules": found.game_version,
        "recorded": found.recorded,
        "status": None if found.status is None else str(found.status),
        "seconds": found.seconds,
    }
    has_replay = found.recorded and store.has_replay(match_id)
    return MatchPage(head, Shared.of(seats, seat_owners), has_replay)


def match(store: Store, viewer: Viewer, match_id: int) -> dict[str, Any]:
    """One match: its game, status and every seat (the private parts of the viewer's own)."""
    found = _match_read(store, match_id)
    if found is None:
        raise NotFound(f"no match {match_id}")
    return found.shown(viewer)


def kept_match(store: Store, match_id: int) -> MatchPage:
    """`match` for every viewer, read at most once a second (a page's: kept.FRESH)."""
    found: MatchPage | None = KEPT.get(
        ("match", store.url, match_id), lambda _kept: _match_read(store, match_id)
    )
    if found is None:
        raise NotFound(f"no match {match_id}")
    return found


def hidden_seats(store: Store, viewer: Viewer, match_id: int) -> frozenset[int]:
    """The seats of a stored match whose private parts (forfeit details, debug text)
    the viewer may not see: what a replay's page is built for (`replay`)."""
    found = store.match(match_id)
    if found is None:
        raise NotFound(f"no match {match_id}")
    owners = store.version_owners(found.lineup)
    return frozenset(
        seat for seat, version in enumerate(found.lineup) if not viewer.sees(owners.get(version))
    )


def replay(store: Store, viewer: Viewer, match_id: int) -> dict[str, Any]:
    """A stored match's replay; a forfeit's detail and a seat's debug text only for the
    seats whose bots the viewer may see."""
    return replay_without(store, match_id, hidden_seats(store, viewer, match_id))


def replay_without(store: Store, match_id: int, hidden: frozenset[int]) -> dict[str, Any]:
    """A stored match's replay without the private parts of the `hidden` seats."""
    from arena import viewer as pages

    data = pages.stored_replay(store, str(match_id))
    for event in data.get("events", []):
        seat = event.get("forfeit", event.get("seat"))
        if seat in hidden:
            event.pop("debug", None)  # optional: a seat that wrote none has none
            if "detail" in event:
                event["detail"] = ""
    return data


def recent(store: Store, key: Hashable, read: Callable[[], Any]) -> Any:
    """`read()`, served from memory (arena.service.kept) under (`key`, the store): what
    a page computes from many rows (a game's head-to-head table, the home page's lists).
    Shared: not to change."""
    return KEPT.get((key, store.url), lambda _kept: read())
