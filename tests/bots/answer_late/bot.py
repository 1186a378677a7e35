import json
import sys
import time

# Computes for 1.5 times its limit before answering: CPU time, which is what an answer is
# charged (a bot that only sleeps is charged a third of its wall time: sleep_past_ceiling).
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        until = time.process_time() + message["deadline_ms"] / 1000 * 1.5
        while time.process_time() < until:
            pass
        print(
            json.dumps({"type": "decision", "id": message["id"], "decision": message["legal"][0]}),
            flush=True,
        )
