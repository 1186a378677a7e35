"""Every doctest example in the arena package runs: one test per module of the package.

The modules are found by walking the package (pkgutil), so a new module's examples run
without a line here. A module that cannot be imported fails its test (an optional
dependency too: the test extra installs them all); none is left out silently.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import arena

#: Modules that do their work when imported, so are read instead: a doctest in one could
#: never run, and one is a failure. Each with what importing it would do.
PROGRAMS = {
    "arena.__main__": "runs the command line (python -m arena)",
    "arena.store.migrations.env": "runs the migrations: alembic imports it in its own context",
}


def _walk() -> tuple[list[str], list[str]]:
    """The names of every module of arena, and of the packages that failed to import."""
    broken: list[str] = []
    names = [info.name for info in pkgutil.walk_packages(arena.__path__, "arena.", broken.append)]
    return ["arena", *names], broken


MODULES, BROKEN = _walk()


def test_every_package_of_arena_imports() -> None:
    """A package that fails to import hides its modules from the walk: that is a failure."""
    assert BROKEN == []


def test_the_programs_are_modules_of_arena() -> None:
    assert set(PROGRAMS) <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctest_examples_pass(name: str) -> None:
    if name in PROGRAMS:
        source = Path(importlib.util.find_spec(name).origin or "").read_text(encoding="utf-8")
        examples = doctest.DocTestParser().get_examples(source)
        assert examples == [], f"{name} {PROGRAMS[name]}: its examples cannot run"
        return
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner()
    report: list[str] = []
    for test in doctest.DocTestFinder().find(module):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
