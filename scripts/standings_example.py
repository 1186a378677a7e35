"""The 20-bot example of issue 31 (items 1 and 11), in a throw-away home.

Copies of the bundled `random` and `first-legal` bots under 20 names; five random
copies first play a long round robin of their own (10 deals per pairing: their
all-time ratings settle near 25 with a small sigma), then all 20 play a Take That
round robin. Prints, for the 20-bot event, each bot's points and wins there
with its place in `arena tournament show` and in `arena leaderboard --tournament`, how
many pairs of bots those rank against the event's points, and how many lines `tournament
show` prints at 80 columns (and how many head-to-head rows).

    .venv/bin/python scripts/standings_example.py [--rounds 2] [--arena "python -m arena"]

`--arena` runs another checkout (e.g. `env PYTHONPATH=/tmp/before python -m arena`).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (argparse exits 2 on a bad one)."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="deals per pairing")
    parser.add_argument("--arena", default=f"{sys.executable} -m arena")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as home:
        arena = [*shlex.split(args.arena), "--home", home]
        names = [f"{kind}-{i:02d}" for i in range(1, 11) for kind in ("rnd", "fl")]
        for name in names:
            bundled = "random" if name.startswith("rnd") else "first-legal"
            call(arena, "bot", "submit", bundled, "--name", name)
        run(arena, [n for n in names if n.startswith("rnd")][:5], 10, seed=1)
        event = run(arena, names, args.rounds, seed=2)
        report(arena, event)


def call(arena: list[str], *argv: str, width: int = 80) -> str:
    env = {**os.environ, "COLUMNS": str(width)}
    # run elsewhere than a checkout: `python -m` puts the working directory first on sys.path
    done = subprocess.run(
        [*arena, *argv], capture_output=True, text=True, env=env, check=False, cwd="/"
    )
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)}: {done.stderr.strip()}")
    return done.stdout


def run(arena: list[str], names: list[str], rounds: int, seed: int) -> int:
    argv = ["tournament", "run", "--game", "take-that", "--bots", ",".join(names)]
    shown = call(arena, *argv, "--rounds", str(rounds), "--seed", str(seed), "-q", "--json")
    return int(json.loads(shown)["id"])


def report(arena: list[str], event: int) -> None:
    details = json.loads(call(arena, "tournament", "show", str(event), "--json"))
    board = json.loads(
        call(arena, "leaderboard", "take-that", "--tournament", str(event), "--json")
    )
    points = event_points(details["head_to_head"])
    print(f"event {event}: {details['played']} matches")
    print("  bot     points  wins  tournament-show  leaderboard-tournament")
    for name, rows in (("tournament show", details["standings"]), ("leaderboard", board)):
        order = [r["bot"] for r in rows]
        wrong = sum(
            1
            for i, a in enumerate(order)
            for b in order[i + 1 :]
            if points[f"{a} v1"] < points[f"{b} v1"]
        )
        print(f"{name}: {wrong} pairs of bots ranked against the event's points")
    shown_rank = {r["bot"]: r["rank"] for r in details["standings"]}
    board_rank = {r["bot"]: r["rank"] for r in board}
    wins = {r["bot"]: r["wins"] for r in details["standings"]}
    for bot in sorted(shown_rank, key=lambda b: -points[f"{b} v1"]):
        row = f"{points[bot + ' v1']:6.1f} {wins[bot]:5} {shown_rank[bot]:16} {board_rank[bot]:23}"
        print(f"  {bot:7} {row}")
    text = call(arena, "tournament", "show", str(event))
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("head to head"))
    pairs = [line for line in lines[start:] if line.count(" v1") >= 2]
    print(f"tournament show at 80 columns: {len(lines)} lines, {len(pairs)} head-to-head rows")
    Path(os.environ.get("STANDINGS_OUT", "/dev/null")).write_text(text)


def event_points(pairs: list[dict[str, object]]) -> dict[str, float]:
    """Each bot's points in the event from its head to head (2 players: win 1, draw ½)."""
    points: dict[str, float] = {}
    for row in pairs:
        wins, draws, losses = (float(row[k]) for k in ("wins", "draws", "losses"))  # type: ignore[arg-type]
        bot, opponent = str(row["bot"]), str(row["opponent"])
        points[bot] = points.get(bot, 0.0) + wins + draws / 2
        points[opponent] = points.get(opponent, 0.0) + losses + draws / 2
    return points


if __name__ == "__main__":
    main()
