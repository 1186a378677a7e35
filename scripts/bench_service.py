"""Benchmark `arena serve` on loopback: readers at 1, 10 and 100 at once while matches are
recorded beside them.

Builds a database (SQLite in a temporary home, or a new database on the PostgreSQL
server of --postgres, dropped at the end) with
--bots bots and a tournament whose matches a recorder process records as fast as it
can (`Store.record_many` in batches of 10, with the TrueSkill update: what the runner
does), starts `arena serve` on a free loopback port, and for each client count runs
that many concurrent readers (asyncio, a keep-alive connection each) for --seconds,
each asking in turn for the take-that leaderboard and a bot's page. Prints, per count:
requests/s, the p50 and p99 latency of each page, the matches/s recorded meanwhile,
and the CPU time per request of the server and of the readers' own process. Measures only
what it prints; bounded by --seconds per count plus the set-up.

Goal (issue 34): leaderboard p99 under 50 ms at 100 clients while >= 100 matches/s
are recorded. The server's CPU time per request is printed too: on a loaded machine
latency measures the machine, CPU time the service; the client's shows that the load
generator is not what is measured.

    .venv/bin/python scripts/bench_service.py
    .venv/bin/python scripts/bench_service.py --postgres "$ARENA_TEST_POSTGRES"
    .venv/bin/python scripts/bench_service.py --pages   # the web pages, and their sizes
    .venv/bin/python scripts/bench_service.py --submissions 20   # submissions per minute

--submissions N: N submissions of the Python starter kit (bots/starters/python, each
under its own name with a line of its own, so each is a new bot), sent at once over
HTTP by N // 20 + 1 accounts (an account may submit 20 times in 10 minutes), each then
followed until it is registered or refused; timed from the first upload to the last
answer: submissions per minute end to end (unpacking, the sandboxed submission check,
storing), and each one's time from upload to answer. No matches are recorded meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import multiprocessing
import os
import random
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, make_url, text

from arena.results import rating
from arena.status import MatchStatus, SeatStatus
from arena.store import MatchRecord, SeatRecord, Store
from arena.store.models import Match, Tournament

GAME = "take-that"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--postgres",
        metavar="URL",
        help="a PostgreSQL server: the benchmark makes its own database there, dropped after",
    )
    parser.add_argument("--bots", type=int, default=50, help="registered bots (default 50)")
    parser.add_argument("--clients", default="1,10,100", help="reader counts (default 1,10,100)")
    parser.add_argument("--seconds", type=float, default=5.0, help="per count (default 5)")
    parser.add_argument(
        "--record-rate",
        type=float,
        default=100.0,
        help="matches recorded per second beside the readers (default 100, the goal's;"
        " 0: as fast as the recorder can)",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        help="seconds from one request of a client to its next (default 0: back to back,"
        " the service's saturation; 1: spectators who each reload once a second)",
    )
    parser.add_argument(
        "--submissions",
        type=int,
        default=0,
        help="measure N submissions end to end instead of readers",
    )
    parser.add_argument(
        "--pages",
        action="store_true",
        help="read the web pages (home, a leaderboard, a bot's page) instead of the JSON API,"
        " and print each page's size",
    )
    args = parser.parse_args(argv)
    try:
        args.counts = [int(c) for c in args.clients.split(",")]
    except ValueError:
        parser.error(f"--clients takes counts such as 1,10,100, not {args.clients!r}")
    if args.bots < 2 or args.seconds <= 0 or not all(c >= 1 for c in args.counts):
        parser.error("--bots >= 2, --seconds > 0 and every client count >= 1")
    if args.submissions < 0:
        parser.error("--submissions must not be negative")
    if args.record_rate < 0 or args.pace < 0:
        parser.error("--record-rate and --pace must not be negative")
    return args


def build(
    url: str, bots: int, matches: int, games: Sequence[str] = ("*",)
) -> tuple[list[int], int]:
    """Bots with one version each, declaring `games`, and a tournament of `matches`
    scheduled 2-seat matches."""
    store = Store(url)
    made = [
        store.add_bot_version(f"bot-{i}", f"{i:064x}", "/nowhere", ["x"], list(games), "bench")
        for i in range(bots)
    ]
    versions = [version.id or 0 for version in made]
    rng = random.Random(1)
    schedule = [
        Match(number=n, game=GAME, game_version=1, seed=n, lineup=rng.sample(versions, 2))
        for n in range(matches)
    ]
    tid = store.create_tournament(
        Tournament(
            name="bench", game=GAME, game_version=1, format="round-robin", players=2,
            rounds=1, seed=1, variant={}, settings={},
        ),
        schedule,
    )  # fmt: skip
    store.close()
    return versions, tid


def record(url: str, tid: int, stop: Any, done: Any, rate: float) -> None:
    """Record the tournament's matches in schedule order, 10 a transaction, `rate` a
    second (0: as fast as it can), until `stop` (`done` is told when it is ready, then
    what it recorded in how long)."""
    store = Store(url)
    pending = store.matches(tid, recorded=False)
    done.put("ready")
    count, began = 0, time.monotonic()
    while pending and not stop.is_set():
        if rate and count > rate * (time.monotonic() - began):
            stop.wait(10 / rate)  # ahead of the rate: a batch's worth of time
            continue
        batch, pending = pending[:10], pending[10:]
        records = []
        for match in batch:
            winner = match.number % 2
            seats = [
                SeatRecord(
                    s, v, 1.0 if s == winner else 0.0, 1 if s == winner else 2, SeatStatus.OK
                )
                for s, v in enumerate(match.lineup)
            ]
            ranks = [seat.rank or 2 for seat in seats]
            records.append(
                (
                    MatchRecord(match.id or 0, MatchStatus.NORMAL, seats, seconds=0.1),
                    lambda skills, ranks=ranks: rating.rate(GAME, skills, ranks),
                )
            )
        store.record_many(records)
        count += len(batch)
    done.put((count, time.monotonic() - began))
    store.close()


def paths(turn: int, bots: int, pages: bool) -> tuple[str, str]:
    """What a reader asks for at its `turn`: the JSON API's board and bot, or the web
    pages' home, board and bot page in turn."""
    if not pages:
        if turn % 2 == 0:
            return "leaderboard", f"/api/leaderboard/{GAME}"
        return "bot", f"/api/bots/bot-{turn % bots}"
    which = (
        ("home", "/"),
        ("leaderboard", f"/leaderboard/{GAME}"),
        ("bot", f"/bots/bot-{turn % bots}"),
    )
    return which[turn % 3]


