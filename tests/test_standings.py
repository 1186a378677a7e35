"""Standings (issue 31 items 1, 2, 11): a tournament ranks by its own matches, the
all-time board says which bots never met, and long tables are bounded.

Matches are recorded straight into the store (as the runner records them, rated with
`arena.results.rating.rate` in schedule order), so the results are chosen, not drawn.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.results import rating, reports
from arena.store import MatchRecord, SeatRecord, Skill, Store, default_url
from arena.store.models import Match, Tournament
from arena.submissions.manifest import BUNDLED_BOTS
from tests.helpers import register_unchecked

cli = CliRunner()
GAME = "take-that"


def new_tournament(store: Store, pairs: list[tuple[int, int]], name: str = "t") -> int:
    """A 2-player tournament of these lineups, in this schedule order."""
    found = Tournament(
        name=name,
        game=GAME,
        game_version=1,
        format="round-robin",
        players=2,
        rounds=1,
        seed=1,
        variant={},
        settings={},
    )
    schedule = [
        Match(number=i, game=GAME, game_version=1, seed=i, lineup=list(p))
        for i, p in enumerate(pairs)
    ]
    return store.create_tournament(found, schedule)


def play_all(store: Store, tid: int, winners: list[int]) -> None:
    """Record the tournament's matches in order, `winners[i]` winning match i."""
    for match, winner in zip(store.matches(tid, recorded=False), winners, strict=True):
        ranks = [1 if v == winner else 2 for v in match.lineup]
        seats = [
            SeatRecord(i, v, 10.0 if r == 1 else 0.0, r, "ok")
            for i, (v, r) in enumerate(zip(match.lineup, ranks, strict=True))
        ]

        def rate(before: list[Skill], ranks: list[int] = ranks) -> list[Skill]:
            return rating.rate(GAME, before, ranks)

        store.record(MatchRecord(match.id or 0, "normal", seats), rate)


def bots(store: Store, *names: str) -> list[int]:
    return [store.add_bot_version(n, n[0] * 64, "/x", ["x"], ["*"]).id or 0 for n in names]


def arena(home: Path, *argv: str, width: int = 200):  # type: ignore[no-untyped-def]
    result = cli.invoke(app, ["--home", str(home), *argv], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    return result


def names_in_order(table: str, names: list[str]) -> list[str]:
    """The names as the table's rows list them (the first cell of each row that has one)."""
    found = []
    for line in table.splitlines():
        cells = line.split()
        hit = next((c for c in cells if c in names), None)
        if hit is not None and hit not in found:
            found.append(hit)
    return found


@pytest.fixture
def seeded_event(tmp_path: Path) -> tuple[Path, int]:
    """alpha won 24 of 24 in an earlier tournament; in the event it loses every match,
    delta (new) wins all, gamma beats beta: the event's order is delta, gamma, beta, alpha."""
    store = Store(default_url(tmp_path))
    alpha, beta, gamma, delta = bots(store, "alpha", "beta", "gamma", "delta")
    earlier = [(alpha, beta), (gamma, alpha)] * 12
    play_all(store, new_tournament(store, earlier, "earlier"), [alpha] * 24)
    rivals = [(alpha, beta), (alpha, gamma), (alpha, delta), (beta, gamma), (beta, delta)]
    event_pairs = [*rivals, (gamma, delta)] * 2
    winner = {
        (alpha, beta): beta,
        (alpha, gamma): gamma,
        (alpha, delta): delta,
        (beta, gamma): gamma,
        (beta, delta): delta,
        (gamma, delta): delta,
    }
    event = new_tournament(store, event_pairs, "event")
    play_all(store, event, [winner[p] for p in event_pairs])
    store.close()
    return tmp_path, event


EVENT_ORDER = ["delta", "gamma", "beta", "alpha"]


def test_tournament_standings_rank_by_the_event_not_the_all_time_rating(
    seeded_event: tuple[Path, int],
) -> None:
    home, event = seeded_event
    all_time = json.loads(arena(home, "leaderboard", GAME, "--json").stdout)
    at_rating = {r["bot"]: r["rating"] for r in all_time}
    # the premise: alpha's earlier wins keep it above beta all time, though it lost the event
    assert at_rating["alpha"] > at_rating["beta"]

    shown = json.loads(arena(home, "tournament", "show", str(event), "--json").stdout)
    board = json.loads(
        arena(home, "leaderboard", GAME, "--tournament", str(event), "--json").stdout
    )
    for rows in (shown["standings"], board):
        assert [r["bot"] for r in rows] == EVENT_ORDER
        assert [r["rank"] for r in rows] == [1, 2, 3, 4]
        assert [r["points"] for r in rows] == [6.0, 4.0, 2.0, 0.0]
        assert [r["points_pct"] for r in rows] == [100.0, 66.7, 33.3, 0.0]
        # the event's own rating agrees with its points; the all-time one is beside it
        assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)
        assert {r["bot"]: r["all_time"] for r in rows} == at_rating
    assert shown["ranked_by"] == reports.BY_POINTS
    # tables list the rows in the same order, at 200 and at 80 columns
    for width in (200, 80):
        table = arena(home, "tournament", "show", str(event), width=width).stdout
        assert names_in_order(table.split("head to head")[0], EVENT_ORDER) == EVENT_ORDER
        table = arena(home, "leaderboard", GAME, "--tournament", str(event), width=width).stdout
        assert names_in_order(table, EVENT_ORDER) == EVENT_ORDER
        assert "all time" in table or "all_time" in table


