import json
import os
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print("cores", sorted(os.sched_getaffinity(0)), file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        answer = {"type": "decision", "id": message["id"], "decision": message["legal"][0]}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