class Connection:
    """One reader's keep-alive HTTP/1.1 connection, written by hand: httpx's pool cost the
    client itself 2.8 ms of CPU a request at 10 connections and 13.8 ms at 100 (a core
    at 65 requests/s: the load generator, not the service, was measured); this one a
    tenth of a millisecond."""

    #: Header lines every request sends besides Host (bench_pages --gzip: Accept-Encoding).
    extra = b""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, url: str) -> Connection:
        parts = httpx.URL(url)
        return cls(*await asyncio.open_connection(parts.host, parts.port))

    async def get(self, path: str) -> bytes:
        """The body of GET `path`; an error for any status but 200."""
        self.writer.write(b"GET %s HTTP/1.1\r\nHost: bench\r\n%s\r\n" % (path.encode(), self.extra))
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = head.split(b" ", 2)[1]
        length = re.search(rb"\r\ncontent-length: *(\d+)", head, re.I)
        if status != b"200" or length is None:
            body = await self.reader.readexactly(int(length[1])) if length is not None else b""
            said = re.search(rb"<p[^>]*>(.*?)</p>", body, re.S)  # an error page's line
            why = said[1].decode(errors="replace") if said else ""
            raise RuntimeError(f"GET {path}: {head.decode(errors='replace')!r} {why}")
        return await self.reader.readexactly(int(length[1]))

    def close(self) -> None:
        self.writer.close()


async def read(
    url: str, clients: int, seconds: float, bots: int, pages: bool = False, pace: float = 0.0
) -> dict[str, list[float]]:
    """`clients` readers, a connection each, for `seconds`, each starting a request every
    `pace` seconds (0: as soon as its last one is answered): latencies (ms) by page."""
    found: dict[str, list[float]] = {"leaderboard": [], "bot": [], "home": []}
    return await read_paths(
        url, clients, seconds, pace, lambda turn: paths(turn, bots, pages), found
    )


