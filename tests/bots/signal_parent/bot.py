import contextlib
import json
import os
import signal
import sys


def attempt():
    for target in (os.getppid(), 1, -1):
        with contextlib.suppress(OSError):
            os.kill(target, signal.SIGKILL)
    return ""


found = attempt()

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        decision = f"escaped: {found}" if found else message["legal"][0]
        answer = {"type": "decision", "id": message["id"], "decision": decision}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
