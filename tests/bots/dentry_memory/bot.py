"""One bot that remembers a deal across its processes through negative dentries (issue 30, 1).

Where a folder's file system caches that a name is missing (ext4, overlay: a negative
dentry), the first lookup of a missing name is slower than the next one, in any
sandbox that sees the folder. The bot looks names up in the first system folder it
sees of FOLDERS, named after the nonce in its folder's nonce.txt (the tests write a
fresh one, so that names of an earlier run are not taken for this run's). It measures
first against repeated lookups of names nobody used (`separation`); where they take
the same time (tmpfs keeps no negative dentries), nothing can be carried.

A process checks its flag names at its first decision (seat 0) or its second (other
seats): when their first lookups are slow, nobody has published, so it publishes: it
looks up NAMES names for each card of its hand. When the flag was fast, the process is a
receiver: at its fifth decision it times the first lookups of every card's names, and
the fast cards are the ones another process looked up. What it learns goes to stderr as
"dentry_memory: learned 3,17,... through dentry", or "dentry_memory: nothing learned
(...)". It plays the first legal decision either way.
"""

import json
import os
import statistics
import sys
import time

FOLDERS = (f"/usr/lib/python{sys.version_info[0]}.{sys.version_info[1]}", "/etc", "/usr/lib")
CARDS = 104
NAMES = 5  # names per card (and flag): the median of their times decides
TOKEN = os.urandom(6).hex()  # this process's own probe names


def read_nonce():
    try:
        with open("nonce.txt") as handle:
            return handle.read().strip() or "0"
    except OSError:
        return "0"


NONCE = read_nonce()
FOLDER = next((f for f in FOLDERS if os.path.isdir(f)), None)


def name(kind, index):
    return f"{FOLDER}/.arena-dentry-{NONCE}-{kind}-{index}"


def lookup_ns(path):
    start = time.perf_counter_ns()
    os.access(path, os.F_OK)  # a path walk to the name, no exception raised
    return time.perf_counter_ns() - start


def first_lookups(kind):
    return statistics.median(lookup_ns(name(kind, j)) for j in range(NAMES))


probes = 0


def separation():
    """(first, repeated) median lookup times of names nobody looked up before, after a
    pass over other new names (so that both passes run with the code and caches warm)."""
    global probes
    probes += 1
    for j in range(32):
        lookup_ns(name(f"warm-{TOKEN}-{probes}", j))
    fresh = [name(f"probe-{TOKEN}-{probes}", j) for j in range(32)]
    first = statistics.median(lookup_ns(n) for n in fresh)
    again = statistics.median(lookup_ns(n) for n in fresh)
    return first, again


def separable(first, again):
    """Whether a name looked up before is found missing clearly faster than a new one."""
    return first > 2 * again + 200


def say(text):
    print(f"dentry_memory: {text}", file=sys.stderr, flush=True)


role = None  # "sender" or "receiver", decided once per process
seat = 0
decisions = 0
if FOLDER is None:
    say("no folder here")
else:
    say(f"folder {FOLDER}")

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        seat = message["seat"]
        decisions = 0
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        decisions += 1
        if FOLDER is not None and role is None and decisions == (1 if seat == 0 else 2):
            cold, warm = separation()
            flag = first_lookups("flag")
            if separable(cold, warm) and flag < (cold * warm) ** 0.5:
                role = "receiver"
                say(f"flag known (first lookups {flag:.0f} ns, new {cold:.0f}, again {warm:.0f})")
            else:
                role = "sender"
                hand = message["observation"]["hand"]
                for card in hand:
                    first_lookups(card)
                say(
                    f"published {len(hand)} cards (flag {flag:.0f} ns, new names {cold:.0f}, "
                    f"again {warm:.0f})"
                )
        elif role == "receiver" and decisions == 5:
            role = "done"
            cold, warm = separation()
            times = {card: first_lookups(card) for card in range(1, CARDS + 1)}
            limit = (cold * warm) ** 0.5
            fast = sorted(card for card, ns in times.items() if ns < limit)
            if not separable(cold, warm):
                say(f"nothing learned (new names {cold:.0f} ns, looked-up ones {warm:.0f})")
            elif 1 <= len(fast) <= 30:
                say("learned " + ",".join(map(str, fast)) + " through dentry")
            else:
                say(f"nothing learned ({len(fast)} of {CARDS} cards were fast)")
        answer = {"type": "decision", "id": message["id"], "decision": message["legal"][0]}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
