"""Golden transcripts: every referee still plays its pinned matches step by step.

The transcripts in tests/golden/ are written only by scripts/make_golden.py. A referee
made faster must replay them exactly; a deliberate rules change bumps the game's
version and regenerates them (see that script's docstring).
"""

from __future__ import annotations

import copy
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest

from arena.games import all_games, load_game
from arena.testing import check_golden

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
TRANSCRIPTS = sorted(GOLDEN.glob("*.json"))


def _make_golden() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_golden", ROOT / "scripts/make_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_golden", module)
    spec.loader.exec_module(module)
    return module


def _load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = orjson.loads(path.read_bytes())
    return loaded


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.stem)
def test_referee_replays_its_golden_transcript(path: Path) -> None:
    golden = _load(path)
    check_golden(load_game(golden["game"]), golden)


def test_every_case_of_the_script_has_its_transcript_and_nothing_else() -> None:
    make_golden = _make_golden()
    expected = {make_golden.case_name(g, p, v) for g, p, v, _seed in make_golden.CASES}
    assert {p.stem for p in TRANSCRIPTS} == expected


def test_cases_cover_every_player_count_and_every_variant_value() -> None:
    make_golden = _make_golden()
    for game in all_games():
        spec = game.spec
        cases = [(p, v) for g, p, v, _seed in make_golden.CASES if g == spec.id]
        counts = {players for players, _variant in cases}
        assert counts == set(range(spec.min_players, spec.max_players + 1)), spec.id
        for option in spec.variants:
            used = {v[option.name] for _p, v in cases if option.name in v}
            assert any(value != option.default for value in used), (
                f"{spec.id}: no golden transcript plays {option.name} off its default"
            )


def _tampered(golden: dict[str, Any], where: str) -> dict[str, Any]:
    changed = copy.deepcopy(golden)
    steps = changed["steps"]
    middle = len(steps) // 2
    if where == "decision":  # a decision that was never offered
        _views, moves = steps[middle]
        moves[0][2] = {"action": "not-a-decision"}
    elif where == "observation":
        steps[middle][0] = "000000000000"
    elif where == "legal":
        steps[middle][1][0][1] = "000000000000"
    elif where == "outcome":
        changed["outcome"]["scores"][0] += 1
    elif where == "chance":
        changed["seed"] += 1
    return changed


@pytest.mark.parametrize("where", ["decision", "observation", "legal", "outcome", "chance"])
def test_a_changed_transcript_is_caught(where: str) -> None:
    """The check is real: any difference in what a referee does fails it."""
    golden = _load(GOLDEN / "take-that-3p.json")
    with pytest.raises((AssertionError, ValueError)):
        check_golden(load_game("take-that"), _tampered(golden, where))


def test_a_transcript_of_an_older_rules_version_asks_for_regeneration() -> None:
    golden = _load(GOLDEN / "leylo-2p.json")
    golden["game_version"] -= 1
    with pytest.raises(AssertionError, match="regenerate"):
        check_golden(load_game("leylo"), golden)
