import json
import sys

print("banner: some runtimes write to stdout before the bot is ready", flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        answer = {"type": "decision", "id": message["id"], "decision": message["legal"][0]}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "end":
        print(json.dumps({"type": "decision", "id": 1, "decision": None}), flush=True)
        print("goodbye, and this is not JSON", flush=True)
    elif message["type"] == "quit":
        break
