"""Benchmark the web pages of `arena serve` (issue 35): every page at N concurrent
clients while the open ladder plays and records, and each page's size.

Builds the database of scripts/bench_service.py (--bots bots that declare Take That
only, a scheduled tournament that a recorder process records --record-rate matches a
second, with the TrueSkill update), starts `arena serve --ladder` whose open ladder
plays LEYLO between the bundled random and first-legal bots (one worker, in the
service's process; its bots are subprocesses), waits until the ladder has recorded a
match (with its replay) and has one in play, then for --rounds rounds runs --clients
readers (bench_service's keep-alive connections) for --seconds, each asking in turn
for the home page, the take-that leaderboard, a bot's page, the recorded ladder
match's page, its replay viewer, and the page of the match in play (the spectator's
viewer, /matches/ID/watch; the match in play is looked up again every second, off the
clock). Prints per round requests/s, each page's p50 and p99, the matches recorded
meanwhile, the server's CPU per request (it includes the ladder's own thread), the
server's CPU a second over --quiet seconds before the round with the recorder and
the ladder but no reader (the ladder's own, and what the CPU per request is less
it), and the load average; then each page's size (and the live stream's bytes a frame) and
each page's p99 over the rounds (median, min..max). Measures only what it prints.

    .venv/bin/python scripts/bench_pages.py
    .venv/bin/python scripts/bench_pages.py --clients 100 --seconds 15 --rounds 3
    .venv/bin/python scripts/bench_pages.py --pace 2   # 100 clients, 50 pages a second
    .venv/bin/python scripts/bench_pages.py --gzip     # readers that accept gzip
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_service import GAME, Connection, build, cpu_seconds, percentile, read_paths, record

#: The ladder's game: not the bench bots' (they declare Take That only, so the ladder
#: plays only the bundled bots, which run).
LADDER_GAME = "leylo"
LADDER = f"""[[ladder]]
game = "{LADDER_GAME}"
players = 2
time_control = "2s/decision"
bundled = ["random", "first-legal"]
matches = 100000
"""
PAGES = ("home", "leaderboard", "bot", "match", "replay", "live")
#: A match in play on the home page ("now playing", marked live).
LIVE_LINK = re.compile(r'href="/matches/(\d+)">\d+</a> <span class="live">')


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=50, help="registered bots (default 50)")
    parser.add_argument("--clients", type=int, default=100, help="readers (default 100)")
    parser.add_argument("--seconds", type=float, default=15.0, help="per round (default 15)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        help="seconds from one request of a client to its next (default 0: back to back,"
        " the service's saturation; 2: 100 clients ask 50 pages a second)",
    )
    parser.add_argument(
        "--gzip",
        action="store_true",
        help="the readers send Accept-Encoding: gzip (default: they do not, as before it)",
    )
    parser.add_argument(
        "--quiet",
        type=float,
        default=5.0,
        help="seconds before each round with the recorder and the ladder but no reader: the"
        " server's CPU then is the ladder's (default 5; 0: not measured)",
    )
    parser.add_argument(
        "--record-rate",
        type=float,
        default=100.0,
        help="matches recorded per second beside the ladder (default 100; 0: as fast as it can)",
    )
    args = parser.parse_args(argv)
    if args.bots < 2 or args.clients < 1 or args.seconds <= 0 or args.rounds < 1:
        parser.error("--bots >= 2, --clients >= 1, --seconds > 0 and --rounds >= 1")
    if args.record_rate < 0 or args.pace < 0 or args.quiet < 0:
        parser.error("--record-rate, --pace and --quiet must not be negative")
    return args


def serve(home: Path, url: str) -> tuple[subprocess.Popen[str], str]:
    """`arena serve --ladder` on a free loopback port; it and its URL. Its stderr (the
    ladder's log) is read by a thread, so that the server never blocks on a full pipe."""
    ladder = home / "ladder.toml"
    ladder.write_text(LADDER)
    env = {**os.environ, "ARENA_HOME": str(home), "ARENA_DB": url}
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0", "--ladder", str(ladder)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stderr is not None
    line = server.stderr.readline()
    while " on http" not in line:
        if not line:
            raise SystemExit("error: arena serve ended before it served")
        line = server.stderr.readline()
    threading.Thread(target=server.stderr.read, daemon=True).start()
    return server, line.split(" on ")[1].split(" ")[0]


def ladder_matches(client: httpx.Client) -> tuple[int | None, int | None]:
    """A recorded ladder match (with its replay) and one in play, if there are yet."""
    recorded = client.get("/api/bots/random/matches")
    rows = recorded.json() if recorded.status_code == 200 else []
    done = next((r["match"] for r in rows if isinstance(r, dict) and "match" in r), None)
    playing = LIVE_LINK.findall(client.get("/").text)
    return done, (int(playing[0]) if playing else None)


def wait_for_ladder(url: str, limit: float = 300.0) -> tuple[int, int]:
    with httpx.Client(base_url=url, timeout=30) as client:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            done, playing = ladder_matches(client)
            if done is not None and playing is not None:
                return done, playing
            time.sleep(1)
    raise SystemExit(f"error: the ladder recorded no match or has none in play after {limit:g} s")


def path_of(page: str, turn: int, bots: int, match: int, playing: int) -> str:
    return {
        "home": "/",
        "leaderboard": f"/leaderboard/{GAME}",
        "bot": f"/bots/bot-{turn % bots}",
        "match": f"/matches/{match}",
        "replay": f"/matches/{match}/replay",
        "live": f"/matches/{playing}/watch",
    }[page]


async def read(
    args: argparse.Namespace, url: str, match: int, playing: list[int]
) -> dict[str, list[float]]:
    """`args.clients` readers for `args.seconds`, each page in turn, a request every
    `args.pace` seconds (0: back to back): latencies (ms) by page. `playing[0]`, the
    match in play, is looked up again every second."""
    bots = args.bots
    found: dict[str, list[float]] = {page: [] for page in PAGES}

    def choose(turn: int) -> tuple[str, str]:
        page = PAGES[turn % len(PAGES)]
        return page, path_of(page, turn // len(PAGES), bots, match, playing[0])

    async def finder(deadline: float) -> None:  # off the clock: its own connection
        looking = await Connection.open(url)
        looking.extra = b""  # the page as it is (not gzipped), to be searched
        try:
            while time.monotonic() < deadline:
                now = LIVE_LINK.findall((await looking.get("/")).decode())
                if now:
                    playing[0] = int(now[0])
                await asyncio.sleep(1)
        finally:
            looking.close()

    return await read_paths(url, args.clients, args.seconds, args.pace, choose, found, finder)


def sizes(url: str, bots: int, match: int, playing: int) -> None:
    """Each page's HTML in bytes, as it is and as sent to a client that accepts gzip, and
    the live stream's bytes a frame."""
    with httpx.Client(base_url=url, timeout=30) as client:
        for page in PAGES:
            path = path_of(page, 0, bots, match, playing)
            plain = client.get(path, headers={"Accept-Encoding": "identity"})
            packed = client.get(path, headers={"Accept-Encoding": "gzip"})
            plain.raise_for_status()
            packed.raise_for_status()
            print(
                f"  {page:<11} {path}: {len(plain.content)} bytes,"
                f" {packed.num_bytes_downloaded} sent"
                f" ({packed.headers.get('content-encoding', 'not compressed')})"
            )
        frames, size = 0, 0
        with client.stream("GET", f"/matches/{playing}/live") as stream:
            for line in stream.iter_lines():
                size += len(line) + 1
                frames += line.startswith("event: frame")
                if frames >= 200 or line.startswith("event: end"):
                    break
        print(f"  live stream /matches/{playing}/live: {size / max(frames, 1):.0f} bytes a frame"
              f" ({frames} frames read)")  # fmt: skip


def measure(args: argparse.Namespace, url: str, tid: int, served: str, pid: int,
            match: int, playing: list[int]) -> dict[str, float]:  # fmt: skip
    """One round: the readers beside the recorder; prints its row, returns each page's p99."""
    stop, done = multiprocessing.Event(), multiprocessing.Queue()  # type: ignore[var-annotated]
    recorder = multiprocessing.Process(target=record, args=(url, tid, stop, done, args.record_rate))
    recorder.start()
    assert done.get(timeout=120) == "ready"
    quiet = 0.0
    if args.quiet:
        cpu = cpu_seconds(pid)
        time.sleep(args.quiet)
        quiet = (cpu_seconds(pid) - cpu) / args.quiet
        playing[0] = wait_for_ladder(served)[1]  # the match in play meanwhile may be over
    load = os.getloadavg()[0]
    began, cpu = time.monotonic(), cpu_seconds(pid)
    found = asyncio.run(read(args, served, match, playing))
    elapsed, cpu = time.monotonic() - began, cpu_seconds(pid) - cpu
    stop.set()
    count, spent = done.get(timeout=120)
    recorder.join()
    total = sum(len(v) for v in found.values())
    cells = "".join(
        f"  {statistics.median(found[p]):6.0f} {percentile(found[p], 0.99):6.0f}" for p in PAGES
    )
    readers = (cpu - quiet * elapsed) / max(total, 1) * 1000
    print(
        f"{total / elapsed:5.0f}{cells}  {count / spent:5.0f}  {cpu / max(total, 1) * 1000:5.1f} ms"
        f"  {quiet * 1000:5.0f} ms/s {readers:5.1f} ms  {load:.1f}-{os.getloadavg()[0]:.1f}"
    )
    return {p: percentile(found[p], 0.99) for p in PAGES}


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.gzip:
        Connection.extra = b"Accept-Encoding: gzip\r\n"
    home = Path(tempfile.mkdtemp(prefix="bench-pages-"))
    url = f"sqlite:///{home / 'arena.db'}"
    scheduled = int(max(args.record_rate, 300) * args.seconds * args.rounds * 1.5) + 1000
    _versions, tid = build(url, args.bots, scheduled, games=(GAME,))
    server, served = serve(home, url)
    try:
        match, first = wait_for_ladder(served)
        playing = [first]
        print(
            f"sqlite, web pages, {args.bots} bots, {args.clients} clients"
            + (f" each asking every {args.pace:g} s," if args.pace else " back to back,")
            + f" {args.seconds:g} s a round, {args.rounds} rounds; matches recorded meanwhile:"
            f" {args.record_rate:g}/s and the open ladder's ({LADDER_GAME}, random v"
            f" first-legal); server {served}"
        )
        print(
            "req/s"
            + "".join(f"  {p + ' p50/p99':>13}" for p in PAGES)
            + "  rec/s  server CPU/req  ladder alone  CPU/req less it"
            + "  load avg (1 min) before-after"
        )
        rounds = [
            measure(args, url, tid, served, server.pid, match, playing) for _ in range(args.rounds)
        ]
        print("sizes, once the board holds every bot:")
        sizes(served, args.bots, match, playing[0])
        print("p99 over the rounds, median (min..max), ms:")
        for page in PAGES:
            values = [r[page] for r in rounds]
            print(
                f"  {page:<11} {statistics.median(values):6.0f}"
                f" ({min(values):.0f}..{max(values):.0f})"
            )
    finally:
        server.terminate()
        server.wait(60)


if __name__ == "__main__":
    main()
