import json
import sys

HOSTILE = (
    "mark[/]up [bold red]red[/bold red] [link=https://evil.example]link[/link]"
    " \x1b[2J\x1b]0;title\x07 over\rwrite\x08 \u202eevil\u202c \u2066iso\u2069"
)

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        print("first line of stderr", file=sys.stderr, flush=True)
        print(HOSTILE, file=sys.stderr, flush=True)
        print(HOSTILE, flush=True)  # not JSON: the forfeit detail quotes it
