"""Benchmark: can a CPU-starving bot make polite bots time out, in its match or beside it?

Run: .venv/bin/python scripts/bench_fairness.py [--decisions 10000] [--rounds 3] [--deadline 0.05]
     .venv/bin/python scripts/bench_fairness.py --hog [--decisions 10000] [--deadline 0.02]
         [--demo 5] [--bank 2s+50ms]

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

`--hog`: is a bot charged for its own work only (arena.protocol.clock)? A CPU hog runs
OUTSIDE arena's cgroups for the whole run: `--hog-threads` (2) processes per core, each
a `while True: pass`, started by this script (killed at the end, and by the kernel if
this script dies). Two workers play Take That matches of tests/bots/think_share against
itself (both protocol 2 bots computing `--share`, 40 %, of each decision's limit on
their own CPU clock, then answering) under `--deadline` per decision (20 ms by default
in this mode: 8 ms of computing), until `--decisions` decisions (10,000 by default) per
configuration have been made, spread over the rounds, or a cpu charging run has lasted
`--run-seconds` (300) and a wall charging one `--wall-seconds` (60: its timeouts end
matches and restart bots, so its decisions come slowly and its figure is a rate); worker
A first plays `--slow` (10) matches of tests/bots/answer_late (computing 150 % of its
limit) against think_share. Two configurations, interleaved round by round: "cpu
charging" (arena's default: an answer is charged the CPU time of the bot's process tree,
or a third of its wall time if more) and "wall charging"
(ARENA_SANDBOX_CGROUP=memory,cpu,pids: no cpuacct, so the wall time is charged, as
before protocol 2's clocks). Printed per configuration, as median (min..max) over the
rounds: the polite bots' timeouts (seats forfeited for `timeout`; the goal is 0 with CPU
charging) and what the arena said when it forfeited them, the slow bot's forfeits for
timeout of its matches (the goal is all, in both), and per decision of the polite bots
the wall time (`ms` in the replay: request written to answer read) beside what it was
charged (`charged_ms`), p50 / p99 / max, then each run's wall time, the CPU time the
whole machine and the hog spent meanwhile, and the load average when the run began; and
whether cpu charging reached `--decisions`.

Beside the same hog, after the rounds (`--rounds 0` runs only these): `--bank CONTROL`
plays a tournament of bots/ismcts against each game's heuristic under that bank
(`--bank-deals` deals, both seat orders, 2 workers), then `--demo N` runs `arena demo`
N times, each in a fresh ARENA_HOME. Printed per run, from its store: exit code, wall
time, forfeits of every seat by bot with each forfeit's status and detail, void
matches, and under a bank the least bank ISMCTS had left after an answer and the most
of its bank one answer was charged.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import math
import multiprocessing
import multiprocessing.synchronize
import os
import queue
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.match.run import BotRef, MatchSpec, run_match  # noqa: E402
from arena.players.pool import BotPool  # noqa: E402
from arena.protocol.clock import TimeControl  # noqa: E402
from arena.sandbox import cgroup  # noqa: E402
from arena.sandbox.detection import protections  # noqa: E402
from arena.status import VOID, SeatStatus  # noqa: E402
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


# ----- --hog: charged for its own work only -------------------------------------------

#: configuration name -> ARENA_SANDBOX_CGROUP (wall charging: every controller but cpuacct)
CHARGING = {"cpu charging": "auto", "wall charging": "memory,cpu,pids"}
#: The bot that computes a share of each limit (its argument) and the one over its limit.
THINKER, SLOW = "think_share", "answer_late"
#: The longest a run may take before the script gives up (an error, not a figure).
RUN_TIMEOUT_S = 1800.0
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the hog's child, before exec
    """In a hog process: the kernel kills it when the script's thread that started it ends."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class Hog:
    """`count` processes each running `while True: pass`, in this script's cgroup (outside
    every bot's), until `stop`; they also die with the script (PR_SET_PDEATHSIG)."""

    def __init__(self, count: int):
        self.processes: list[subprocess.Popen[bytes]] = []
        try:
            for _ in range(count):
                self.processes.append(
                    subprocess.Popen(
                        [sys.executable, "-c", "while True: pass"],
                        stdin=subprocess.DEVNULL,
                        preexec_fn=_die_with_parent,  # one prctl, before exec
                    )
                )
        except BaseException:
            self.stop()
            raise

    def cpu_seconds(self) -> float:
        """The CPU time the hog's processes have used so far (utime + stime)."""
        total = 0
        for process in self.processes:
            try:
                stat = Path(f"/proc/{process.pid}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        return total / os.sysconf("SC_CLK_TCK")

    def running(self) -> int:
        """How many of its processes are still running."""
        return sum(process.poll() is None for process in self.processes)

    def stop(self) -> None:
        """Kill every hog process (by its pid) and reap it."""
        for process in self.processes:
            if process.poll() is None:
                process.kill()
        for process in self.processes:
            process.wait()


@dataclass
class HogTally:
    """What one worker (or one run, summed) saw of the polite and the slow seats."""

    walls: list[float] = field(default_factory=list)
    charged: list[float] = field(default_factory=list)
    polite_timeouts: int = 0
    #: The arena's detail of each polite timeout (what it charged, of what limit).
    details: list[str] = field(default_factory=list)
    slow_matches: int = 0
    slow_timeouts: int = 0
    #: The slow bot's seats that ended otherwise (status words).
    slow_other: list[str] = field(default_factory=list)
    matches: int = 0

    def add(self, other: HogTally) -> None:
        for name in ("walls", "charged", "details", "slow_other"):
            getattr(self, name).extend(getattr(other, name))
        for name in ("polite_timeouts", "slow_matches", "slow_timeouts", "matches"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def _count_hog(result: Any, names: tuple[str, ...], tally: HogTally) -> None:
    """Add one match's polite decisions, polite timeouts and slow forfeits to `tally`."""
    assert result.replay is not None
    for seat, name in enumerate(names):
        status, detail = result.seats[seat].status, result.seats[seat].detail
        if name == SLOW:
            tally.slow_matches += 1
            if status is SeatStatus.TIMEOUT:
                tally.slow_timeouts += 1
            else:
                tally.slow_other.append(str(status.value))
            continue
        for event in result.replay["events"]:
            if event.get("seat") == seat and "by" not in event and "ms" in event:
                tally.walls.append(event["ms"])
                tally.charged.append(event.get("charged_ms", event["ms"]))
        if status is SeatStatus.TIMEOUT:
            tally.polite_timeouts += 1
            tally.details.append(detail)


def hog_worker(
    label: str,
    setting: str,
    control: TimeControl,
    share: float,
    target: int,
    slow: int,
    seconds: float,
    warm: Any,
    results: Any,
) -> None:
    """Play `slow` matches of the slow bot against a thinker, then thinker against
    thinker until the thinkers have made `target` decisions (the slow matches' count)
    or `seconds` have passed since the start (a match begun is played out).

    One warm-up match first, not counted (the bots' processes start), then a wait for
    the other worker and the timer."""
    os.environ["ARENA_SANDBOX_CGROUP"] = setting
    cgroup.controllers.cache_clear()  # forked: look the controllers up again for `setting`
    base = bot_ref_for(THINKER)
    thinker = BotRef(base.name, base.folder, (*base.argv, str(share)), protocol=base.protocol)
    late = bot_ref_for(SLOW)
    pool = BotPool(reuse=True)
    tally = HogTally()
    seed = 1_000_000 * (1 + int(label[1:]))  # the workers play different deals
    try:
        # under the run's own control: at 1 s a decision the thinkers would compute 0.4 s each
        warm_spec = MatchSpec(f"{label}-warm", "take-that", 0, (thinker, thinker))
        run_match(replace(warm_spec, time_control=control), pool)
        warm.wait()
        until = time.monotonic() + seconds
        number = 0
        while number < slow or (len(tally.walls) < target and time.monotonic() < until):
            seats = (thinker, thinker)
            if number < slow:  # the slow bot in both seat orders
                seats = (late, thinker) if number % 2 == 0 else (thinker, late)
            spec = MatchSpec(f"{label}-{number}", "take-that", seed + number, seats)
            result = run_match(replace(spec, time_control=control), pool)
            _count_hog(result, tuple(ref.name for ref in seats), tally)
            tally.matches += 1
            number += 1
    finally:
        pool.close()
    results.put((label, tally))


@dataclass
class HogFigures:
    """One configuration in one round."""

    tally: HogTally
    wall: float
    machine_cpu: float
    hog_cpu: float
    load: tuple[float, float, float]

    @property
    def decisions(self) -> int:
        return len(self.tally.walls)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else math.nan


def run_hog(name: str, control: TimeControl, args: argparse.Namespace, hog: Hog) -> HogFigures:
    """Both workers under one charging configuration, beside the running hog."""
    context = multiprocessing.get_context("fork")
    results, warm = context.Queue(), context.Barrier(3)
    per_worker = math.ceil(math.ceil(args.decisions / args.rounds) / 2)
    workers = [
        context.Process(
            target=hog_worker,
            args=(
                f"a{i}",
                CHARGING[name],
                control,
                args.share,
                per_worker,
                args.slow if i == 0 else 0,
                args.run_seconds if name == "cpu charging" else args.wall_seconds,
                warm,
                results,
            ),
        )
        for i in range(2)
    ]
    load = os.getloadavg()
    for process in workers:
        process.start()
    try:
        warm.wait(timeout=RUN_TIMEOUT_S)
        cpu_before, hog_before, began = machine_cpu_seconds(), hog.cpu_seconds(), time.monotonic()
        total = HogTally()
        for _process in workers:
            while True:
                try:
                    _label, tally = results.get(timeout=1.0)
                    break
                except queue.Empty:
                    failed = [p.exitcode for p in workers if p.exitcode not in (None, 0)]
                    if failed or time.monotonic() - began > RUN_TIMEOUT_S:
                        raise SystemExit(
                            f"{name}: a worker failed (exit {failed})" if failed else "too slow"
                        ) from None
            total.add(tally)
        wall = time.monotonic() - began
        machine_cpu, hog_cpu = machine_cpu_seconds() - cpu_before, hog.cpu_seconds() - hog_before
    finally:
        for process in workers:
            if process.is_alive():
                process.kill()
            process.join()
    if hog.running() != len(hog.processes):
        raise SystemExit("a hog process ended during the run")
    return HogFigures(total, wall, machine_cpu, hog_cpu, load)


def _ms(values: list[float]) -> str:
    return (
        f"p50 {statistics.median(values):.1f}  p99 {_percentile(values, 0.99):.1f}  "
        f"max {max(values):.1f} ms"
        if values
        else "none"
    )


def main_hog(args: argparse.Namespace) -> None:
    """The --hog mode: both charging configurations, interleaved, beside one CPU hog."""
    cores = len(os.sched_getaffinity(0))
    control = TimeControl.per(args.deadline)
    found = protections()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{cores} cores; load average at start {load}; bots "
        f"{'in bubblewrap' if found.bwrap else 'NOT sandboxed'}; cgroup: {found.cgroup_reason}; "
        f"time control {control}; {THINKER} computes {args.share:.0%} of each limit "
        f"({args.deadline * args.share * 1000:.1f} ms of CPU); {SLOW} 150 %; "
        f">= {args.decisions} polite decisions per configuration over {args.rounds} rounds "
        f"(>= {math.ceil(args.decisions / max(1, args.rounds))} a round, or "
        f"{args.run_seconds:.0f} s; a wall charging run stops after {args.wall_seconds:.0f} s: "
        f"its timeouts end matches early and restart bots, so its decisions come slowly), "
        f"{args.slow} slow matches "
        f"a round; 2 workers; hog: {args.hog_threads * cores} processes `while True: pass` "
        f"({args.hog_threads} per core) outside arena's cgroups",
        flush=True,
    )
    figures: dict[str, list[HogFigures]] = {name: [] for name in CHARGING}
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    hog = Hog(args.hog_threads * cores)
    try:
        for number in range(args.rounds):
            for name in CHARGING:
                run = run_hog(name, control, args, hog)
                figures[name].append(run)
                print(
                    f"round {number + 1} {name}: {run.decisions} decisions, "
                    f"{run.tally.polite_timeouts} polite timeouts, slow forfeited "
                    f"{run.tally.slow_timeouts}/{run.tally.slow_matches}, {run.wall:.0f} s; "
                    f"load average at its start {run.load[0]:.2f}",
                    flush=True,
                )
        if args.rounds:
            print_hog_table(figures, args.decisions)
        if args.bank:
            bank_runs(args.bank, args.bank_deals, hog)
        if args.demo:
            demos(args.demo, hog)
    finally:
        hog.stop()
        signal.signal(signal.SIGTERM, previous)


def print_hog_table(figures: dict[str, list[HogFigures]], target: int) -> None:
    """The --hog rounds' figures per configuration; whether CPU charging reached `target`
    decisions over its rounds."""
    print(
        "median (min..max) over rounds; wall = `ms` (request written to answer read), "
        "charged = `charged_ms` (cpu charging: max(CPU of the bot's cgroup, wall / 3); "
        "wall charging: wall):"
    )

    def p99(values: list[float]) -> float:
        return _percentile(values, 0.99)

    for name, runs in figures.items():
        every = HogTally()
        for run in runs:
            every.add(run.tally)
        print(
            f"{name:14} decisions {spread([r.decisions for r in runs], digits=0)} "
            f"(all rounds {len(every.walls)}, "
            f"{every.matches} matches)  "
            f"polite timeouts {spread([r.tally.polite_timeouts for r in runs], digits=0)} "
            f"(all rounds {every.polite_timeouts}, "
            f"{1000 * every.polite_timeouts / max(1, len(every.walls)):.1f} per 1000 decisions)  "
            f"slow forfeited for timeout {spread([r.tally.slow_timeouts for r in runs], digits=0)}"
            f" of {spread([r.tally.slow_matches for r in runs], digits=0)} "
            f"(otherwise: {', '.join(sorted(set(every.slow_other))) or 'never'})\n"
            f"{'':14} per decision, all rounds: wall {_ms(every.walls)}; "
            f"charged {_ms(every.charged)}\n"
            f"{'':14} per-round p99: wall {spread([p99(r.tally.walls) for r in runs], ' ms')}"
            f"  charged {spread([p99(r.tally.charged) for r in runs], ' ms')}\n"
            f"{'':14} run wall {spread([r.wall for r in runs], ' s')}  "
            f"machine CPU busy {spread([r.machine_cpu for r in runs], ' s')}  "
            f"hog CPU {spread([r.hog_cpu for r in runs], ' s')}  "
            f"load at start {spread([r.load[0] for r in runs], digits=2)}"
        )
        for detail in sorted(set(every.details))[:5]:
            print(f"{'':14} timeout: {detail}")
        if name == "cpu charging":
            reached = "reached" if len(every.walls) >= target else "NOT reached (time cap)"
            print(f"{'':14} {target} decisions over the rounds: {reached}")


# ----- --demo and --bank: the bundled bots beside the same hog ------------------------


@dataclass
class SeatsSeen:
    """One `arena` run's seats (from its store): seats and forfeits per bot, and the
    forfeits' statuses and details; void matches; per bot the smallest bank left after
    an answer and the largest share of its bank one answer was charged (replays)."""

    seats: dict[str, int] = field(default_factory=dict)
    forfeits: dict[str, int] = field(default_factory=dict)
    details: list[str] = field(default_factory=list)
    void: int = 0
    least_bank_ms: dict[str, float] = field(default_factory=dict)
    most_share: dict[str, float] = field(default_factory=dict)


def seats_of(home: Path) -> SeatsSeen:
    """What the store in `home` recorded (read with arena's own Store)."""
    from sqlalchemy import select as select_columns
    from sqlmodel import col, select

    from arena.store import Store, default_url
    from arena.store.models import Bot, BotVersion, Match, MatchReplay, MatchSeat

    seen = SeatsSeen()
    store = Store(default_url(home))
    with store.read() as s:
        rows = s.execute(
            select_columns(
                col(Bot.name),
                col(MatchSeat.match_id),
                col(MatchSeat.seat),
                col(MatchSeat.status),
                col(MatchSeat.detail),
            )
            .join(BotVersion, col(BotVersion.id) == col(MatchSeat.bot_version_id))
            .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
        ).all()
        seen.void = sum(1 for m in s.exec(select(Match)).all() if m.status in VOID)
        replays = {r.match_id: r.replay for r in s.exec(select(MatchReplay)).all()}
    for name, match_id, seat, status, detail in rows:
        seen.seats[name] = seen.seats.get(name, 0) + 1
        if status is not SeatStatus.OK:
            seen.forfeits[name] = seen.forfeits.get(name, 0) + 1
            seen.details.append(f"{name}: {status.value}: {detail}")
        _bank_use(json.loads(replays.get(match_id) or "{}"), name, seat, seen)
    return seen


def _bank_use(replay: dict[str, Any], name: str, seat: int, seen: SeatsSeen) -> None:
    """The seat's least bank left and largest share of its bank charged, from its replay
    (under a bank only: `bank_ms` is recorded after each answer)."""
    try:
        increment_ms = TimeControl.parse(replay.get("time_control") or "").increment * 1000
    except ValueError:
        return  # no bank (a replay before version 3, or none)
    for event in replay.get("events", []):
        bank = event.get("bank_ms")
        if event.get("seat") != seat or bank is None or "charged_ms" not in event:
            continue
        had = bank - increment_ms + event["charged_ms"]  # the bank the answer was given
        seen.least_bank_ms[name] = min(seen.least_bank_ms.get(name, math.inf), bank)
        share = event["charged_ms"] / had if had else 0.0
        seen.most_share[name] = max(seen.most_share.get(name, 0.0), share)


def arena_command() -> list[str]:
    """The `arena` program of the interpreter running this script."""
    found = Path(sys.executable).parent / "arena"
    if not found.is_file():
        raise SystemExit(f"no arena program beside {sys.executable}")
    return [str(found)]


def run_arena(argv: list[str]) -> tuple[int, float, SeatsSeen]:
    """`arena ARGV` in a fresh ARENA_HOME: its exit code, wall time, and its store's seats."""
    with tempfile.TemporaryDirectory(prefix="bench-fairness-home-") as home:
        env = {**os.environ, "ARENA_HOME": home}
        env.pop("ARENA_DB", None)
        began = time.monotonic()
        done = subprocess.run(
            arena_command() + argv, env=env, stdin=subprocess.DEVNULL, capture_output=True
        )
        wall = time.monotonic() - began
        if done.returncode != 0:
            tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
            print(f"  arena {' '.join(argv)} exited {done.returncode}: {' | '.join(tail)}")
        return done.returncode, wall, seats_of(Path(home))


def _seen_line(seen: SeatsSeen) -> str:
    every = sum(seen.seats.values())
    lost = sum(seen.forfeits.values())
    by_bot = ", ".join(f"{n} {seen.forfeits[n]}/{seen.seats[n]}" for n in sorted(seen.forfeits))
    return f"{lost} forfeits of {every} seats ({by_bot or 'none'}), {seen.void} void matches"


def demos(count: int, hog: Hog) -> None:
    """`arena demo` `count` times beside the hog, each in a fresh home."""
    print(f"arena demo x{count} beside the hog (fresh ARENA_HOME each):", flush=True)
    lost = 0
    for number in range(count):
        load = os.getloadavg()[0]
        hog_before = hog.cpu_seconds()
        code, wall, seen = run_arena(["demo"])
        lost += sum(seen.forfeits.values())
        print(
            f"  demo {number + 1}: exit {code}, {wall:.0f} s, {_seen_line(seen)}; "
            f"hog CPU {hog.cpu_seconds() - hog_before:.0f} s; load at its start {load:.2f}",
            flush=True,
        )
        for detail in seen.details[:5]:
            print(f"    {detail[:300]}")
    print(f"  demos: {lost} forfeits in all")


def bank_runs(control: str, deals: int, hog: Hog) -> None:
    """ISMCTS against each game's heuristic under the bank `control`, beside the hog."""
    print(
        f"bots/ismcts against each game's heuristic, --time-control {control}, "
        f"--deals {deals} (both seat orders), 2 workers, beside the hog:",
        flush=True,
    )
    from arena.games import all_games

    for game in all_games():
        game_id = game.spec.id
        heuristic = ROOT / "bots" / f"{game_id}-heuristic"
        if not heuristic.is_dir():
            continue
        load = os.getloadavg()[0]
        argv = ["tournament", "run", "--game", game_id, "--bots"]
        argv += [f"{ROOT / 'bots' / 'ismcts'},{heuristic}", "--time-control", control]
        argv += ["--deals", str(deals), "--workers", "2", "-q"]
        code, wall, seen = run_arena(argv)
        least = seen.least_bank_ms.get("ismcts", math.nan)
        share = seen.most_share.get("ismcts", math.nan)
        print(
            f"  {game_id:10} exit {code}, {wall:.0f} s, {_seen_line(seen)}; ismcts: least bank "
            f"left {least:.0f} ms, most of its bank one answer was charged {share:.0%}; "
            f"load at its start {load:.2f}",
            flush=True,
        )
        for detail in seen.details[:5]:
            print(f"    {detail[:300]}")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked (a bad value exits 2 in one line); `conditions` are the
    --only ones, or all."""
    parser = argparse.ArgumentParser(
        prog=Path(__file__).name, description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument(
        "--decisions",
        type=int,
        default=10_000,
        help="polite decisions per run (--hog: per configuration, over all rounds)",
    )
    parser.add_argument(
        "--own", type=int, default=500, help="of which in worker A (the starver's match)"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--deadline", type=float, help="decision deadline (s; 0.05, or 0.02 with --hog)"
    )
    parser.add_argument(
        "--only", action="append", help="a condition to run (repeatable; default: all)"
    )
    hog = parser.add_argument_group("--hog: charged for its own work only, beside a CPU hog")
    hog.add_argument("--hog", action="store_true", help="run this mode instead of the conditions")
    hog.add_argument(
        "--hog-threads", type=int, default=2, help="busy processes of the hog per core"
    )
    hog.add_argument(
        "--share", type=float, default=0.4, help="share of its limit the polite bots compute"
    )
    hog.add_argument(
        "--slow", type=int, default=10, help="matches of the slow bot a round (both charges)"
    )
    hog.add_argument(
        "--run-seconds",
        type=float,
        default=300.0,
        help="a cpu charging run stops after this long even short of its decisions",
    )
    hog.add_argument(
        "--wall-seconds",
        type=float,
        default=60.0,
        help="a wall charging run stops after this long (its decisions come slowly)",
    )
    hog.add_argument(
        "--demo", type=int, default=0, help="then run `arena demo` this many times beside the hog"
    )
    hog.add_argument(
        "--bank",
        metavar="CONTROL",
        help="then play ISMCTS against each heuristic under this bank (e.g. 2s+50ms)",
    )
    hog.add_argument("--bank-deals", type=int, default=4, help="deals per game for --bank")
    args = parser.parse_args(argv)
    if args.deadline is None:
        args.deadline = 0.02 if args.hog else 0.05
    args.conditions = args.only or list(CONDITIONS)
    if args.hog and args.only:
        parser.error("--only picks conditions of the starver mode, not of --hog")
    if unknown := set(args.conditions) - set(CONDITIONS):
        parser.error(f"unknown condition(s): {', '.join(sorted(unknown))}")
    extras = args.hog and (args.demo or args.bank)
    if args.decisions < 1 or args.rounds < (0 if extras else 1) or not 0 < args.deadline <= 60:
        parser.error(
            "--decisions and --rounds must be at least 1 (--rounds 0 with --demo or --bank), "
            "--deadline above 0 (s)"
        )
    if (args.demo or args.bank) and not args.hog:
        parser.error("--demo and --bank run beside the hog: add --hog")
    if not (0 <= args.demo <= 50 and 1 <= args.bank_deals <= 100):
        parser.error("--demo must be 0 to 50, --bank-deals 1 to 100")
    if args.bank:
        try:
            if TimeControl.parse(args.bank).bank is None:
                parser.error(f"--bank {args.bank!r}: a bank such as 2s+50ms, not a limit")
        except ValueError as error:
            parser.error(str(error))
    if not (1 <= args.hog_threads <= 16 and 0 <= args.share <= 1 and 0 <= args.slow <= 1000):
        parser.error("--hog-threads must be 1 to 16, --share 0 to 1, --slow 0 to 1000")
    if not (
        1 <= args.run_seconds <= RUN_TIMEOUT_S / 2 and 1 <= args.wall_seconds <= RUN_TIMEOUT_S / 2
    ):
        parser.error(f"--run-seconds and --wall-seconds must be from 1 to {RUN_TIMEOUT_S / 2:.0f}")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.hog:
        main_hog(args)
        return
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
