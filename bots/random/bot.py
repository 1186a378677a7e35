"""The random bot: any game, one uniformly random legal decision per request.

Protocol 2 over JSON lines (see protocol/PROTOCOL.md; it reads only the start's `seed`
and a decide's `id` and `legal`, alike in version 1). Standard library only, json
included: arena's orjson (PROTOCOL.md, "Fast JSON for Python bots") would save some
4 us a decision but costs about 14 ms of CPU to import, which a bot started afresh
for every match (`--fresh-processes`) pays every match.

The generator is `random.Random(start["seed"])`, made anew at every start, so a
match replays exactly from its seed. Unknown message types are ignored.
"""

from __future__ import annotations

import json
import random
import sys

loads = json.loads
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def dumps(value: object) -> bytes:
    """Encode one message as compact JSON bytes."""
    return _encode(value).encode()


READY = b'{"type":"ready","name":"random"}\n'


def main() -> None:
    """Answer start with ready and decide with a random legal decision until quit or EOF."""
    readline = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    write = out.write
    flush = out.flush
    rng = random.Random(0)
    choice = rng.choice
    while True:
        line = readline()
        if not line:
            return  # EOF
        try:
            message = loads(line)
            kind = message.get("type")
        except (ValueError, AttributeError):
            if line.strip():
                sys.stderr.write(f"random: ignoring a line that is not JSON: {line[:200]!r}\n")
            continue
        if kind == "decide":
            answer = dumps(message["id"]) + b',"decision":' + dumps(choice(message["legal"]))
            write(b'{"type":"decision","id":' + answer + b"}\n")
            flush()
        elif kind == "start":
            rng = random.Random(message.get("seed", 0))
            choice = rng.choice
            write(READY)
            flush()
        elif kind == "quit":
            return
        # "end" and unknown types need no answer.


if __name__ == "__main__":
    main()
