import json
import sys

#: Bytes that are not UTF-8: 0xff 0xfe, a sequence cut short (the euro sign's first two
#: bytes), overlong encodings of "/" (2 and 3 bytes), an encoded surrogate (UTF-8 forbids
#: it) and a 4-byte sequence cut short at the very end of the line.
BAD = b"\xff\xfe, \xe2\x82 cut, \xc0\xaf \xe0\x80\xaf overlong, \xed\xa0\x80 surrogate"
#: What it writes to stderr, and the answer line (not JSON), in later matches.
NOISE = b"stderr " + BAD + b", end \xf0\x9f\x98\n"
LINE = b"not json " + BAD + b" \xf0\x9f\x98\n"

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
