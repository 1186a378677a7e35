"""One error root (issue 32 item 7): every error arena raises on purpose is an ArenaError,
with the exit code the command line ends with, mapped once (arena.cli.errors)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from typer.testing import CliRunner

import arena
from arena import ArenaError
from arena.cli import app
from arena.cli.errors import EXPECTED

#: Not errors but signals: a run stopped by Ctrl-C travels as a KeyboardInterrupt.
SIGNALS = (KeyboardInterrupt,)


def _modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(arena.__path__, "arena.")]
    skipped = ("__main__", "migrations.env")  # a program and alembic's script: not imported
    return [n for n in names if not n.endswith(skipped) and ".versions." not in n]


def _public_errors() -> list[type[BaseException]]:
    found = []
    for name in _modules():
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            own = value.__module__ == name and not value.__name__.startswith("_")
            if own and issubclass(value, BaseException) and not issubclass(value, SIGNALS):
                found.append(value)
    return found


def test_every_public_error_of_arena_is_an_arena_error() -> None:
    errors = _public_errors()
    assert len(errors) > 20  # the walk does find them
    strays = [f"{e.__module__}.{e.__qualname__}" for e in errors if not issubclass(e, ArenaError)]
    assert strays == []


def test_every_error_has_an_exit_code_and_the_cli_maps_the_root() -> None:
    assert EXPECTED is ArenaError
    for error in _public_errors():
        # 3, 4, 5: what `arena remote` tells apart (arena.service.client)
        assert isinstance(error.exit_code, int) and error.exit_code in (1, 2, 3, 4, 5, 130), error


@pytest.mark.parametrize("args", [["leaderboard", "no-such-game"], ["replay", "show", "/nope"]])
def test_an_arena_error_ends_a_command_in_one_line(args: list[str], tmp_path: object) -> None:
    result = CliRunner().invoke(app, args, env={"ARENA_HOME": str(tmp_path)})
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert result.output.strip().startswith("error:") and result.output.strip().count("\n") == 0
