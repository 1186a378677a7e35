"""Benchmark: does a CPU-burning bot in one match slow a polite bot in another down?

Run: .venv/bin/python scripts/bench_fairness.py [--matches 20] [--deadline 0.2]

First a polite bot (tests/bots/polite, answers at once) plays `--matches` Take That
matches against itself, alone on the machine, and the latency of each of its
decisions is recorded (request written to answer read, as the referee measures it).
Then the same matches are played again while a second process plays matches with
tests/bots/cpu_hog, which keeps four processes spinning on the CPU all the time.
Printed: decision latency p50 / p99 / max and the number of timeouts in each case.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.match import MatchSpec, SeatStatus, run_match  # noqa: E402
from arena.players.pool import BotPool  # noqa: E402
from arena.sandbox import protections  # noqa: E402
from tests.helpers import bot_ref_for  # noqa: E402


def polite_latencies(matches: int, deadline: float) -> tuple[list[float], int]:
    """Decision latencies (ms) of the polite bot over `matches` matches, and its timeouts."""
    polite = bot_ref_for("polite")
    pool = BotPool(reuse=True)
    latencies: list[float] = []
    timeouts = 0
    try:
        for number in range(matches):
            spec = MatchSpec(
                f"polite-{number}", "take-that", number, (polite, polite), decision_timeout=deadline
            )
            result = run_match(spec, pool)
            timeouts += sum(s.status is SeatStatus.TIMEOUT for s in result.seats)
            assert result.replay is not None
            latencies += [e["ms"] for e in result.replay["events"] if "seat" in e and "by" not in e]
    finally:
        pool.close()
    return latencies, timeouts


def neighbour(
    stop: multiprocessing.synchronize.Event, ready: multiprocessing.synchronize.Event
) -> None:
    """Play cpu_hog matches back to back until told to stop."""
    hog, polite = bot_ref_for("cpu_hog"), bot_ref_for("polite")
    pool = BotPool(reuse=True)
    number = 0
    try:
        while not stop.is_set():
            run_match(MatchSpec(f"hog-{number}", "take-that", number, (hog, polite)), pool)
            number += 1
            ready.set()
    finally:
        pool.close()


def show(label: str, latencies: list[float], timeouts: int) -> None:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    print(
        f"{label:28} decisions {len(ordered):5}  p50 {statistics.median(ordered):6.2f} ms  "
        f"p99 {p99:6.2f} ms  max {ordered[-1]:7.2f} ms  timeouts {timeouts}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--deadline", type=float, default=0.2, help="decision deadline (s)")
    args = parser.parse_args()
    found = protections()
    print(
        f"{os.cpu_count()} cores; bots {'in bubblewrap' if found.bwrap else 'NOT sandboxed'}; "
        f"deadline {args.deadline * 1000:.0f} ms; {args.matches} matches of polite vs polite"
    )
    show("alone", *polite_latencies(args.matches, args.deadline))
    context = multiprocessing.get_context("fork")
    stop, ready = context.Event(), context.Event()
    busy = context.Process(target=neighbour, args=(stop, ready))
    busy.start()
    ready.wait(30)
    began = time.monotonic()
    try:
        show("with a cpu_hog neighbour", *polite_latencies(args.matches, args.deadline))
    finally:
        stop.set()
        busy.join(30)
    print(f"(neighbour busy for {time.monotonic() - began:.1f} s)")


if __name__ == "__main__":
    main()
