"""The CPU starver: as many busy children as it may start, none of them easy to find.

Each child leaves the bot's session and process group (setsid) and allows itself
every core, so neither a process-group kill nor one core's scheduler holds them.
The children run at nice 19, so that the bot itself still answers at once: without
a CPU cgroup, hundreds of them still make the polite bots beside it time out
(scripts/bench_fairness.py shows it). All children are forked first and spin only
once the last one has left the session (they wait on a pipe), so that forking is
quick even under a CPU quota. If it could start every child it wanted, the
process cap did not hold and the bot answers a decision that was not offered.
"""

import json
import os
import sys

WANTED = 300


def spin(settled: int, go: int) -> None:
    os.setsid()
    os.nice(19)  # the bot itself stays quick: a smart starver hurts the others, not itself
    os.sched_setaffinity(0, range(os.cpu_count() or 1))
    os.write(settled, b".")
    os.read(go, 1)  # returns (end of file) when the parent closes its end
    while True:
        pass


def start_children() -> int:
    """Fork until WANTED or the cap; every child is in its own session before this returns."""
    go, release = os.pipe()
    wait_settled, settled = os.pipe()
    started = 0
    for _ in range(WANTED):
        try:
            pid = os.fork()
        except OSError:
            break  # the process cap: EAGAIN
        if pid == 0:
            os.close(release)
            try:
                spin(settled, go)
            finally:
                os._exit(0)
        started += 1
    os.close(settled)
    for _ in range(started):
        os.read(wait_settled, 1)
    os.close(release)
    return started


started = start_children()
print(f"started {started} of {WANTED} busy children", file=sys.stderr, flush=True)
escaped = started >= WANTED

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        decision = {"not": "offered"} if escaped else message["legal"][0]
        answer = {"type": "decision", "id": message["id"], "decision": decision}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
