"""One settings module reads the environment (issue 32 item 7): arena.settings names every
variable arena reads; no other module of arena reads one, but the referees' one switch
(they run in sandboxes without arena.settings: see its docstring)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from arena import settings

ARENA = Path(__file__).resolve().parents[1] / "arena"
#: The referees cannot import arena.settings inside a sandbox.
ALLOWED = {ARENA / "settings.py", ARENA / "games" / "twirkle" / "fast.py"}


def _reads(tree: ast.AST) -> list[int]:
    """Lines that read os.environ or call os.getenv."""
    lines = []
    for node in ast.walk(tree):
        named = isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb")
        if named and isinstance(node.value, ast.Name) and node.value.id == "os":
            lines.append(node.lineno)
    return lines


def test_only_the_settings_module_reads_the_environment() -> None:
    found = [
        f"{path.relative_to(ARENA.parent)}:{line}"
        for path in sorted(ARENA.rglob("*.py"))
        if path not in ALLOWED
        for line in _reads(ast.parse(path.read_text(), str(path)))
    ]
    assert found == []


def test_the_reader_finds_a_read() -> None:
    source = "import os\nx = os.environ.get('A')\ny = os.getenv('B')"
    assert sorted(_reads(ast.parse(source))) == [2, 3]


def test_every_named_variable_is_in_the_table_of_the_docstring() -> None:
    names = [v for k, v in vars(settings).items() if k.isupper() and isinstance(v, str)]
    assert len(names) >= 9
    assert all(f"| {name} |" in (settings.__doc__ or "") for name in names)


def test_values_are_read_when_asked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(settings.HOME, str(tmp_path))
    monkeypatch.delenv(settings.DB, raising=False)
    assert settings.home() == tmp_path
    assert settings.database_url(tmp_path) == f"sqlite:///{tmp_path / 'arena.db'}"
    monkeypatch.setenv(settings.WORKER_CACHE, str(tmp_path / "cache"))
    assert settings.worker_cache() == tmp_path / "cache"
