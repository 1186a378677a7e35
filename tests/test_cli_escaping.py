"""Issue 11, item 6: bot text never steers the terminal or rich markup, in any command.

The hostile texts are a bot name put straight into the database (as a database
written by an older arena, before names were restricted, would hold) and the
output of tests/bots/terminal_injection, which writes rich markup, ANSI escapes and
bidi overrides to stderr and then answers garbage made of them. Every command must
end as usual, show these texts literally with control characters spelled out, and
keep the exact text in --json output.
"""

from __future__ import annotations

import doctest
import io
import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from arena import controls
from arena.cli import app, safe
from arena.cli.common import echo_json
from arena.store import Store, default_url
from arena.submissions import submit as registry
from arena.submissions.manifest import load_manifest
from tests.helpers import TEST_BOTS

INJECTION = TEST_BOTS / "terminal_injection"
POLITE = TEST_BOTS / "polite"
#: What the bot writes to stderr and answers on stdout.
HOSTILE: str = json.loads((INJECTION / "hostile.json").read_text())
#: A bot name no current arena accepts, as an older database may hold it (no comma:
#: it is passed in --bots).
NAME = "mark[/]up [bold red]\x1b[2J\x1b]0;pwn\x07\u202eevil"
#: Characters that must never reach the terminal raw (rich adds none: output is captured).
RAW = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
#: Table borders and white space, dropped before looking for a text a table may wrap.
LAYOUT = re.compile(r"[\s\u2500-\u257f]")

runner = CliRunner()


def flat(text: str) -> str:
    """`text` without white space and box drawing, so wrapped table cells read as one."""
    return LAYOUT.sub("", text)


def shown(text: str) -> str:
    """How a text from a bot must look on the terminal: markup literal, controls escaped."""
    return flat(safe.visible(text))


def assert_safe(result: Result, *texts: str, code: int = 0) -> None:
    """The command ended with `code`, without traceback or raw control, showing `texts`."""
    output = result.stdout + result.stderr
    assert result.exit_code == code, output
    assert result.exception is None or isinstance(result.exception, SystemExit), output
    assert "Traceback" not in output
    assert RAW.search(output) is None, repr(RAW.search(output))
    for text in texts:
        assert shown(text) in flat(output), (text, output)


