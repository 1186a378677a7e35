import json
import sys
import time

# Computes for a share of each decision's limit (the first argument, 0.4 if none) before
# answering with the first legal decision: CPU time on its own clock, which is what an
# answer is charged, so a bot well inside its budget (scripts/bench_fairness.py --hog).
share = float(sys.argv[1]) if len(sys.argv) > 1 else 0.4
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        limit_ms = message["time"]["limit_ms"] if "time" in message else message["deadline_ms"]
        until = time.process_time() + limit_ms / 1000 * share
        while time.process_time() < until:
            pass
        answer = {"type": "decision", "id": message["id"], "decision": message["legal"][0]}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
