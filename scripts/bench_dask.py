"""Benchmark: matches per second on a Dask LocalCluster (1 and 2 worker processes) against
the local pool (1 and 2 workers) for the same tournament, and the per-match overhead the
cluster adds.

Run: .venv/bin/python scripts/bench_dask.py [--game take-that] [--rounds 40] [--repeat 3]

Bots are registered once in a temporary arena home; every run plays the same tournament
on a fresh copy of its database. Each cluster first plays a two-match warm-up, so that the
figures exclude unpacking and building the bots on the workers (done once per worker);
each figure is the best of `--repeat` runs, as other processes share the machine.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from distributed import Client, LocalCluster  # noqa: E402

from arena import registry  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.tournament import runner  # noqa: E402
from arena.tournament.config import TournamentConfig  # noqa: E402
from arena.tournament.dask_executor import DaskExecutor  # noqa: E402
from arena.tournament.executors import Executor  # noqa: E402


def play(
    home: Path, config: TournamentConfig, workers: int, executor: Executor | None
) -> tuple[int, float]:
    """(matches, seconds) to play `config` on the local pool or on `executor`."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(home / "template.db", Path(folder) / "arena.db")
        store = Store(f"sqlite:///{folder}/arena.db")
        tid = runner.create(store, home, config)
        began = time.perf_counter()
        if executor is None:
            runner.run(store, tid, workers)
        else:
            runner.run(store, tid, executor=executor)
        took = time.perf_counter() - began
        done, total = store.match_counts(tid)
        assert done == total, (done, total)
        store.close()
    return total, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="take-that")
    parser.add_argument("--bots", default="random,first-legal")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3, help="Best of this many runs.")
    args = parser.parse_args()
    logging.getLogger("distributed").setLevel(logging.ERROR)
    bots = tuple(args.bots.split(","))
    config = TournamentConfig(game=args.game, bots=bots, rounds=args.rounds, seed=3)
    warm_up = TournamentConfig(game=args.game, bots=bots, rounds=1, seed=4)
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        os.environ["ARENA_WORKER_CACHE"] = str(home / "worker-cache")  # workers inherit it
        store = Store(f"sqlite:///{home / 'template.db'}")
        for bot in bots:
            registry.submit(store, home, bot)
        store.close()
        print(f"{args.game} round robin of {', '.join(bots)}, {args.rounds} rounds")
        print("executor        workers  matches  matches/s  ms/match")
        rates: dict[tuple[str, int], float] = {}
        for workers in (1, 2):
            runs = [play(home, config, workers, None) for _ in range(args.repeat)]
            count, took = min(runs, key=lambda run: run[1])
            rates[("local", workers)] = count / took
            ms = took / count * 1000
            print(f"local pool      {workers:7d}  {count:7d}  {count / took:9.1f}  {ms:8.1f}")
        for workers in (1, 2):
            with (
                LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",
                    silence_logs=logging.ERROR,
                ) as cluster,
                Client(cluster, set_as_default=False) as client,
            ):
                executor = DaskExecutor(cluster.scheduler_address, client=client)
                play(home, warm_up, workers, executor)
                runs = [play(home, config, workers, executor) for _ in range(args.repeat)]
                count, took = min(runs, key=lambda run: run[1])
                executor.shutdown()
            rates[("dask", workers)] = count / took
            ms = took / count * 1000
            print(f"dask cluster    {workers:7d}  {count:7d}  {count / took:9.1f}  {ms:8.1f}")
        for workers in (1, 2):
            extra = (1 / rates[("dask", workers)] - 1 / rates[("local", workers)]) * 1000
            print(f"overhead of the cluster per match, {workers} worker(s): {extra:+.1f} ms")


if __name__ == "__main__":
    main()
