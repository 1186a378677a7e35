"""One bot that remembers a deal across its own processes through machine-wide kernel state.

At its first decision in a match the bot publishes the smallest card of its hand
(1..104) through two counters that every sandbox on the machine shares: it holds
one AIO context of that many events (/proc/sys/fs/aio-nr grows by exactly that)
and that many open ptys (/proc/sys/kernel/pty/nr). It keeps them for as long as
the process lives, so a process playing the same deal later, in the other seat
rotation, or a second seat of the same match, reads the counter, takes its own
part away and knows the smallest card of its opponent's hand. What it learns goes
to stderr as "kernel_memory: learned N through CHANNEL"; what the kernel refused
goes there too. It plays the first legal decision either way.
"""

import ctypes
import errno
import json
import os
import sys

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
IO_SETUP, IO_DESTROY = 206, 207  # x86_64
COUNTERS = {"aio": "/proc/sys/fs/aio-nr", "pty": "/proc/sys/kernel/pty/nr"}
held = {"aio": 0, "pty": 0}  # what this process adds to each counter
kept = []  # the AIO context and pty masters: the counters count them while they stay open
reported = set()


def say(text):
    if text not in reported:
        reported.add(text)
        print(f"kernel_memory: {text}", file=sys.stderr, flush=True)


def error_name(number):
    return errno.errorcode.get(number, str(number))


def publish(card):
    context = ctypes.c_ulong(0)
    if LIBC.syscall(ctypes.c_long(IO_SETUP), ctypes.c_long(card), ctypes.byref(context)) == 0:
        held["aio"] += card
        kept.append(context)
    else:
        say(f"io_setup failed ({error_name(ctypes.get_errno())})")
    for _ in range(card):
        try:
            master, slave = os.openpty()
        except OSError as error:
            say(f"openpty failed ({error_name(error.errno)})")
            break
        os.close(slave)
        kept.append(master)
        held["pty"] += 1


def listen(hand):
    for channel, path in COUNTERS.items():
        try:
            with open(path) as counter:
                total = int(counter.read().split()[0])
        except OSError as error:
            say(f"cannot read {path} ({error_name(error.errno)})")
            continue
        other = total - held[channel]
        if 1 <= other <= 104 and other not in hand:
            say(f"learned {other} through {channel}")


published = False
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        published = False
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        hand = message["observation"]["hand"]
        listen(hand)
        if not published and not kept:  # one publication per process: its first hand
            publish(min(hand))
        published = True
        answer = {"type": "decision", "id": message["id"], "decision": message["legal"][0]}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
