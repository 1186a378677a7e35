"""Head-to-head records with error bars (arena.results.headtohead) and `arena compare`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.results.headtohead import Record, display, elo, pairwise
from arena.store import MatchRecord, SeatRecord, Store, default_url
from arena.store.models import Match, MatchSeat, Tournament

runner = CliRunner()


def test_known_answer_fastchess_elo_wdl() -> None:
    """fastchess app/tests/elo_test.cpp "EloWDL 2" (github.com/Disservin/fastchess, commit
    74deac2): Stats(136 wins, 96 losses, 111 draws) gives score 0.558, Elo 40.70 +/- 30.43
    (fastchess's error is half the width of the Elo interval)."""
    record = Record(wins=136, draws=111, losses=96)
    assert record.games == 343
    assert record.score == pytest.approx(0.558, abs=5e-4)
    assert record.elo == pytest.approx(40.70, abs=0.01)
    low, high = record.elo_interval
    assert (high - low) / 2 == pytest.approx(30.43, abs=0.01)
    # "EloWDL 3": Stats(34, 356, 0): score 0.087
    assert Record(34, 0, 356).score == pytest.approx(0.087, abs=5e-4)


def test_known_answer_by_hand() -> None:
    """W 6, D 2, L 2 by the formulas of the module docstring (those of cutechess-cli and
    fastchess elo_wdl.cpp): s = 7/10, var = (6 (0.3)^2 + 2 (0.2)^2 + 2 (0.7)^2)/10 = 0.16,
    se = sqrt(0.16 / 10) = 0.126491, s +- 1.959964 se = [0.452082, 0.947918],
    Elo -400 log10(1/s - 1): 147.19 [-33.40, 504.03]."""
    record = Record(6, 2, 2)
    assert record.score == pytest.approx(0.7)
    assert record.stderr == pytest.approx(0.126491, abs=1e-6)
    assert record.interval == pytest.approx((0.452082, 0.947918), abs=1e-6)
    assert record.elo == pytest.approx(147.19, abs=0.01)
    assert record.elo_interval == pytest.approx((-33.40, 504.03), abs=0.01)
    assert record.flipped().elo == pytest.approx(-147.19, abs=0.01)


def test_all_wins_and_no_games() -> None:
    """100 %: variance 0, the interval is [1, 1], the Elo +inf (null in JSON, +inf shown)."""
    record = Record(5, 0, 0)
    assert record.interval == (1.0, 1.0)
    assert record.elo == math.inf and record.elo_interval == (math.inf, math.inf)
    data = record.as_dict()
    assert data["elo"] is None and data["elo_low"] is None and data["score"] == 1.0
    shown = display({"bot": "a", "opponent": "b", **data})
    assert shown["elo"] == "+inf [+inf, +inf]" and shown["score"] == "100.0% [100.0, 100.0]"
    lost = display({"bot": "a", "opponent": "b", **Record(0, 0, 3).as_dict()})
    assert lost["elo"] == "-inf [-inf, -inf]"
    assert Record(0, 0, 0).score == 0.5 and Record(0, 0, 0).stderr == 0.0
    assert Record(0, 0, 0).as_dict()["score"] is None
    assert display({"bot": "a", "opponent": "b", **Record(0, 0, 0).as_dict()})["elo"] == ""
    assert elo(0.5) == 0.0
    # an interval clipped at 1: its upper Elo is +inf, its lower one finite
    clipped = display({"bot": "a", "opponent": "b", **Record(9, 0, 1).as_dict()})
    assert clipped["elo"].endswith("+inf]") and "[+" in clipped["elo"]


def _match(match_id: int, status: str = "normal", tournament: int | None = None) -> Match:
    return Match(
        id=match_id,
        tournament_id=tournament,
        number=match_id,
        game="krumme10",
        game_version=1,
        seed=0,
        lineup=[],
        status=status,
    )


def _seats(match: Match, ranks: list[tuple[int, int | None]]) -> list[tuple[Match, MatchSeat]]:
    return [
        (match, MatchSeat(match_id=match.id, seat=i, bot_version_id=v, rank=r, status="ok"))
        for i, (v, r) in enumerate(ranks)
    ]


def test_pairwise_counts_who_finished_ahead_of_whom() -> None:
    """A 3-player match gives each pair one game; void matches and unranked seats none."""
    rows = [
        *_seats(_match(1), [(3, 1), (1, 2), (2, 2)]),  # 3 beats 1 and 2; 1 and 2 draw
        *_seats(_match(2), [(1, 1), (2, 3), (3, 2)]),  # 1 beats 3 beats 2
        *_seats(_match(3, "platform-error"), [(1, 1), (2, 2)]),
        *_seats(_match(4), [(1, None), (2, 1)]),
    ]
    records = pairwise(rows)
    assert records == {
        (1, 2): Record(1, 1, 0),
        (1, 3): Record(1, 0, 1),
        (2, 3): Record(0, 0, 2),
    }
    pooled = pairwise(rows, group=lambda v: 0 if v == 1 else 1)  # 1 against 2 and 3 together
    assert pooled == {(0, 1): Record(2, 1, 1)}


def test_pairwise_skips_teammates() -> None:
    """ABAB teams: only seats of different teams are opponents."""
    rows = _seats(_match(1, tournament=7), [(1, 1), (2, 2), (3, 1), (4, 2)])
    records = pairwise(rows, teams=lambda match, players: (0, 1, 0, 1))
    assert set(records) == {(1, 2), (1, 4), (2, 3), (3, 4)}
    assert records[(1, 2)] == Record(1, 0, 0) and records[(3, 4)] == Record(1, 0, 0)
    assert records[(2, 3)] == Record(0, 0, 1)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home with a 3-player krumme10 tournament of alpha, beta, gamma (current rules),
    and one match of beta against alpha's second version outside any tournament."""
    from arena.games import load_game

    rules = load_game("krumme10").spec.version
    store = Store(default_url(tmp_path))
    a = store.add_bot_version("alpha", "a" * 64, "/a", ["x"], ["*"]).id or 0
    b = store.add_bot_version("beta", "b" * 64, "/b", ["x"], ["*"]).id or 0
    c = store.add_bot_version("gamma", "c" * 64, "/c", ["x"], ["*"]).id or 0

    def tournament(players: int) -> Tournament:
        return Tournament(
            name="t",
            game="krumme10",
            game_version=rules,
            format="round-robin",
            players=players,
            rounds=1,
            seed=1,
            variant={},
            settings={},
        )

    outcomes = [[(a, 1), (b, 2), (c, 3)], [(b, 1), (c, 2), (a, 3)], [(c, 1), (a, 1), (b, 3)]]
    schedule = [
        Match(number=i, game="krumme10", seed=0, lineup=[v for v, _ in o])
        for i, o in enumerate(outcomes)
    ]
    tid = store.create_tournament(tournament(3), schedule)
    for match, outcome in zip(store.matches(tid), outcomes, strict=True):
        seats = [SeatRecord(i, v, 10.0 - r, r, "ok") for i, (v, r) in enumerate(outcome)]
        store.record(MatchRecord(match.id or 0, "normal", seats))
    a2 = store.add_bot_version("alpha", "d" * 64, "/d", ["x"], ["*"]).id or 0
    tid2 = store.create_tournament(
        tournament(2), [Match(number=0, game="krumme10", seed=0, lineup=[b, a2])]
    )
    match = store.matches(tid2)[0]
    seats = [SeatRecord(0, b, 1.0, 2, "ok"), SeatRecord(1, a2, 5.0, 1, "ok")]
    store.record(MatchRecord(match.id or 0, "normal", seats))
    store.close()
    return tmp_path


def test_tournament_table(home: Path) -> None:
    from arena.results.headtohead import table, table_for_tournament

    store = Store(default_url(home))
    rows = table_for_tournament(store, 1)
    pairs = {(r["bot"], r["opponent"]): (r["wins"], r["draws"], r["losses"]) for r in rows}
    # alpha-beta: 1-0, 0-1, 1-0: alpha 2-0-1; alpha-gamma: W, L, D; beta-gamma: W, W, L
    assert pairs == {
        ("alpha v1", "beta v1"): (2, 0, 1),
        ("alpha v1", "gamma v1"): (1, 1, 1),
        ("beta v1", "gamma v1"): (2, 0, 1),
    }
    assert table_for_tournament(store, 99) == []
    everything = table(store, "krumme10")
    assert len(everything) == 4
    assert {"bot": "alpha v2", "opponent": "beta v1", "wins": 1}.items() <= everything[2].items()
    store.close()


def test_compare_newest_or_all_versions(home: Path) -> None:
    base = ["--home", str(home), "compare"]
    newest = runner.invoke(app, [*base, "alpha", "beta", "--game", "krumme10", "--json"])
    assert newest.exit_code == 0, newest.output
    data = json.loads(newest.stdout)
    assert (data["bot"], data["opponent"]) == ("alpha v2", "beta v1")
    assert (data["wins"], data["draws"], data["losses"]) == (1, 0, 0)
    pooled = runner.invoke(
        app, [*base, "alpha", "beta", "-g", "krumme10", "--all-versions", "--json"]
    )
    data = json.loads(pooled.stdout)
    assert (data["wins"], data["draws"], data["losses"]) == (3, 0, 1)
    assert data["score"] == 0.75 and data["elo"] == pytest.approx(190.8, abs=0.1)
    table = runner.invoke(app, [*base, "--game", "krumme10", "--tournament", "1"])
    assert table.exit_code == 0 and "alpha v1" in table.stdout and "gamma v1" in table.stdout
    never = runner.invoke(app, [*base, "beta", "gamma", "--game", "take-that"])
    assert never.exit_code == 0 and "never met" in never.stdout


def test_compare_without_a_game_shows_every_game_they_met_in(home: Path) -> None:
    """Issue 31 item 16: `arena compare A B` needs no --game."""
    base = ["--home", str(home), "compare"]
    every = runner.invoke(app, [*base, "alpha", "beta", "--json"])
    assert every.exit_code == 0, every.output
    rows = json.loads(every.stdout)
    assert [(r["game"], r["bot"], r["opponent"]) for r in rows] == [
        ("krumme10", "alpha v2", "beta v1")
    ]
    table = runner.invoke(app, [*base, "alpha", "beta"], env={"COLUMNS": "200"})
    assert "krumme10" in table.stdout and "alpha v2" in table.stdout
    of_tournament = runner.invoke(app, [*base, "--tournament", "1", "--json"])
    assert {r["game"] for r in json.loads(of_tournament.stdout)} == {"krumme10"}
    never = runner.invoke(app, [*base, "beta", "gamma", "--game", "take-that"])
    assert "never met at take-that" in never.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["alpha", "nobody", "--game", "krumme10"], "no bot 'nobody' is registered"),
        (["alpha", "beta", "--game", "chess"], "unknown game 'chess'"),
        (["alpha", "--game", "krumme10"], "two bots, or none"),
        (["--game", "leylo", "--tournament", "1"], "is a krumme10 tournament"),
    ],
)
def test_compare_bad_input_is_one_line(home: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["--home", str(home), "compare", *args])
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.output


def test_team_layout_comes_from_the_game() -> None:
    from arena.results.headtohead import _team_layout

    assert _team_layout("krumme10", 4, (("teams", True),)) == (0, 1, 0, 1)
    assert _team_layout("krumme10", 4, ()) is None
    assert _team_layout("twirkle", 2, ()) is None
