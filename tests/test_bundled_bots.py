"""The generic bundled bots (random in Python, first-legal in C) speak protocol 2 over plain pipes.

No arena player code is involved: each test starts the bot with `subprocess`, writes
JSON lines and reads the answers, so a bug in the bot cannot hide behind the runner.
"""

from __future__ import annotations

import json
import select
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.games.take_that import TakeThat

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots"
TIMEOUT = 10.0


class Pipe:
    """A bot process spoken to line by line, with a timeout on every read."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )

    def send(self, message: dict[str, Any] | str) -> None:
        line = message if isinstance(message, str) else json.dumps(message)
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")

    def receive(self) -> bytes:
        """One answer line; fails if the bot stays silent (e.g. it did not flush)."""
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT)
        assert ready, "the bot did not answer in time"
        line = self.proc.stdout.readline()
        assert line.endswith(b"\n"), f"answer is not a whole line: {line!r}"
        return line

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(message)
        answer: dict[str, Any] = json.loads(self.receive())
        return answer

    def silent(self) -> bool:
        """True if nothing is waiting on the bot's stdout right now (after a short grace)."""
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 0.05)
        return not ready

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def wait(self) -> int:
        return self.proc.wait(timeout=TIMEOUT)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def start_message(seed: int, seat: int = 0, players: int = 3) -> dict[str, Any]:
    return {
        "type": "start",
        "protocol": 2,
        "match": "m-test",
        "game": "take-that",
        "game_version": 1,
        "variant": {"rounds": 2, "pro": False},
        "players": players,
        "seat": seat,
        "seed": seed,
        "time_control": {"kind": "per-decision", "decision_ms": 1000, "startup_ms": 10000},
    }


def take_that_requests(count: int, seed: int = 3) -> Iterator[dict[str, Any]]:
    """Real decision requests from a Take That game played by the first legal decision."""
    game = TakeThat.new(3, seed)
    for number in range(count):
        seat = game.to_move()[0]
        legal = game.legal(seat)
        yield {
            "type": "decide",
            "id": number + 1,
            "observation": game.observation(seat),
            "legal": legal,
            "time": {"limit_ms": 1000, "bank_ms": None, "increment_ms": 0},
        }
        game.apply(seat, legal[-1] if number % 3 == 0 else legal[0])


def end_message() -> dict[str, Any]:
    return {
        "type": "end",
        "match": "m-test",
        "seat": 0,
        "result": {"scores": [1, -2, 0], "ranks": [1, 3, 2], "status": ["ok", "ok", "ok"]},
    }


# ----- manifests ---------------------------------------------------------------
@pytest.mark.parametrize("folder", ["random", "first-legal"])
def test_manifest_names_the_folder_and_serves_every_game(folder: str) -> None:
    manifest = tomllib.loads((BOTS / folder / "bot.toml").read_text())
    assert manifest["name"] == folder
    assert manifest["games"] == ["*"]
    assert manifest["protocol"] == 2
    assert isinstance(manifest["command"], list) and manifest["command"]
    assert manifest["description"]


def test_first_legal_manifest_builds_with_cc() -> None:
    manifest = tomllib.loads((BOTS / "first-legal" / "bot.toml").read_text())
    assert manifest["command"] == ["./first-legal"]
    assert manifest["build"] == ["cc", "-O2", "-o", "first-legal", "first-legal.c"]


# ----- the random bot ----------------------------------------------------------
@pytest.fixture
def random_bot_env() -> dict[str, str] | None:
    """The random bot's environment: this interpreter's (it uses the standard library only)."""
    return None


def random_bot(env: dict[str, str] | None) -> Pipe:
    return Pipe([sys.executable, "bot.py"], BOTS / "random", env)


