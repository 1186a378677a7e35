"""Benchmark: how long a Python bot takes to start, with and without bubblewrap.

Run: .venv/bin/python scripts/bench_startup.py [--n 30]

Measures, for bots/random (Python), the time from launch to the bot's `ready`
answer (process start, sandbox set-up, interpreter start-up, the handshake), and
the time to close it again, once as this machine confines bots (bubblewrap when
it works) and once with ARENA_SANDBOX=none (rlimits and process group only).
Each mode runs in its own child process, because the mode is detected once per process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.players.process import BotProcess  # noqa: E402
from arena.protocol import messages  # noqa: E402
from arena.sandbox.bwrap import toolchain  # noqa: E402
from arena.sandbox.detection import protections  # noqa: E402
from arena.submissions.manifest import find_bot, prepare  # noqa: E402


def measure(n: int) -> None:
    """Start, handshake and close the bot n times; print one line of figures."""
    manifest = find_bot("random")
    # The interpreter the sandbox would run (root's pyenv Python is hidden from a bot's
    # uid, so /usr/bin/python3 runs instead): both modes use the same one, a fair comparison.
    argv, _binds = toolchain(prepare(manifest), manifest.folder, 60000)
    start = messages.start_message(
        match="bench",
        game="take-that",
        game_version=1,
        variant={},
        players=2,
        seat=0,
        seed=1,
        decision_timeout_ms=1000,
    )
    starts, closes = [], []
    for _ in range(n):
        began = time.perf_counter()
        bot = BotProcess("random", argv, manifest.folder)
        bot.spawn()
        bot.start_match(start, time.monotonic() + 10)
        starts.append(time.perf_counter() - began)
        began = time.perf_counter()
        bot.close()
        closes.append(time.perf_counter() - began)
    found = protections()
    mode = "bubblewrap" if found.bwrap else "no sandbox"
    if found.bwrap and found.drop_uid:
        mode += " + own uid"
    if found.cgroup:
        mode += " + cgroup"
    starts_ms = sorted(s * 1000 for s in starts)
    print(
        f"{mode:32} start-to-ready median {statistics.median(starts_ms):6.1f} ms, "
        f"p90 {starts_ms[int(0.9 * (n - 1))]:6.1f} ms; close median "
        f"{statistics.median(closes) * 1000:5.1f} ms  (n={n}, {argv[0]})"
    )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked: a bad value exits 2 in one line."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--here", action="store_true", help="measure in this process only")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.here:
        measure(args.n)
        return
    for mode in ("auto", "none"):
        env = dict(os.environ, ARENA_SANDBOX=mode)
        subprocess.run(
            [sys.executable, __file__, "--here", "--n", str(args.n)], env=env, check=True
        )


if __name__ == "__main__":
    main()
