import json
import sys

for line in sys.stdin:
    if json.loads(line)["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
