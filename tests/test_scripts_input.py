"""The measuring scripts: a short winrate run, and bad input refused in one line, exit 2.

Each script's `parse_args(argv)` checks its command line without running anything, so
the refusals are tested in this process; a few cases run the script end to end.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPTS / name), *args], capture_output=True, text=True, timeout=120
    )


def imported(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """scripts/<name> imported as Python runs it (its folder first on sys.path), not run."""
    monkeypatch.syspath_prepend(str(SCRIPTS))
    return importlib.import_module(Path(name).stem)


def test_a_short_winrate_run_reports_the_win_rate_with_its_interval() -> None:
    done = script("winrate.py", "take-that", "--bot", "take-that-heuristic", "--games", "4")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("take-that 2 players, 4 games: take-that-heuristic vs random")
    assert "95% CI" in done.stdout


def test_leylo_line_odds_reports_a_rate_and_a_share_per_race() -> None:
    done = script("leylo_line_odds.py", "--games", "2", "--workers", "1", "--iterations", "5")
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if "%" in line]
    assert [" ".join(row[:-3]) for row in rows] == ["<= 1", "2-3", "4-7", ">= 8"] * 2
    seen = sum(int(row[-3]) for row in rows)
    assert seen > 0  # the bot's grids held nearly complete lines


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["winrate.py", "nope", "--bot", "random"], "unknown game 'nope'"),
        (["winrate.py", "take-that", "--bot", "first-legal"], "bots/first-legal/bot.py not found"),
        (["winrate.py", "take-that", "--bot", "random", "--against", "x"], "bots/x/bot.py"),
        (["winrate.py", "take-that", "--bot", "random", "--variant", "rounds"], "KEY=VALUE"),
        (["winrate.py", "take-that", "--bot", "random", "--variant", "x=1"], "no variant 'x'"),
        (["ladder_odds.py", "nope", "--edge", "0.6"], "unknown game 'nope'"),
        (["ladder_odds.py", "leylo", "--edge", "1.6"], "between 0 and 1"),
        (["bench_referees.py", "--game", "nope"], "unknown game 'nope'"),
        (["bench_referee_cpu.py", "--profile", "nope:2"], "unknown game 'nope'"),
        (["bench_referee_cpu.py", "--profile", "leylo"], "GAME:PLAYERS"),
        (["bench_coordinator.py", "--db", "nope://x"], "bad database URL"),
        (["bench_tournament.py", "--game", "nope"], "unknown game 'nope'"),
        (["bench_tournament.py", "--bots", "nope,random"], "no bundled bot 'nope'"),
        (["bench_dask.py", "--bots", "random,nope"], "no bundled bot 'nope'"),
        (["bench_fairness.py", "--decisions", "0"], "at least 1"),
        (["bench_fairness.py", "--hog", "--only", "alone"], "not of --hog"),
        (["bench_fairness.py", "--hog", "--share", "1.5"], "--share 0 to 1"),
        (["bench_fairness.py", "--hog", "--hog-threads", "0"], "--hog-threads must be 1 to 16"),
        (["bench_fairness.py", "--hog", "--run-seconds", "0"], "--run-seconds and --wall"),
        (["bench_fairness.py", "--hog", "--deadline", "0"], "--deadline above 0"),
        (["bench_fairness.py", "--hog", "--wall-seconds", "0"], "--wall-seconds must be from"),
        (["bench_fairness.py", "--demo", "2"], "add --hog"),
        (["bench_fairness.py", "--hog", "--demo", "51"], "--demo must be 0 to 50"),
        (["bench_fairness.py", "--hog", "--bank", "1s/decision"], "a bank such as 2s+50ms"),
        (["bench_fairness.py", "--hog", "--bank", "2s"], "write a bank and an increment"),
        (["bench_fairness.py", "--hog", "--rounds", "0"], "--rounds 0 with --demo or --bank"),
        (["bench_protocol.py", "--n", "0"], "--n must be at least 1"),
        (["bench_protocol.py", "--before", "/nonexistent"], "no arena/__init__.py there"),
        (["bench_startup.py", "--n", "0"], "at least 1"),
        (["leylo_line_odds.py", "--games", "0"], "at least 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        imported(args[0], monkeypatch).parse_args(args[1:])
    stderr = capsys.readouterr().err
    assert exited.value.code == 2, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith(f"{args[0]}: error:") and message in last
    assert "Traceback" not in stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["winrate.py", "nope", "--bot", "random"], "unknown game 'nope'"),
        # --tree puts a checkout first on sys.path when the script is imported
        (["bench_tournament.py", "--tree", str(SCRIPTS.parent), "--game", "nope"], "unknown game"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_from_the_command_line(
    args: list[str], message: str
) -> None:
    done = script(*args)
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"{args[0]}: error:") and message in last
    assert "Traceback" not in done.stderr


def test_bench_fairness_hog_mode_defaults_to_20_ms_and_the_starver_mode_to_50(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = imported("bench_fairness.py", monkeypatch)
    hog = bench.parse_args(["--hog"])
    assert (hog.hog, hog.deadline, hog.decisions, hog.rounds) == (True, 0.02, 10_000, 3)
    assert (hog.hog_threads, hog.share, hog.slow) == (2, 0.4, 10)
    assert (hog.run_seconds, hog.wall_seconds, hog.demo, hog.bank) == (300.0, 60.0, 0, None)
    extras = bench.parse_args(["--hog", "--rounds", "0", "--demo", "5", "--bank", "2s+50ms"])
    assert (extras.rounds, extras.demo, extras.bank, extras.bank_deals) == (0, 5, "2s+50ms", 4)
    assert bench.parse_args(["--hog", "--deadline", "0.05"]).deadline == 0.05
    starver = bench.parse_args([])
    assert (starver.hog, starver.deadline) == (False, 0.05)
    assert starver.conditions == list(bench.CONDITIONS)


def test_every_script_parses_its_command_line_without_running(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in sorted(SCRIPTS.glob("*.py")):
        with pytest.raises(SystemExit) as exited:
            imported(path.name, monkeypatch).parse_args(["--help"])
        assert exited.value.code == 0, path.name
        assert capsys.readouterr().out.startswith(f"usage: {path.name}"), path.name
