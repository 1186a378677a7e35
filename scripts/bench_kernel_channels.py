"""Measure the channels between two sandboxes that the sandbox cannot close (issue 30).

Two sandboxed processes (started as arena starts bots: bubblewrap, seccomp,
cgroups, one uid each) agree on nothing but a start time and a slot length; the
sender sends random bits, the receiver decodes them. Printed per channel: bits,
seconds, raw bits/s, error rate and the capacity of that binary channel
(raw rate x (1 - H(error))).

Channels:
  sysinfo     sysinfo(2)'s machine-wide thread count (procs): the sender holds
              100 threads in the first half of a slot for a 1; the receiver compares
              the count in both halves. The call cannot be refused (glibc's
              sysconf(_SC_PHYS_PAGES) reads garbage without it) nor answered falsely.
  cpu         CPU contention: the sender spins for a 1, the receiver counts its own
              loop iterations.
  firsttouch  page-cache first touch: the sender reads one byte of pages of large
              files its sandbox sees for a 1; later the receiver times one-byte reads.
              One-shot: a page, once read, carries nothing more. With the measures on,
              the pages are those of the files in a Python bot's view (all resident and
              locked before any sandbox starts: the line says how many were cold); off,
              cold pages of large files anywhere under /usr.
  dentry      negative dentries in a folder both sandboxes see (--dentry-folder, by default
              the view's /usr/lib/pythonX.Y): the sender looks up a missing name for a 1
              (where the folder's file system caches that a name is missing: ext4,
              overlay, not tmpfs), the receiver times a lookup of every name.
  startup     not a channel: what the measures cost a sandbox's start (/bin/true,
              launched and killed, measures on and off interleaved, --bits times each).
  evict       the lever (no rate): pages of a cached system file left in the host's
              page cache after a sandbox asked the kernel to drop them
              (posix_fadvise DONTNEED).

    .venv/bin/python scripts/bench_kernel_channels.py [--bits 200] [--slot-ms 20]
        [--channel sysinfo,cpu,firsttouch,dentry,evict] [--dentry-folder /arena/python]
"""

from __future__ import annotations

import argparse
import ctypes
import math
import mmap
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from arena.sandbox import bwrap, detection, launcher, seccomp, spawn, view
from arena.sandbox.handle import Sandboxed
from arena.sandbox.limits import Limits
from arena.sandbox.start import launch

SENDERS = {
    "sysinfo": """
import sys, threading, time
t0, slot, bits = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
for i, bit in enumerate(bits):
    start = t0 + i * slot
    time.sleep(max(0, start - time.monotonic()))
    if bit == "1":
        stop = threading.Event()
        threads = [threading.Thread(target=stop.wait) for _ in range(100)]
        [t.start() for t in threads]
        time.sleep(max(0, start + 0.5 * slot - time.monotonic()))
        stop.set(); [t.join() for t in threads]
""",
    "cpu": """
import sys, time
t0, slot, bits = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
for i, bit in enumerate(bits):
    start = t0 + i * slot
    time.sleep(max(0, start - time.monotonic()))
    while bit == "1" and time.monotonic() < start + slot:
        pass
""",
}
RECEIVERS = {
    "sysinfo": """
import ctypes, sys, time
t0, slot, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
libc = ctypes.CDLL(None); info = ctypes.create_string_buffer(128)
def procs(at):
    time.sleep(max(0, at - time.monotonic()))
    libc.sysinfo(info)
    return int.from_bytes(info.raw[80:82], "little")
for i in range(n):  # the sender's threads live in the first half of a slot: compare halves
    start = t0 + i * slot
    print(procs(start + 0.4 * slot) - procs(start + 0.9 * slot))
""",
    "cpu": """
import sys, time
t0, slot, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    start, count = t0 + i * slot, 0
    time.sleep(max(0, start + 0.1 * slot - time.monotonic()))
    while time.monotonic() < start + 0.9 * slot:
        count += 1
    print(count)
""",
}
FIRST_TOUCH_SEND = """
import os, sys
for place in sys.argv[1:]:
    path, offset = place.rsplit(":", 1)
    fd = os.open(path, os.O_RDONLY); os.pread(fd, 1, int(offset)); os.close(fd)
"""
DENTRY_SEND = """
import os, sys
for name in sys.argv[1:]:
    try: os.stat(name)
    except OSError: pass
"""
DENTRY_RECEIVE = """
import os, sys, time
for name in sys.argv[1:]:
    start = time.perf_counter_ns()
    try: os.stat(name)
    except OSError: pass
    print(time.perf_counter_ns() - start)
"""
FIRST_TOUCH_RECEIVE = """
import os, sys, time
for place in sys.argv[1:]:
    path, offset = place.rsplit(":", 1)
    fd = os.open(path, os.O_RDONLY)
    start = time.perf_counter_ns(); os.pread(fd, 1, int(offset))
    print(time.perf_counter_ns() - start); os.close(fd)
"""
#: Where the page-cache channels look for large system files that bots may read.
BIG_FILE_ROOTS = ("/usr/lib", "/usr/share", "/usr/local")
BIG_FILE_BYTES = 32 << 20
#: --without-measures: issue 30's rules and masks are off.
WITHOUT = False
STRIDE = 1 << 20  # past the kernel's readahead window, so that one read caches one region


