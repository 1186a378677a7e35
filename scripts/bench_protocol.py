"""Benchmark: what one decision round trip costs through arena, against raw line echoes.

Run: .venv/bin/python scripts/bench_protocol.py [--n 5000] [--rounds 5] [--seconds 2]
     [--before DIR]

Subjects (each a fresh process per round, warmed up with --warmup untimed trips):
- C echo: a tiny C program compiled here with gcc into a temporary folder (getline, fwrite,
  fflush: one line in, the same line out), driven over plain pipes by a blocking
  os.write + os.read loop. It echoes the whole request line: the floor for a round trip.
- C echo own session: the same echo started in a session of its own (setsid), as every
  sandboxed bot is. Where the kernel groups sessions for the scheduler (autogroup, on
  here: /proc/sys/kernel/sched_autogroup_enabled), that alone puts the echo in a
  scheduling group apart from arena's, as a bot's CPU cgroup does; on one core each
  switch between the groups costs the scheduler more. Not a goal's baseline: it shows
  that part of the sandbox's cost alone.
- C echo sandboxed: the same echo started the way arena starts a bot (arena.sandbox.start.launch:
  bubblewrap, its own session, the bot's own cgroup, seccomp), driven the same way. Not
  a goal's baseline: the ratio to it shows arena's protocol work apart from what the
  sandbox costs every bot.
- arena + first-legal (C): BotProcess.decide against bots/first-legal in its sandbox,
  then messages.find_legal on the answer: exactly the runner's per-decision protocol
  work (match._ask) after the referee has built the request dict. The C bot answers
  legal[0] at once. It speaks protocol 2: the request is the observation envelope with
  the clock (`time`).
- arena + first-legal (C) v1: the same bot started as protocol 1 (it reads only type, id
  and legal, so it answers both alike) and sent the same position in protocol 1's shape
  (the observation the version-1 adapter makes, `deadline_ms`): what protocol 2 adds.
- arena + first-legal (C) v1 no cpuacct: the same, with the bot started without the
  cpuacct cgroup (ARENA_SANDBOX_CGROUP=memory,cpu,pids: arena cannot count its CPU and
  charges wall time): what the CPU accounting costs a round trip. An answer that is
  there within a millisecond reads no CPU clock either way (arena.protocol.clock).
- With `--before DIR` (a checkout, e.g. `git worktree add DIR COMMIT`): first-legal as
  protocol 1 through DIR's arena and through this tree's, each round in a child
  process started from this script (the same timing code, the same request bytes),
  e.g. DIR from before fair clocks (c1fb14b^): what this tree's arena adds, the clock
  and its CPU reading included (and every other change between the trees).
- Python json echo: the interpreter the sandboxed Python bots run (read from
  /proc/PID/exe of a started bots/random), outside the sandbox, doing
  sys.stdout.buffer.write(json.dumps(json.loads(line)).encode() + b"\\n") and a
  flush per line (standard-library json), driven like the C echo.
- arena + random (Python): BotProcess.decide + find_legal against bots/random in its
  sandbox (it decodes with orjson when its Python can import it: see the line it prints).

Every subject runs in two placements. "same core": the arena (driving) thread and every
process of the bot pinned to core 0; "other core": the arena thread on core 0 and the
bot on core 1. The affinity is set on every task of the bot's process tree after it
starts (bubblewrap, the sandbox's init and the bot: without it they would inherit the
launcher thread's), and the bot's Cpus_allowed_list is read back from /proc and printed.

The request is a real Take That decide message from the middle of a game (the size of
its line is printed), sent with a new id each trip. Timed per trip, for an echo: from
just before the write of the pre-encoded line to just after its echo is read; for arena:
from just before BotProcess.decide is handed the request dict (it encodes it, writes
it, waits, reads, parses the answer and checks its type and id) to just after
messages.find_legal has found the answer in legal. Subjects run interleaved: every
round runs each subject once, the order rotated by one each round. Per round and
subject: the median trip and the mean (wall time of all trips / n), and the CPU time
per trip of the arena thread (CLOCK_THREAD_CPUTIME_ID) and of the bot's (or echo's)
own process, the sandbox's shells excluded (/proc/PID/task/*/schedstat). Shown: the
median over rounds with [min..max]; a ratio is taken per round (subject / its echo,
same placement, same round) and summarized the same way; the goal verdict uses the
median trip (the mean carries every stall the shared machine causes). Then the
differences per round (subject minus its like-for-like baseline, same placement) of the
median trip and of the CPU per trip on each side, in us.
Then games per second of every registered game with in-process random seats (the referee alone).
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.games import all_games  # noqa: E402
from arena.players.process import BotProcess  # noqa: E402
from arena.protocol import messages  # noqa: E402
from arena.protocol.clock import SeatClock, TimeControl  # noqa: E402
from arena.sandbox import cgroup  # noqa: E402
from arena.sandbox.handle import Sandboxed  # noqa: E402
from arena.sandbox.limits import Limits  # noqa: E402
from arena.sandbox.start import launch  # noqa: E402
from arena.submissions.manifest import find_bot, prepare  # noqa: E402

C_ECHO = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        fwrite(line, 1, (size_t)len, stdout);
        fflush(stdout);
    }
    free(line);
    return 0;
}
"""

