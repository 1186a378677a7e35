"""The command line as a user meets it: tables, JSON, replays and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app

ROOT = Path(__file__).resolve().parents[1]
POLITE = str(ROOT / "tests" / "bots" / "polite")
runner = CliRunner()


def test_games_lists_every_game_with_players_and_variants() -> None:
    result = runner.invoke(app, ["games", "--json"])
    assert result.exit_code == 0
    games = {g["game"]: g for g in json.loads(result.stdout)}
    assert games["take-that"]["min_players"] == 2 and games["take-that"]["max_players"] == 4
    assert games["take-that"]["variants"] == {"rounds": 2, "pro": False}


def test_play_json_and_replay_verify_and_show(tmp_path: Path) -> None:
    replay = tmp_path / "game.json"
    args = [
        "play",
        "take-that",
        "random",
        POLITE,
        "--seed",
        "4",
        "--variant",
        "pro=true",
        "--json",
        "--replay",
        str(replay),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["game"] == "take-that" and summary["seed"] == 4
    assert summary["variant"] == {"rounds": 2, "pro": True}
    assert [s["bot"] for s in summary["seats"]] == ["random", "polite"]
    assert {s["status"] for s in summary["seats"]} == {"ok"}
    assert sorted(s["rank"] for s in summary["seats"]) in ([1, 2], [1, 1])
    again = json.loads(runner.invoke(app, args).stdout)
    assert [s["score"] for s in again["seats"]] == [s["score"] for s in summary["seats"]]

    verified = runner.invoke(app, ["replay", "verify", str(replay)])
    assert verified.exit_code == 0 and "checks out" in verified.stdout
    shown = runner.invoke(app, ["replay", "show", str(replay)])
    assert shown.exit_code == 0 and "chance: deal round 1" in shown.stdout
    assert "seat 0 (random)" in shown.stdout

    data = json.loads(replay.read_text())
    decision = next(e for e in data["events"] if "decision" in e)
    decision["decision"] = {"action": "play", "card": 10}  # tamper with the replay
    replay.write_text(json.dumps(data))
    tampered = runner.invoke(app, ["replay", "verify", str(replay)])
    assert tampered.exit_code == 2 and "error:" in tampered.output


def test_play_prints_a_table_with_status() -> None:
    result = runner.invoke(app, ["play", "take-that", POLITE, POLITE, "--seed", "1"])
    assert result.exit_code == 0
    assert "seat" in result.stdout and "status" in result.stdout and "ok" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess", "random", "random"], "unknown game 'chess'"),
        (["play", "take-that", "random", "random", "--variant", "rounds=zero"], "whole number"),
        (["play", "take-that", "random", "random", "--variant", "colour=red"], "no variant"),
        (["play", "take-that", "random", "random", "--variant", "pro"], "KEY=VALUE"),
        (["play", "take-that", "random", "/no/such/bot"], "no bot folder"),
        (["play", "take-that", "random"], "2-4 players, not 1"),
        (["play", "take-that", *["random"] * 5], "2-4 players, not 5"),
        (["replay", "verify", "/no/such/file.json"], "no replay file"),
        (["leaderboard", "chess"], "unknown game"),
        (["tournament", "show", "99"], "no tournament 99"),
        (["tournament", "resume", "99"], "no tournament 99"),
        (["leaderboard", "take-that", "--tournament", "99"], "no tournament 99"),
        (["tournament", "run", "/no/such/file.toml"], "no tournament file"),
        (["bot", "show", "nobody"], "no bot called"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(
    args: list[str], message: str, tmp_path: Path
) -> None:
    """Through the real console entry point: no traceback, exit code 2."""
    done = subprocess.run(
        [sys.executable, "-m", "arena", "--home", str(tmp_path), *args],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert len(done.stderr.strip().splitlines()) == 1


def test_bot_submit_is_content_addressed(tmp_path: Path) -> None:
    bot = tmp_path / "mybot"
    bot.mkdir()
    # one game: each submission's check plays it only (every game's check is test_check's)
    toml = 'name = "mybot"\ncommand = ["python3", "bot.py"]\ngames = ["take-that"]\n'
    (bot / "bot.toml").write_text(toml)
    source = (ROOT / "tests" / "bots" / "polite" / "bot.py").read_text()
    (bot / "bot.py").write_text(source)
    home = ["--home", str(tmp_path / "home")]
    first = runner.invoke(app, [*home, "bot", "submit", str(bot)])
    assert first.exit_code == 0 and "version 1" in first.stdout
    same = runner.invoke(app, [*home, "bot", "submit", str(bot)])
    assert "nothing changed" in same.stdout
    again = runner.invoke(app, [*home, "bot", "submit", str(bot), "--json"])
    answer = json.loads(again.stdout)
    assert answer["bot"] == "mybot" and answer["version"] == 1 and answer["created"] is False
    assert len(answer["sha256"]) == 64
    (bot / "bot.py").write_text(source + "\n# changed\n")
    second = runner.invoke(app, [*home, "bot", "submit", str(bot)])
    assert "version 2" in second.stdout
    listed = json.loads(runner.invoke(app, [*home, "bot", "list", "--json"]).stdout)
    assert listed[0]["bot"] == "mybot" and listed[0]["versions"] == 2
    (bot / "bot.py").write_text("raise SystemExit(1)\n")
    broken = runner.invoke(app, [*home, "bot", "submit", str(bot)])
    assert broken.exit_code == 2 and "failed its check" in broken.output
    shown = json.loads(runner.invoke(app, [*home, "bot", "show", "mybot", "--json"]).stdout)
    assert [v["version"] for v in shown["versions"]] == [1, 2]


# ----- issue 14, item 5: reading why a bot lost --------------------------------------
#: What the crashing bot wrote to stderr: a screen clear and a bidi override among it.
CRASH_STDERR = "Traceback (most recent call last):\n  boom\x1b[2J\u202e\nValueError: bad card\n"


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose database holds one take-that tournament (suspend after 2 forfeits)
    of alpha against beta, built from store rows: alpha wins alone, then ties for
    first with beta; a match is void; beta crashes twice in a row (alpha wins both) and
    is suspended; the last match is skipped for it."""
    from arena.store import MatchRecord, SeatRecord, Skill, Store, SuspensionRecord, default_url
    from arena.store.models import Match, Tournament

    home = tmp_path_factory.mktemp("seeded")
    store = Store(default_url(home))
    a = store.add_bot_version("alpha", "a" * 64, "/x", ["x"], ["*"]).id or 0
    b = store.add_bot_version("beta", "b" * 64, "/y", ["y"], ["*"]).id or 0
    tournament = Tournament(
        name="t",
        game="take-that",
        game_version=1,
        format="round-robin",
        players=2,
        rounds=1,
        seed=1,
        variant={},
        settings={"suspend_after": 2},
    )
    schedule = [Match(number=i, game="take-that", seed=i, lineup=[a, b]) for i in range(6)]
    tid = store.create_tournament(tournament, schedule)

    def rate(before: list[Skill]) -> list[Skill]:
        return [Skill(s.mu + 1, s.sigma) for s in before]

    crash = ("crash", "exited with code 1", CRASH_STDERR)
    for status, seats, error in [
        ("normal", [(a, 3, 1, "ok"), (b, 1, 2, "ok")], ""),
        ("normal", [(a, 2, 1, "ok"), (b, 2, 1, "ok")], ""),
        ("platform-error", [(a, None, None, "ok"), (b, None, None, "ok")], "worker lost twice"),
        ("forfeit", [(a, 5, 1, "ok"), (b, 0, 2, *crash)], ""),
        ("forfeit", [(a, 4, 1, "ok"), (b, -1, 2, *crash)], ""),
        ("forfeit", [(a, None, None, "ok"), (b, None, None, "suspended", "suspended")], ""),
    ]:
        match = store.matches(tid, recorded=False)[0]
        records = [SeatRecord(i, *seat) for i, seat in enumerate(seats)]
        rated = status == "normal" or (status == "forfeit" and seats[0][1] is not None)
        # as the runner does: the suspension with the match whose forfeit completed it
        caused = [SuspensionRecord(b, match.id or 0, 2)] if match.number == 4 else []
        record = MatchRecord(match.id or 0, status, records, error)
        store.record(record, rate if rated else None, suspensions=caused)
    store.close()
    return home


