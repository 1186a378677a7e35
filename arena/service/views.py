"""What the service's pages hold, with each viewer's share of the private parts.

Everyone sees leaderboards, bots, versions, matches and replays (stored replays are
of finished matches, whose hidden cards are no secret any more). Only a bot's owner
and the organisers see its private output: stderr tails, forfeit details and its
seat's debug text. The rows are those of the local commands (arena.results.reports),
so `arena remote` renders them with the same tables.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any

from arena.games import load_game
from arena.results import reports
from arena.service.auth import Viewer
from arena.service.errors import NotFound
from arena.store import Store

#: The keys of a forfeit row and of a seat that only its owner and organisers see.
PRIVATE_KEYS = ("detail", "stderr_tail", "stderr", "debug")
#: Seconds a board or a bot's page is served from memory before it is read again: a
#: hundred readers then cost the database one read a second, not a hundred (a page is
#: at most this old; what a viewer may see of it is decided on every request).
FRESH = 1.0


class _Recent:
    """What was read less than FRESH seconds ago, by key (a miss, None, is not kept).

    While one request reads a key again, the others are served what was read before
    (a little older than FRESH) instead of all reading it at once: a read that takes
    longer than FRESH (a game's whole head-to-head table) is then made by one request
    at a time, not by every reader of the page."""

    def __init__(self) -> None:
        self._found: dict[Hashable, tuple[float, Any]] = {}
        self._reading: set[Hashable] = set()
        self._lock = threading.Lock()

    def get(self, key: Hashable, read: Callable[[], Any]) -> Any:
        now = time.monotonic()
        with self._lock:
            kept = self._found.get(key)
            busy = key in self._reading
            if kept is None or (now - kept[0] >= FRESH and not busy):
                self._reading.add(key)
                kept_now = None
            else:
                kept_now = kept
        if kept_now is not None:
            return copy.deepcopy(kept_now[1])  # the caller may filter it: the kept one stays whole
        try:
            value = read()
        finally:
            with self._lock:
                self._reading.discard(key)
        if value is not None:
            with self._lock:
                if len(self._found) > 10_000:  # names asked for at random: start again
                    self._found.clear()
                self._found[key] = (now, value)
        return copy.deepcopy(value)


_RECENT = _Recent()


def _public(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in PRIVATE_KEYS}


def board(store: Store, game: str, latest: bool, rules: int | None) -> list[dict[str, Any]]:
    """A game's all-time board, as `arena leaderboard GAME --json` prints it."""
    load_game(game)  # an unknown game: its one-line error

    def read() -> list[dict[str, Any]]:
        rows = reports.leaderboard(store, game, None, rules, latest=latest)
        return reports.mark_retired(store, rows)

    found: list[dict[str, Any]] = _RECENT.get(("board", store.url, game, latest, rules), read)
    return found


def bot(store: Store, viewer: Viewer, name: str) -> dict[str, Any]:
    """A bot's page (`arena bot show NAME --json`), private parts for its owner only."""
    details: dict[str, Any] | None = _RECENT.get(
        ("bot", store.url, name), lambda: reports.bot_details(store, name)
    )
    if details is None:
        raise NotFound(f"no bot called {name!r}")
    if viewer.sees(details["owner"]):
        return details
    details["recent_forfeits"] = [_public(r) for r in details["recent_forfeits"]]
    for suspension in details["suspensions"]:
        suspension["forfeits"] = [_public(r) for r in suspension["forfeits"]]
    return details


def matches(store: Store, viewer: Viewer, name: str, limit: int) -> list[dict[str, Any]]:
    """A bot's most recent recorded matches (a row per seat it held), newest first."""
    owner = store.bot_owner(name)
    if owner is None:
        raise NotFound(f"no bot called {name!r}")
    numbers = {v.id: v.number for v in store.versions(name=name)}
    rows = []
    for match, seat in store.bot_matches(name, limit):
        row = {
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
        rows.append(row if viewer.sees(owner) else _public(row))
    return rows


def match(store: Store, viewer: Viewer, match_id: int) -> dict[str, Any]:
    """One match: its game, status and every seat (the private parts of the viewer's own)."""
    found = store.match(match_id)
    if found is None:
        raise NotFound(f"no match {match_id}")
    owners = store.version_owners(found.lineup)
    labels = {v.id: v for v in store.versions(ids=found.lineup)}
    names = store.bot_names()
    seats = []
    for seat in store.match_seats(match_id):
        version = labels.get(seat.bot_version_id)
        row = {
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
        seats.append(row if viewer.sees(owners.get(seat.bot_version_id)) else _public(row))
    return {
        "match": found.id,
        "tournament": found.tournament_id,
        "number": found.number,
        "game": found.game,
        "rules": found.game_version,
        "recorded": found.recorded,
        "status": None if found.status is None else str(found.status),
        "seconds": found.seconds,
        "seats": seats,
    }


def replay(store: Store, viewer: Viewer, match_id: int) -> dict[str, Any]:
    """A stored match's replay; a forfeit's detail and a seat's debug text only for the
    seats whose bots the viewer may see."""
    from arena import viewer as pages

    found = store.match(match_id)
    if found is None:
        raise NotFound(f"no match {match_id}")
    data = pages.stored_replay(store, str(match_id))
    owners = store.version_owners(found.lineup)
    hidden = {
        seat for seat, version in enumerate(found.lineup) if not viewer.sees(owners.get(version))
    }
    for event in data.get("events", []):
        seat = event.get("forfeit", event.get("seat"))
        if seat in hidden:
            event.pop("debug", None)  # optional: a seat that wrote none has none
            if "detail" in event:
                event["detail"] = ""
    return data


def recent(store: Store, key: Hashable, read: Callable[[], Any]) -> Any:
    """`read()`, served from memory for FRESH seconds under (`key`, the store): what a
    page computes from many rows (a game's head-to-head table, the home page's lists)."""
    return _RECENT.get((key, store.url), read)
