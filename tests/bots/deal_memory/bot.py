"""A bot that would remember deals: it writes, at every `start`, which process it is.

A reused process keeps everything it saw (hands shown at the end, grids turned up).
Tournaments play each deal once per seat rotation, so a process that met the same
deal again could play knowing every hidden card. This bot names its process (a
random token made at start-up) and counts its matches on stderr; the tests, which
know each match's deal, check that no process is ever given a deal twice.
It plays the first legal decision.
"""

import json
import os
import sys

TOKEN = os.urandom(8).hex()
matches = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        matches += 1
        print(f"process {TOKEN} match {matches}", file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        answer = {"type": "decision", "id": message["id"], "decision": message["legal"][0]}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