#: ARENA_SANDBOX_CGROUP without cpuacct: arena cannot count the bot's CPU, and charges wall time.
NO_CPUACCT = "memory,cpu,pids"

PY_ECHO = """\
import json, sys
readline, write, flush = sys.stdin.buffer.readline, sys.stdout.buffer.write, sys.stdout.flush
loads, dumps = json.loads, json.dumps
for line in iter(readline, b""):
    write(dumps(loads(line)).encode() + b"\\n")
    flush()
"""

#: Reports orjson's presence in the bots' sandbox (stderr, read at start).
PY_PROBE = """\
import sys
try:
    import orjson
    print("orjson", orjson.__version__, orjson.__file__, file=sys.stderr)
except ImportError as error:
    print("no orjson:", error, file=sys.stderr)
print(sys.executable, sys.version.split()[0], file=sys.stderr)
"""


def sample_request(protocol: int = 2) -> dict[str, object]:
    """A real Take That decide request from the middle of a game, in protocol 2's shape
    (the envelope and the clock), which the bundled bots speak, or in protocol 1's (the
    observation the version-1 adapter makes of the same envelope, and `deadline_ms`)."""
    game_cls = next(g for g in all_games() if g.spec.id == "take-that")
    game = game_cls.new(3, 42)
    rng = random.Random(1)
    for _ in range(12):
        seat = game.to_move()[0]
        game.apply(seat, rng.choice(game.legal(seat)))
    seat = game.to_move()[0]
    if protocol == 1:
        return messages.decide_message(1, game.observe(seat), game.legal(seat), 1000)
    clock = SeatClock(TimeControl.per(1.0)).request()
    return messages.decide_message(1, game.observation(seat), game.legal(seat), 1000, clock)


# ----- processes, affinity and CPU time from /proc ------------------------------------
def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as handle:
                found += [int(child) for child in handle.read().split()]
    except OSError:
        pass
    return found


def process_tree(pid: int) -> list[int]:
    """`pid` and all its descendants, parents first."""
    tree, todo = [], [pid]
    while todo:
        current = todo.pop(0)
        tree.append(current)
        todo += _children(current)
    return tree


def pin_tree(pid: int, cores: set[int]) -> int:
    """Pin every task of `pid`'s process tree to `cores`; return the leaf (the bot's process)."""
    tree = process_tree(pid)
    for member in tree:
        try:
            for tid in os.listdir(f"/proc/{member}/task"):
                os.sched_setaffinity(int(tid), cores)
        except (ProcessLookupError, FileNotFoundError, PermissionError):
            pass  # gone, or not ours to move (a setuid bwrap): the read-back shows it
    leaves = [member for member in tree if not _children(member)]
    return leaves[-1]


def status_field(pid: int, name: str) -> str:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    return "?"


def cpu_ns(pid: int) -> int:
    """CPU time (ns) used so far by every thread of `pid` (its schedstat)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/schedstat") as handle:
            total += int(handle.read().split()[0])
    return total


# ----- subjects ------------------------------------------------------------------------
@dataclass
class Running:
    """A started subject: one round trip, its bot's pid, and how to stop it."""

    trip: Callable[[int], None]
    pid: int
    stop: Callable[[], None]
    #: Builds the messages of trips first..first+count-1 before the clock starts (arena only).
    prepare: Callable[[int, int], None] | None = None


