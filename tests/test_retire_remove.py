"""Retiring and removing bots, cancelling and deleting tournaments (issue 31 item 15).

Every command on SQLite and PostgreSQL: what it keeps (seats, ratings, replays, a
stored folder another bot's version uses), what it refuses (one line, exit 2) and what
no longer happens (a retired bot in a new tournament or an `--all` ladder, a cancelled
tournament's unplayed matches, even from a run still going).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from arena.cli import app
from arena.store import MatchRecord, SeatRecord, Skill, Store, TournamentCancelled
from arena.store.models import Match, Tournament
from arena.submissions.manifest import build_stamp
from arena.tournament import ladder, runner
from arena.tournament.config import ConfigError, TournamentConfig
from arena.tournament.execution import ExecutorLost
from tests.databases import BACKENDS, database_url

ROOT = Path(__file__).resolve().parents[1]
POLITE = str(ROOT / "tests" / "bots" / "polite")


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database_url(request.param, tmp_path) as found:
        yield found


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def store(url: str, home: Path) -> Iterator[Store]:
    db = Store(url)
    yield db
    db.close()


def arena(home: Path, url: str, *args: str) -> Any:
    """`arena ARGS` in this process, with this home and database."""
    result = CliRunner().invoke(
        app, ["--home", str(home), "--db", url, *args], env={"COLUMNS": "200"}
    )
    assert "Traceback" not in result.output
    return result


def refused(result: Any) -> str:
    """The one error line of a refused command (exit code 2)."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


def stored(home: Path, name: str, sha: str, store: Store, owner: str | None = None) -> int:
    """A version of `name` stored as a submission stores it: `<home>/bots/<sha>`, with
    a build stamp beside it; its id."""
    folder = home / "bots" / sha
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(f'name = "{name}"\n')
    build_stamp(folder).write_text("{}")
    version = store.add_bot_version(name, sha, str(folder), ["x"], ["*"], owner)
    return version.id or 0


def schedule(store: Store, lineups: list[list[int]], status: str = "scheduled") -> int:
    tournament = Tournament(
        name="t",
        game="take-that",
        game_version=1,
        format="round-robin",
        players=2,
        rounds=1,
        seed=1,
        variant={},
        settings={},
        status=status,
    )
    matches = [
        Match(number=n, game="take-that", seed=n, lineup=seats) for n, seats in enumerate(lineups)
    ]
    return store.create_tournament(tournament, matches)


def play_first(store: Store, tid: int) -> int:
    """Record (and rate) the first unplayed match of a tournament, seat 0 winning."""
    match = store.matches(tid, recorded=False)[0]
    a, b = match.lineup
    seats = [SeatRecord(0, a, 1, 1, "ok"), SeatRecord(1, b, 0, 2, "ok")]
    from arena.results import rating

    def rate(before: list[Skill]) -> list[Skill]:
        return rating.rate("take-that", before, [1, 2], None)

    store.record(MatchRecord(match.id or 0, "normal", seats, replay='{"turns": []}'), rate)
    return match.id or 0


