"""Issue 14, items 1 and 2: `arena bot check`, and a compiled bot's build step runs.

`arena bot check` builds a copy of the folder and plays ordinary matches against
bundled random bots (arena.submissions.check); `arena bot submit` runs the same check with
fewer matches. A build runs whenever a folder has not been built for its code (its
build stamp, beside the folder), whatever the command is: tests/bots/java_first_legal
is built by `javac` and run by `java`, a program that exists before any build.
Every check here plays one game only (a copy of a test bot with `games` narrowed),
so that the file stays cheap.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

import arena.submissions.manifest as manifest_module
from arena.cli import app
from arena.players.pool import BotPool
from arena.players.process import BotProcess
from arena.sandbox.limits import Limits
from arena.store import Store, default_url
from arena.submissions import check
from arena.submissions import submit as registry
from arena.submissions.manifest import KEYS, build_stamp, load_manifest, prepare
from arena.submissions.snapshot import snapshot
from arena.tournament import runner as truns
from arena.tournament.config import TournamentConfig
from tests.helpers import TEST_BOTS

ROOT = Path(__file__).resolve().parent.parent
JAVA = TEST_BOTS / "java_first_legal"
runner = CliRunner()


def arena(home: Path, *args: str) -> Result:
    return runner.invoke(app, ["--home", str(home), *args])


def copy_of(name: str, target: Path, games: str = "take-that") -> Path:
    """tests/bots/<name> in `target`, declaring only `games`."""
    shutil.copytree(TEST_BOTS / name, target)
    toml = target / "bot.toml"
    kept = [line for line in toml.read_text().splitlines() if not line.startswith("games")]
    toml.write_text("\n".join([f'games = ["{games}"]', *kept]) + "\n")
    return target


def fail_build(*_args: object) -> list[tuple[str, ...]]:
    raise AssertionError("built again")


# ----- item 2: compiled languages ---------------------------------------------------
def test_a_java_bot_is_built_checked_and_not_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "bots" / "java"
    shutil.copytree(JAVA, folder)
    sha = snapshot(folder).sha256
    plan = check.Plan(counts="ends", variants=False)
    report = check.check_built(load_manifest(folder), plan, seed=7)
    assert report.passed, check.details(report)
    assert report.build_seconds is not None and (folder / "Bot.class").is_file()
    assert json.loads(build_stamp(folder).read_text())["outputs"] == [["Bot.class"]]
    assert snapshot(folder).sha256 == sha  # what the build made is not the bot's code
    (game,) = report.games
    # two deals at 2 and at 4 players, each in every seat rotation
    assert (game.game, game.player_counts, game.matches) == ("take-that", [2, 4], 12)
    assert game.decisions > 0 and game.forfeit is None and game.deadline_ms == 1000
    assert game.decision_p50_ms is not None and game.decision_max_ms is not None
    assert 0 <= game.decision_p50_ms <= game.decision_max_ms < game.deadline_ms
    assert game.startup_ms is not None and 0 < game.startup_ms < game.startup_timeout_ms
    assert game.peak_memory_bytes is not None and game.peak_memory_bytes > 2**20
    assert game.memory_limit_bytes == Limits().memory_bytes
    # Built once: the stamp says so, though `java` existed all along.
    monkeypatch.setattr(manifest_module, "run_build", fail_build)
    assert prepare(load_manifest(folder))[-1] == "Bot"
    # Changed code is built again, after what the last build made is removed.
    built: list[bool] = []
    monkeypatch.setattr(
        manifest_module,
        "run_build",
        lambda *_a: built.append((folder / "Bot.class").exists()) or [],
    )
    (folder / "Bot.java").write_text((folder / "Bot.java").read_text() + "// changed\n")
    prepare(load_manifest(folder))
    assert built == [False]


def test_a_submitted_java_bot_is_stored_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    store = Store(default_url(home))
    try:
        version, created = registry.submit(store, home, str(JAVA))
        stored = Path(version.folder)
        assert created and stored == home / "bots" / version.sha256
        assert (stored / "Bot.class").is_file() and build_stamp(stored).is_file()
        assert sorted(p.name for p in (home / "bots").iterdir()) == sorted(
            [stored.name, build_stamp(stored).name]
        )
        # The archive shipped to workers holds the code, not the build's output.
        shipped = sorted(p.name for p in registry._files(load_manifest(stored)))
        assert shipped == ["Bot.java", "bot.toml"]
        monkeypatch.setattr(manifest_module, "run_build", fail_build)
        assert registry.bot_ref(version, "java_first_legal").argv[-1] == "Bot"
    finally:
        store.close()
    assert not (JAVA / "Bot.class").exists()  # the folder itself is never built


def test_what_a_build_adds_is_not_read_as_the_bots_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build's output may pass a submission's limits (a 17 MB binary): it is never read."""
    folder = copy_of("polite", tmp_path / "big")
    make = ["sh", "-c", "mkdir out && head -c 17000000 /dev/zero > out/model.bin"]
    with (folder / "bot.toml").open("a") as toml:
        toml.write(f"build = {json.dumps(make)}\n")
    sha = snapshot(folder).sha256
    prepare(load_manifest(folder))
    assert (folder / "out" / "model.bin").stat().st_size == 17_000_000
    monkeypatch.setattr(manifest_module, "run_build", fail_build)
    prepare(load_manifest(folder))
    assert snapshot(folder).sha256 == sha


