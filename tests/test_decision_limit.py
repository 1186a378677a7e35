"""A game that runs past its decision limit is void (decision-limit), not a crash of arena.

A game's `max_decisions` bounds every legal game, so passing it is the referee's bug:
the match is void and never rated, the seats keep their statuses, and the replay up
to there is kept. Here Take That's bound is cut to a few decisions.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena import viewer
from arena.cli import app
from arena.errors import ReplayError
from arena.games.take_that import TakeThat
from arena.match import replay as replays
from arena.match import seeds
from arena.match.run import BotRef, MatchSpec, run_match
from arena.results import reports
from arena.status import MatchStatus, SeatStatus
from arena.store import Store, default_url
from arena.tournament import runner
from arena.tournament.config import TournamentConfig
from tests.helpers import bot_ref_for

#: Every test here plays matches (bots in processes, the CLI).
pytestmark = pytest.mark.slow
LIMIT = 5
cli = CliRunner()


@pytest.fixture
def short_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """Take That with a bound its games always pass."""
    monkeypatch.setattr(TakeThat, "spec", replace(TakeThat.spec, max_decisions=LIMIT))


def spec(*seats: BotRef) -> MatchSpec:
    return MatchSpec(
        match_id="limit-1",
        game="take-that",
        seed=1,
        seats=seats,
        decision_timeout=2.0,
        keys=seeds.derive(b"limit" * 8, 1, "limit", len(seats)),
    )


def decisions(replay: dict[str, object]) -> int:
    return sum("seat" in event for event in replay["events"])  # type: ignore[attr-defined]


def test_a_match_past_the_limit_is_void_with_its_replay_kept(short_game: None) -> None:
    result = run_match(spec(bot_ref_for("polite"), bot_ref_for("polite")))
    assert result.status is MatchStatus.DECISION_LIMIT and result.status.void
    assert result.error == f"take-that ran past {LIMIT} decisions (its max_decisions)"
    assert [(s.score, s.rank, s.status) for s in result.seats] == [(None, None, SeatStatus.OK)] * 2
    assert sum(s.decisions for s in result.seats) == LIMIT + 1
    replay = result.replay
    assert replay is not None and decisions(replay) == LIMIT + 1
    assert replay["outcome"] == {
        "scores": [None, None],
        "ranks": [None, None],
        "status": ["ok", "ok"],
        "void": "decision-limit",
    }
    data = replays.parse(replays.dumps(replay), "limit.json")  # the schema takes it
    lines = list(replays.lines(data))
    assert len([line for line in lines if "<polite" in line]) == LIMIT + 1
    with pytest.raises(
        ReplayError, match=f"void match \\(decision-limit\\): take-that runs past {LIMIT}"
    ):
        replays.verify(data)
    assert viewer.page_data(data)["meta"]["result"] == []  # steps through it, names no winner


def test_a_seat_forfeited_before_the_limit_keeps_its_status(short_game: None) -> None:
    result = run_match(spec(bot_ref_for("crash_at_start"), bot_ref_for("polite")))
    assert result.status is MatchStatus.DECISION_LIMIT
    assert [s.status for s in result.seats] == [SeatStatus.CRASH, SeatStatus.OK]
    assert result.seats[0].detail.startswith("at start:")
    assert result.replay is not None
    assert result.replay["outcome"]["status"] == ["crash", "ok"]
    assert result.replay["events"][0]["forfeit"] == 0


def test_a_replay_that_claims_the_limit_without_passing_it_is_refused(
    short_game: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run_match(spec(bot_ref_for("polite"), bot_ref_for("polite")))
    assert result.replay is not None
    monkeypatch.setattr(TakeThat, "spec", replace(TakeThat.spec, max_decisions=LIMIT + 1))
    with pytest.raises(ReplayError, match=f"says decision-limit, but has {LIMIT + 1} decisions"):
        replays.verify(result.replay)


def test_a_void_replay_without_its_reason_or_with_scores_is_not_a_replay(
    short_game: None,
) -> None:
    result = run_match(spec(bot_ref_for("polite"), bot_ref_for("polite")))
    assert result.replay is not None
    scored = json.loads(replays.dumps(result.replay))
    scored["outcome"]["scores"] = [1, 2]
    with pytest.raises(ReplayError, match="outcome/scores/0"):
        replays.parse(json.dumps(scored).encode(), "scored.json")
    unexplained = json.loads(replays.dumps(result.replay))
    del unexplained["outcome"]["void"]
    with pytest.raises(ReplayError, match="outcome/scores/0"):
        replays.parse(json.dumps(unexplained).encode(), "unexplained.json")


def test_arena_play_says_void_writes_the_replay_and_exits_1(
    short_game: None, tmp_path: Path
) -> None:
    file = tmp_path / "limit.json"
    played = cli.invoke(app, ["play", "take-that", "random", "random", "--replay", str(file)])
    assert played.exit_code == 1, played.output
    assert f"decision-limit, match void: take-that ran past {LIMIT} decisions" in played.stdout
    shown = cli.invoke(app, ["replay", "show", str(file)])
    assert shown.exit_code == 0, shown.output
    assert "void match (decision-limit): no scores or ranks, never rated" in shown.stdout
    assert "seat 0 (random): ok" in shown.stdout
    verified = cli.invoke(app, ["replay", "verify", str(file), "--json"])
    assert verified.exit_code == 2
    assert json.loads(verified.stdout)["ok"] is False
    as_json = cli.invoke(app, ["play", "take-that", "random", "random", "--json"])
    assert as_json.exit_code == 1
    assert json.loads(as_json.stdout)["status"] == "decision-limit"


def test_a_tournament_records_it_unrated_under_its_own_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(default_url(tmp_path))
    settings = TournamentConfig(
        game="take-that", bots=("random", "first-legal"), rounds=1, seed=3, decision_timeout=2.0
    )
    tid = runner.create(store, tmp_path, settings)  # the bots' checks play the real game
    monkeypatch.setattr(TakeThat, "spec", replace(TakeThat.spec, max_decisions=LIMIT))
    runner.run(store, tid, workers=1)
    matches = store.matches(tid)
    assert [m.status for m in matches] == ["decision-limit"] * 2
    seats = [seat for _match, seat in store.seat_rows(tournament_id=tid)]
    assert all(s.status == "ok" and s.score is None and s.rank is None for s in seats)
    assert all(s.mu_before is None and s.mu_after is None for s in seats)  # never rated
    board = reports.leaderboard(store, "take-that", tid)
    assert all(row["games"] == 0 and row["forfeits"] == 0 for row in board)
    store.close()

    home = ["--home", str(tmp_path)]
    listed = cli.invoke(app, [*home, "tournament", "show", str(tid), "--matches", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    assert [row["status"] for row in rows] == ["decision-limit"] * 2
    table = cli.invoke(app, [*home, "tournament", "show", str(tid), "--matches"])
    assert table.stdout.count("decision-limit") == 2
    summary = json.loads(cli.invoke(app, [*home, "tournament", "show", str(tid), "--json"]).stdout)
    assert summary["platform_errors"] == 2  # void matches, each with its reason
    assert {v["reason"] for v in summary["void_matches"]} == {
        f"take-that ran past {LIMIT} decisions (its max_decisions)"
    }
    shown = cli.invoke(app, [*home, "replay", "show", "--match", rows[0]["match"]])
    assert shown.exit_code == 0, shown.output
    assert "void match (decision-limit)" in shown.stdout