def test_the_events_rating_starts_afresh_in_schedule_order(seeded_event: tuple[Path, int]) -> None:
    """The event's rating is `rating.event_skills` over its matches alone: the same floats
    as rating them in a database that never saw the earlier tournament."""
    home, event = seeded_event
    store = Store(default_url(home))
    rows = reports.leaderboard(store, GAME, event)
    fresh = Store(f"sqlite:///{home / 'fresh.db'}")
    ids = dict(
        zip(
            ["alpha", "beta", "gamma", "delta"],
            bots(fresh, "alpha", "beta", "gamma", "delta"),
            strict=True,
        )
    )
    names = {v: n for v, (n, _k) in store.version_names().items()}
    matches = store.matches(event)
    pairs = [(ids[names[m.lineup[0]]], ids[names[m.lineup[1]]]) for m in matches]
    winners = [
        ids[
            names[
                next(
                    s.bot_version_id
                    for _m, s in store.seat_rows(tournament_id=event)
                    if s.match_id == m.id and s.rank == 1
                )
            ]
        ]
        for m in matches
    ]
    play_all(fresh, new_tournament(fresh, pairs), winners)
    alone = {r["bot"]: (r["mu"], r["sigma"]) for r in reports.leaderboard(fresh, GAME)}
    assert {r["bot"]: (r["mu"], r["sigma"]) for r in rows} == alone


