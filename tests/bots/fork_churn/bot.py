"""The fork churner: 16 threads fork children that exit at once, without end.

The bot keeps few processes alive at any moment (each child exits and is reaped at
once), so a cap on live processes (pids.max, RLIMIT_NPROC) never stops it; what it
makes the kernel do (copy the address space, tear it down, reap, free) is work done
on its behalf. It plays the first legal decision meanwhile, so that it stays in the
match and churns through all of it. The forks it made are counted in a file it may
write (/tmp) and printed to stderr at the end (arena shows stderr tails).
"""

import json
import os
import sys
import threading

THREADS = 16
forks = [0] * THREADS
go = threading.Event()


def churn(slot: int) -> None:
    go.wait()  # every thread is started before any forks: forks may meet the process cap
    while True:
        try:
            pid = os.fork()
        except OSError:
            continue  # the process cap: try again at once
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        forks[slot] += 1


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            if not any(forks) and threading.active_count() == 1:
                for slot in range(THREADS):
                    threading.Thread(target=churn, args=(slot,), daemon=True).start()
                go.set()
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "decide":
            answer = {"type": "decision", "id": message["id"], "decision": message["legal"][0]}
            print(json.dumps(answer), flush=True)
        elif message["type"] == "end":
            print(f"forked {sum(forks)} children so far", file=sys.stderr, flush=True)
        elif message["type"] == "quit":
            break


main()
