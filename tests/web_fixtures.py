"""A store for the web pages' tests: the service's fixtures (tests/service_fixtures.py:
alice's and bob's bots, a recorded match with private output and a replay) and a bot
whose name, forfeit detail, stderr and void match's reason are hostile text."""

from __future__ import annotations

import orjson

from arena.results import rating
from arena.status import TournamentStatus
from arena.store import MatchRecord, SeatRecord, Store
from arena.store.models import Match, Tournament
from tests.service_fixtures import populate, replay_of

#: Markup, the end of a script, an event handler, ANSI, bidi overrides, a NUL and a
#: zero-width space: none of it may run or steer the page.
HOSTILE = (
    '<b>x</b></script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">'
    "\x1b[31m\u202eevil\u202c\x00\u200b"
)
HOSTILE_DETAIL = '<svg onload="window.pwned=3">\x1b[2J\u202edetail'
HOSTILE_STDERR = "line 1\n<script>window.pwned=4</script>\x1b[31mred\u2066\x07"
HOSTILE_VOID = '<iframe src="javascript:window.pwned=5"></iframe>\u202ewhy'


def populate_web(store: Store) -> dict[str, object]:
    """The service's fixtures, then a hostile bot that beat bob in a second tournament
    (with a hostile detail and stderr) and a void match with a hostile reason; what the
    tests look up: the tokens and the matches' and tournaments' ids."""
    tokens, match_id = populate(store)
    hostile = store.add_bot_version(HOSTILE, "c" * 64, "/nowhere/c", ["x"], ["*"], "account:eve")
    bob = store.latest_version("bobs")
    assert bob is not None
    lineup = [hostile.id or 0, bob.id or 0]
    matches = [
        Match(number=n, game="take-that", game_version=1, seed=n + 5, lineup=lineup)
        for n in range(2)
    ]
    tid = store.create_tournament(
        Tournament(
            name=f"cup {HOSTILE}", game="take-that", game_version=1, format="round-robin",
            players=2, rounds=1, seed=2, variant={}, settings={},
        ),
        matches,
    )  # fmt: skip
    played, void = (m.id or 0 for m in store.matches(tid))
    replay = orjson.dumps(replay_of(played, [f"{HOSTILE} v1", "bobs v1"])).decode()
    seats = [
        SeatRecord(0, lineup[0], 1.0, 1, "ok", HOSTILE_DETAIL, HOSTILE_STDERR),
        SeatRecord(1, lineup[1], 0.0, 2, "crash", "bob crashed", "bob-stderr"),
    ]
    store.record(
        MatchRecord(played, "forfeit", seats, replay=replay),
        lambda skills: rating.rate("take-that", skills, [1, 2]),
    )
    store.record(MatchRecord(void, "platform-error", [], error=HOSTILE_VOID))
    first = store.match(match_id)
    assert first is not None
    return {
        "tokens": tokens,
        "match": match_id,
        "hostile_match": played,
        "void_match": void,
        "tournament": store.matches(tid)[0].tournament_id,
        "first_tournament": first.tournament_id,
    }


def populate_with_a_match_in_play(store: Store) -> tuple[dict[str, object], Match]:
    """`populate_web`'s store with one more match of its first tournament, not played
    yet, and that tournament running: a match the live pages can show as in play."""
    ids = populate_web(store)
    tid = ids["first_tournament"]
    assert isinstance(tid, int)
    first = store.matches(tid)[0]
    (unplayed,) = store.add_matches(
        tid, [Match(number=1, game="take-that", game_version=1, seed=9, lineup=first.lineup)]
    )
    store.set_tournament_status(tid, TournamentStatus.RUNNING)
    assert unplayed.id is not None and not unplayed.recorded
    return ids, unplayed
