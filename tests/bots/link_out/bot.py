"""Plays the first legal decision after writing whatever its links led to on stderr."""

import json
import sys

for leaked in ("environ", "shadow"):
    try:
        with open(leaked, "rb") as file:
            sys.stderr.write(f"{leaked}: {file.read()[:200]!r}\n")
    except OSError as error:
        sys.stderr.write(f"{leaked}: {error}\n")

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        answer = {"type": "decision", "id": message["id"], "decision": message["legal"][0]}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
