"""Replay files are untrusted input: any malformed file is a one-line error, never a traceback.

Every value of a real replay of each game is replaced in turn by values of other
types and shapes, or removed; `replay verify`, `replay show` and `replay html` must
then either accept the file (the change did not matter) or refuse it with exit code 2
and one `error:` line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena import viewer
from arena.cli import app
from arena.cli.errors import EXPECTED
from arena.match import replay as replays
from arena.match.run import run_match
from tests.helpers import bot_ref_for
from tests.test_match import spec

runner = CliRunner()
ODD_VALUES: list[Any] = [None, -1, 10**30, 1.5, "x", [], {}, [[[]]], {"seat": 99}]
#: The options each `replay` command takes besides the file.
OUTPUT = {
    "verify": lambda _folder: [],
    "show": lambda _folder: [],
    "html": lambda folder: ["-o", str(folder / "replay.html")],
}


def mutations(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, replacement) pairs: every odd value at every path; None means removed."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield (*path, key), None
            yield from mutations(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:4]):  # the first few events say enough
            yield from mutations(inner, (*path, index))
    for odd in ODD_VALUES:
        if odd != value:
            yield path, odd


def mutated(replay: dict[str, Any], path: tuple[Any, ...], new: Any) -> Any:
    copy = json.loads(json.dumps(replay))
    if not path:
        return new
    *parents, last = path
    target = copy
    for part in parents:
        target = target[part]
    if new is None and isinstance(target, dict):
        del target[last]
    else:
        target[last] = new
    return copy


@pytest.fixture(scope="module")
def real_replay() -> dict[str, Any]:
    result = run_match(spec(bot_ref_for("polite"), bot_ref_for("polite"), timeout=2.0))
    assert result.replay is not None
    return result.replay


def test_every_malformed_replay_is_refused_with_a_replay_error(
    real_replay: dict[str, Any], tmp_path: Path
) -> None:
    """The layer below the CLI: load, verify and show raise only the one-line errors."""
    file = tmp_path / "replay.json"
    cases = list(mutations(real_replay))
    assert len(cases) > 300
    refused = 0
    for index, (path, new) in enumerate(cases):
        file.write_text(json.dumps(mutated(real_replay, path, new)))
        try:
            data = replays.load(file)
            replays.verify(data)
            list(replays.lines(data))
        except EXPECTED as error:
            refused += 1
            assert "\n" not in str(error), (path, new)
        if index % 4:  # the HTML viewer walks the same files (a quarter of them: it is slower)
            continue
        try:
            viewer.page_data(replays.load(file))  # the same one-line errors, nothing else
        except EXPECTED as error:
            assert "\n" not in str(error), (path, new)
    assert refused > len(cases) // 2  # most changes are caught


@pytest.mark.parametrize(
    ("path", "new"),
    [
        (("players",), 10**30),
        (("events", 0, "outcome", "draw_pile", 0), None),
        (("game",), "x"),
        (("seats", 0, "seat"), 5),
        (("outcome", "scores"), []),
        (("events", 2), {"seat": 99}),
    ],
)
def test_malformed_replays_through_the_cli_are_one_line(
    real_replay: dict[str, Any], tmp_path: Path, path: tuple[Any, ...], new: Any
) -> None:
    file = tmp_path / "replay.json"
    file.write_text(json.dumps(mutated(real_replay, path, new)))
    for command in ("verify", "show", "html"):
        result = runner.invoke(app, ["replay", command, str(file), *OUTPUT[command](tmp_path)])
        assert result.exit_code == 2, result.output
        assert result.output.startswith("error:")
        assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("text", ["", "[]", "null", '"replay"', "{", "\x00", "[" * 5000])
def test_files_that_are_not_replays_at_all(tmp_path: Path, text: str) -> None:
    file = tmp_path / "replay.json"
    file.write_text(text)
    for command in ("verify", "show", "html"):
        result = runner.invoke(app, ["replay", command, str(file), *OUTPUT[command](tmp_path)])
        assert result.exit_code == 2, result.output
        assert result.output.startswith("error:")


def test_a_tampered_decision_is_named(real_replay: dict[str, Any], tmp_path: Path) -> None:
    data = json.loads(json.dumps(real_replay))
    first = next(e for e in data["events"] if "seat" in e)
    first["decision"] = {"action": "nonsense"}
    file = tmp_path / "replay.json"
    file.write_text(json.dumps(data))
    result = runner.invoke(app, ["replay", "verify", str(file)])
    assert result.exit_code == 2
    assert "not legal there" in result.output
    assert data["version"] in replays.READABLE_VERSIONS
