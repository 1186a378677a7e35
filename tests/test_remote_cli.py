"""`arena remote` against a real service: login (the token kept for the user alone),
the local commands' tables and --json, private parts for the owner only, replays as
files and pages, and one line with its own exit code for each kind of failure."""

from __future__ import annotations

import json
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.store import Store
from tests.service_fixtures import ALICE_STDERR, BOB_DETAIL, Served, populate, serve

runner = CliRunner()
#: Each test runs the command line a dozen times against the server: seconds of CPU.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("remote-server")
    store = Store(f"sqlite:///{home / 'arena.db'}")
    tokens, match_id = populate(store)
    for url in serve(store, home):
        yield Served(url, store, home, tokens, match_id)


def logged_in(served: Served, who: str, home: Path) -> list[str]:
    """The home option of an author's machine, logged in as `who`."""
    found = runner.invoke(
        app,
        ["--home", str(home), "remote", "login", served.url],
        env={"ARENA_TOKEN": served.tokens[who]},
    )
    assert found.exit_code == 0, found.output
    assert found.stdout.strip() == f"logged in to {served.url} as {who} (author)"
    return ["--home", str(home)]


def test_login_keeps_the_token_for_the_user_alone(served: Served, tmp_path: Path) -> None:
    logged_in(served, "alice", tmp_path)
    kept = tmp_path / "remote.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert json.loads(kept.read_text()) == {"url": served.url, "token": served.tokens["alice"]}
    prompted = runner.invoke(
        app,
        ["--home", str(tmp_path / "p"), "remote", "login", served.url],
        input=served.tokens["bob"] + "\n",
    )
    assert prompted.exit_code == 0 and "as bob" in prompted.stdout
    assert served.tokens["bob"] not in prompted.stdout


def test_tables_and_json_are_the_local_commands(served: Served, tmp_path: Path) -> None:
    home = logged_in(served, "alice", tmp_path)
    board = runner.invoke(app, [*home, "remote", "leaderboard", "take-that", "--json"])
    assert [row["bot"] for row in json.loads(board.stdout)] == ["alices", "bobs"]
    table = runner.invoke(
        app, [*home, "remote", "leaderboard", "take-that"], env={"COLUMNS": "150"}
    )
    assert table.exit_code == 0 and "take-that (rules v1) leaderboard" in table.stdout
    assert "alices" in table.stdout
    bots = runner.invoke(app, [*home, "remote", "bots"], env={"COLUMNS": "150"})
    assert "bobs" in bots.stdout and "alices" in bots.stdout
    shown = runner.invoke(app, [*home, "remote", "show", "alices"], env={"COLUMNS": "150"})
    assert shown.exit_code == 0 and "alices: owner account:alice" in shown.stdout
    matches = runner.invoke(app, [*home, "remote", "matches", "bobs", "--json"])
    assert json.loads(matches.stdout)[0]["match"] == served.match_id


def test_private_parts_are_the_owners_through_the_cli(served: Served, tmp_path: Path) -> None:
    alice = logged_in(served, "alice", tmp_path / "a")
    bob = logged_in(served, "bob", tmp_path / "b")
    for home, sees in ((alice, False), (bob, True)):
        shown = runner.invoke(app, [*home, "remote", "show", "bobs", "--json"])
        assert (BOB_DETAIL in shown.stdout) is sees
        table = runner.invoke(app, [*home, "remote", "show", "bobs"], env={"COLUMNS": "200"})
        assert table.exit_code == 0, table.output
        assert ("bob-stderr" in table.stdout) is sees
    mine = runner.invoke(app, [*alice, "remote", "matches", "alices", "--json"])
    assert ALICE_STDERR not in mine.stdout  # a seat's stderr is the match's page's, not this list


def test_replay_as_lines_a_file_and_a_page(served: Served, tmp_path: Path) -> None:
    home = logged_in(served, "bob", tmp_path)
    shown = runner.invoke(app, [*home, "remote", "replay", str(served.match_id)])
    assert shown.exit_code == 0 and "seat 1 (bobs v1) forfeited: crash" in shown.stdout
    assert BOB_DETAIL in shown.stdout  # bob's own
    written = runner.invoke(
        app,
        [*home, "remote", "replay", str(served.match_id), "-o", str(tmp_path / "m.json"),
         "--html", str(tmp_path / "m.html")],
    )  # fmt: skip
    assert written.exit_code == 0, written.output
    assert json.loads((tmp_path / "m.json").read_text())["game"] == "take-that"
    assert (tmp_path / "m.html").read_text().startswith("<!DOCTYPE html>")


def test_each_failure_is_one_line_with_its_own_exit_code(served: Served, tmp_path: Path) -> None:
    nobody = ["--home", str(tmp_path / "nobody")]
    found = runner.invoke(app, [*nobody, "remote", "bots"])
    assert (found.exit_code, found.stderr.strip()) == (
        4,
        "error: not logged in: arena remote login URL",
    )
    with socket.socket() as free:  # a port where nothing listens
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    down = runner.invoke(
        app, [*nobody, "remote", "login", f"http://127.0.0.1:{port}"], env={"ARENA_TOKEN": "x"}
    )
    assert down.exit_code == 3 and down.stderr.startswith(
        f"error: cannot reach http://127.0.0.1:{port}"
    )
    forged = runner.invoke(
        app, [*nobody, "remote", "login", served.url], env={"ARENA_TOKEN": "arena_x"}
    )
    assert forged.exit_code == 4 and "not accepted" in forged.stderr
    assert not (tmp_path / "nobody" / "remote.json").exists()
    home = logged_in(served, "bob", tmp_path / "bob")
    missing = runner.invoke(app, [*home, "remote", "show", "nobody"])
    assert (missing.exit_code, missing.stderr.strip()) == (2, "error: no bot called 'nobody'")
    served.store.rotate_token("bob")  # the token kept is an old one now
    refused = runner.invoke(app, [*home, "remote", "bots"])
    assert refused.exit_code == 4 and len(refused.stderr.strip().splitlines()) == 1
    served.tokens["bob"] = served.store.rotate_token("bob")
    home = logged_in(served, "bob", tmp_path / "bob")
    folder = tmp_path / "taken"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "alices"\ncommand = ["python3", "bot.py"]\n')
    (folder / "bot.py").write_text("")
    taken = runner.invoke(app, [*home, "remote", "submit", str(folder)])
    assert taken.exit_code == 5, taken.output
    assert taken.stderr.strip().splitlines()[-1] == (
        "error: bot 'alices' belongs to 'account:alice': choose another name (--name)"
    )
    bad = runner.invoke(app, [*home, "remote", "login", "ftp://x"])
    assert bad.exit_code == 2