def test_the_all_time_board_shows_pools_that_never_met(tmp_path: Path) -> None:
    store = Store(default_url(tmp_path))
    p1, p2, q1, q2 = bots(store, "pa", "pb", "qa", "qb")
    play_all(store, new_tournament(store, [(p1, p2)] * 6), [p1] * 6)
    play_all(store, new_tournament(store, [(q1, q2)] * 2), [q1] * 2)

    rows = json.loads(arena(tmp_path, "leaderboard", GAME, "--json").stdout)
    by_bot = {r["bot"]: r for r in rows}
    assert {b: (r["pool"], r["rank"]) for b, r in by_bot.items()} == {
        "pa": (1, 1),
        "pb": (1, 2),
        "qa": (2, 1),
        "qb": (2, 2),
    }
    for width in (200, 80):
        table = arena(tmp_path, "leaderboard", GAME, width=width).stdout
        assert "pool 1 of 2: 2 bot versions" in table and "pool 2 of 2: 2 bot versions" in table
        assert "2 pools: bots in different pools never met" in re.sub(r"\s+", " ", table)
        assert all(len(line) <= width for line in table.splitlines())

    # one match between the pools joins them: one board, ranked on one scale
    play_all(store, new_tournament(store, [(p2, q2)]), [q2])
    rows = json.loads(arena(tmp_path, "leaderboard", GAME, "--json").stdout)
    assert {r["pool"] for r in rows} == {1} and [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert "pool" not in arena(tmp_path, "leaderboard", GAME).stdout
    store.close()


def test_pools_are_the_components_of_the_has_played_graph() -> None:
    assert rating.pools([], [3, 1]) == [{1}, {3}]
    assert rating.pools([(5, 1), (2, 3), (1, 4)], [1, 2, 3, 4, 5]) == [{1, 4, 5}, {2, 3}]


@pytest.fixture(scope="module")
def crowd(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real 8-bot Take That round robin (28 pairs): bundled random and first-legal
    under eight names, one deal per pairing. They are stored unchecked: a bundled bot's
    folder under another name is checked like a user's (16 matches each, most of this
    module's time), and tests/test_check.py covers the check."""
    home = tmp_path_factory.mktemp("crowd")
    names = [f"{kind}-{i}" for i in range(4) for kind in ("rnd", "fl")]
    store = Store(default_url(home))
    for name in names:
        register_unchecked(
            store, name, BUNDLED_BOTS / ("random" if name[0] == "r" else "first-legal")
        )
    store.close()
    argv = ["tournament", "run", "--game", GAME, "--bots", ",".join(names), "--deals", "1"]
    arena(home, *argv, "--seed", "3", "--workers", "1", "-q")
    return home


def head_to_head_rows(shown: str) -> list[str]:
    """The head-to-head table's rows: the lines naming two bot versions."""
    part = shown.split("head to head")[1]
    return [line for line in part.splitlines() if len(re.findall(r"\bv1\b", line)) == 2]


def test_a_summary_of_many_bots_shows_the_leaders_pairs_unless_asked_for_all(
    crowd: Path,
) -> None:
    details = json.loads(arena(crowd, "tournament", "show", "1", "--json").stdout)
    assert len(details["head_to_head"]) == 28  # JSON: every pair
    order = [f"{r['bot']} v1" for r in details["standings"]]
    for width in (80, 200):
        shown = arena(crowd, "tournament", "show", "1", width=width).stdout
        rows = head_to_head_rows(shown)
        assert len(rows) == 15  # the pairs among the top 6
        assert not any(order[6] in row or order[7] in row for row in rows)
        assert "--all-pairs shows every pair" in re.sub(r"\s+", " ", shown)
        assert all(len(line) <= width for line in shown.splitlines())
    every = arena(crowd, "tournament", "show", "1", "--all-pairs").stdout
    assert len(head_to_head_rows(every)) == 28 and "--all-pairs shows" not in every
    top = arena(crowd, "tournament", "show", "1", "--top", "3").stdout
    assert len(head_to_head_rows(top)) == 3  # the pairs among the top 3
    standings = top.split("head to head")[0]
    assert names_in_order(standings, [r["bot"] for r in details["standings"]]) == [
        r["bot"] for r in details["standings"][:3]
    ]


def test_top_n_bounds_the_boards(crowd: Path) -> None:
    board = json.loads(arena(crowd, "leaderboard", GAME, "--json", "--top", "3").stdout)
    assert [r["rank"] for r in board] == [1, 2, 3]
    table = arena(crowd, "leaderboard", GAME, "--top", "3").stdout
    assert "the first 3 of 8 rows" in table
    event = json.loads(
        arena(crowd, "leaderboard", GAME, "--tournament", "1", "--top", "2", "--json").stdout
    )
    assert [r["rank"] for r in event] == [1, 2]
    shown = json.loads(arena(crowd, "tournament", "show", "1", "--top", "4", "--json").stdout)
    assert len(shown["standings"]) == 4
    refused = cli.invoke(app, ["--home", str(crowd), "leaderboard", GAME, "--top", "0"])
    assert refused.exit_code == 2 and "Traceback" not in refused.output
