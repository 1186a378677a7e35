"""The ISMCTS bot loads arena's referee at `start`, before `ready`, not in a decision."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BOT = Path(__file__).resolve().parents[1] / "bots" / "ismcts"

#: Run in a fresh interpreter, where nothing has imported the referees yet: the bot's
#: `main` reads a start message and a quit, and nothing else.
PROBE = """
import io, sys
import bot
module = "arena.games." + sys.argv[1]
before = module in sys.modules
start = '{"type": "start", "game": "%s", "seed": 1}' % sys.argv[1]
sys.stdin = io.StringIO(start + '\\n{"type": "quit"}\\n')
bot.main([])
print(before, module in sys.modules)
"""


def started(game: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, game],
        cwd=BOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_referee_is_imported_when_a_match_starts() -> None:
    probe = started("twirkle")
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.splitlines() == ['{"type":"ready","name":"ismcts"}', "False True"]


def test_a_game_arena_lacks_still_gets_ready() -> None:
    """The failure is left for the first decision, which then answers at random."""
    probe = started("no_such_game")
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.splitlines()[0] == '{"type":"ready","name":"ismcts"}'
