"""The CPU starver: as many busy children as it may start, none of them easy to find.

Each child leaves the bot's session and process group (setsid) and allows itself
every core, so neither a process-group kill nor one core's scheduler holds them.
All children are forked first and spin only once the last one exists (they wait on
a pipe), so that forking is quick even under a CPU quota. The bot then answers at
once, like a polite bot; if it could start every child it wanted, the process cap
did not hold and it answers a decision that was not offered.
"""

import json
import os
import sys

WANTED = 300


def spin(go: int) -> None:
    os.setsid()
    os.sched_setaffinity(0, range(os.cpu_count() or 1))
    os.read(go, 1)  # returns (end of file) when the parent closes its end
    while True:
        pass


def start_children() -> int:
    go, release = os.pipe()
    started = 0
    for _ in range(WANTED):
        try:
            pid = os.fork()
        except OSError:
            break  # the process cap: EAGAIN
        if pid == 0:
            os.close(release)
            try:
                spin(go)
            finally:
                os._exit(0)
        started += 1
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
