"""`arena init`, `arena docs` and the bundled tournament files (issue 31, item 17)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.cli.init import kits
from arena.protocol.messages import LATEST_PROTOCOL
from arena.tournament import config

runner = CliRunner()


@pytest.mark.parametrize("kit", kits())
def test_init_copies_a_kit_named_after_its_folder(tmp_path: Path, kit: str) -> None:
    folder = tmp_path / f"my-{kit}-bot"
    result = runner.invoke(app, ["init", "--kit", kit, str(folder)])
    assert result.exit_code == 0, result.output
    manifest = tomllib.loads((folder / "bot.toml").read_text())
    assert manifest["name"] == f"my-{kit}-bot"
    assert manifest["protocol"] == LATEST_PROTOCOL  # a new bot speaks version 2
    assert not list(folder.rglob("__pycache__"))


def test_an_initialised_bot_is_accepted_as_it_is(tmp_path: Path) -> None:
    """Copied and renamed, the kit passes a submission's check (the full `bot check` of
    every kit is tests/test_starters.py's and CI's)."""
    folder = tmp_path / "fresh"
    assert runner.invoke(app, ["init", str(folder)]).exit_code == 0
    home = ["--home", str(tmp_path / "home")]
    submitted = runner.invoke(app, [*home, "bot", "submit", str(folder), "--json"])
    assert submitted.exit_code == 0, submitted.output
    assert json.loads(submitted.stdout)["bot"] == "fresh"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["init", "--kit", "cobol", "x"], "no starter kit 'cobol'"),
        (["init", "NOT/../There/x"], "there is no folder"),
        (["init", "Bad.Name"], "is not allowed"),
    ],
)
def test_init_refuses_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, argv)
    assert result.exit_code == 2 and says in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_next_step_names_the_folder_as_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["init", "mybot"])
    assert "next: arena bot check ./mybot   then: arena bot submit ./mybot" in result.output


def test_init_never_writes_over_a_folder_with_files(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "bot.py").write_text("keep me")
    result = runner.invoke(app, ["init", str(tmp_path / "mine")])
    assert result.exit_code == 2 and "not an empty folder" in result.output
    assert (tmp_path / "mine" / "bot.py").read_text() == "keep me"


def test_docs_names_the_pages_that_exist() -> None:
    found = json.loads(runner.invoke(app, ["docs", "--json"]).stdout)
    assert Path(found["protocol"]).is_file() and Path(found["protocol"]).name == "PROTOCOL.md"
    assert (Path(found["rules"]) / "take-that.md").is_file()
    assert set(found["kits"]) >= {"python", "c", "java", "javascript"}
    shown = runner.invoke(app, ["docs"]).stdout
    assert found["protocol"] in shown


def test_the_readmes_tournament_file_is_found_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no tournaments/ here: the bundled file is read
    for spelling in (
        "tournaments/take-that-round-robin.toml",
        "take-that-round-robin.toml",
        "take-that-round-robin",
    ):
        assert config.load(spelling).name == "take-that-round-robin"
    (tmp_path / "tournaments").mkdir()  # a file of the user's own always wins
    own = tmp_path / "tournaments" / "take-that-round-robin.toml"
    own.write_text('name = "mine"\ngame = "take-that"\nbots = ["random", "first-legal"]\n')
    assert config.load("tournaments/take-that-round-robin.toml").name == "mine"
    with pytest.raises(config.ConfigError, match=r"bundled: .*take-that-round-robin"):
        config.load("nothing-like-it.toml")