def start_echo(argv: list[str], line: bytes, new_session: bool = False) -> Running:
    """An echo over plain pipes; a trip writes the request line and reads it back.

    With `new_session` the echo starts in a session of its own, as every sandboxed bot
    does: where the kernel groups sessions for the scheduler (autogroup), that alone
    puts it in a scheduling group apart from arena's, as the bot's CPU cgroup does.
    """
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=0,
        start_new_session=new_session,
    )
    return _echo_trips(process, line, lambda: process.wait())


def start_sandboxed_echo(folder: Path, line: bytes) -> Running:
    """The C echo started the way arena starts a bot (`arena.sandbox.start.launch`: bubblewrap,
    the bot's cgroup, seccomp), driven over its pipes like the plain echo."""
    sandboxed: Sandboxed = launch(["./echo"], folder, Limits())
    return _echo_trips(sandboxed.process, line, sandboxed.kill)


def _echo_trips(
    process: subprocess.Popen[bytes], line: bytes, finish: Callable[[], object]
) -> Running:
    assert process.stdin and process.stdout
    out, inp = process.stdin.fileno(), process.stdout.fileno()
    os.set_blocking(inp, True)
    write, read = os.write, os.read

    def trip(_: int) -> None:
        write(out, line)
        got = read(inp, 65536)
        while not got.endswith(b"\n"):
            more = read(inp, 65536)
            if not more:
                raise RuntimeError(f"the echo closed its output (exit code {process.wait()})")
            got += more

    def stop() -> None:
        assert process.stdin
        process.stdin.close()
        finish()

    return Running(trip, process.pid, stop)


def started(bot_name: str, protocol: int | None = None) -> BotProcess:
    """A bundled bot's process, past `ready` (so past the sandbox shell's exec), speaking
    `protocol` (default: the one its bot.toml declares)."""
    manifest = find_bot(bot_name)
    protocol = protocol or manifest.protocol
    bot = BotProcess(bot_name, prepare(manifest), manifest.folder, protocol=protocol)
    bot.spawn()
    start = messages.start_message(
        match="bench",
        game="take-that",
        game_version=1,
        variant={},
        players=3,
        seat=0,
        seed=1,
        decision_timeout_ms=1000,
        protocol=protocol,
        time_control={**TimeControl.per(1.0).message(), "startup_ms": 10_000},
    )
    bot.start_match(start, time.monotonic() + 10)
    return bot


def start_arena(
    bot_name: str, request: dict[str, object], protocol: int | None = None, cgroup: str = "auto"
) -> Running:
    """A bundled bot behind BotProcess; a trip is decide + find_legal on the request.

    `protocol` as `started`; `cgroup` is ARENA_SANDBOX_CGROUP while the bot starts
    ("memory,cpu,pids": no cpuacct, so its answers are charged wall time)."""
    bot = started_with_cgroup(bot_name, protocol, cgroup)
    legal = request["legal"]
    assert isinstance(legal, list)
    decide, find_legal, monotonic = bot.decide, messages.find_legal, time.monotonic
    requests: dict[int, dict[str, object]] = {}

    def trip(i: int) -> None:
        message = requests.pop(i)
        if find_legal(decide(message, monotonic() + 1.0), legal) is None:
            raise AssertionError("illegal answer")

    def prepare_ids(first: int, count: int) -> None:  # built before the clock starts
        for i in range(first, first + count):
            requests[i] = dict(request, id=i)

    assert bot.process is not None
    return Running(trip, bot.process.pid, bot.close, prepare_ids)


def started_with_cgroup(bot_name: str, protocol: int | None, setting: str) -> BotProcess:
    """`started`, with ARENA_SANDBOX_CGROUP set to `setting` while the bot starts."""
    if setting == "auto":
        return started(bot_name, protocol)
    before = os.environ.get("ARENA_SANDBOX_CGROUP")
    os.environ["ARENA_SANDBOX_CGROUP"] = setting
    cgroup.controllers.cache_clear()
    try:
        return started(bot_name, protocol)
    finally:
        if before is None:
            del os.environ["ARENA_SANDBOX_CGROUP"]
        else:
            os.environ["ARENA_SANDBOX_CGROUP"] = before
        cgroup.controllers.cache_clear()