# ----- item 1: arena bot check ------------------------------------------------------
def test_a_passing_bot_exits_0_with_a_json_report(tmp_path: Path) -> None:
    folder = copy_of("polite", tmp_path / "polite")
    result = arena(tmp_path / "home", "bot", "check", str(folder), "--json", "--seed", "3")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["passed"] and report["seed"] == 3 and report["error"] == ""
    (game,) = report["games"]
    assert game["passed"] and game["player_counts"] == [2, 3, 4]
    # two deals per player count, and two at 4 players with every variant option at its
    # most, each deal in every seat rotation: 2 * (2 + 3 + 4) + 2 * 4
    assert game["matches"] == 26 and game["variant"] == {"rounds": 10, "pro": True}
    assert game["forfeit"] is None and game["decisions"] > 0
    for key in ("decision_p50_ms", "decision_p99_ms", "decision_max_ms", "startup_ms"):
        assert isinstance(game[key], int | float) and game[key] >= 0, key  # no timing asserted
    assert not (tmp_path / "home").exists()  # a check stores nothing


def test_a_protocol_error_shows_the_line_and_the_request(tmp_path: Path) -> None:
    folder = copy_of("invalid_json", tmp_path / "bad")
    result = arena(tmp_path / "home", "bot", "check", str(folder), "--json")
    assert result.exit_code == 1, result.output
    (game,) = json.loads(result.stdout)["games"]
    forfeit = game["forfeit"]
    assert not game["passed"] and forfeit["status"] == "invalid"
    assert forfeit["line"] == "{this is not json"
    assert forfeit["answering"].startswith('{"type":"decide","id":1,')
    # the same report as text: one deal per player count shows the same first forfeit
    shown = arena(tmp_path / "home", "bot", "check", str(folder), "--matches", "1")
    assert shown.exit_code == 1
    assert "the bot printed:\n{this is not json\n" in shown.stdout
    assert 'answering arena\'s message:\n{"type":"decide"' in shown.stdout
    assert shown.stdout.rstrip().endswith("FAILED")


def test_what_the_bot_printed_is_shown_escaped(tmp_path: Path) -> None:
    folder = copy_of("terminal_injection", tmp_path / "evil")  # forfeits its first decision
    result = arena(tmp_path / "home", "bot", "check", str(folder), "--matches", "1")
    assert result.exit_code == 1
    output = result.stdout + result.stderr
    assert "\x1b" not in output and "\u202e" not in output and "\r" not in output
    assert "\\x1b[2J" in output and "mark[/]up [bold red]" in output


def test_a_failed_build_shows_all_its_output(tmp_path: Path) -> None:
    """`build failed: 1 error` alone hides the compiler's message: the rest follows it."""
    folder = tmp_path / "broken"
    folder.mkdir()
    script = (
        "echo 'Bot.java:3: error: ; expected' >&2; printf 'evil\\033[2J\\n' >&2; "
        "echo '1 error' >&2; exit 1"
    )
    build = json.dumps(["sh", "-c", script])  # JSON strings are TOML strings
    (folder / "bot.toml").write_text(
        f'name = "broken"\ncommand = ["java", "Bot"]\nbuild = {build}\n'
    )
    checked = arena(tmp_path / "home", "bot", "check", str(folder))
    assert checked.exit_code == 1
    submitted = arena(tmp_path / "home", "bot", "submit", str(folder))
    assert submitted.exit_code == 2 and "Traceback" not in submitted.output
    for result in (checked, submitted):
        lines = result.stderr.splitlines()
        assert lines[0] == "error: broken: build failed: 1 error", result.stderr
        assert lines[1:] == ["Bot.java:3: error: ; expected", "evil\\x1b[2J", "1 error"]


def test_an_unknown_key_is_a_one_line_error(tmp_path: Path) -> None:
    folder = copy_of("polite", tmp_path / "typo")
    (folder / "bot.toml").write_text((folder / "bot.toml").read_text() + 'biuld = ["make"]\n')
    result = arena(tmp_path / "home", "bot", "check", str(folder))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "unknown key 'biuld'" in result.stderr


