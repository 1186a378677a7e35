"""A version-2 bot whose debug text is hostile: markup, ANSI, </script>, a lone UTF-16
surrogate escape, and once 10 MB (more would pass the output cap of a match, 64 MiB).
It plays legally: none of that may forfeit it."""

import json
import sys

TEXTS = [
    '<img src=x onerror="document.title=1"><b>bold</b>',
    "\x1b[31mred\x1b[0m \x1b]0;title\x07 \u202eevil\u202c",
    "</script><script>document.title='owned'</script>",
    None,  # a lone surrogate escape: written by hand below, as json.dumps would not
    "ordinary",
]
HUGE = "x" * (10 * 1024 * 1024)
turn = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        answer = {"type": "decision", "id": message["id"], "decision": message["legal"][0]}
        text = HUGE if turn == 4 else TEXTS[turn % len(TEXTS)]
        turn += 1
        if text is None:
            body = json.dumps(answer)[:-1] + ', "debug": "half \\ud800 a pair"}'
        else:
            answer["debug"] = text
            body = json.dumps(answer)
        sys.stdout.write(body + "\n")
        sys.stdout.flush()
