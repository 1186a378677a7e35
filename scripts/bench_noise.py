"""Benchmark: arena's own CPU per match against a bot that pads its answers with noise.

Run: .venv/bin/python scripts/bench_noise.py [--matches 3] [--rounds 3] [--against DIR]

tests/bots/blank_flood writes 0.1 MiB of blank and whitespace-only lines before every
answer (the protocol ignores blank lines). Each run plays `--matches` Take That matches
of blank_flood against tests/bots/polite, and as many of polite against polite (the
baseline), in one fresh Python process per run with reused bot processes, and prints
the CPU time of that arena process (time.process_time: the referee and the bot I/O,
not the bots, which are other processes in their own cgroups) per match, the wall
time per match, and arena's CPU per MiB the noisy bot wrote.

With `--against DIR` (a checkout of another commit, e.g. `git worktree add /tmp/before
52903ab`, in the folders of today or the flat layout of before: `arena_of`), every
round runs that tree's arena too, interleaved with this one: the
round's order alternates. The bot folders are this tree's, so both trees play the
same bots. Each run then feeds 16 MiB of each of SHAPES (blank lines of 1, 2 and
1 Mi bytes, an answer after each MiB) straight to BotProcess.receive, in 64 KiB
chunks, and prints arena's CPU per MiB. Printed: the median and min..max over rounds.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "tests" / "bots"
MIB = 1024 * 1024
#: What tests/bots/blank_flood writes before each answer (its NOISE).
NOISE_BYTES = 104_200


def arena_of(root: Path) -> SimpleNamespace:
    """What a run uses of the arena found in `root`, in either layout: folders by wing
    (arena/match/run.py, arena/status.py, arena/submissions/manifest.py) or the flat
    one of before (arena/match.py, which held the statuses too, arena/manifest.py)."""
    sys.path.insert(0, str(root))
    try:
        run = importlib.import_module("arena.match.run")
        status = importlib.import_module("arena.status")
        manifest = importlib.import_module("arena.submissions.manifest")
    except ModuleNotFoundError:  # the flat layout: arena.match is a module
        run = status = importlib.import_module("arena.match")
        manifest = importlib.import_module("arena.manifest")
    pool = importlib.import_module("arena.players.pool")
    return SimpleNamespace(
        BotRef=run.BotRef,
        MatchSpec=run.MatchSpec,
        run_match=run.run_match,
        BotPool=pool.BotPool,
        SeatStatus=status.SeatStatus,
        load_manifest=manifest.load_manifest,
        resolve_command=manifest.resolve_command,
    )


def one_run(root: Path, matches: int) -> dict[str, float]:
    """Play the matches with the arena found in `root`; the figures per match."""
    api = arena_of(root)

    def ref(name: str) -> Any:
        manifest = api.load_manifest(BOTS / name)
        return api.BotRef(name, str(manifest.folder), tuple(api.resolve_command(manifest)))

    import arena

    assert Path(arena.__file__).resolve().is_relative_to(root.resolve()), arena.__file__
    figures: dict[str, float] = {}
    for label, names in (("noisy", ("blank_flood", "polite")), ("polite", ("polite", "polite"))):
        refs = tuple(ref(name) for name in names)
        pool = api.BotPool(reuse=True)
        try:
            api.run_match(api.MatchSpec("warm", "take-that", 0, refs), pool)  # start the processes
            cpu, wall, decisions, lost = time.process_time(), time.monotonic(), 0, 0
            for number in range(matches):
                spec = api.MatchSpec(f"m{number}", "take-that", number + 1, refs)
                result = api.run_match(spec, pool)
                assert result.replay is not None
                events = result.replay["events"]  # the bot's own answers, not fallbacks
                decisions += sum(1 for e in events if e.get("seat") == 0 and "by" not in e)
                lost += result.seats[0].status is not api.SeatStatus.OK
            cpu, wall = time.process_time() - cpu, time.monotonic() - wall
        finally:
            pool.close()
        figures[f"{label} cpu"] = cpu / matches
        figures[f"{label} wall"] = wall / matches
        if label == "noisy":
            noise = NOISE_BYTES * decisions / MIB
            figures["noisy MiB"] = noise / matches
            figures["noisy forfeits"] = lost
            figures["cpu per MiB"] = cpu * 1000 / noise
    return figures


#: Blank-line shapes fed straight to BotProcess.receive: 16 times 1 MiB, then an answer
#: (1 MiB of blank lines in a row is the most a bot may send before one answer).
SHAPES = {
    "newlines": b"\n" * MIB,
    "space lines": b" \n" * (MIB // 2),
    "1 MiB blank lines": b" " * (MIB - 2) + b"\n\n",
}


def shape_costs(root: Path) -> dict[str, float]:
    """Arena's CPU (ms per MiB) in BotProcess.receive for each shape, no process: the
    bytes come in 64 KiB chunks, as os.read gives them from a pipe."""
    sys.path.insert(0, str(root))
    from arena.players.process import BotProcess

    costs = {}
    for name, unit in SHAPES.items():
        data = (unit + b'{"type":"decision","id":1,"decision":0}\n') * 16
        chunks = iter([data[i : i + 65536] for i in range(0, len(data), 65536)])
        bot = BotProcess("shape", ["true"], root)
        # the pipes are the bot's transport (a tree before that split: the bot itself)
        pipes: Any = getattr(bot, "transport", bot)
        pipes._read_some = lambda _deadline, p=pipes, c=chunks: p._buffer.extend(next(c))
        cpu = time.process_time()
        for _ in range(16):
            assert bot.receive(time.monotonic() + 600)["type"] == "decision"
        costs[f"{name} ms/MiB"] = (time.process_time() - cpu) * 1000 * MIB / len(data)
    return costs


def spread(values: list[float], digits: int = 1) -> str:
    """Median and min..max."""
    f = f"{{:.{digits}f}}"
    return (
        f"{f.format(statistics.median(values))} ({f.format(min(values))}..{f.format(max(values))})"
    )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked: a bad value exits 2 in one line (not for --one, a child's
    run)."""
    parser = argparse.ArgumentParser(
        prog=Path(__file__).name, description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--matches", type=int, default=3, help="matches per run and pairing")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout to run interleaved")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # a run, in a child
    args = parser.parse_args(argv)
    if args.one:
        return args
    if args.matches < 1 or args.rounds < 1:
        parser.error("--matches and --rounds must be at least 1")
    if args.against and not (args.against / "arena" / "__init__.py").is_file():
        parser.error(f"--against: no arena checkout in {args.against}")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.one:
        print(json.dumps(one_run(args.one, args.matches) | shape_costs(args.one)))
        return
    trees = {"this tree": ROOT}
    if args.against:
        trees[f"{args.against}"] = args.against.resolve()
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for number in range(args.rounds):
        order = list(trees.items())
        for name, root in order if number % 2 == 0 else order[::-1]:
            command = [sys.executable, __file__, "--one", str(root), "--matches", str(args.matches)]
            out = subprocess.run(command, capture_output=True, text=True, check=False)
            if out.returncode != 0:
                sys.exit(f"{name}: the run failed: {out.stderr.strip().splitlines()[-1:]}")
            runs[name].append(json.loads(out.stdout.splitlines()[-1]))
            print(f"round {number + 1} {name}: {runs[name][-1]}", flush=True)
    print(f"per match, median (min..max) over {args.rounds} rounds of {args.matches} matches:")
    for name, figures in runs.items():
        column = {key: [f[key] for f in figures] for key in figures[0]}
        print(
            f"{name}:\n"
            f"  blank_flood vs polite: arena CPU {spread(column['noisy cpu'], 2)} s, "
            f"wall {spread(column['noisy wall'], 2)} s, "
            f"{spread(column['noisy MiB'])} MiB of noise, "
            f"{spread(column['cpu per MiB'])} ms arena CPU per MiB, "
            f"noisy seat forfeited in {spread(column['noisy forfeits'], 0)} matches\n"
            f"  polite vs polite:      arena CPU {spread(column['polite cpu'], 2)} s, "
            f"wall {spread(column['polite wall'], 2)} s\n"
            "  BotProcess.receive, ms of arena CPU per MiB: "
            + ", ".join(f"{shape} {spread(column[f'{shape} ms/MiB'], 2)}" for shape in SHAPES)
        )


if __name__ == "__main__":
    main()
