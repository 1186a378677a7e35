"""Benchmark: wall time and coordinator CPU per match of one tournament, run on the local
pool and on a Dask cluster with the same number of worker processes, and what the cluster
adds per match.

Run: .venv/bin/python scripts/bench_dask.py [--game take-that] [--rounds 100] [--repeat 5]
     [--workers 1,2]

What is timed, for each subject: one `runner.run` of the whole tournament, exactly as
`arena tournament run` does it, on a fresh copy of the same database (bots registered
once beforehand). The subject is named the way a user names it, so the runner opens and
shuts down the executor inside the timed call:

- `local`: `runner.run` on a new local process pool of `workers` processes (for 1 worker
  too, where `arena tournament run` would play in-process): it is forked, its workers
  start their bot processes, play, and exit.
- `dask`: `runner.run(store, tid, executor="dask://...")`: a new client connects to an
  already running cluster (`dask scheduler` and `dask worker --nworkers W --nthreads 1`,
  started by this script as separate processes, as in a real deployment: so the
  scheduler's CPU is not the coordinator's), ships the bots, plays, and closes the
  workers' idle bot processes.

Both are warmed the same way: one untimed run of each subject before the first round
(imports, page cache, and the Dask workers' one-time unpacking and building of the bots).
Worker counts are measured one after another, one cluster running at a time (as on a
real host: its workers pin themselves to free cores, as the local pool pins its own);
within a worker count, rounds interleave the two subjects (local, dask, local, dask,
...), as other processes share the machine; each figure is the median over `--repeat`
rounds with min..max beside it. Wall is `time.perf_counter`, CPU is the coordinator's
`time.process_time` (this process: runner, database, executor threads; not its worker
processes), and for Dask the scheduler's CPU (from /proc) too. The overhead line is the
difference of the median wall times per match.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from distributed import Client  # noqa: E402

from arena.games import load_game  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.submissions import submit as registry  # noqa: E402
from arena.submissions.manifest import find_bot  # noqa: E402
from arena.tournament import executors, runner  # noqa: E402
from arena.tournament.config import TournamentConfig  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Run:
    """One timed tournament: matches, wall seconds, coordinator and scheduler CPU seconds."""

    matches: int
    wall: float
    cpu: float
    scheduler_cpu: float = 0.0


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def play(home: Path, config: TournamentConfig, workers: int, executor: str) -> Run:
    """Play `config` once on a fresh copy of the template database (see the docstring)."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(home / "template.db", Path(folder) / "arena.db")
        store = Store(f"sqlite:///{folder}/arena.db")
        tid = runner.create(store, home, config)
        wall, cpu = time.perf_counter(), time.process_time()
        if executor == "local":
            # A process pool for 1 worker too (`--workers 1` plays in-process: the
            # coordinator's CPU would then include the matches themselves).
            pool = executors.Processes(workers, reuse=True, pin=True)
            try:
                runner.run(store, tid, executor=pool)
            finally:
                pool.shutdown()
        else:
            runner.run(store, tid, workers, executor=executor)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        done, total = store.match_counts(tid)
        assert done == total, (done, total)
        store.close()
    return Run(total, wall, cpu)


def quiet(command: str, *args: str) -> subprocess.Popen[bytes]:
    """Start `python -m distributed.cli.<command> args`, its output thrown away."""
    argv = [sys.executable, "-m", f"distributed.cli.{command}", *args]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@contextlib.contextmanager
def cluster(workers: int, folder: Path) -> Iterator[tuple[str, int]]:
    """A Dask scheduler and `workers` one-thread worker processes; (dask:// name, scheduler pid)."""
    info = folder / f"scheduler-{workers}.json"
    common = ["--scheduler-file", str(info), "--no-dashboard"]
    scheduler = quiet("dask_scheduler", "--host", "127.0.0.1", "--port", "0", *common)
    worker = None
    try:
        while not info.exists():
            time.sleep(0.05)
        worker = quiet("dask_worker", "--nworkers", str(workers), "--nthreads", "1", *common)
        connect: Any = Client  # untyped
        with connect(scheduler_file=str(info), set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=60)
            address = client.scheduler.address
        yield "dask://" + address.removeprefix("tcp://"), scheduler.pid
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.terminate()
                process.wait(timeout=30)


def summary(runs: list[Run], per: str) -> str:
    """'median (min..max)' per match of one attribute over the rounds, in ms."""
    values = [getattr(run, per) / run.matches * 1000 for run in runs]
    return f"{statistics.median(values):6.2f} ({min(values):6.2f}..{max(values):6.2f})"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked (a bad value exits 2 in one line); `bot_names` are the
    --bots."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="take-that")
    parser.add_argument("--bots", default="random,first-legal")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5, help="Timed rounds (at least 3).")
    parser.add_argument("--workers", default="1,2", help="Worker counts, comma-separated.")
    args = parser.parse_args(argv)
    args.bot_names = tuple(args.bots.split(","))
    try:
        load_game(args.game)
        for bot in args.bot_names:
            find_bot(bot)
    except ValueError as error:  # an unknown game or bot, named with those there are
        parser.error(str(error))
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    logging.getLogger("distributed").setLevel(logging.ERROR)
    bots = args.bot_names
    counts = [int(n) for n in args.workers.split(",")]
    config = TournamentConfig(game=args.game, bots=bots, rounds=args.rounds, seed=3)
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        os.environ["ARENA_WORKER_CACHE"] = str(home / "worker-cache")  # workers inherit it
        store = Store(f"sqlite:///{home / 'template.db'}")
        for bot in bots:
            registry.submit(store, home, bot)
        store.close()
        runs: dict[tuple[str, int], list[Run]] = {}
        # One cluster at a time, as on a real host (its workers take the cores: CorePin).
        for n in counts:
            with cluster(n, home) as (name, pid):
                play(home, config, n, "local")  # warm-up, untimed: the same for both
                play(home, config, n, name)
                for _ in range(max(3, args.repeat)):
                    runs.setdefault(("local", n), []).append(play(home, config, n, "local"))
                    before = cpu_of(pid)
                    run = play(home, config, n, name)
                    run.scheduler_cpu = cpu_of(pid) - before
                    runs.setdefault(("dask", n), []).append(run)
    report(args, bots, counts, runs)


def report(
    args: argparse.Namespace,
    bots: tuple[str, ...],
    counts: list[int],
    runs: dict[tuple[str, int], list[Run]],
) -> None:
    """Print the medians (min..max) per match and the cluster's overhead."""
    rounds = len(next(iter(runs.values())))
    matches = next(iter(runs.values()))[0].matches
    print(f"{args.game} round robin of {', '.join(bots)}: {matches} matches per run")
    print(f"median (min..max) over {rounds} interleaved rounds, ms per match")
    print("executor  workers  wall                     coordinator CPU          scheduler CPU")
    for n in counts:
        for kind in ("local", "dask"):
            got = runs[(kind, n)]
            line = f"{kind:8s}  {n:7d}  {summary(got, 'wall')}  {summary(got, 'cpu')}"
            if kind == "dask":
                line += f"  {summary(got, 'scheduler_cpu')}"
            print(line)
    for n in counts:
        local = statistics.median(r.wall / r.matches for r in runs[("local", n)])
        dask = statistics.median(r.wall / r.matches for r in runs[("dask", n)])
        print(
            f"dask over local, {n} worker(s): {(dask - local) * 1000:+.2f} ms per match "
            f"({(dask / local - 1) * 100:+.1f} %)"
        )


if __name__ == "__main__":
    main()
