"""Honest while a check could be watching: a process's first match.

Submission checks used to start a fresh process for every match while tournaments
reuse processes (a `start` after `end`), so counting `start`s told the two apart.
"""

import json
import sys

#: Not a decision any game offers: a NUL (breaks PostgreSQL text), a right-to-left
#: override (draws "evil" as "live") and markup for the HTML viewer.
PAYLOAD = {"action": "\u0000\u202eevil</script><img src=x onerror=alert(1)>"}

matches = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        matches += 1
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        decision = PAYLOAD if matches > 1 else message["legal"][0]
        answer = {"type": "decision", "id": message["id"], "decision": decision}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "quit":
        break
