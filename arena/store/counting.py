"""The leaderboard's counting rule, written once: what a recorded seat adds to its bot
version's games, wins, shared wins, score sum and forfeits.

A seat is a game unless its match was void (arena.status.VOID) or it has no score; a
game ranked 1 is a win, a shared one when another seat of the match is ranked 1 too
and none 2 (`shared_first`); every seat not `ok` is a forfeit, void match or not.

Recording adds each match's counts to the rating rows in the transaction that stores
it (arena.store.recording); the tournament boards, a version's first rating row and
`Store.seat_statistics` count stored seats with the same function (`count`), so the
running counters and a count afresh cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from arena.status import MatchStatus, SeatStatus

#: The counters, in the order `Store.seat_statistics` gives them.
COUNTERS = ("games", "wins", "shared_wins", "score_sum", "forfeits")

#: One seat as the rule reads it: bot version, score, rank, status.
Seat = tuple[int, float | None, int | None, SeatStatus]


def zero() -> dict[str, Any]:
    """Counters of nothing counted."""
    return {"games": 0, "wins": 0, "shared_wins": 0, "score_sum": 0.0, "forfeits": 0}


def shared_first(ranks: Sequence[int | None]) -> bool:
    """True when a match's first place is shared: two or more seats ranked 1, none 2.

    Ranks are 1 + the rivals ahead (in team games: the teams ahead), so a lone
    winner, or a lone winning team, leaves a runner-up ranked 2. (Team matches of
    earlier arenas, ranked by seats, 1 3 1 3, count as shared.)

    >>> shared_first([1, 1, 3]), shared_first([1, 2, 1, 2]), shared_first([1, 2])
    (True, False, False)
    """
    return sum(1 for r in ranks if r == 1) > 1 and 2 not in ranks


def tally(void: bool, seats: Sequence[Seat], into: dict[int, dict[str, Any]]) -> None:
    """Add one match's seats to each version's counters in `into` (made on first use; a
    version seated twice counts both seats). `void`: the match was void."""
    shared = shared_first([rank for _version, _score, rank, _status in seats])
    for version, score, rank, status in seats:
        counts = into.get(version)
        if counts is None:
            counts = into[version] = zero()
        if not void and score is not None:
            counts["games"] += 1
            counts["wins"] += rank == 1
            counts["shared_wins"] += rank == 1 and shared
            counts["score_sum"] += score
        counts["forfeits"] += status is not SeatStatus.OK


def count(rows: Iterable[Sequence[Any]]) -> dict[int, dict[str, Any]]:
    """The counters of stored seats, in any order: rows of (match id, match status,
    version, score, rank, seat status), as `queries.counted_seats` reads them (for
    `Store.seat_statistics`, a tournament's board, a version's first rating row)."""
    matches: dict[int, tuple[MatchStatus | None, list[Seat]]] = {}
    for match, status, version, score, rank, seat_status in rows:
        found = matches.get(match)
        if found is None:
            found = matches[match] = (status, [])
        found[1].append((version, score, rank, seat_status))
    totals: dict[int, dict[str, Any]] = {}
    for status, seats in matches.values():
        tally(status is not None and status.void, seats, totals)
    return totals