# ----- issue 30, item 9: a check match cannot be told from a tournament's --------
def test_a_bot_honest_only_in_a_processs_first_match_is_refused(tmp_path: Path) -> None:
    """tests/bots/later_match_cheat counts `start`s: its second match in a process
    answers a NUL, a bidi override and markup. Fresh processes never showed it."""
    folder = copy_of("later_match_cheat", tmp_path / "cheat")
    home = tmp_path / "home"
    checked = arena(home, "bot", "check", str(folder), "--json")
    assert checked.exit_code == 1, checked.output
    (game,) = json.loads(checked.stdout)["games"]
    assert game["forfeit"]["status"] == "illegal"
    assert r"\u0000\u202eevil</script>" in game["forfeit"]["line"]
    submitted = arena(home, "bot", "submit", str(folder))
    assert submitted.exit_code == 2 and "Traceback" not in submitted.output
    first = submitted.stderr.splitlines()[0]
    assert first.startswith("error: later_match_cheat failed its check in take-that: illegal")
    assert r"\u202e" in first  # the detail quotes the answer, escaped: never the raw text
    assert "\u202e" not in submitted.output and "\x00" not in submitted.output
    store = Store(default_url(home))
    try:
        assert store.bot_owner("later_match_cheat") is None  # nothing registered
    finally:
        store.close()


def test_issue_30_a_line_of_invalid_utf8_is_reported_as_the_bytes_it_was(tmp_path: Path) -> None:
    """tests/bots/bad_utf8_later answers a line that is not UTF-8 in its second match:
    the report quoted it (and its stderr) with U+FFFD for each bad byte. Now --json
    carries the exact bytes (surrogateescape, as \\udcNN JSON escapes) and the report
    shows each as \\xNN."""
    constants: dict[str, bytes] = {}
    source = (TEST_BOTS / "bad_utf8_later" / "bot.py").read_text()
    exec(source.split("matches = 0")[0], constants)  # its constants only
    line, noise = constants["LINE"].rstrip(b"\n"), constants["NOISE"]
    folder = copy_of("bad_utf8_later", tmp_path / "bad")
    checked = arena(tmp_path / "home", "bot", "check", str(folder), "--json", "--seed", "2")
    assert checked.exit_code == 1, checked.output
    (game,) = json.loads(checked.stdout)["games"]
    assert game["forfeit"]["status"] == "invalid"
    assert game["forfeit"]["line"].encode("utf-8", "surrogateescape") == line
    assert game["stderr_tail"].encode("utf-8", "surrogateescape").endswith(noise)
    shown = arena(tmp_path / "home", "bot", "check", str(folder), "--seed", "2")
    assert shown.exit_code == 1 and "\ufffd" not in shown.output
    words = " ".join(shown.stdout.split())  # the report wraps at 80 columns
    assert f"the bot printed: {line.decode('utf-8', 'backslashreplace')} " in words
    assert noise.decode("utf-8", "backslashreplace").strip() in words


def reuse_pattern(monkeypatch: pytest.MonkeyPatch, name: str) -> list[tuple[int, int]]:
    """From now on, per match of bot `name`: (which of its processes, that process's
    match count), in the order the matches end."""
    seen: list[tuple[int, int]] = []
    processes: list[BotProcess] = []
    release = BotPool.release

    def noting(pool: BotPool, bot: BotProcess, healthy: bool) -> None:
        if bot.name == name:
            if bot not in processes:
                processes.append(bot)
            seen.append((processes.index(bot), bot.matches_started))
        release(pool, bot, healthy)

    monkeypatch.setattr(BotPool, "release", noting)
    return seen


def test_a_check_reuses_processes_as_a_round_robin_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The submission check's series and a two-round round robin of the same size give
    the bot the same processes in the same order, each playing two matches in a row."""
    folder = copy_of("polite", tmp_path / "polite")
    checked = reuse_pattern(monkeypatch, "polite")
    report = check.check_built(load_manifest(folder), check.SUBMISSION, seed=5)
    assert report.passed, check.details(report)
    monkeypatch.undo()
    home = tmp_path / "home"
    store = Store(default_url(home))
    try:
        config = TournamentConfig(game="take-that", bots=("random", str(folder)), rounds=2)
        tid = truns.create(store, home, config)  # its submission checks are not noted
        played = reuse_pattern(monkeypatch, "polite")
        truns.run(store, tid, workers=1)
    finally:
        store.close()
    # deal 1 in both rotations (a second process: the first has seen it), then deal 2
    assert checked == played == [(0, 1), (1, 1), (1, 2), (0, 2)]


def test_protocol_md_documents_every_bot_toml_key_and_the_check() -> None:
    protocol = (ROOT / "protocol" / "PROTOCOL.md").read_text()
    section = protocol.split("## The bot folder", 1)[1].split("\n## ", 1)[0]
    for key in KEYS:
        assert re.search(rf"^\| `{key}`", section, re.MULTILINE), key
    assert "arena bot check" in section
    assert "arena bot check" in (ROOT / "README.md").read_text()
