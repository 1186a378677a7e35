"""Tournaments end to end: schedule written first, results recorded in order, ratings, resume."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.match.run import MatchSpec
from arena.results import reports
from arena.store import Store
from arena.tournament import execution, executors, runner
from arena.tournament.config import LOCAL, ConfigError, TournamentConfig
from tests.helpers import kill_once_recorded, register_unchecked

ROOT = Path(__file__).resolve().parents[1]
POLITE = str(ROOT / "tests" / "bots" / "polite")


def make_store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'arena.db'}")


def config(**changes: object) -> TournamentConfig:
    base = TournamentConfig(
        game="take-that",
        bots=("random", "first-legal", POLITE),
        rounds=3,
        seed=11,
        decision_timeout=2.0,
    )
    return TournamentConfig(**{**base.__dict__, **changes})  # type: ignore[arg-type]


def test_round_robin_records_every_match_once_and_rates_in_order(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    tid = runner.create(store, tmp_path, config())
    assert store.match_counts(tid) == (0, 18)  # the whole schedule is written before play
    runner.run(store, tid, workers=1)
    assert store.match_counts(tid) == (18, 18)
    assert store.tournament(tid).status == "finished"  # type: ignore[union-attr]
    board = reports.leaderboard(store, "take-that", tid)
    assert {row["bot"] for row in board} == {"random", "first-legal", "polite"}
    assert all(row["games"] == 12 for row in board)
    seats = store.seat_rows(tournament_id=tid)
    assert all(s.mu_before is not None and s.mu_after is not None for _m, s in seats)


def test_a_ctrl_c_that_a_finalizer_swallowed_still_stops_the_run(tmp_path: Path) -> None:
    """KeyboardInterrupt raised where it is only printed (a finalizer) must not be lost."""
    # As in a terminal (a suite started with `pytest &` ignores SIGINT; arena respects that).
    ignored = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        interrupted_after_a_swallowed_ctrl_c(tmp_path)
    finally:
        signal.signal(signal.SIGINT, ignored)


def interrupted_after_a_swallowed_ctrl_c(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    tid = runner.create(store, tmp_path, config())

    def swallowing(progress: runner.Progress) -> None:
        if progress.done == 2:
            with contextlib.suppress(KeyboardInterrupt):  # swallowed, as by a finalizer
                signal.raise_signal(signal.SIGINT)  # (handled at once, here)

    # One worker records several results per transaction (runner.MAX_BATCH: they may wait
    # 0.25 s), and a batch is told after its commit: the run stops at the next match.
    with pytest.raises(runner.Interrupted, match=r"stopped after \d+ of 18") as stopped:
        runner.run(store, tid, workers=1, on_progress=swallowing)
    recorded = store.match_counts(tid)[0]
    assert 3 <= recorded < 18 and f"stopped after {recorded} of 18" in str(stopped.value)
    assert store.tournament(tid).status == "interrupted"  # type: ignore[union-attr]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def test_same_leaderboard_with_one_or_four_workers(tmp_path: Path) -> None:
    boards = []
    for workers in (1, 4):
        folder = tmp_path / f"w{workers}"
        folder.mkdir()
        store = make_store(folder)
        polite = register_unchecked(store, "polite")  # its check is tests/test_check.py's
        bots = ("random", "first-legal", polite)
        tid = runner.create(store, folder, config(workers=workers, bots=bots))
        runner.run(store, tid, workers=workers)
        boards.append(reports.leaderboard(store, "take-that", tid))
    assert boards[0] == boards[1]


def test_a_bot_that_keeps_forfeiting_is_suspended(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    crasher = register_unchecked(store, "flaky")  # crashes in every match, smoke or not
    tid = runner.create(
        store, tmp_path, config(bots=("random", crasher), rounds=6, suspend_after=3)
    )
    suspended: list[str] = []
    runner.run(store, tid, on_progress=lambda p: suspended.extend(p.suspended_now))
    assert suspended == ["flaky v1"]
    statuses = [s.status for _m, s in store.seat_rows(tournament_id=tid) if True]
    crashes = [s for _m, s in store.seat_rows(tournament_id=tid) if s.status == "crash"]
    skipped = [s for _m, s in store.seat_rows(tournament_id=tid) if s.status == "suspended"]
    assert len(crashes) == 3 and len(skipped) == 12 - 3
    assert "ok" in statuses
    details = reports.tournament_details(store, tid)
    assert details is not None and details["forfeits"] == {"crash": 3, "suspended": 9}
    # issue 14: `bot show` finds the suspension again, with the forfeits that caused it
    shown = reports.bot_details(store, "flaky")
    assert shown is not None
    [suspension] = shown["suspensions"]
    assert suspension["rule"] == "3 forfeits in a row (suspend_after = 3)"
    assert suspension["skipped_matches"] == 9
    assert [f["status"] for f in suspension["forfeits"]] == ["crash"] * 3
    assert suspension["since_match"] == suspension["forfeits"][-1]["match"]
    assert {f["match"] for f in shown["recent_forfeits"]} == {
        f["match"] for f in suspension["forfeits"]
    }


class VoidsOne:
    """The in-process executor, but one match is lost (a void platform-error result)."""

    slots = 1

    def __init__(self, number: int):
        self.inner = executors.open_executor(LOCAL, 1)
        self.number = number

    def submit(self, spec: MatchSpec) -> execution.MatchFuture:
        if spec.match_id.endswith(f"-m{self.number}"):
            void = execution.platform_error(spec, "worker lost twice")
            return cast(
                execution.MatchFuture, SimpleNamespace(result=lambda: void, done=lambda: True)
            )
        return self.inner.submit(spec)

    def shutdown(self, now: bool = False) -> None:
        self.inner.shutdown(now)


def test_issue_12_leaderboard_counters_equal_the_seats_after_forfeits_and_a_void_match(
    tmp_path: Path,
) -> None:
    """The all-time leaderboard reads running counters on the rating rows: after a real
    tournament with crashes, a suspension and a void match they equal the seats counted
    afresh in SQL, and that tournament's own board (which aggregates its seats)."""
    store = make_store(tmp_path)
    crasher = register_unchecked(store, "flaky")  # crashes in every match
    tid = runner.create(
        store, tmp_path, config(bots=("random", crasher, POLITE), rounds=4, suspend_after=3)
    )
    lost = VoidsOne(number=1)
    try:
        runner.run(store, tid, executor=lost)
    finally:
        lost.shutdown()
    matches = store.matches(tid)
    assert [m.status for m in matches].count("platform-error") == 1
    details = reports.tournament_details(store, tid)
    assert details is not None
    assert [(v["number"], v["reason"]) for v in details["void_matches"]] == [
        (1, "worker lost twice")
    ]
    statuses = Counter(s.status for _m, s in store.seat_rows(tournament_id=tid))
    assert statuses["crash"] == 3 and statuses["suspended"] > 0

    fresh = store.seat_statistics("take-that", 1)
    board = store.leaderboard("take-that", 1)
    assert {r.bot for r in board} == {"random", "flaky", "polite"}
    for row in board:
        assert (row.games, row.wins, row.shared_wins, row.score_sum, row.forfeits) == tuple(
            fresh[row.bot_version_id].values()
        )
    by_bot = {row["bot"]: row for row in reports.leaderboard(store, "take-that")}
    assert by_bot["flaky"]["forfeits"] == statuses["crash"] + statuses["suspended"]
    void = next(m for m in matches if m.status == "platform-error")
    seats = [s for m, s in store.seat_rows(tournament_id=tid) if s.score is not None]
    for row in board:  # a game is a scored seat of a match that was not void
        played = [s for s in seats if s.bot_version_id == row.bot_version_id]
        assert row.games == len([s for s in played if s.match_id != void.id])
    # one tournament in a new database: its own rating (from a fresh start) is the
    # all-time one, float for float, and so are the counters
    all_time = {r["bot"]: r for r in reports.leaderboard(store, "take-that")}
    event = {r["bot"]: r for r in reports.leaderboard(store, "take-that", tid)}
    same = ("version", "mu", "sigma", "rating", "games", "wins", "shared_1st", "forfeits")
    assert {b: [r[k] for k in same] for b, r in event.items()} == {
        b: [r[k] for k in same] for b, r in all_time.items()
    }
    assert all(r["all_time"] == r["rating"] for r in event.values())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"bots": ("random",)}, "at least two bots"),
        ({"players": 5}, "2-4 players"),
        ({"variant": {"rounds": 0}}, "at least 1"),
        ({"format": "swiss"}, "unknown format"),
        ({"bots": ("random", "no-such-bot")}, "no bot folder"),
    ],
)
def test_bad_settings_are_refused_before_anything_is_stored(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    store = make_store(tmp_path)
    with pytest.raises(Exception, match=message):
        runner.create(store, tmp_path, config(**changes))
    assert store.tournaments() == []


def test_unknown_setting_in_a_file_is_an_error(tmp_path: Path) -> None:
    from arena.tournament.config import load

    path = tmp_path / "t.toml"
    path.write_text('game = "take-that"\nbots = ["random", "random2"]\ncolour = 3\n')
    with pytest.raises(ConfigError, match="colour"):
        load(path)


def test_resume_after_kill_9_plays_every_match_exactly_once(tmp_path: Path) -> None:
    """Kill the tournament process for real in the middle of a run, then resume it."""
    env = {**os.environ, "ARENA_HOME": str(tmp_path)}
    arena = [sys.executable, "-m", "arena"]
    args = [
        "tournament",
        "run",
        "--game",
        "take-that",
        "--bots",
        f"random,first-legal,{POLITE}",
        "--deals",
        "6",  # 36 matches: killed after 5, there are 31 more to lose or play twice
        "--seed",
        "5",
        "--workers",
        "2",
        "--quiet",
    ]
    process = subprocess.Popen(
        arena + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    store = make_store(tmp_path)
    tid = kill_once_recorded(process, store, 5)
    done, total = store.match_counts(tid)
    assert 5 <= done < total == 36
    resumed = subprocess.run(
        [*arena, "tournament", "resume", str(tid), "--quiet", "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert store.match_counts(tid) == (36, 36)
    numbers = [m.number for m in store.matches(tid)]
    assert numbers == list(range(36))
    seats = store.seat_rows(tournament_id=tid)
    assert len(seats) == 36 * 2  # no match recorded twice


def test_resume_runs_with_the_tournaments_own_settings_unless_overridden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from arena.cli import app
    from arena.cli import tournament as tournament_cli

    store = make_store(tmp_path)
    tid = runner.create(store, tmp_path, config(workers=2, fresh_processes=True, pin_workers=False))
    calls: list[tuple[object, ...]] = []
    monkeypatch.setattr(tournament_cli, "play", lambda *args: calls.append(args[2:]) or 0.0)
    base = ["--home", str(tmp_path), "--db", f"sqlite:///{tmp_path / 'arena.db'}"]
    cli = CliRunner()
    assert cli.invoke(app, [*base, "tournament", "resume", str(tid)]).exit_code == 0
    overridden = [*base, "tournament", "resume", str(tid), "--workers", "1", "--reuse-processes"]
    assert cli.invoke(app, [*overridden, "--pin"]).exit_code == 0
    # (workers, fresh processes, pin, quiet, executor)
    assert calls == [(2, True, False, False, "local"), (1, False, True, False, "local")]


def test_ctrl_c_inside_a_commit_waits_for_it_and_is_noted() -> None:
    """While the runner records a batch, Ctrl-C only sets the event (raised in the middle
    of a commit it could leave the write lock held and the run could not be marked
    interrupted); outside, it raises KeyboardInterrupt as usual."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    noted, shielded, restore = runner.note_ctrl_c()
    try:
        with shielded():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # the handler runs between bytecodes, soon after the kill
                if noted.is_set():
                    break
        assert noted.is_set()
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(100_000):
                pass
    finally:
        restore()
        signal.signal(signal.SIGINT, previous)


def test_deals_is_the_tournaments_spelling_and_rounds_still_works(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 31 item 20: `deals` per pairing, apart from a game's `rounds` variant."""
    from arena.tournament.config import ConfigError, from_mapping

    assert from_mapping({"deals": 3, "variant": {"rounds": 2}}).rounds == 3
    assert not caplog.records
    with caplog.at_level("WARNING"):
        assert from_mapping({"rounds": 4}).rounds == 4
    assert "now spelled `deals`" in caplog.text
    with pytest.raises(ConfigError, match="give deals"):
        from_mapping({"deals": 3, "rounds": 4})
    with pytest.raises(ConfigError, match="deals must be at least 1"):
        from_mapping({"game": "take-that", "bots": ["a", "b"], "deals": 0}).checked()


def test_a_folder_in_a_tournament_is_checked_in_the_game_played_only(tmp_path: Path) -> None:
    """Issue 31 item 13: a Take That tournament refused a folder bot "in krumme10"."""
    bot = tmp_path / "two-games"
    bot.mkdir()
    manifest = 'name = "two-games"\ncommand = ["python3", "bot.py"]\n'
    (bot / "bot.toml").write_text(manifest + 'games = ["take-that", "krumme10"]\n')
    crash_in_krumme10 = (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'start' and m['game'] == 'krumme10':\n"
        "        sys.exit(1)\n"
        "    if m['type'] == 'start':\n"
        "        print(json.dumps({'type': 'ready'}), flush=True)\n"
        "    elif m['type'] == 'decide':\n"
        "        print(json.dumps({'type': 'decision', 'id': m['id'],"
        " 'decision': m['legal'][0]}), flush=True)\n"
    )
    (bot / "bot.py").write_text(crash_in_krumme10)
    home = ["--home", str(tmp_path / "home")]
    run = ["tournament", "run", "--game", "take-that", "--bots", f"{bot},random", "--deals", "1"]
    played = CliRunner().invoke(app, [*home, *run, "-q", "--json"])
    assert played.exit_code == 0, played.output
    other = ["tournament", "run", "--game", "leylo", "--bots", f"{bot},random"]
    refused = CliRunner().invoke(app, [*home, *other, "-q"])
    assert refused.exit_code == 2 and "does not play leylo" in refused.output
