import json
import sys

# Rich markup, ANSI escapes (clear screen, window title), CR, backspace, a bidi
# override and a C1 CSI, as one JSON string; the tests read the same file.
with open("hostile.json") as file:
    HOSTILE = json.load(file)

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        print("first line of stderr", file=sys.stderr, flush=True)
        print(HOSTILE, file=sys.stderr, flush=True)
        print(HOSTILE, flush=True)  # not JSON: the forfeit detail quotes it
