"""The observation schemas of protocol/games/ are made from the games' typed models
(arena.games.schemas, written by scripts/gen_schemas.py): a stale file fails here."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Annotated

import pytest

from arena.games import all_games
from arena.games.observation import Field, is_envelope, to_v1
from arena.games.schemas import SUFFIXES, _schema, file_name, observation_schema, schema_text

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "protocol" / "games"


def generator(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """scripts/gen_schemas.py imported as Python runs it, not run."""
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    sys.modules.pop("gen_schemas", None)
    return importlib.import_module("gen_schemas")


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.spec.id)
@pytest.mark.parametrize("version", sorted(SUFFIXES))
def test_every_observation_schema_file_is_what_the_models_give(game: type, version: int) -> None:
    path = FOLDER / file_name(game.spec.id, version)  # type: ignore[attr-defined]
    assert path.read_text() == schema_text(game.spec.id, version), (  # type: ignore[attr-defined]
        f"{path.name} is stale: run scripts/gen_schemas.py"
    )


def test_the_script_names_a_stale_or_missing_file_and_fixes_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = generator(monkeypatch)
    monkeypatch.setattr(script, "ROOT", tmp_path)
    monkeypatch.setattr(script, "FOLDER", tmp_path)
    assert script.main([]) == 0  # writes every file into the empty folder
    assert script.main(["--check"]) == 0
    stale = tmp_path / "leylo.observation.v2.schema.json"
    stale.write_text(stale.read_text().replace('"minimum": 120', '"minimum": 121'))
    (tmp_path / "twirkle.observation.schema.json").unlink()
    capsys.readouterr()
    assert script.main(["--check"]) == 1
    said = capsys.readouterr().out.splitlines()
    assert said == [
        "stale: leylo.observation.v2.schema.json (run scripts/gen_schemas.py)",
        "stale: twirkle.observation.schema.json (run scripts/gen_schemas.py)",
    ]
    assert script.main([]) == 0 and script.main(["--check"]) == 0


def test_the_envelope_schema_has_the_common_keys_and_the_games_fields_under_game() -> None:
    for game in all_games():
        v1, v2 = (observation_schema(game.spec.id, version) for version in (1, 2))
        assert v2["required"] == ["seat", "players", "phase", "to_move", "scores", "game"]
        assert v2["properties"]["to_move"]["type"] == "array"
        assert v2["properties"]["phase"]["enum"][-1] == "over"
        fields = v2["properties"]["game"]
        assert fields["type"] == "object" and fields["additionalProperties"] is False
        assert set(fields["required"]) <= set(v1["required"])


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.spec.id)
def test_the_rules_page_shows_the_envelope_first_and_names_every_phase(game: type) -> None:
    """Both shapes of one observation, version 2 first, and a row for every phase name."""
    game_id = game.spec.id  # type: ignore[attr-defined]
    text = (FOLDER / f"{game_id}.md").read_text()
    section = text.split("## Observation\n", 1)[1].split("\n## ", 1)[0]
    assert section.index(file_name(game_id, 2)) < section.index("### Version 1 (still served)")
    blocks = [json.loads(b.split("```", 1)[0]) for b in section.split("```json\n")[1:]]
    assert is_envelope(blocks[0]) and not is_envelope(blocks[1])
    assert to_v1(game_id, blocks[0]) == blocks[1], "the two examples are one observation"
    for phase in observation_schema(game_id, 2)["properties"]["phase"]["enum"]:
        assert f"| `{phase}` |" in section, f"{game_id}.md does not document phase {phase}"


def test_annotations_become_schema_keywords() -> None:
    defs: dict[str, object] = {}
    bounded = Annotated[int, Field(minimum=0, maximum=3)]
    assert _schema(bounded | None, defs) == {
        "type": ["integer", "null"],
        "minimum": 0,
        "maximum": 3,
    }
    seat = Annotated[int, Field("A seat.", minimum=0, maximum=3)]
    described = {"type": "integer", "minimum": 0, "maximum": 3, "description": "A seat."}
    assert _schema(seat | None, defs) == {"oneOf": [described, {"type": "null"}]}
    assert _schema(Annotated[list[seat], Field("Seats.", maxItems=2)], defs) == {
        "type": "array",
        "items": {"type": "integer", "minimum": 0, "maximum": 3, "description": "A seat."},
        "maxItems": 2,
        "description": "Seats.",
    }
    with pytest.raises(TypeError, match="no JSON Schema"):
        _schema(dict[str, int], defs)
