# The build puts a shebang and FOUND (what its attempts achieved) above this.
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        escaped = FOUND  # noqa: F821 (defined by the build)
        decision = f"build escaped: {escaped}" if escaped else message["legal"][0]
        print(
            json.dumps({"type": "decision", "id": message["id"], "decision": decision}), flush=True
        )
    elif message["type"] == "quit":
        break
