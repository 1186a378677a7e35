import json
import sys
import time

# Sleeps (no CPU) for 3.5 times its limit: past the wall ceiling of an answer, which is
# three times its limit (an answer costs at least a third of its wall time).
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        time.sleep(message["deadline_ms"] / 1000 * 3.5)
        print(
            json.dumps({"type": "decision", "id": message["id"], "decision": message["legal"][0]}),
            flush=True,
        )
