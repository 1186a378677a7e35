"""scripts/winrate.py, the strength figures' tool: a short run; bad input refused in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "winrate.py"


def winrate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120
    )


def test_a_short_run_reports_the_win_rate_with_its_interval() -> None:
    done = winrate("take-that", "--bot", "take-that-heuristic", "--games", "4", "--players", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("take-that 2 players, 4 games: take-that-heuristic vs random")
    assert "95% CI" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "--bot", "random"], "unknown game 'nope'"),
        (["take-that", "--bot", "first-legal"], "bots/first-legal/bot.py not found"),
        (["take-that", "--bot", "random", "--against", "nobody"], "bots/nobody/bot.py not found"),
        (["take-that", "--bot", "random", "--variant", "rounds"], "takes KEY=VALUE"),
        (["take-that", "--bot", "random", "--variant", "x=1"], "has no variant 'x'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    done = winrate(*args)
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("winrate.py: error:") and message in last
    assert "Traceback" not in done.stderr
