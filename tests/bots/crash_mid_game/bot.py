import json
import sys

asked = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        asked += 1
        if asked == 3:
            print("Traceback: something broke", file=sys.stderr, flush=True)
            raise SystemExit(1)
        print(
            json.dumps({"type": "decision", "id": message["id"], "decision": message["legal"][0]}),
            flush=True,
        )
