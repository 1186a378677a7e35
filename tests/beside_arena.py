"""Another arena on the machine: a process that runs sandboxed bots beside a test.

Run as `python -m tests.beside_arena`. It reads one command a line and answers one line:

- `fill N`: start bots until it runs N more, or every uid of the range is taken (N = 0):
  `uids U1 U2 ...` (the uids its bots hold now);
- `ping`: every bot echoes a line back: `alive K` (K bots answered);
- `paths`: `paths P1 P2 ...`, its bots' cgroup directories and its staged copies;
- `stop`: kill its bots, answer `stopped` and exit.

Each bot is a shell echoing what it reads, started by `arena.sandbox.start.launch` as a match
starts a bot: its own uid slot, cgroup and staged copy, in the shared /run/arena.
"""

from __future__ import annotations

import sys

from arena.sandbox import launcher
from arena.sandbox.handle import Sandboxed
from arena.sandbox.limits import Limits
from arena.sandbox.start import launch
from arena.sandbox.uids import SandboxError
from tests.helpers import TEST_BOTS

ECHO = ["/bin/sh", "-c", 'while read -r line; do echo "$line"; done']


def _fill(bots: list[Sandboxed], more: int) -> None:
    started = 0
    while more == 0 or started < more:
        try:
            bots.append(launch(ECHO, TEST_BOTS / "polite", Limits()))
        except SandboxError:  # every uid of the range is taken
            break
        started += 1


def _alive(bots: list[Sandboxed]) -> int:
    answered = 0
    for number, bot in enumerate(bots):
        assert bot.process.stdin is not None and bot.process.stdout is not None
        bot.process.stdin.write(f"ping {number}\n".encode())
        bot.process.stdin.flush()
        answered += bot.process.stdout.readline() == f"ping {number}\n".encode()
    return answered


def _paths(bots: list[Sandboxed]) -> list[str]:
    found = [str(path) for bot in bots for path in bot.cgroup_dirs]
    return [*found, str(launcher.staging().base)]


def main() -> None:
    bots: list[Sandboxed] = []
    for line in sys.stdin:
        command, _, argument = line.strip().partition(" ")
        if command == "fill":
            _fill(bots, int(argument or 0))
            answer = "uids " + " ".join(str(bot.uid) for bot in bots)
        elif command == "ping":
            answer = f"alive {_alive(bots)}"
        elif command == "paths":
            answer = "paths " + " ".join(_paths(bots))
        else:
            break
        print(answer, flush=True)
    for bot in bots:
        bot.kill()
    print("stopped", flush=True)


if __name__ == "__main__":
    main()