def history(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every row that results are made of."""
    with store.reader.connect() as db:
        return {
            table: [tuple(row) for row in db.execute(text(f"SELECT * FROM {table} ORDER BY 1"))]
            for table in ("matchseat", "rating", "matchreplay")
        }


@pytest.fixture
def played(store: Store, home: Path) -> dict[str, int]:
    """alpha (two versions) played beta once (a recorded, rated match with a replay);
    gamma never played."""
    ids = {
        "alpha1": stored(home, "alpha", "a" * 64, store),
        "beta": stored(home, "beta", "b" * 64, store),
        "gamma": stored(home, "gamma", "c" * 64, store),
    }
    ids["tournament"] = schedule(store, [[ids["alpha1"], ids["beta"]]])
    ids["match"] = play_first(store, ids["tournament"])
    store.set_tournament_status(ids["tournament"], "finished")
    ids["alpha2"] = stored(home, "alpha", "d" * 64, store)
    return ids


def new_tournament(store: Store, home: Path, *bots: str) -> int:
    return runner.create(store, home, TournamentConfig(game="take-that", bots=bots, seed=1))


# ----- retire and reinstate -------------------------------------------------------
def test_a_retired_bot_keeps_its_history_and_plays_in_no_new_tournament(
    store: Store, url: str, home: Path, played: dict[str, int]
) -> None:
    before = history(store)
    result = arena(home, url, "bot", "retire", "alpha")
    assert result.exit_code == 0 and "retired alpha" in result.stdout
    assert history(store) == before  # seats, ratings, replays: all there
    assert store.replay(played["match"]) == '{"turns": []}'

    line = refused(
        arena(home, url, "tournament", "run", "--game", "take-that", "--bots", "alpha,beta")
    )
    assert "alpha" in line and "retired" in line and "arena bot reinstate alpha" in line
    with pytest.raises(ConfigError, match="retired"):
        new_tournament(store, home, "beta", "alpha")
    assert "alpha" not in ladder.every_bot(store, "take-that")
    assert {"beta", "gamma"} <= set(ladder.every_bot(store, "take-that"))

    board = json.loads(arena(home, url, "leaderboard", "take-that", "--json").stdout)
    assert {(r["bot"], r["retired"]) for r in board} == {("alpha", True), ("beta", False)}
    latest = json.loads(arena(home, url, "leaderboard", "take-that", "--latest", "--json").stdout)
    assert [r["bot"] for r in latest] == ["beta"]  # out of the field
    assert "alpha (retired)" in arena(home, url, "leaderboard", "take-that").stdout
    listed = json.loads(arena(home, url, "bot", "list", "--json").stdout)
    assert {r["bot"]: r["status"] for r in listed}["alpha"] == "retired"
    shown = json.loads(arena(home, url, "bot", "show", "alpha", "--json").stdout)
    assert shown["retired"] and {v["status"] for v in shown["versions"]} == {"retired"}
    assert "retired: plays in no new tournament" in arena(home, url, "bot", "show", "alpha").stdout

    again = arena(home, url, "bot", "retire", "alpha")
    assert again.exit_code == 0 and "retired already" in again.stdout
    assert arena(home, url, "bot", "reinstate", "alpha").exit_code == 0
    tid = new_tournament(store, home, "beta", "alpha")
    assert played["alpha2"] in {v for m in store.matches(tid) for v in m.lineup}
    assert history(store) == before


def test_a_retired_version_steps_aside_for_the_newest_one_not_retired(
    store: Store, url: str, home: Path, played: dict[str, int]
) -> None:
    assert arena(home, url, "bot", "retire", "alpha", "--version", "2").exit_code == 0
    tid = new_tournament(store, home, "alpha", "beta")
    assert played["alpha1"] in store.matches(tid)[0].lineup  # version 1 plays again
    assert played["alpha2"] not in {v for m in store.matches(tid) for v in m.lineup}
    latest = json.loads(arena(home, url, "leaderboard", "take-that", "--latest", "--json").stdout)
    assert {(r["bot"], r["version"]) for r in latest} == {("alpha", 1), ("beta", 1)}
    shown = json.loads(arena(home, url, "bot", "show", "alpha", "--json").stdout)
    assert [v["status"] for v in shown["versions"]] == ["active", "retired"]
    assert not shown["retired"]

    assert arena(home, url, "bot", "retire", "alpha", "--version", "1").exit_code == 0
    line = refused(
        arena(home, url, "tournament", "run", "--game", "take-that", "--bots", "alpha,beta")
    )
    assert "version 2" in line and "retired" in line  # every version is: the newest is named
    assert "alpha" not in ladder.every_bot(store, "take-that")


def test_only_the_owner_retires_or_removes_a_bot_and_bad_input_is_one_line(
    store: Store, url: str, home: Path
) -> None:
    stored(home, "olgas", "e" * 64, store, owner="olga")
    for command in (["retire", "olgas"], ["reinstate", "olgas"], ["remove", "olgas"]):
        assert "belongs to 'olga'" in refused(arena(home, url, "bot", *command))
    assert store.retired_versions() == set() and store.bot_owner("olgas") == "olga"
    assert (home / "bots" / ("e" * 64)).is_dir()
    assert "no bot called 'nobody'" in refused(arena(home, url, "bot", "retire", "nobody"))
    assert "no bot called 'nobody'" in refused(arena(home, url, "bot", "remove", "nobody"))
    stored(home, "mine", "f" * 64, store)
    assert "no version 7" in refused(arena(home, url, "bot", "retire", "mine", "--version", "7"))
    refused(arena(home, url, "bot", "retire", "mine", "--version", "0"))
    refused(arena(home, url, "bot", "retire", "mine", "--version", "abc"))
    refused(arena(home, url, "bot", "retire"))


# ----- remove ----------------------------------------------------------------------
def test_a_bot_that_played_is_never_removed_and_the_refusal_points_to_retire(
    store: Store, url: str, home: Path, played: dict[str, int]
) -> None:
    before = history(store)
    line = refused(arena(home, url, "bot", "remove", "alpha"))
    assert "has played recorded matches" in line and "arena bot retire alpha" in line
    assert history(store) == before
    assert [v.number for v in store.versions(name="alpha")] == [1, 2]
    assert (home / "bots" / ("a" * 64)).is_dir() and (home / "bots" / ("d" * 64)).is_dir()


def test_a_bot_in_a_schedule_is_not_removed_until_that_tournament_is_deleted(
    store: Store, url: str, home: Path, played: dict[str, int]
) -> None:
    tid = schedule(store, [[played["gamma"], played["beta"]]])
    line = refused(arena(home, url, "bot", "remove", "gamma"))
    assert f"is in the schedule of tournament {tid}" in line
    assert arena(home, url, "tournament", "delete", str(tid)).exit_code == 0
    assert arena(home, url, "bot", "remove", "gamma").exit_code == 0
    assert store.bot_owner("gamma") is None


def test_remove_deletes_only_the_folders_no_other_version_uses(
    store: Store, url: str, home: Path, tmp_path: Path
) -> None:
    shared = stored(home, "delta", "1" * 64, store)
    stored(home, "delta", "2" * 64, store)
    twin = stored(home, "epsilon", "1" * 64, store)  # the same code under another name
    outside = tmp_path / ("3" * 64)  # a folder the database names, not in this home
    outside.mkdir()
    store.add_bot_version("delta", "3" * 64, str(outside), ["x"], ["*"])
    result = arena(home, url, "bot", "remove", "delta")
    assert result.exit_code == 0, result.output
    assert "removed delta and 1 stored folder(s); left 1 folder(s) outside this home" in (
        result.stdout
    )
    bots = home / "bots"
    assert not (bots / ("2" * 64)).exists() and not build_stamp(bots / ("2" * 64)).exists()
    assert (bots / ("1" * 64) / "bot.toml").is_file()  # epsilon's version uses it
    assert build_stamp(bots / ("1" * 64)).exists()
    assert outside.is_dir()
    assert [v.id for v in store.versions(name="epsilon")] == [twin] and shared != twin
    assert store.versions(name="delta") == [] and store.bot_owner("delta") is None
    assert sorted(p.name for p in bots.iterdir()) == sorted(["1" * 64, f".{'1' * 64}.arena-build"])
    assert arena(home, url, "bot", "remove", "epsilon").exit_code == 0
    assert sorted(bots.iterdir()) == []


# ----- cancel and delete -----------------------------------------------------------
@pytest.fixture
def half_played(store: Store, played: dict[str, int]) -> int:
    """A tournament with one recorded match and two unplayed, left `running` (a dead run)."""
    a, b, c = played["alpha1"], played["beta"], played["gamma"]
    tid = schedule(store, [[a, b], [b, c], [c, a]])
    play_first(store, tid)
    store.set_tournament_status(tid, "running")
    return tid


def test_cancel_keeps_the_recorded_matches_and_never_plays_the_rest(
    store: Store, url: str, home: Path, half_played: int
) -> None:
    tid = half_played
    before = history(store)
    result = arena(home, url, "tournament", "cancel", str(tid))
    assert result.exit_code == 0, result.output
    assert "1 recorded matches and their ratings stay, 2 unplayed matches" in result.stdout
    assert history(store) == before
    assert store.match_counts(tid) == (1, 1) and store.tournament_status(tid) == "cancelled"
    assert store.tournament(tid).settings["unplayed_when_cancelled"] == 2  # type: ignore[union-attr]

    line = refused(arena(home, url, "tournament", "resume", str(tid)))
    assert f"tournament {tid} was cancelled" in line
    with pytest.raises(ConfigError, match="cancelled"):
        runner.run(store, tid)
    store.set_tournament_status(tid, "interrupted")  # a dying run's last word
    assert store.tournament_status(tid) == "cancelled"
    with pytest.raises(TournamentCancelled):  # a ladder's next batch
        store.add_matches(tid, [Match(number=9, game="take-that", seed=9, lineup=[1, 2])])
    assert store.match_counts(tid) == (1, 1)
    assert "cancelled already" in refused(arena(home, url, "tournament", "cancel", str(tid)))
    shown = json.loads(arena(home, url, "tournament", "show", str(tid), "--json").stdout)
    assert shown["status"] == "cancelled" and shown["played"] == 1


def test_a_finished_or_unknown_tournament_is_not_cancelled(
    store: Store, url: str, home: Path, played: dict[str, int]
) -> None:
    tid = played["tournament"]
    assert "finished already" in refused(arena(home, url, "tournament", "cancel", str(tid)))
    assert "no tournament 999" in refused(arena(home, url, "tournament", "cancel", "999"))
    refused(arena(home, url, "tournament", "cancel", "abc"))


def test_delete_takes_a_never_played_tournament_and_refuses_one_with_results(
    store: Store, url: str, home: Path, played: dict[str, int], half_played: int
) -> None:
    never = schedule(store, [[played["alpha1"], played["beta"]]] * 3)  # a failed Dask start
    result = arena(home, url, "tournament", "delete", str(never))
    assert result.exit_code == 0 and "its 3 scheduled matches" in result.stdout
    assert store.tournament(never) is None and store.matches(never) == []
    assert store.tournament_status(never) is None

    before = history(store)
    line = refused(arena(home, url, "tournament", "delete", str(half_played)))
    assert "has 1 recorded matches: the ratings depend on them" in line
    assert f"arena tournament cancel {half_played}" in line
    assert store.match_counts(half_played) == (1, 3)  # the refusal changed nothing
    line = refused(arena(home, url, "tournament", "delete", str(played["tournament"])))
    assert "cannot be deleted" in line and "cancel" not in line  # finished: nothing to stop
    assert history(store) == before
    assert "no tournament 999" in refused(arena(home, url, "tournament", "delete", "999"))


def test_a_run_stops_when_another_command_cancels_its_tournament(
    store: Store, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "CANCEL_LOOK", 0.0)
    config = TournamentConfig(
        game="take-that", bots=("random", "first-legal", POLITE), rounds=2, seed=3
    )
    tid = runner.create(store, home, config)
    cancelled: list[tuple[int, int]] = []

    def cancel_once(progress: runner.Progress) -> None:
        if not cancelled:
            cancelled.append(store.cancel_tournament(tid))

    with pytest.raises(runner.Cancelled, match=f"tournament {tid} was cancelled"):
        runner.run(store, tid, workers=1, on_progress=cancel_once)
    kept, dropped = cancelled[0]
    assert kept >= 1 and kept + dropped == 12
    assert store.match_counts(tid) == (kept, kept)  # nothing recorded after the cancel
    assert store.tournament_status(tid) == "cancelled"


def test_a_failed_dask_start_points_to_delete_which_removes_the_tournament(
    store: Store, url: str, home: Path, played: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreachable(*_args: object, **_kwargs: object) -> None:
        raise ExecutorLost("cannot reach the Dask scheduler at tcp://127.0.0.1:9")

    monkeypatch.setattr(runner, "open_executor", unreachable)
    monkeypatch.setattr(runner.registry, "bot_ref", lambda *_args: None)  # never started
    tid = new_tournament(store, home, "alpha", "beta")
    with pytest.raises(ExecutorLost, match=f"or drop it: arena tournament delete {tid}"):
        runner.run(store, tid, executor="dask://127.0.0.1:9")
    assert store.tournament_status(tid) == "scheduled"
    assert arena(home, url, "tournament", "delete", str(tid)).exit_code == 0
    assert store.tournament(tid) is None
    with pytest.raises(ExecutorLost) as raised:  # one with results may not be dropped
        runner.run(store, half_played_id(store, played), executor="dask://127.0.0.1:9")
    assert "delete" not in str(raised.value)


def half_played_id(store: Store, played: dict[str, int]) -> int:
    tid = schedule(store, [[played["alpha1"], played["beta"]], [played["beta"], played["gamma"]]])
    play_first(store, tid)
    return tid
