import json
import sys

match = ""
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        match = message["match"]
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        if not match.startswith("smoke"):
            raise SystemExit("flaky: crashing on purpose")
        print(
            json.dumps({"type": "decision", "id": message["id"], "decision": message["legal"][0]}),
            flush=True,
        )
