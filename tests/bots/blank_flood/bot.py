import json
import sys

# 0.1 MiB per answer: empty lines, spaces, tabs and CRs, as many lines as will fit
NOISE = b"\n" * 40000 + b" \n" * 20000 + b"\t\r\n" * 8000 + b" " * 200
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        answer = {"type": "decision", "id": message["id"], "decision": message["legal"][0]}
        sys.stdout.buffer.write(NOISE + json.dumps(answer).encode() + b"\n")
        sys.stdout.flush()
    elif message["type"] == "quit":
        break