def test_issue_14_leaderboard_counts_shared_firsts_apart_and_says_which_score_wins(
    seeded: Path,
) -> None:
    home = ["--home", str(seeded)]
    rows = json.loads(runner.invoke(app, [*home, "leaderboard", "take-that", "--json"]).stdout)
    assert [(r["bot"], r["games"], r["wins"], r["shared_1st"]) for r in rows] == [
        ("alpha", 4, 3, 1),
        ("beta", 4, 0, 1),
    ]
    assert {r["score_order"] for r in rows} == {"higher score wins"}
    table = runner.invoke(app, [*home, "leaderboard", "take-that"], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    assert "leaderboard (higher score wins)" in table.stdout
    assert "shared 1st" in table.stdout and "score order" not in table.stdout
    # LEYLO: the lowest total wins
    leylo = runner.invoke(app, [*home, "leaderboard", "leylo"])
    assert "leaderboard (lower score wins): nothing yet" in leylo.stdout


def test_issue_14_tournament_show_lists_void_matches_with_their_reason(seeded: Path) -> None:
    home = ["--home", str(seeded)]
    details = json.loads(runner.invoke(app, [*home, "tournament", "show", "1", "--json"]).stdout)
    assert details["platform_errors"] == 1
    assert details["void_matches"] == [
        {"match": 3, "number": 2, "bots": ["alpha v1", "beta v1"], "reason": "worker lost twice"}
    ]
    assert details["score_order"] == "higher score wins"
    assert [(r["bot"], r["wins"], r["shared_1st"]) for r in details["standings"]] == [
        ("alpha", 3, 1),
        ("beta", 0, 1),
    ]
    table = runner.invoke(app, [*home, "tournament", "show", "1"])
    assert table.exit_code == 0, table.output
    assert "void matches" in table.stdout and "worker lost twice" in table.stdout
    assert "standings (higher score wins)" in table.stdout


def test_issue_14_bot_show_says_why_a_bot_was_suspended(seeded: Path) -> None:
    home = ["--home", str(seeded)]
    details = json.loads(runner.invoke(app, [*home, "bot", "show", "beta", "--json"]).stdout)
    [suspension] = details["suspensions"]
    assert suspension["tournament"] == 1 and suspension["version"] == 1
    assert suspension["since_match"] == 5  # the second crash in a row
    assert suspension["rule"] == "2 forfeits in a row (suspend_after = 2)"
    assert suspension["skipped_matches"] == 1
    assert [(f["match"], f["game"], f["status"], f["detail"]) for f in suspension["forfeits"]] == [
        (4, "take-that", "crash", "exited with code 1"),
        (5, "take-that", "crash", "exited with code 1"),
    ]
    assert suspension["forfeits"][0]["stderr_tail"] == CRASH_STDERR  # exact in JSON
    # recent forfeits: the matches it played, not the one skipped for its suspension
    assert [f["status"] for f in details["recent_forfeits"]] == ["crash", "crash"]
    assert (
        json.loads(runner.invoke(app, [*home, "bot", "show", "alpha", "--json"]).stdout)[
            "suspensions"
        ]
        == []
    )

    table = runner.invoke(app, [*home, "bot", "show", "beta"])
    assert table.exit_code == 0, table.output
    shown = table.stdout
    assert "suspended from tournament 1 (take-that): version 1, since match 5" in shown
    assert "after 2 forfeits in a row (suspend_after = 2); matches skipped since: 1" in shown
    assert "the forfeits that suspended it" in shown and "exited with code 1" in shown
    # the stderr: escaped, its lines kept, shown once for the matches that wrote it
    assert "stderr, matches 4, 5:" in shown
    assert "  boom\\x1b[2J\\u202e\nValueError: bad card" in shown
    assert "\x1b" not in shown and "\u202e" not in shown


def test_demo_plays_each_games_search_table_with_its_own_timeout_and_deals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wiring of `arena demo` without playing: which tournaments it asks for."""
    from arena.cli import demo

    asked: list[tuple[str, list[str], int, float | None]] = []

    def record(store, game_id, bots, rounds, seed, workers, search_timeout=None):  # type: ignore[no-untyped-def]
        asked.append((game_id, bots, rounds, search_timeout))

    monkeypatch.setattr(demo, "run", record)
    result = runner.invoke(app, ["--home", str(tmp_path), "demo"])
    assert result.exit_code == 0, result.output
    where = f"sqlite:///{tmp_path / 'arena.db'}"  # issue 31 item 18: it says where it writes
    assert f"demo: writing to database {where}" in result.stderr
    assert f"the demo's tournaments are in database {where}" in result.stdout
    searches = {game: (bots, rounds, timeout) for game, bots, rounds, timeout in asked if timeout}
    assert set(searches) == set(demo.SEARCH_TABLES)
    for game, table in demo.SEARCH_TABLES.items():
        assert searches[game] == (
            [f"{game}-heuristic", "ismcts", "random"],
            table.deals,
            table.timeout,
        )
    quick = [(game, bots, rounds) for game, bots, rounds, timeout in asked if timeout is None]
    assert len(quick) == len(demo.SEARCH_TABLES) and all(rounds == 5 for _, _, rounds in quick)
    assert all("ismcts" not in bots and "random" in bots for _, bots, _ in quick)

    asked.clear()
    result = runner.invoke(app, ["--home", str(tmp_path), "demo", "--search-deals", "0"])
    assert result.exit_code == 0, result.output
    assert [timeout for *_, timeout in asked] == [None] * len(demo.SEARCH_TABLES)


def test_play_takes_registered_bots_by_name(tmp_path: Path) -> None:
    """Issue 31 item 12: `arena play` finds a registered bot by name, as `--bots` does."""
    bot = tmp_path / "tt-only"
    bot.mkdir()
    manifest = 'name = "tt-only"\ncommand = ["python3", "bot.py"]\ngames = ["take-that"]\n'
    (bot / "bot.toml").write_text(manifest)
    (bot / "bot.py").write_text((ROOT / "tests" / "bots" / "polite" / "bot.py").read_text())
    home = ["--home", str(tmp_path / "home")]
    assert runner.invoke(app, [*home, "bot", "submit", str(bot)]).exit_code == 0
    played = runner.invoke(app, [*home, "play", "take-that", "tt-only", "random", "--json"])
    assert played.exit_code == 0, played.output
    seats = json.loads(played.stdout)["seats"]
    assert [(s["bot"], s["status"]) for s in seats] == [("tt-only", "ok"), ("random", "ok")]
    other = runner.invoke(app, [*home, "play", "leylo", "tt-only", "random"])
    assert other.exit_code == 2 and "does not play leylo" in other.output
    unknown = runner.invoke(app, [*home, "play", "take-that", "nobody", "random"])
    assert unknown.exit_code == 2 and "no registered or bundled bot 'nobody'" in unknown.output


def test_a_database_in_a_missing_folder_is_refused_and_nothing_made(tmp_path: Path) -> None:
    """Issue 31 item 10: `--db sqlite:////nonexistent/dir/a.db` made /nonexistent/dir."""
    url = f"sqlite:///{tmp_path / 'nowhere' / 'dir' / 'a.db'}"
    result = runner.invoke(app, ["--home", str(tmp_path / "home"), "--db", url, "bot", "list"])
    assert result.exit_code == 2, result.output
    assert f"there is no folder {tmp_path / 'nowhere' / 'dir'}" in result.output
    assert not (tmp_path / "nowhere").exists()


def test_bot_show_names_its_owner_and_description(tmp_path: Path) -> None:
    """Issue 31 item 14: PROTOCOL.md says `bot show` shows the description."""
    from arena.submissions.names import current_user

    bot = tmp_path / "described"
    bot.mkdir()
    manifest = 'name = "described"\ncommand = ["python3", "bot.py"]\n'
    (bot / "bot.toml").write_text(manifest + 'description = "Plays first \\u001b[2J legal"\n')
    (bot / "bot.py").write_text((ROOT / "tests" / "bots" / "polite" / "bot.py").read_text())
    home = ["--home", str(tmp_path / "home")]
    assert runner.invoke(app, [*home, "bot", "submit", str(bot)]).exit_code == 0
    data = json.loads(runner.invoke(app, [*home, "bot", "show", "described", "--json"]).stdout)
    assert data["owner"] == current_user()
    assert data["description"] == "Plays first \x1b[2J legal"
    shown = runner.invoke(app, [*home, "bot", "show", "described"]).stdout
    assert f"described: owner {current_user()}" in shown
    assert "Plays first \\x1b[2J legal" in shown and "\x1b" not in shown
