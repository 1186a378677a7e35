import json
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        time.sleep(message["deadline_ms"] / 1000 * 1.5)
        print(
            json.dumps({"type": "decision", "id": message["id"], "decision": message["legal"][0]}),
            flush=True,
        )
