"""Benchmark: what run_match's watcher hook costs, unused and used, against the code before it.

Run: .venv/bin/python scripts/bench_watch.py [--matches 40] [--games 2000] [--rounds 3]
                                             [--before REV]

Timed: whole matches played by `run_match(spec, pool)` in this thread, from just before
the call to just after it returns (the referee, every decision's round trip to the
bots, the replay), on one BotPool that reuses the bots' processes (a tournament's
case), bots/first-legal (C) in both seats of a two-seat Take That, a new seed per
match (the same seeds in every subject and round). Per round and subject: the wall
time and this thread's CPU time (CLOCK_THREAD_CPUTIME_ID) per decision (the total
over --matches matches / their decisions). Shown: the median over rounds [min..max].

Subjects, interleaved (each round runs each once, the order rotated by one a round):
- before: run_match of arena/match/run.py as it was at --before (default: the commit
  before the hook), loaded from git beside today's package (all else is today's);
- no watcher: today's run_match, watcher None (the default: one `is None` a step);
- no-op watcher: a watcher whose methods do nothing (the hook's own calls);
- pipe, as a pool worker: arena.tournament.watching.Forward into a PipeSender, a
  thread of this process reading the pipe and relaying to a function that drops it
  (what a --workers N worker does, but the relay's thread shares this process).

Then the play loop alone, where the hook weighs most: `_play` of the same module
(before: as it was at --before; no watcher; no-op watcher) over --games Take That
games whose seats have no bot process (every decision the seat's seeded fallback:
the referee and arena's loop, no round trip), the subjects interleaved game by game
(each game played by each subject in turn, the order rotated by one a game), timed
from just before `_play` to just after it returns; per round the wall time and this
thread's CPU time per decision, shown as above.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.match import run, seeds  # noqa: E402
from arena.players.pool import BotPool  # noqa: E402
from arena.submissions.manifest import find_bot, prepare  # noqa: E402
from arena.tournament import watching  # noqa: E402

#: The commit before the hook (run.py without `watcher`).
BEFORE = "262d8a0"


class NoOp:
    def start(self, header: dict[str, Any]) -> None:
        pass

    def event(self, event: dict[str, Any]) -> None:
        pass

    def end(self, status: str) -> None:
        pass


def old_run(rev: str) -> ModuleType:
    """arena/match/run.py at `rev`, as a module of its own (its imports today's arena)."""
    try:
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:arena/match/run.py"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except subprocess.CalledProcessError as error:
        sys.exit(f"bench_watch.py: cannot read run.py at {rev}: {error.stderr.strip()}")
    module_spec = importlib.util.spec_from_loader("arena_run_before", loader=None)
    assert module_spec is not None
    module = importlib.util.module_from_spec(module_spec)
    sys.modules["arena_run_before"] = module  # dataclasses look their module up
    exec(compile(source, f"{rev}:arena/match/run.py", "exec"), module.__dict__)
    return module


@dataclass
class Subject:
    label: str
    #: Plays one match of a seed on the pool; returns its decisions.
    play: Callable[[int, BotPool], int]
    rows: list[dict[str, float]] = field(default_factory=list)


def player(module: Any, watcher: Callable[[str], Any] | None) -> Callable[[int, BotPool], int]:
    """How a subject plays a match: `module`'s run_match, with `watcher(match_id)` if any."""
    manifest = find_bot("first-legal")
    ref = module.BotRef("first-legal", str(manifest.folder), tuple(prepare(manifest)))

    def play(seed: int, pool: BotPool) -> int:
        spec = module.MatchSpec(
            match_id=f"bench-{seed}",
            game="take-that",
            seed=seed,
            seats=(ref, ref),
            keys=seeds.derive(b"bench" * 8, seed, "bench", 2),
        )
        if watcher is None:
            result = module.run_match(spec, pool)
        else:
            result = module.run_match(spec, pool, watcher(spec.match_id))
        if str(result.status) != "normal":
            raise SystemExit(f"bench_watch.py: a match ended {result.status}: {result.error}")
        return sum(s.decisions for s in result.seats)

    return play


def measure(subject: Subject, matches: int) -> None:
    """One round of one subject: a warm-up match, then `matches` timed ones."""
    pool = BotPool(reuse=True, prestart=True)
    try:
        subject.play(10_000, pool)  # starts the bots' processes: not timed
        decisions, wall, cpu = 0, 0.0, 0.0
        for seed in range(matches):
            began, began_cpu = time.perf_counter(), time.thread_time()
            decisions += subject.play(seed, pool)
            wall += time.perf_counter() - began
            cpu += time.thread_time() - began_cpu
    finally:
        pool.close()
    subject.rows.append({"wall": wall / decisions * 1e6, "cpu": cpu / decisions * 1e6})


def loop_player(module: Any, watcher: Any) -> Callable[[int], int]:
    """Plays one game of a seed through `module`'s _play with fallback seats alone."""
    from arena.games import load_game

    game_cls = load_game("take-that")
    manifest = find_bot("first-legal")
    ref = module.BotRef("first-legal", str(manifest.folder), ("./first-legal",))
    old = module is not run

    def play(seed: int) -> int:
        keys = seeds.derive(b"bench" * 8, seed, "bench", 2)
        spec = module.MatchSpec(match_id="loop", game="take-that", seed=seed, seats=(ref, ref))
        spec = module.replace(spec, keys=keys)
        game = game_cls.new(2, keys.deal, {})
        seats = [module._Seat(i, ref, keys, spec.control) for i in range(2)]
        if old:
            module._play(spec, game, seats, None)
        else:
            module._play(spec, game, seats, None, [], watcher)
        return len(game.history)

    return play


def bench_loop(before: ModuleType, rev: str, games: int, rounds: int) -> None:
    players = {
        f"before ({rev})": loop_player(before, None),
        "no watcher": loop_player(run, None),
        "no-op watcher": loop_player(run, NoOp()),
    }
    rows: dict[str, list[dict[str, float]]] = {label: [] for label in players}
    labels = list(players)
    for _ in range(rounds):
        totals = {label: [0.0, 0.0, 0.0] for label in labels}
        for seed in range(games):
            shift = seed % len(labels)
            for label in labels[shift:] + labels[:shift]:
                began, began_cpu = time.perf_counter(), time.thread_time()
                decisions = players[label](seed)
                total = totals[label]
                total[0] += decisions
                total[1] += time.perf_counter() - began
                total[2] += time.thread_time() - began_cpu
        for label, (made, wall, cpu) in totals.items():
            rows[label].append({"wall": wall / made * 1e6, "cpu": cpu / made * 1e6})
    show(f"the play loop alone, per decision, us ({games} games a round)", labels, rows)


def show(title: str, labels: list[str], rows: dict[str, list[dict[str, float]]]) -> None:
    print(f"{title}: median over rounds [min..max]")
    print(f"  {'subject':28s} {'wall':>24s} {'thread CPU':>24s}")
    for label in labels:
        walls, cpus = [r["wall"] for r in rows[label]], [r["cpu"] for r in rows[label]]
        print(f"  {label:28s} {spread(walls, 2):>24s} {spread(cpus, 2):>24s}")
    base = rows[labels[0]]
    print("  ratio to before, per round (wall / wall, CPU / CPU): median [min..max]")
    for label in labels[1:]:
        walls = [s["wall"] / b["wall"] for s, b in zip(rows[label], base, strict=True)]
        cpus = [s["cpu"] / b["cpu"] for s, b in zip(rows[label], base, strict=True)]
        print(f"  {label:28s} {spread(walls, 4):>24s} {spread(cpus, 4):>24s}")


def spread(values: list[float], digits: int = 1) -> str:
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{mid:.{digits}f} [{low:.{digits}f}..{high:.{digits}f}]"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked: a bad value exits 2 in one line."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40, help="timed matches per subject a round")
    parser.add_argument(
        "--games", type=int, default=2000, help="games of the play loop alone a round (0: skip)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (at least 3)")
    parser.add_argument("--before", default=BEFORE, help="the revision of the code before")
    args = parser.parse_args(argv)
    if args.rounds < 3:
        parser.error("--rounds must be at least 3")
    if args.matches < 1:
        parser.error("--matches must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    reader = watching.PipeReader(lambda match, kind, payload: None)
    before = old_run(args.before)
    subjects = [
        Subject(f"before ({args.before})", player(before, None)),
        Subject("no watcher", player(run, None)),
        Subject("no-op watcher", player(run, lambda match: NoOp())),
        Subject(
            "pipe, as a pool worker",
            player(run, lambda m: watching.Forward(m, watching.PipeSender(reader.write_fd))),
        ),
    ]
    print(f"load before: {os.getloadavg()[0]:.2f} (1-minute average)")
    try:
        for round_index in range(args.rounds):
            shift = round_index % len(subjects)
            for subject in subjects[shift:] + subjects[:shift]:
                measure(subject, args.matches)
    finally:
        reader.close()
    labels = [subject.label for subject in subjects]
    rows = {subject.label: subject.rows for subject in subjects}
    show(f"whole matches, per decision, us ({args.matches} matches a round)", labels, rows)
    if args.games > 0:
        bench_loop(before, args.before, args.games, args.rounds)
    print(f"load after: {os.getloadavg()[0]:.2f} (1-minute average)")


if __name__ == "__main__":
    main()