def play_requests(bot: Pipe, seed: int, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One match: start, every request, end; returns the decisions and checks each answer."""
    assert bot.ask(start_message(seed))["type"] == "ready"
    decisions = []
    for request in requests:
        answer = bot.ask(request)
        assert answer["type"] == "decision" and answer["id"] == request["id"]
        assert answer["decision"] in request["legal"], f"{answer} is not legal"
        decisions.append(answer["decision"])
    bot.send(end_message())
    assert bot.silent(), "the bot answered an end message"
    return decisions


def test_random_bot_answers_start_decide_end_quit(random_bot_env: dict[str, str] | None) -> None:
    requests = list(take_that_requests(40))
    bot = random_bot(random_bot_env)
    try:
        decisions = play_requests(bot, 11, requests)
        assert len({json.dumps(d) for d in decisions}) > 5, "the choices do not look random"
        bot.send({"type": "quit"})
        assert bot.wait() == 0
    finally:
        bot.kill()


def test_random_bot_reseeds_at_every_start_and_replays_exactly(
    random_bot_env: dict[str, str] | None,
) -> None:
    requests = list(take_that_requests(30))
    bot = random_bot(random_bot_env)
    try:
        first = play_requests(bot, 5, requests)
        other = play_requests(bot, 6, requests)
        again = play_requests(bot, 5, requests)
        assert first == again, "the same seed must give the same decisions"
        assert first != other, "another seed should give other decisions"
    finally:
        bot.kill()


def test_random_bot_ignores_unknown_messages_and_garbage_and_exits_on_eof(
    random_bot_env: dict[str, str] | None,
) -> None:
    request = next(take_that_requests(1))
    bot = random_bot(random_bot_env)
    try:
        assert bot.ask(start_message(1)) == {"type": "ready", "name": "random"}
        bot.send({"type": "ping-from-the-future", "id": 7})
        bot.send("this is not json")
        bot.send("[1, 2, 3]")
        answer = bot.ask(request)
        assert answer["id"] == request["id"] and answer["decision"] in request["legal"]
        bot.close_stdin()
        assert bot.wait() == 0
    finally:
        bot.kill()


# ----- the C bot -----------------------------------------------------------------
@pytest.fixture(scope="module")
def first_legal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Compile first-legal.c with the manifest's own build command into a temporary folder."""
    compiler = shutil.which("cc")
    assert compiler is not None, "a C compiler `cc` is needed to test the C bot"
    folder = tmp_path_factory.mktemp("first-legal")
    shutil.copy(BOTS / "first-legal" / "first-legal.c", folder)
    manifest = tomllib.loads((BOTS / "first-legal" / "bot.toml").read_text())
    subprocess.run(manifest["build"], cwd=folder, check=True, timeout=60)
    return folder


def test_first_legal_copies_the_first_legal_decision_verbatim(first_legal: Path) -> None:
    bot = Pipe(["./first-legal"], first_legal)
    try:
        ready = bot.ask(start_message(1))
        assert ready["type"] == "ready"
        for request in take_that_requests(40):
            bot.send(request)
            raw = bot.receive()
            first = json.dumps(request["legal"][0])
            expected = f'{{"type":"decision","id":{request["id"]},"decision":{first}}}\n'
            assert raw == expected.encode()
        bot.send(end_message())
        assert bot.silent()
        bot.send({"type": "quit"})
        assert bot.wait() == 0
    finally:
        bot.kill()


def test_first_legal_scans_strings_and_nesting_and_spacing(first_legal: Path) -> None:
    """A decoy "legal" inside the observation and brackets inside strings do not fool it."""
    tricky = (
        '{ "type" : "decide", "observation": {"legal": [0], "note": "a\\"]}{["},'
        ' "id" : "k-9" , "legal" : [ {"action": "say", "text": "]\\"},"} , {"action":"take"} ],'
        ' "time": {"limit_ms": 1000, "bank_ms": null, "increment_ms": 0}}'
    )
    bot = Pipe(["./first-legal"], first_legal)
    try:
        bot.send(start_message(1))
        bot.receive()
        bot.send({"type": "unknown-type"})
        bot.send("garbage")
        bot.send(tricky)
        answer = json.loads(bot.receive())
        assert answer == {
            "type": "decision",
            "id": "k-9",
            "decision": {"action": "say", "text": ']"},'},
        }
        bot.close_stdin()
        assert bot.wait() == 0
    finally:
        bot.kill()