EMPTY = Path(tempfile.gettempdir()) / f"arena-bench-{os.getpid()}"  # the sandboxes' folder


def run(code: str, *args: str) -> Sandboxed:
    """Start `code` in a sandbox, as arena starts a bot."""
    return launch(["/usr/bin/python3", "-c", code, *args], EMPTY, Limits())


def finish(box: Sandboxed) -> str:
    out, err = box.process.communicate(timeout=600)
    box.kill()
    if box.process.returncode != 0:
        raise SystemExit(f"error: a sandboxed side failed: {err.decode().strip()[-300:]}")
    return out.decode()


def entropy(p: float) -> float:
    return 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def report(name: str, sent: str, got: str, seconds: float) -> None:
    errors = sum(a != b for a, b in zip(sent, got, strict=True)) / len(sent)
    rate = len(sent) / seconds
    capacity = rate * (1 - entropy(min(errors, 0.5)))
    print(
        f"{name:<11} {len(sent):>5} bits {seconds:7.2f} s  raw {rate:8.1f} bit/s  "
        f"errors {100 * errors:5.1f} %  capacity {capacity:8.1f} bit/s"
    )


def threshold_bits(values: list[float], one_is_high: bool) -> str:
    """Decode by the midpoint of the two clusters (2-means on one dimension), started from
    the 10th and 90th percentiles (from the extremes, one outlier made a cluster alone)."""
    ordered = sorted(values)
    low, high = ordered[len(ordered) // 10], ordered[(9 * len(ordered)) // 10]
    for _ in range(20):
        middle = (low + high) / 2
        lows = [v for v in values if v <= middle] or [low]
        highs = [v for v in values if v > middle] or [high]
        low, high = sum(lows) / len(lows), sum(highs) / len(highs)
    middle = (low + high) / 2
    return "".join("1" if (v > middle) == one_is_high else "0" for v in values)


def slotted(name: str, bits: str, slot: float) -> None:
    t0 = time.monotonic() + 1.5  # both sandboxes are up by then
    receiver = run(RECEIVERS[name], str(t0), str(slot), str(len(bits)))
    sender = run(SENDERS[name], str(t0), str(slot), bits)
    values = [float(v) for v in finish(receiver).split()]
    finish(sender)
    report(name, bits, threshold_bits(values, one_is_high=name == "sysinfo"), len(bits) * slot)


def cached_pages(path: str) -> list[bool]:
    """Which pages of `path` are in the page cache (the host's mincore, as root)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    size = os.path.getsize(path)
    pages = -(-size // mmap.PAGESIZE)
    with open(path, "rb") as handle:
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, handle.fileno(), 0)
    vector = (ctypes.c_ubyte * pages)()
    libc.mincore(ctypes.c_void_p(address), size, vector)
    libc.munmap(ctypes.c_void_p(address), size)
    return [bool(byte & 1) for byte in vector]


def cold_places(count: int) -> list[str]:
    """Up to `count` "path:offset" of large system files whose page there is not cached."""
    places: list[str] = []
    per_page = STRIDE // mmap.PAGESIZE
    for root in BIG_FILE_ROOTS:
        for folder, _dirs, files in os.walk(root):
            for name in files:
                path = os.path.join(folder, name)
                if os.path.islink(path) or os.path.getsize(path) < BIG_FILE_BYTES:
                    continue
                cached = cached_pages(path)
                places += [
                    f"{path}:{i * STRIDE}"
                    for i in range(len(cached) // per_page)
                    if not cached[i * per_page]
                ]
                if len(places) >= count:
                    return places[:count]
    return places


def view_places(count: int) -> tuple[list[str], int]:
    """Up to `count` "path:offset" of large files a Python bot's sandbox sees (paths
    inside), STRIDE apart, and how many of them were cold on the host just before."""
    finish(run("pass"))  # the view is made resident before the first sandbox starts
    seen = view.build(["/usr/bin/python3"], None)
    root = launcher.view_root()
    places: list[str] = []
    cold = 0
    per_page = STRIDE // mmap.PAGESIZE
    for path in seen.regular_files():
        copy = root.root / path.lstrip("/")
        host = str(copy) if copy.is_file() and copy.stat().st_size else path
        if os.path.getsize(host) < 4 * STRIDE:
            continue
        cached = cached_pages(host)
        for i in range(len(cached) // per_page):
            places.append(f"{path}:{i * STRIDE}")
            cold += not cached[i * per_page]
        if len(places) >= count:
            break
    return places[:count], cold


def first_touch(bits: str) -> None:
    if WITHOUT:
        places, cold = cold_places(len(bits)), -1
    else:
        places, cold = view_places(len(bits))
        print(f"firsttouch  {cold} of {len(places)} pages of the view cold before the run")
    if len(places) < 8:
        print("firsttouch  skipped: too few pages of large system files here")
        return
    bits = bits[: len(places)]
    random.shuffle(places)
    start = time.monotonic()
    touched = [place for place, bit in zip(places, bits, strict=True) if bit == "1"]
    finish(run(FIRST_TOUCH_SEND, *touched))
    times = [math.log(float(v)) for v in finish(run(FIRST_TOUCH_RECEIVE, *places)).split()]
    report("firsttouch", bits, threshold_bits(times, one_is_high=False), time.monotonic() - start)


#: The folder (a path inside the sandbox) the dentry channel looks names up in; None: the
#: Python library folder of the view.
DENTRY_FOLDER: str | None = None


def dentry(bits: str) -> None:
    """Negative dentries: a name looked up once is then known to be missing, faster."""
    python = os.path.basename(os.path.realpath("/usr/bin/python3"))
    folder = DENTRY_FOLDER or os.path.join("/usr/lib", python)
    print(f"dentry      names looked up in {folder}")
    tag = f"{os.getpid()}-{random.randrange(1 << 30)}"
    names = [f"{folder}/arena-bench-{tag}-{i}" for i in range(len(bits))]
    start = time.monotonic()
    finish(run(DENTRY_SEND, *[n for n, bit in zip(names, bits, strict=True) if bit == "1"]))
    times = [math.log(float(v)) for v in finish(run(DENTRY_RECEIVE, *names)).split()]
    report("dentry", bits, threshold_bits(times, one_is_high=False), time.monotonic() - start)


def startup(count: int) -> None:
    """Median start-up of a sandbox with issue 30's measures on and off, interleaved."""
    real = bwrap.ProcFiles.args, seccomp.add_machine_wide
    seconds: dict[bool, list[float]] = {True: [], False: []}
    try:
        for _ in range(count):
            for on in (True, False):
                bwrap.ProcFiles.args = real[0] if on else (lambda _self, _limits: [])  # type: ignore[method-assign,assignment]
                seccomp.add_machine_wide = real[1] if on else (lambda sc, rules: None)
                seccomp.program.cache_clear()
                seccomp.program()
                begin = time.perf_counter()
                box = launch(["/bin/true"], EMPTY, Limits())
                box.wait(10)
                box.kill()
                seconds[on].append(time.perf_counter() - begin)
    finally:
        bwrap.ProcFiles.args, seccomp.add_machine_wide = real  # type: ignore[method-assign]
        seccomp.program.cache_clear()
    without, with_ = (1000 * statistics.median(seconds[flag]) for flag in (False, True))
    print(
        f"startup     {count} x 2 sandboxes: median {without:.1f} ms without, {with_:.1f} ms with"
    )


