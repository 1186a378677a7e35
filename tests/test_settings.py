"""A tournament's stored settings: one type, one serialisation, every database of before read.

The dicts below are what each arena wrote into `Tournament.settings` (git history of
arena/tournament/runner.py, ladder.py, paired.py and Store.cancel_tournament); each
reader of before took a missing key as the default written beside it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from arena.results.sprt import Sprt
from arena.store import Skill
from arena.tournament.config import TournamentConfig
from arena.tournament.settings import LadderPlan, PairedPlan, TournamentSettings

#: The first arena (c6fc660): bots, timeouts and the suspension rule.
FIRST = {
    "bots": ["random", "x"],
    "decision_timeout": 2.0,
    "startup_timeout": 10.0,
    "suspend_after": 3,
}
#: Then the per-bot limits (f8bb98b).
LIMITS = {**FIRST, "limits": {"memory_mb": 512}}
#: Then how it runs, which `resume` reuses (dde1d43 on).
RUNS = {**LIMITS, "workers": 2, "executor": "local", "fresh_processes": True, "pin_workers": False}
LADDER = {
    **RUNS,
    "versions": [3, 1, 2],
    "planned": 40,
    "groups": 20,
    "batch": 4,
    "max_gap": 6,
    "start": {"3": [25.0, 8.333333333333334], "1": [27.5, 4.1], "2": [19.25, 2.0]},
}
SPRT = {
    "bots": ["a", "b"],
    "decision_timeout": 1.0,
    "startup_timeout": 10.0,
    "suspend_after": 0,
    "limits": {},
    "workers": 2,
    "executor": "local",
    "fresh_processes": False,
    "pin_workers": False,
    "sprt": {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.1, "model": "logistic"},
    "max_matches": 200,
}
FIXED_LENGTH = {**SPRT, "sprt": {}, "max_matches": 10}


def read_as_before(data: dict[str, Any]) -> tuple[Any, ...]:
    """What the readers of before made of stored settings (runner, ladder, paired, the
    resume command, reports), each with its own default."""
    return (
        float(data["decision_timeout"]),
        float(data["startup_timeout"]),
        data.get("limits", {}),
        int(data.get("suspend_after", 5)),
        int(data.get("workers", 1)),
        bool(data.get("fresh_processes")),
        bool(data.get("pin_workers", True)),
        str(data.get("executor", "local")),
        [int(v) for v in data.get("versions", [])],
        data.get("planned"),
    )


def read_now(settings: TournamentSettings) -> tuple[Any, ...]:
    return (
        settings.decision_timeout,
        settings.startup_timeout,
        settings.limits,
        settings.suspend_after,
        settings.workers,
        settings.fresh_processes,
        settings.pin_workers,
        settings.executor,
        list(settings.ladder.versions) if settings.ladder else [],
        settings.planned,
    )


@pytest.mark.parametrize("stored", [FIRST, LIMITS, RUNS, LADDER, SPRT, FIXED_LENGTH])
def test_the_settings_of_every_database_of_before_read_as_they_were(stored: dict[str, Any]) -> None:
    settings = TournamentSettings.from_json(stored)
    assert read_now(settings) == read_as_before(stored)
    assert settings.bots == tuple(stored["bots"])


@pytest.mark.parametrize("stored", [RUNS, LADDER, SPRT, FIXED_LENGTH])
def test_settings_written_today_are_the_json_of_before(stored: dict[str, Any]) -> None:
    settings = TournamentSettings.from_json(stored)
    assert settings.to_json() == stored
    assert list(settings.to_json()) == list(stored)  # in the same order, too
    assert TournamentSettings.from_json(settings.to_json()) == settings


def test_a_ladders_and_a_runs_plans() -> None:
    ladder = TournamentSettings.from_json(LADDER).ladder
    assert ladder == LadderPlan(
        versions=(3, 1, 2),
        groups=20,
        planned=40,
        batch=4,
        max_gap=6,
        start={3: Skill(25.0, 8.333333333333334), 1: Skill(27.5, 4.1), 2: Skill(19.25, 2.0)},
    )
    paired = TournamentSettings.from_json(SPRT).paired
    assert paired == PairedPlan(Sprt(0.0, 10.0, 0.05, 0.1, "logistic"), 200)
    assert TournamentSettings.from_json(FIXED_LENGTH).paired == PairedPlan(None, 10)
    assert TournamentSettings.from_json(RUNS).ladder is None
    assert TournamentSettings.from_json(RUNS).paired is None


def test_a_cancelled_tournament_keeps_what_the_store_noted() -> None:
    cancelled = {**RUNS, "unplayed_when_cancelled": 7}
    settings = TournamentSettings.from_json(cancelled)
    assert settings.unplayed_when_cancelled == 7 and settings.to_json() == cancelled


def test_settings_of_a_config_are_those_the_runner_wrote() -> None:
    config = TournamentConfig(
        game="take-that",
        bots=("random", "first-legal"),
        decision_timeout=2.0,
        suspend_after=3,
        limits={"memory_mb": 512},
        workers=2,
        fresh_processes=True,
        pin_workers=False,
    )
    assert TournamentSettings.of(config).to_json() == {**RUNS, "bots": ["random", "first-legal"]}


def test_the_defaults_are_the_configs() -> None:
    """A key missing from an old database reads as the value those versions ran with,
    which is the tournament file's default."""
    defaults, config = TournamentSettings.from_json({}), TournamentConfig()
    assert defaults == TournamentSettings.of(config)
    assert replace(defaults, bots=("a",)).bots == ("a",)
    with pytest.raises(AttributeError):
        defaults.workers = 3  # type: ignore[misc]  # frozen
