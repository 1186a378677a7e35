"""One bot that remembers a deal across its processes through the page cache (issue 30, 6).

The codebook is the largest file the bot can see in the system's library folder: page
0 is a flag, page `card` (1..104, STRIDE apart, past the kernel's readahead) stands for
that card. A process checks the flag at its first decision (seat 0) or its second
(other seats, so that a seat 0 of the same match has published by then): when that
first read is slow the page was cold and nobody has published, so it publishes: it
reads one byte of each card of its hand, and those pages become warm. When the flag was
warm, the process is a receiver: at its fifth decision it times the first read of every
card's page, and the fast ones are the cards another process read. What it learns goes
to stderr as "page_cache: learned 3,17,... through firsttouch", or "page_cache: nothing
learned (...)" when the codebook was all warm or all cold. It plays the first legal
decision either way.
"""

import json
import os
import sys
import time

LIBS = "/usr/lib/x86_64-linux-gnu"
CARDS = 104


def codebook():
    """(path, stride) of the largest regular file in LIBS the bot can open, or None."""
    best = None
    try:
        names = sorted(os.listdir(LIBS))
    except OSError:
        return None
    for name in names:
        path = os.path.join(LIBS, name)
        try:
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            size = os.path.getsize(path)
            os.close(os.open(path, os.O_RDONLY))
        except OSError:
            continue
        if best is None or size > best[1]:
            best = (path, size)
    if best is None:
        return None
    stride = min(1 << 20, best[1] // (CARDS + 1)) // 4096 * 4096
    return (best[0], stride) if stride >= 128 * 1024 else None


def first_read_ns(fd, offset):
    start = time.perf_counter_ns()
    os.pread(fd, 1, offset)
    return time.perf_counter_ns() - start


def say(text):
    print(f"page_cache: {text}", file=sys.stderr, flush=True)


book = codebook()
fd = os.open(book[0], os.O_RDONLY) if book else -1
role = None  # "sender" or "receiver", decided once per process
seat = 0
decisions = 0
if book is None:
    say("no codebook file here")
else:
    say(f"codebook {os.path.basename(book[0])} stride {book[1]}")

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        seat = message["seat"]
        decisions = 0
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        decisions += 1
        if book is not None and role is None and decisions == (1 if seat == 0 else 2):
            flag = first_read_ns(fd, 0)
            again = first_read_ns(fd, 0)
            if flag > 4 * again + 15000:  # cold: nobody published yet
                role = "sender"
                for card in message["observation"]["hand"]:
                    os.pread(fd, 1, card * book[1])
                say(f"published {len(message['observation']['hand'])} cards")
            else:
                role = "receiver"
        elif role == "receiver" and decisions == 5:
            role = "done"
            first = {card: first_read_ns(fd, card * book[1]) for card in range(1, CARDS + 1)}
            warm = sorted(first_read_ns(fd, card * book[1]) for card in range(1, CARDS + 1))
            limit = 4 * warm[len(warm) // 2] + 15000
            fast = sorted(card for card, ns in first.items() if ns < limit)
            if 1 <= len(fast) <= 30:
                say("learned " + ",".join(map(str, fast)) + " through firsttouch")
            else:
                say(f"nothing learned ({len(fast)} of {CARDS} pages were warm)")
        answer = {"type": "decision", "id": message["id"], "decision": message["legal"][0]}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
