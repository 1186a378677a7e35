import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        # Looks like a move, is not offered: a card nobody can hold twice.
        print(
            json.dumps(
                {
                    "type": "decision",
                    "id": message["id"],
                    "decision": {"action": "play", "card": 10},
                }
            ),
            flush=True,
        )
