"""Benchmark: can a CPU-starving bot make polite bots time out, in its match or beside it?

Run: .venv/bin/python scripts/bench_fairness.py [--decisions 10000] [--rounds 3] [--deadline 0.05]

Two worker processes play Take That matches back to back, as a tournament with
`--workers 2` does. Worker A plays tests/bots/starver (up to 300 busy children at
nice 19, each in its own session and allowed on every core) against
tests/bots/polite (answers at once); worker B plays polite against polite beside it. Each condition
runs until the polite bots have made `--decisions` decisions, `--own` of them in
worker A, beside or against the starver:

- alone: both workers play polite against polite (the baseline);
- starver: the starver in worker A, every cgroup controller on (arena's default);
- starver, no cpu cgroup: the same with ARENA_SANDBOX_CGROUP=memory,pids, i.e.
  the CPU controller turned off, to show what it does;
- fork churn: tests/bots/fork_churn in worker A (16 threads forking children that
  exit at once, without end: the kernel's fork, exit and reaping work, not a busy
  loop), every cgroup controller on, and again without the CPU controller.
  `--only NAME` (repeatable) picks conditions.

The conditions are interleaved round by round. Printed per condition: timeouts of
polite seats (the goal is 0; worker A's share, in the starver's own match, apart)
and of the starver, the polite decision latency
p50 / p99 / max (request written to answer read, as the referee measures it; a
timed-out decision counts as the deadline), wall time and the CPU time the whole
machine spent busy meanwhile (from /proc/stat: the processes of a killed sandbox are
never reaped by arena, so rusage cannot count the starver's children; other work
on the machine counts too), as the median and min..max over the rounds. The load
average is printed with each round, since other work on the machine changes the
figures.
"""

from __future__ import annotations

import argparse
import multiprocessing
import multiprocessing.synchronize
import os
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.match.run import BotRef, MatchSpec, run_match  # noqa: E402
from arena.players.pool import BotPool  # noqa: E402
from arena.sandbox import cgroup  # noqa: E402
from arena.sandbox.detection import protections  # noqa: E402
from arena.status import SeatStatus  # noqa: E402
from tests.helpers import bot_ref_for  # noqa: E402

#: condition name -> (worker A's bots, ARENA_SANDBOX_CGROUP)
CONDITIONS = {
    "alone": (("polite", "polite"), "auto"),
    "starver": (("starver", "polite"), "auto"),
    "starver, no cpu cgroup": (("starver", "polite"), "memory,pids"),
    "fork churn": (("fork_churn", "polite"), "auto"),
    "fork churn, no cpu cgroup": (("fork_churn", "polite"), "memory,pids"),
}


@dataclass
class Tally:
    """What one worker (or one condition, summed) saw of the polite and starving seats."""

    latencies: list[float] = field(default_factory=list)
    polite_timeouts: int = 0
    starver_timeouts: int = 0
    matches: int = 0

    def add(self, other: Tally) -> None:
        self.latencies += other.latencies
        self.polite_timeouts += other.polite_timeouts
        self.starver_timeouts += other.starver_timeouts
        self.matches += other.matches


def _count(result: Any, names: tuple[str, ...], deadline_ms: float, tally: Tally) -> None:
    """Add one match's polite decisions (and timeouts) to `tally`."""
    assert result.replay is not None
    for seat, name in enumerate(names):
        if name != "polite":
            tally.starver_timeouts += result.seats[seat].status is SeatStatus.TIMEOUT
            continue
        events = [e for e in result.replay["events"] if e.get("seat") == seat]
        tally.latencies += [e["ms"] for e in events if "by" not in e]
        if result.seats[seat].status is SeatStatus.TIMEOUT:
            tally.polite_timeouts += 1
            tally.latencies.append(deadline_ms)  # the decision that timed out took at least this


def worker(
    label: str,
    names: tuple[str, ...],
    setting: str,
    deadline: float,
    target: int,
    warm: Any,
    results: Any,
) -> None:
    """Play `names` matches until its polite bots have made `target` decisions.

    One warm-up match first, not counted, then a wait for the other worker and the
    timer: counting starts once every bot, the starver's children too, is running.
    """
    os.environ["ARENA_SANDBOX_CGROUP"] = setting
    cgroup.controllers.cache_clear()  # forked: look the controllers up again for `setting`
    refs: tuple[BotRef, ...] = tuple(bot_ref_for(name) for name in names)
    pool = BotPool(reuse=True)
    tally = Tally()
    number = 0
    try:
        run_match(MatchSpec(f"{label}-warm", "take-that", 0, refs, decision_timeout=1.0), pool)
        warm.wait()
        while len(tally.latencies) < target:
            seats = refs if number % 2 == 0 else refs[::-1]  # both seat orders
            order = names if number % 2 == 0 else names[::-1]
            spec = MatchSpec(
                f"{label}-{number}", "take-that", number, seats, decision_timeout=deadline
            )
            _count(run_match(spec, pool), order, deadline * 1000, tally)
            tally.matches += 1
            number += 1
    finally:
        pool.close()
    results.put((label, tally))