@dataclass
class Subject:
    label: str
    kind: str  # baseline group: "C" or "Python"
    start: Callable[[], Running]
    bot_core: int
    rows: list[dict[str, float]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    #: Run in a child from this checkout (--before; `start` unused) with this request.
    tree: Path | None = None
    request: dict[str, object] = field(default_factory=dict)


def measure(subject: Subject, arena_core: int, n: int, warmup: int) -> None:
    """One round of one subject: start, pin, verify, warm up, time n trips, stop (in a
    child process run from another tree, for a `--before` subject)."""
    if subject.tree is not None:
        row, seen = measure_in_child(subject.tree, subject.request, arena_core, subject.bot_core)
        subject.rows.append(row)
        subject.seen.add(seen)
        return
    os.sched_setaffinity(0, {arena_core})
    running = subject.start()
    leaf = pin_tree(running.pid, {subject.bot_core})
    subject.seen.add(placement(leaf))
    subject.rows.append(time_trips(running, leaf, n, warmup))


def placement(leaf: int) -> str:
    """The arena thread's and the bot's allowed cores, read back from /proc."""
    arena_tid = threading.get_native_id()
    return (
        f"arena thread {status_field(arena_tid, 'Cpus_allowed_list')}, bot "
        f"{status_field(leaf, 'Cpus_allowed_list')} ({os.readlink(f'/proc/{leaf}/exe')})"
    )


def time_trips(running: Running, leaf: int, n: int, warmup: int) -> dict[str, float]:
    """Warm up, time n trips of a started subject whose bot process is `leaf`, stop it."""
    try:
        if running.prepare is not None:
            running.prepare(1, warmup + n)
        for i in range(1, warmup + 1):
            running.trip(i)
        perf = time.perf_counter
        stamps = [0.0] * (n + 1)
        cpu0, bot0 = time.thread_time_ns(), cpu_ns(leaf)
        stamps[0] = perf()
        for k in range(1, n + 1):
            running.trip(warmup + k)
            stamps[k] = perf()
        cpu1, bot1 = time.thread_time_ns(), cpu_ns(leaf)
    finally:
        running.stop()
    trips = [b - a for a, b in itertools.pairwise(stamps)]
    return {
        "median": statistics.median(trips) * 1e6,
        "mean": (stamps[-1] - stamps[0]) / n * 1e6,
        "arena_cpu": (cpu1 - cpu0) / n / 1e3,
        "bot_cpu": (bot1 - bot0) / n / 1e3,
    }


# ----- --before: the same subject through another checkout's arena, in a child -------
#: The child's own code: arena imported from the tree it is given, then first-legal
#: started as protocol 1 (in a tree from before protocol 2 that is all there is) and
#: timed by this script's own functions (their source is appended: `child_source`).
CHILD_MAIN = """
import inspect, itertools, json, os, statistics, sys, threading, time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
tree, spec = sys.argv[1], json.loads(sys.argv[2])
sys.path.insert(0, tree)
import arena
from arena.players.process import BotProcess
from arena.protocol import messages
from arena.submissions.manifest import find_bot, prepare
"""

CHILD_RUN = """
def v1(function, **kwargs):
    known = inspect.signature(function).parameters
    return function(**{k: v for k, v in kwargs.items() if k in known or k != "protocol"})

os.sched_setaffinity(0, {spec["arena_core"]})
manifest = find_bot("first-legal")
bot = v1(BotProcess, name="first-legal", argv=prepare(manifest), folder=manifest.folder, protocol=1)
bot.spawn()
start = v1(messages.start_message, match="bench", game="take-that", game_version=1, variant={},
           players=3, seat=0, seed=1, decision_timeout_ms=1000, protocol=1)
bot.start_match(start, time.monotonic() + 10)
request, legal = spec["request"], spec["request"]["legal"]
requests = {}

def trip(i):
    if messages.find_legal(bot.decide(requests.pop(i), time.monotonic() + 1.0), legal) is None:
        raise AssertionError("illegal answer")

def prepare_ids(first, count):
    for i in range(first, first + count):
        requests[i] = dict(request, id=i)

leaf = pin_tree(bot.process.pid, {spec["bot_core"]})
seen = placement(leaf) + f", arena from {Path(arena.__file__).parent.parent}"
running = Running(trip, bot.process.pid, bot.close, prepare_ids)
row = time_trips(running, leaf, spec["n"], spec["warmup"])
print(json.dumps({"row": row, "seen": seen}))
"""


def child_source() -> str:
    """The child's program: its imports, this script's helpers it needs, its run."""
    helpers = (_children, process_tree, pin_tree, status_field, cpu_ns, placement, time_trips)
    parts = [CHILD_MAIN, inspect.getsource(Running)]
    parts += [inspect.getsource(helper) for helper in helpers]
    return "\n".join([*parts, CHILD_RUN])


#: n and warmup of the current run, for the children (set by bench_round_trips).
CHILD_TRIPS: dict[str, int] = {}


def measure_in_child(
    tree: Path, request: dict[str, object], arena_core: int, bot_core: int
) -> tuple[dict[str, float], str]:
    """One round of first-legal as protocol 1 through `tree`'s arena, in a child process."""
    spec = {"request": request, "arena_core": arena_core, "bot_core": bot_core, **CHILD_TRIPS}
    done = subprocess.run(
        [sys.executable, "-c", child_source(), str(tree), json.dumps(spec)],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        sys.exit(f"the child run from {tree} failed:\n{done.stderr[-2000:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return found["row"], found["seen"]


def spread(values: list[float], fmt: str = "{:.1f}") -> str:
    return (
        f"{fmt.format(statistics.median(values))} "
        f"[{fmt.format(min(values))}..{fmt.format(max(values))}]"
    )


def python_of_bots() -> tuple[str, str]:
    """The interpreter sandboxed Python bots run (from /proc of a started bots/random) and what
    a bot process of it reports about orjson."""
    manifest = find_bot("random")
    argv = prepare(manifest)
    bot = started("random")
    assert bot.process is not None
    leaf = pin_tree(bot.process.pid, os.sched_getaffinity(0))
    exe = os.readlink(f"/proc/{leaf}/exe")
    bot.close()
    probe = BotProcess("probe", [argv[0], "-c", PY_PROBE], manifest.folder)
    probe.spawn()
    assert probe.sandbox is not None
    probe.sandbox.wait(10)
    said = probe.stderr_tail().strip().replace("\n", "; ")
    probe.close()
    return exe, said


def bench_round_trips(n: int, rounds: int, warmup: int, before: Path | None = None) -> None:
    request, request_v1 = sample_request(), sample_request(1)
    CHILD_TRIPS.update(n=n, warmup=warmup)
    line = messages.encode(request)
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        sys.exit("needs two cores (same core / other core)")
    home, other = cores[0], cores[1]
    gcc = shutil.which("gcc")
    if gcc is None:
        sys.exit("needs gcc for the C echo")
    python, orjson_note = python_of_bots()
    with tempfile.TemporaryDirectory(prefix="bench-echo-") as scratch:
        source = Path(scratch) / "echo.c"
        source.write_text(C_ECHO)
        echo = str(Path(scratch) / "echo")
        subprocess.run([gcc, "-O2", "-o", echo, str(source)], check=True)
        boxed = Path(scratch) / "boxed"  # a bot folder holding just the echo
        boxed.mkdir()
        shutil.copy2(echo, boxed / "echo")
        print(
            f"request line: {len(line)} bytes (protocol 1's of the same position: "
            f"{len(messages.encode(request_v1))}); {rounds} rounds x {n} timed round trips per"
        )
        print(f"subject ({warmup} untimed first); Python bots run {python}: {orjson_note}")
        subjects: list[Subject] = []
        for place, core in (("same core", home), ("other core", other)):
            subjects += [
                Subject(f"C echo, {place}", "C", lambda: start_echo([echo], line), core),
                Subject(
                    f"C echo own session, {place}",
                    "C",
                    lambda: start_echo([echo], line, new_session=True),
                    core,
                ),
                Subject(
                    f"C echo sandboxed, {place}",
                    "C",
                    lambda: start_sandboxed_echo(boxed, line),
                    core,
                ),
                Subject(
                    f"arena + first-legal (C), {place}",
                    "C",
                    lambda: start_arena("first-legal", request),
                    core,
                ),
                Subject(
                    f"arena + first-legal (C) v1, {place}",
                    "C",
                    lambda: start_arena("first-legal", request_v1, protocol=1),
                    core,
                ),
                Subject(
                    f"arena + first-legal (C) v1 no cpuacct, {place}",
                    "C",
                    lambda: start_arena("first-legal", request_v1, 1, NO_CPUACCT),
                    core,
                ),
            ]
            for tree, which in ((ROOT, "this tree"), (before, "before")):
                if before is not None:  # both trees in children, alike
                    subjects.append(
                        Subject(
                            f"arena + first-legal (C) v1 child, {which}, {place}",
                            "C",
                            lambda: Running(lambda _: None, 0, lambda: None),  # unused
                            core,
                            tree=tree,
                            request=request_v1,
                        )
                    )
            subjects += [
                Subject(
                    f"Python json echo, {place}",
                    "Python",
                    lambda: start_echo([python, "-I", "-c", PY_ECHO], line),
                    core,
                ),
                Subject(
                    f"arena + random (Python), {place}",
                    "Python",
                    lambda: start_arena("random", request),
                    core,
                ),
            ]
        all_cores = os.sched_getaffinity(0)
        try:
            for round_index in range(rounds):
                shift = round_index % len(subjects)
                for subject in subjects[shift:] + subjects[:shift]:
                    measure(subject, home, n, warmup)
        finally:
            os.sched_setaffinity(0, all_cores)
    print("per round trip, us: median over rounds [min..max]")
    print(
        f"  {'subject':56s} {'median trip':>22s} {'mean trip':>22s}"
        f" {'arena CPU':>20s} {'bot CPU':>20s}"
    )
    for subject in subjects:
        rows = subject.rows
        print(
            f"  {subject.label:56s} {spread([r['median'] for r in rows]):>22s}"
            f" {spread([r['mean'] for r in rows]):>22s}"
            f" {spread([r['arena_cpu'] for r in rows]):>20s}"
            f" {spread([r['bot_cpu'] for r in rows]):>20s}"
        )
    print("Cpus_allowed_list read back from /proc/PID/status after pinning, every round:")
    for subject in subjects:
        print(f"  {subject.label:56s} {' | '.join(sorted(subject.seen))}")
    print("ratios (per round: subject / its echo in the same placement), median [min..max]:")
    # (subject, baseline, goal): the goals compare with the plain echoes; the sandboxed
    # echo pays what every bot pays for its sandbox (on one core mostly its scheduling
    # group apart from arena's: its own session, its CPU cgroup; the echo in its own
    # session shows that part alone), so the ratio to it is arena's protocol work alone
    pairs = (
        ("C echo own session", "C echo", None, None),
        ("C echo sandboxed", "C echo", None, None),
        ("arena + first-legal (C)", "C echo", 1.5, 1.3),
        ("arena + first-legal (C)", "C echo sandboxed", None, None),
        ("arena + random (Python)", "Python json echo", 2.0, 2.0),
    )
    by_label = {s.label: s for s in subjects}
    for place in ("same core", "other core"):
        for name, base_name, same_goal, other_goal in pairs:
            subject, base = by_label[f"{name}, {place}"], by_label[f"{base_name}, {place}"]
            median_ratios = [
                s["median"] / b["median"] for s, b in zip(subject.rows, base.rows, strict=True)
            ]
            mean_ratios = [
                s["mean"] / b["mean"] for s, b in zip(subject.rows, base.rows, strict=True)
            ]
            goal = same_goal if place == "same core" else other_goal
            verdict = ""
            if goal is not None:
                met = "met" if statistics.median(median_ratios) <= goal else "NOT met"
                verdict = f"  (goal <= {goal}x: {met})"
            print(
                f"  {subject.label:56s} / {base_name:16s}"
                f" median trip {spread(median_ratios, '{:.2f}')}x,"
                f" mean trip {spread(mean_ratios, '{:.2f}')}x{verdict}"
            )
    print_differences(subjects)


#: (subject, baseline, what the difference is): like for like, the same bot and request
#: position, in the same round and placement.
DIFFERENCES = (
    (
        "arena + first-legal (C)",
        "arena + first-legal (C) v1",
        "protocol 2 (envelope and clock in the request, v2's reply checks)",
    ),
    (
        "arena + first-legal (C) v1",
        "arena + first-legal (C) v1 no cpuacct",
        "the bot's cpuacct cgroup (CPU accounting: the kernel's work; no clock read either way)",
    ),
)


#: With --before: this tree's arena against the other checkout's, both run in children.
BEFORE_DIFFERENCE = (
    "arena + first-legal (C) v1 child, this tree",
    "arena + first-legal (C) v1 child, before",
    "this tree's arena against --before's (fair clocks and the CPU reading included; the "
    "same protocol-1 request; every other change between the trees too)",
)


def print_differences(subjects: list[Subject]) -> None:
    """Per round, subject minus baseline (same placement): median trip and arena CPU, in us."""
    by_label = {s.label: s for s in subjects}
    compared = list(DIFFERENCES)
    if any(s.tree is not None for s in subjects):
        compared.append(BEFORE_DIFFERENCE)
    print("added per round trip (per round: subject - baseline, us), median [min..max]:")
    for place in ("same core", "other core"):
        for name, base_name, what in compared:
            subject, base = by_label[f"{name}, {place}"], by_label[f"{base_name}, {place}"]
            pairs = list(zip(subject.rows, base.rows, strict=True))
            trip = [s["median"] - b["median"] for s, b in pairs]
            cpu = [s["arena_cpu"] - b["arena_cpu"] for s, b in pairs]
            bot = [s["bot_cpu"] - b["bot_cpu"] for s, b in pairs]
            print(
                f"  {place}: {name} - {base_name}: median trip {spread(trip, '{:+.2f}')},"
                f" arena CPU {spread(cpu, '{:+.2f}')}, bot CPU {spread(bot, '{:+.2f}')}\n"
                f"    ({what})"
            )


def bench_referees(seconds: float) -> None:
    print("referee alone, in-process random seats (games per second):")
    for game_cls in all_games():
        spec = game_cls.spec
        for players in sorted({spec.min_players, spec.max_players}):
            rng = random.Random(0)
            games = decisions = 0
            began = time.perf_counter()
            while time.perf_counter() - began < seconds:
                game = game_cls.new(players, games)
                while not game.is_over():
                    choices = {s: rng.choice(game.legal(s)) for s in game.to_move()}
                    game.apply_joint(choices)
                    decisions += len(choices)
                games += 1
            took = time.perf_counter() - began
            print(
                f"  {spec.id:10s} {players} players: {games / took:8.1f} games/s "
                f"({decisions / games:.0f} decisions a game, {decisions / took:,.0f} decisions/s)"
            )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked: a bad value exits 2 in one line."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000, help="timed round trips per subject a round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (at least 3)")
    parser.add_argument("--warmup", type=int, default=500, help="untimed round trips first")
    parser.add_argument(
        "--seconds", type=float, default=2.0, help="time per referee figure (0: skip them)"
    )
    parser.add_argument(
        "--before",
        type=Path,
        help="another checkout (git worktree add DIR COMMIT): its arena + first-legal as "
        "protocol 1 beside this tree's, both in child processes",
    )
    args = parser.parse_args(argv)
    if args.rounds < 3:
        parser.error("--rounds must be at least 3")
    if args.n < 1 or args.warmup < 0:
        parser.error("--n must be at least 1, --warmup at least 0")
    if args.before is not None and not (args.before / "arena" / "__init__.py").is_file():
        parser.error(f"--before {args.before}: no arena/__init__.py there (a checkout of arena)")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    bench_round_trips(args.n, args.rounds, args.warmup, args.before)
    if args.seconds > 0:
        bench_referees(args.seconds)


if __name__ == "__main__":
    main()
