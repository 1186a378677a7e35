import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        block = b"x" * (1024 * 1024)
        with open("/tmp/huge", "wb") as handle:
            while True:  # SIGXFSZ at the file-size limit ends the bot
                handle.write(block)
                handle.flush()