def as_json(result: Result) -> Any:
    """The JSON document a --json command printed (it must parse)."""
    assert result.exit_code == 0, result.output
    assert RAW.search(result.stdout) is None  # even JSON spells out display controls
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An arena home whose database has the injection bot under NAME, and polite."""
    home = tmp_path_factory.mktemp("home")
    store = Store(default_url(home))
    for name, folder in ((NAME, INJECTION), ("polite", POLITE)):
        manifest = load_manifest(folder)
        sha = registry.content_hash(manifest)
        store.add_bot_version(name, sha, str(folder), manifest.command, ["*"])
    store.close()
    return home


@pytest.fixture(scope="module")
def tournament(home: Path) -> tuple[int, Result]:
    """`tournament run` between the two, once for the module: its id and its result."""
    args = ["tournament", "run", "--game", "take-that", "--bots", f"{NAME},polite"]
    result = arena(home, *args, "--deals", "1", "-q")
    assert result.exit_code == 0, result.output
    found = re.search(r"tournament (\d+) scheduled", result.stderr)
    assert found is not None, result.stderr
    return int(found.group(1)), result


def arena(home: Path, *args: str) -> Result:
    """Run one arena command in `home`, on a terminal wide enough for the hostile name
    (at 80 columns a table may cut it with an ellipsis: tests/test_tables.py)."""
    return runner.invoke(app, ["--home", str(home), *args], env={"COLUMNS": "200"})


def test_tournament_run_shows_names_literally(tournament: tuple[int, Result]) -> None:
    assert_safe(tournament[1], NAME, "invalid 2")


def test_tournament_show(home: Path, tournament: tuple[int, Result]) -> None:
    number = str(tournament[0])
    assert_safe(arena(home, "tournament", "show", number), NAME, "polite")
    details = as_json(arena(home, "tournament", "show", number, "--json"))
    assert {row["bot"] for row in details["standings"]} == {NAME, "polite"}
    assert details["forfeits"] == {"invalid": 2}


def test_tournament_show_matches_names_each_match_for_the_viewer(
    home: Path, tournament: tuple[int, Result], tmp_path: Path
) -> None:
    number = str(tournament[0])
    assert_safe(arena(home, "tournament", "show", number, "--matches"), NAME, "polite")
    rows = as_json(arena(home, "tournament", "show", number, "--matches", "--json"))
    details = as_json(arena(home, "tournament", "show", number, "--json"))
    assert len(rows) == details["played"] and rows[0]["match"] == f"t{number}-m0"
    assert all(sorted(row["ranks"]) in ([1, 2], [1, 1]) for row in rows)
    page = tmp_path / "match.html"
    shown = arena(home, "replay", "html", "--match", rows[-1]["match"], "-o", str(page))
    assert shown.exit_code == 0, shown.output
    assert 'id="replay-data"' in page.read_text()
    missing = arena(home, "tournament", "show", "99", "--matches")
    assert (
        missing.exit_code == 2
        and missing.stderr.strip() == "error: no tournament 99 (see `arena tournament list`)"
    )


def test_leaderboard(home: Path, tournament: tuple[int, Result]) -> None:
    assert_safe(arena(home, "leaderboard", "take-that"), NAME)
    rows = as_json(arena(home, "leaderboard", "take-that", "--json"))
    assert rows[-1]["bot"] == NAME and rows[-1]["forfeits"] == 2


def test_bot_list(home: Path) -> None:
    assert_safe(arena(home, "bot", "list"), NAME, "polite")
    assert {row["bot"] for row in as_json(arena(home, "bot", "list", "--json"))} == {
        NAME,
        "polite",
    }


def test_bot_show_escapes_name_detail_and_stderr(
    home: Path, tournament: tuple[int, Result]
) -> None:
    result = arena(home, "bot", "show", NAME)
    assert_safe(result, NAME, "not JSON: " + HOSTILE, "first line of stderr", HOSTILE)
    # The stderr tail is a block: its lines stay lines.
    assert "first line of stderr\n" in result.stdout
    details = as_json(arena(home, "bot", "show", NAME, "--json"))
    forfeit = details["recent_forfeits"][0]
    assert details["bot"] == NAME
    assert forfeit["status"] == "invalid" and HOSTILE in forfeit["detail"]
    assert forfeit["stderr_tail"] == f"first line of stderr\n{HOSTILE}\n"


def test_bot_show_unknown_hostile_name_is_one_escaped_line(home: Path) -> None:
    result = arena(home, "bot", "show", NAME + "?")
    assert_safe(result, NAME, code=2)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1


def test_play_and_replay_show(tmp_path: Path) -> None:
    replay = tmp_path / "game.json"
    args = ["play", "take-that", str(INJECTION), str(POLITE), "--seed", "3"]
    played = runner.invoke(app, [*args, "--replay", str(replay)])
    assert_safe(played, "invalid: not JSON: " + HOSTILE, "first line of stderr", HOSTILE)

    summary = as_json(runner.invoke(app, [*args, "--json"]))
    seat = summary["seats"][0]
    assert seat["status"] == "invalid" and seat["detail"] == "not JSON: " + HOSTILE
    assert seat["stderr_tail"] == f"first line of stderr\n{HOSTILE}\n"

    # A replay file is anyone's: a hostile name in it is shown literally too.
    data = json.loads(replay.read_text())
    data["seats"][0]["bot"] = NAME
    replay.write_text(json.dumps(data))
    assert_safe(runner.invoke(app, ["replay", "show", str(replay)]), NAME, HOSTILE)


def test_submit_failing_its_check_is_one_escaped_line_then_the_evidence(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--home", str(tmp_path), "bot", "submit", str(INJECTION)])
    assert_safe(result, HOSTILE, "first line of stderr", code=2)
    first, *below = result.stderr.split("\n")
    assert first.startswith("error: ") and "failed its check" in first
    assert "krumme10: the bot printed:" in below and safe.visible(HOSTILE) in below


def test_log_lines_show_controls_as_escapes() -> None:
    """At -v/-vv protocol lines and forfeit details are logged: they are escaped too."""
    buffer = io.StringIO()
    handler = safe.LineHandler()
    handler.emit = lambda record: buffer.write(handler.format(record) + "\n")  # type: ignore[method-assign]
    logger = logging.getLogger("arena.test_escaping")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("%s >> %s", NAME, HOSTILE)
    finally:
        logger.removeHandler(handler)
    assert RAW.search(buffer.getvalue()) is None
    assert shown(f"{NAME} >> {HOSTILE}") in flat(buffer.getvalue())


def test_the_cli_logs_through_the_escaping_handler() -> None:
    root = logging.getLogger()
    level = root.level
    try:
        assert runner.invoke(app, ["-v", "games", "--json"]).exit_code == 0
        handlers = [getattr(h, "sub_handler", h) for h in root.handlers]
    finally:
        root.setLevel(level)
    assert any(isinstance(h, safe.LineHandler) for h in handlers), handlers


def test_visible_escapes_every_control_and_bidi_character() -> None:
    for char in "\x00\x07\x08\x0d\x1b\x7f\x85\x9b\u061c\u200f\u2028\u202a\u202e\u2066\u2069":
        assert RAW.search(safe.visible(f"a{char}b")) is None
        assert safe.visible(char) == (
            f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
        )
    assert safe.visible("é ü 漢 [/]") == "é ü 漢 [/]"  # ordinary text unchanged
    assert safe.visible("a\nb\tc", block=True) == "a\nb\tc"
    assert safe.visible("a\nb\tc") == "a\\x0ab\\x09c"


def test_json_text_parses_to_the_exact_text() -> None:
    document = json.dumps({"bot": NAME, "text": HOSTILE}, ensure_ascii=False)
    assert RAW.search(document) is not None  # DEL, C1 and bidi pass through json.dumps
    assert RAW.search(safe.json_text(document)) is None
    assert json.loads(safe.json_text(document)) == {"bot": NAME, "text": HOSTILE}


def test_safe_doctests() -> None:
    assert doctest.testmod(safe).failed == 0


#: Zero-width, BOM, soft hyphen and tag characters (invisible "A"): they hide text or
#: make two names look alike; the terminal and the HTML viewer escape them too.
INVISIBLE = "\u200b\u200d\ufeff\u00ad\u2060\U000e0041"


def test_invisible_characters_are_escaped_and_json_keeps_them_exact() -> None:
    assert safe.visible(f"a{INVISIBLE}b") == r"a\u200b\u200d\ufeff\xad\u2060\U000e0041b"
    document = json.dumps({"bot": INVISIBLE}, ensure_ascii=False)
    escaped = safe.json_text(document)
    assert escaped.isascii() and json.loads(escaped) == {"bot": INVISIBLE}


# ----- issue 30, item 2: bytes a bot wrote that are not UTF-8 ---------------------------
#: What arena reads of bytes that are not UTF-8 (surrogateescape): 0xff 0xfe, a cut
#: sequence, an overlong "/" and an encoded surrogate, then a surrogate no byte gives.
NOT_UTF8 = b"\xff\xfe \xe2\x82 \xc0\xaf \xed\xa0\x80".decode("utf-8", "surrogateescape")


def test_issue_30_a_byte_that_was_not_utf8_shows_as_that_byte() -> None:
    """Such text reached the terminal as U+FFFD before; raw, no encoder takes it."""
    expected = r"\xff\xfe \xe2\x82 \xc0\xaf \xed\xa0\x80"
    assert safe.visible(NOT_UTF8) == expected
    assert controls.spelled(NOT_UTF8) == expected  # a replay's spelling
    assert safe.visible(f"{NOT_UTF8}\n\ud800", block=True) == expected + "\n\\ud800"
    assert safe.text(NOT_UTF8).plain.encode("utf-8") == expected.encode()
    buffer = io.StringIO()
    handler = safe.LineHandler()
    handler.emit = lambda record: buffer.write(handler.format(record) + "\n")  # type: ignore[method-assign]
    logger = logging.getLogger("arena.test_not_utf8")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("bot >> %s", NOT_UTF8)  # a -vv protocol line
    finally:
        logger.removeHandler(handler)
    assert buffer.getvalue() == f"arena.test_not_utf8: warning: bot >> {expected}\n"


@pytest.mark.parametrize(
    "said",
    [
        NOT_UTF8,
        "\x10dcff \x10 \\u0010dcff \\\\\x10 \udcff",
        "\x00\udc80\\\udc80\\\\\udc80 " + HOSTILE,
    ],
)
def test_issue_30_json_output_spells_them_as_escapes_that_parse_back(
    said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """orjson refuses lone surrogates (every --json of such a text was a traceback): they
    are written as JSON escapes, the rest as before; U+0010, the mark, stays exact."""
    data = {"detail": said, said: [said, 1, None, {"stderr_tail": said}]}
    echo_json(data)
    document = capsys.readouterr().out
    assert document == safe.json_document(data) + "\n"
    document.encode("utf-8")  # printable: no raw surrogate
    assert RAW.search(document) is None
    assert json.loads(document) == data
    assert json.loads(document)["detail"].encode("utf-8", "surrogateescape") == said.encode(
        "utf-8", "surrogateescape"
    )
