import json
import os
import sys

CAP = 64 * 1024 * 1024  # no sandbox in arena allows this much per tmpfs


def fill(directory):
    written = 0
    block = b"x" * (1024 * 1024)
    for n in range(200):
        try:
            with open(os.path.join(directory, f"fill-{n}"), "wb") as handle:
                handle.write(block)
        except OSError:
            break
        written += len(block)
    return written


escaped = max(fill("/tmp"), fill("/dev/shm")) >= CAP
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        decision = "escaped: /tmp is not capped" if escaped else message["legal"][0]
        answer = {"type": "decision", "id": message["id"], "decision": decision}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