def evict() -> None:
    python = os.path.basename(os.path.realpath("/usr/bin/python3"))
    path = f"/usr/lib/{python}/LICENSE.txt"  # in a Python bot's view
    Path(path).read_bytes()
    before = sum(cached_pages(path))
    finish(
        run(
            "import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY);"
            " os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)",
            path,
        )
    )
    after = sum(cached_pages(path))
    print(f"evict       {path}: {before} pages cached before a sandbox's DONTNEED, {after} after")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked: a bad value or an unknown channel exits 2 in one line."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.split("\n\n")[0])
    parser.add_argument("--bits", type=int, default=200)
    parser.add_argument("--slot-ms", type=float, default=20.0)
    parser.add_argument("--channel", default="sysinfo,cpu,firsttouch,dentry,evict")
    parser.add_argument(
        "--dentry-folder",
        help="the folder inside the sandbox whose names the dentry channel looks up "
        "(default: the view's /usr/lib/pythonX.Y; /arena/python is a tmpfs)",
    )
    parser.add_argument(
        "--without-measures",
        action="store_true",
        help="switch issue 30's seccomp rules and /proc masks off (the 'before' figures)",
    )
    args = parser.parse_args(argv)
    if args.bits < 8 or args.slot_ms <= 0:
        parser.error("--bits must be at least 8 and --slot-ms positive")
    if args.dentry_folder is not None and not args.dentry_folder.startswith("/"):
        parser.error("--dentry-folder must be an absolute path (inside the sandbox)")
    known = {*SENDERS, "firsttouch", "dentry", "evict", "startup"}
    if unknown := set(args.channel.split(",")) - known:
        parser.error(f"unknown channel {', '.join(sorted(unknown))}")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    global WITHOUT, DENTRY_FOLDER
    WITHOUT = args.without_measures
    DENTRY_FOLDER = args.dentry_folder
    if WITHOUT:
        seccomp.add_machine_wide = lambda sc, rules: None
        bwrap.ProcFiles.args = lambda _self, _limits: []  # type: ignore[method-assign,assignment]
        real = spawn._system  # the whole system, as a build sees it: no view
        spawn._system = lambda argv, folder, source, binds, runtime, writable: (
            real(argv, folder, source, binds, runtime, True) + binds
        )
    if os.geteuid() != 0:
        raise SystemExit("error: run as root: the page-cache checks read the host's mincore")
    if detection.protections().bwrap is None:
        raise SystemExit("error: bubblewrap does not work here: nothing to measure")
    wanted = args.channel.split(",")
    EMPTY.mkdir(mode=0o755)
    try:
        measure(wanted, args.bits, args.slot_ms / 1000)
    finally:
        EMPTY.rmdir()


def measure(wanted: list[str], count: int, slot: float) -> None:
    """Each wanted channel (a known one: parse_args checks) with `count` random bits."""
    print(f"issue 30 measures: {'off' if WITHOUT else 'on'}", file=sys.stderr)
    bits = "".join(random.choice("01") for _ in range(count))
    for name in wanted:
        if name in SENDERS:
            slotted(name, bits, slot)
        elif name == "firsttouch":
            first_touch(bits)
        elif name == "dentry":
            dentry(bits)
        elif name == "startup":
            startup(count)
        else:
            evict()


if __name__ == "__main__":
    main()
