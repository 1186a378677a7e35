import json
import sys

#: What it writes to stderr, and the answer line (not JSON), in later matches.
NOISE = b"stderr \x00 nul, \x10 escape, \x100000 look-alike, \xff\xfe bad utf-8, end\n"
LINE = b"not json \x00 nul \x10 escape end\n"

matches = 0
for line in sys.stdin.buffer:
    message = json.loads(line)
    if message["type"] == "start":
        matches += 1
        sys.stdout.write(json.dumps({"type": "ready"}) + "\n")
        sys.stdout.flush()
    elif message["type"] == "decide":
        if matches >= 2:
            sys.stderr.buffer.write(NOISE)
            sys.stderr.flush()
            sys.stdout.buffer.write(LINE)
            sys.stdout.flush()
            continue
        answer = {"type": "decision", "id": message["id"], "decision": message["legal"][0]}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
