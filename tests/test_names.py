"""Issue 30 item 11: the starter kits' names are reserved, like the bundled bots' names.

A kit (bots/starters/*) is a template: copied, renamed, changed. A copy submitted
without a name of its own used to take the kit's name for everyone, so that every
later user's unrenamed copy failed with "belongs to ...". It is now refused, with a
one-line hint, whoever submits it, under the kit's name or with `--name`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.store import Store, default_url
from arena.submissions import check
from arena.submissions import submit as registry
from arena.submissions.botfiles import BotFolderError
from arena.submissions.manifest import BUNDLED_BOTS, load_manifest, starter_names

STARTERS = BUNDLED_BOTS / "starters"
runner = CliRunner()


def test_every_kit_name_is_reserved() -> None:
    kits = sorted(p for p in STARTERS.iterdir() if (p / "bot.toml").is_file())
    assert {kit.name for kit in kits} >= {"python", "javascript", "c", "java", "rust", "go"}
    assert sorted(starter_names()) == sorted(load_manifest(kit).name for kit in kits)
    assert "starter-python" in starter_names()


@pytest.mark.parametrize("kit", ["python", "javascript"])
def test_a_kit_copied_without_a_new_name_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kit: str
) -> None:
    played: list[str] = []
    monkeypatch.setattr(
        check, "submission_check", lambda manifest, games=None: played.append(manifest.name)
    )
    folder = tmp_path / "mybot"
    shutil.copytree(STARTERS / kit, folder, ignore=shutil.ignore_patterns("__pycache__"))
    home = tmp_path / "home"
    name = f"starter-{kit}"
    result = runner.invoke(app, ["--home", str(home), "bot", "submit", str(folder)])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "is the starter kit's" in result.stderr
    store = Store(default_url(home))
    try:
        for path, as_name in ((str(folder), None), (str(STARTERS / kit), None)):
            with pytest.raises(BotFolderError, match="give your copy a name of its own"):
                registry.submit(store, home, path, as_name)
        other = tmp_path / "other"
        shutil.copytree(BUNDLED_BOTS / "random", other)
        with pytest.raises(BotFolderError, match="starter kit"):
            registry.submit(store, home, str(other), name)  # nor with --name
        assert store.bot_owner(name) is None and played == []
        # renamed, the same code registers
        _version, created = registry.submit(store, home, str(folder), "my-starter")
        assert created and played == ["my-starter"]
    finally:
        store.close()
