"""Every table at 80 and 200 columns (issue 31, item 6): no line wider than the
terminal, numbers never split, names never broken, left-out columns said below."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from arena.cli import app
from arena.cli.tables import fitted, layout

ROOT = Path(__file__).resolve().parents[1]

runner = CliRunner()
#: A bot name as long as the name rules allow a reasonable author to choose.
LONG_NAME = "a-rather-long-bot-name-x"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with a submitted bot of a long name and a finished tournament."""
    folder = tmp_path_factory.mktemp("tables")
    bot = folder / "longbot"
    shutil.copytree(ROOT / "bots" / "random", bot)
    manifest = (bot / "bot.toml").read_text().replace('name = "random"', f'name = "{LONG_NAME}"')
    (bot / "bot.toml").write_text(manifest)
    submitted = invoke(folder, 200, "bot", "submit", str(bot))
    assert submitted.exit_code == 0, submitted.output
    bots = f"random,first-legal,take-that-heuristic,{LONG_NAME}"
    command = ["tournament", "run", "--game", "take-that", "--bots", bots, "--deals", "1"]
    ran = invoke(folder, 200, *command, "--workers", "1", "--seed", "1", "-q")
    assert ran.exit_code == 0, ran.output
    return folder


def invoke(home: Path, width: int, *argv: str):  # type: ignore[no-untyped-def]
    env = {"ARENA_HOME": str(home / "home"), "COLUMNS": str(width)}
    return runner.invoke(app, list(argv), env=env)


TABLE_COMMANDS = [
    ["leaderboard", "take-that"],
    ["tournament", "show", "1"],
    ["tournament", "list"],
    ["tournament", "show", "1", "--matches"],
    ["bot", "list"],
    ["bot", "show", LONG_NAME],
    ["compare", LONG_NAME, "random", "--game", "take-that"],
    ["games"],
    ["doctor"],
    ["play", "take-that", "random", "first-legal", "--seed", "3"],
]


@pytest.mark.parametrize("width", [80, 200])
@pytest.mark.parametrize("argv", TABLE_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_table_fits_the_width_it_gets(home: Path, argv: list[str], width: int) -> None:
    result = invoke(home, width, *argv)
    assert result.exit_code == 0, result.output
    wide = [line for line in result.stdout.splitlines() if cell_len(line) > width]
    assert not wide, "\n".join(wide)
    if width == 200:  # room for everything: nothing is left out or cut
        assert "left out at" not in result.stdout and "…" not in result.stdout


@pytest.mark.parametrize("argv", [["leaderboard", "take-that"], ["tournament", "show", "1"]])
def test_at_80_columns_numbers_and_names_stay_whole(home: Path, argv: list[str]) -> None:
    rows = json.loads(invoke(home, 80, "leaderboard", "take-that", "--json").stdout)
    shown = invoke(home, 80, *argv).stdout
    tokens = set(re.split(r"\s+", shown))
    for row in rows:
        assert row["bot"] in tokens  # the whole name, never `a-rather-` over `long`
        assert f"{row['rating']:.2f}" in tokens and str(row["wins"]) in tokens
    assert "left out at 80 columns: shared 1st" in shown  # and it says what it left out


def test_columns_go_in_the_given_order_and_names_are_cut_last() -> None:
    columns = ["bot", "rating", "a", "b"]
    cells = {"bot": ["x" * 30], "rating": ["12.34"], "a": ["1" * 20], "b": ["2" * 20]}
    plan = layout(columns, cells, width=60, drop=["b", "a"])
    assert plan.shown == ["bot", "rating", "a"] and plan.hidden == ["b"]
    # Nothing left to leave out: the name is cut with an ellipsis, the number is whole.
    table, hidden = fitted(
        ["bot", "rating"], [["x" * 70, "12.34"]], numeric={"rating"}, width=40, drop=()
    )
    from rich.console import Console

    console = Console(width=40, record=True)
    console.print(table)
    drawn = console.export_text()
    assert "12.34" in drawn and "…" in drawn and hidden == []
    assert all(cell_len(line) <= 40 for line in drawn.splitlines())