@dataclass
class Figures:
    """One condition in one round."""

    decisions: int
    polite_timeouts: int
    starver_timeouts: int
    p50: float
    p99: float
    max: float
    wall: float
    cpu: float
    #: Polite decisions and timeouts in worker A's matches (beside the starver, in its match).
    own_decisions: int
    own_timeouts: int


def machine_cpu_seconds() -> float:
    """CPU time all cores of the machine have spent busy since boot."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def run_condition(name: str, deadline: float, targets: tuple[int, int]) -> Figures:
    """Run both workers for one condition; their figures, wall and machine CPU time."""
    bots, setting = CONDITIONS[name]
    context = multiprocessing.get_context("fork")
    results, warm = context.Queue(), context.Barrier(3)
    workers = [
        context.Process(
            target=worker,
            args=(f"a{i}", names, setting, deadline, target, warm, results),
        )
        for i, (names, target) in enumerate(zip((bots, ("polite", "polite")), targets, strict=True))
    ]
    for process in workers:
        process.start()
    warm.wait()
    cpu_before, began = machine_cpu_seconds(), time.monotonic()
    total = Tally()
    own = Tally()
    for _process in workers:
        label, tally = results.get()
        total.add(tally)
        if label == "a0":
            own = tally
    for process in workers:
        process.join()
    wall, cpu = time.monotonic() - began, machine_cpu_seconds() - cpu_before
    ordered = sorted(total.latencies)
    return Figures(
        len(ordered),
        total.polite_timeouts,
        total.starver_timeouts,
        statistics.median(ordered),
        ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
        ordered[-1],
        wall,
        cpu,
        len(own.latencies),
        own.polite_timeouts,
    )


def spread(values: list[float], unit: str = "", digits: int = 1) -> str:
    """Median and min..max, e.g. '0.1 (0.1..0.2) ms'."""
    fmt = f"{{:.{digits}f}}"
    middle, low, high = statistics.median(values), min(values), max(values)
    return f"{fmt.format(middle)} ({fmt.format(low)}..{fmt.format(high)}){unit}"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked (a bad value exits 2 in one line); `conditions` are the
    --only ones, or all."""
    parser = argparse.ArgumentParser(
        prog=Path(__file__).name, description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--decisions", type=int, default=10_000, help="polite decisions per run")
    parser.add_argument(
        "--own", type=int, default=500, help="of which in worker A (the starver's match)"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--deadline", type=float, default=0.05, help="decision deadline (s)")
    parser.add_argument(
        "--only", action="append", help="a condition to run (repeatable; default: all)"
    )
    args = parser.parse_args(argv)
    args.conditions = args.only or list(CONDITIONS)
    if unknown := set(args.conditions) - set(CONDITIONS):
        parser.error(f"unknown condition(s): {', '.join(sorted(unknown))}")
    if args.decisions < 1 or args.rounds < 1 or args.deadline <= 0:
        parser.error("--decisions and --rounds must be at least 1, --deadline above 0")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    conditions = args.conditions
    found = protections()
    print(
        f"{os.cpu_count()} cores; bots {'in bubblewrap' if found.bwrap else 'NOT sandboxed'}; "
        f"cgroup: {found.cgroup_reason}; deadline {args.deadline * 1000:.0f} ms; "
        f">= {args.decisions} polite decisions per run ({args.own} in worker A); 2 workers; "
        f"{args.rounds} rounds"
    )
    figures: dict[str, list[Figures]] = {name: [] for name in conditions}
    for number in range(args.rounds):
        for name in conditions:
            targets = (args.own, args.decisions - args.own)
            figures[name].append(run_condition(name, args.deadline, targets))
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"round {number + 1} done; load average {load}", flush=True)
    print("median (min..max) over rounds:")
    for name, runs in figures.items():
        print(
            f"{name:24} decisions {spread([f.decisions for f in runs], digits=0)}  "
            f"polite timeouts {spread([f.polite_timeouts for f in runs], digits=0)}  "
            f"(worker A: {spread([f.own_decisions for f in runs], digits=0)} decisions, "
            f"{spread([f.own_timeouts for f in runs], digits=0)} timeouts)  "
            f"starver timeouts {spread([f.starver_timeouts for f in runs], digits=0)}\n"
            f"{'':24} p50 {spread([f.p50 for f in runs], ' ms', 2)}  "
            f"p99 {spread([f.p99 for f in runs], ' ms', 2)}  "
            f"max {spread([f.max for f in runs], ' ms')}\n"
            f"{'':24} wall {spread([f.wall for f in runs], ' s')}  "
            f"machine CPU busy {spread([f.cpu for f in runs], ' s')}"
        )


if __name__ == "__main__":
    main()