async def read_paths(
    url: str,
    clients: int,
    seconds: float,
    pace: float,
    choose: Callable[[int], tuple[str, str]],
    found: dict[str, list[float]],
    beside: Callable[[float], Awaitable[None]] | None = None,
) -> dict[str, list[float]]:
    """The readers of `read` (and scripts/bench_pages.py): reader k asks for `choose(turn)`
    (a page's name and path) for turns k, k + 1, ...; its latency (ms) goes to `found`
    under the page's name. `beside(deadline)` runs alongside, off the clock."""
    connections = [await Connection.open(url) for _ in range(clients)]
    deadline = time.monotonic() + seconds

    async def reader(k: int) -> None:
        turn = k
        await asyncio.sleep(pace * k / clients)  # paced clients spread over a period
        while time.monotonic() < deadline:
            due = time.monotonic() + pace
            page, path = choose(turn)
            began = time.perf_counter()
            await connections[k].get(path)
            found[page].append((time.perf_counter() - began) * 1000)
            turn += 1
            await asyncio.sleep(max(0.0, due - time.monotonic()))

    extra = [beside(deadline)] if beside is not None else []
    try:
        await asyncio.gather(*extra, *(reader(k) for k in range(clients)))
    finally:
        for connection in connections:
            connection.close()
    return found


def sizes(url: str) -> None:
    """Each page's size: its HTML, and what a browser loads with it (sheet, scripts)."""
    with httpx.Client(base_url=url, timeout=30) as client:
        assets = {
            path: len(client.get(path).content)
            for path in (
                "/static/site.css",
                "/static/refresh.js",
                "/static/rating-plot.js",
                "/static/vendor/uplot/uPlot.iife.min.js",
                "/static/vendor/uplot/uPlot.min.css",
            )
        }
        for path in ("/", f"/leaderboard/{GAME}", "/bots/bot-0", "/signin"):
            answer = client.get(path)
            answer.raise_for_status()
            print(f"  page {path}: {len(answer.content)} bytes of HTML")
        for path, size in assets.items():
            print(f"  asset {path}: {size} bytes (cached by the browser)")


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


@contextmanager
def fresh_postgres(server: str) -> Iterator[str]:
    """A new database on the PostgreSQL `server`, dropped at the end."""
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    name = f"arena_bench_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def kit_archive(number: int) -> bytes:
    """The Python starter kit as a .tar.gz, named `kit-NUMBER`, with a line of its own."""
    kit = Path(__file__).resolve().parents[1] / "bots" / "starters" / "python"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(kit.iterdir()):
            if not path.is_file():
                continue
            data = path.read_bytes()
            if path.name == "bot.toml":
                data = re.sub(rb'^name = ".*"$', b'name = "kit-%d"' % number, data, flags=re.M)
            elif path.name == "bot.py":
                data += b"\n# submission %d\n" % number
            entry = tarfile.TarInfo(path.name)
            entry.size, entry.mode = len(data), 0o644
            archive.addfile(entry, io.BytesIO(data))
    return buffer.getvalue()


async def submit_all(url: str, tokens: list[str], count: int) -> tuple[float, list[float], int]:
    """`count` submissions at once; (seconds in all, each one's seconds, how many registered)."""
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        began = time.monotonic()

        async def one(number: int) -> tuple[float, bool]:
            headers = {"Authorization": f"Bearer {tokens[number // 20]}"}
            sent = time.monotonic()
            answer = await client.post(
                "/api/bots", files={"archive": ("kit.tar.gz", kit_archive(number))}, headers=headers
            )
            answer.raise_for_status()
            job = answer.json()
            while not job["done"]:
                polled = await client.get(
                    f"/api/submissions/{job['submission']}?wait=30", headers=headers
                )
                job = polled.json()
            return time.monotonic() - sent, job["state"] == "registered"

        found = await asyncio.gather(*(one(n) for n in range(count)))
        return time.monotonic() - began, [t for t, _ok in found], sum(ok for _t, ok in found)


def serve(home: Path, url: str) -> tuple[subprocess.Popen[str], str]:
    """`arena serve` on a free loopback port over the store at `url`; it and its URL."""
    env = {**os.environ, "ARENA_HOME": str(home), "ARENA_DB": url}
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stderr is not None
    return server, server.stderr.readline().split(" on ")[1].split(" ")[0]


def submissions(args: argparse.Namespace, home: Path, url: str) -> None:
    """Serve an empty store and time `args.submissions` submissions end to end."""
    store = Store(url)
    tokens = [store.add_account(f"author-{k}") for k in range(args.submissions // 20 + 1)]
    store.close()
    server, served = serve(home, url)
    try:
        cpu = cpu_seconds(server.pid)
        took, each, registered = asyncio.run(submit_all(served, tokens, args.submissions))
        cpu = cpu_seconds(server.pid) - cpu
        print(
            f"{url.split(':', 1)[0]}, {args.submissions} submissions of the Python starter kit"
            f" at once, {len(tokens)} accounts: {registered} registered in {took:.1f} s,"
            f" {args.submissions / took * 60:.1f} submissions/min; upload to answer p50"
            f" {statistics.median(each):.1f} s, max {max(each):.1f} s; the server's own CPU"
            f" {cpu / args.submissions:.2f} s a submission (its checks' sandboxes not counted)"
        )
    finally:
        server.terminate()
        server.wait(30)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.submissions:
        home = Path(tempfile.mkdtemp(prefix="bench-service-"))
        if args.postgres:
            with fresh_postgres(args.postgres) as url:
                submissions(args, home, url)
        else:
            submissions(args, home, f"sqlite:///{home / 'arena.db'}")
        return
    home = Path(tempfile.mkdtemp(prefix="bench-service-"))
    if args.postgres:
        with fresh_postgres(args.postgres) as url:
            run(args, home, url)
    else:
        run(args, home, f"sqlite:///{home / 'arena.db'}")


def run(args: argparse.Namespace, home: Path, url: str) -> None:
    """Build the database at `url`, serve it, and measure every client count."""
    # enough matches for the fastest recorder to never run out in the run
    _versions, tid = build(url, args.bots, 2000 * int(args.seconds) * len(args.counts) + 1000)
    server, served = serve(home, url)
    try:
        backend = url.split(":", 1)[0]
        what = "web pages" if args.pages else "JSON API"
        print(f"{backend}, {what}, {args.bots} bots, {args.seconds:g} s per count, server {served}")
        pace = f"each client asks every {args.pace:g} s" if args.pace else "back to back"
        rate = f"{args.record_rate:g}/s" if args.record_rate else "as fast as it can"
        print(f"clients: {pace}; matches recorded meanwhile: {rate}")
        if args.pages:
            sizes(served)
        print(
            "clients  req/s  board p50  board p99  bot p50  bot p99"
            + ("  home p50  home p99" if args.pages else "")
            + "  matches/s recorded  server CPU/request  client CPU/request"
        )
        for clients in args.counts:
            stop, done = multiprocessing.Event(), multiprocessing.Queue()  # type: ignore[var-annotated]
            recorder = multiprocessing.Process(
                target=record, args=(url, tid, stop, done, args.record_rate)
            )
            recorder.start()
            assert done.get(timeout=120) == "ready"
            began, cpu = time.monotonic(), cpu_seconds(server.pid)
            mine = time.process_time()
            found = asyncio.run(
                read(served, clients, args.seconds, args.bots, args.pages, args.pace)
            )
            elapsed = time.monotonic() - began
            cpu = cpu_seconds(server.pid) - cpu
            mine = time.process_time() - mine
            stop.set()
            count, spent = done.get(timeout=120)
            recorder.join()
            total = sum(len(v) for v in found.values())
            board, bot, front = found["leaderboard"], found["bot"], found["home"]
            homes = (
                f"  {statistics.median(front):6.1f} ms  {percentile(front, 0.99):6.1f} ms"
                if args.pages
                else ""
            )
            print(
                f"{clients:7d}  {total / elapsed:5.0f}  {statistics.median(board):7.1f} ms"
                f"  {percentile(board, 0.99):7.1f} ms  {statistics.median(bot):5.1f} ms"
                f"  {percentile(bot, 0.99):5.1f} ms{homes}  {count / spent:7.0f}"
                f"  {cpu / max(total, 1) * 1000:.1f} ms  {mine / max(total, 1) * 1000:.1f} ms"
            )
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
