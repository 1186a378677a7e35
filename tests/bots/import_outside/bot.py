"""Starts from the referee copy a bot may import and looks for the rest of arena.

A bot can import `arena.games` (protocol/PROTOCOL.md); nothing else of arena (the
store, the seeds and their secret, the sandbox code) nor the checkout or
site-packages it was copied from may be reachable, and the copy is read-only.
stderr lists every file under the copy's root, for the test to compare.
"""

import importlib
import json
import os
import sys

ELSEWHERE = (
    "arena.store",
    "arena.match.seeds",
    "arena.sandbox",
    "arena.match.run",
    "arena.cli",
    "arena.submissions.submit",
)
#: Files that would say the copy is a checkout or an installation, not just the package.
GIVEAWAYS = ("pyproject.toml", "setup.py", ".git", "RECORD", "METADATA", "store.py", "seeds.py")


def attempt(root):
    import arena
    import arena.games

    for name in ELSEWHERE:
        try:
            importlib.import_module(name)
            return f"imported {name}"
        except ImportError:
            pass
    if len(arena.__path__) != 1 or len(arena.games.__path__) != 1:
        return f"arena has more than one home: {list(arena.__path__)} {list(arena.games.__path__)}"
    folder = root
    while folder != "/":  # the copy's root and every folder above it
        folder = os.path.dirname(folder)
        found = [n for n in os.listdir(folder) if n in GIVEAWAYS]
        if found:
            return f"sees {found} in {folder}"
    for directory, _dirs, files in os.walk(root):
        found = [n for n in files if n in GIVEAWAYS]
        if found:
            return f"sees {found} in {directory}"
    for target in ("arena/games/planted.py", "arena/games/__pycache__/planted.pyc", "planted.py"):
        try:
            with open(os.path.join(root, target), "w") as handle:
                handle.write("x = 1\n")
            return f"wrote {target}"
        except OSError:
            pass
    return ""


def engine():
    """This Python's extension suffix, and whether Twirkle's compiled engine loaded from the
    copy (a Python of arena's ABI loads it; any other plays in pure Python)."""
    import importlib.machinery

    from arena.games.twirkle import fast

    return [importlib.machinery.EXTENSION_SUFFIXES[0], fast.available()]


def main():
    import arena

    root = os.path.dirname(os.path.dirname(arena.__file__))
    found = attempt(root)
    seen = sorted(
        os.path.relpath(os.path.join(d, n), root) for d, _, ns in os.walk(root) for n in ns
    )
    print(f"import_outside: root {root}", file=sys.stderr)
    print(f"import_outside: engine {json.dumps(engine())}", file=sys.stderr)
    print(f"import_outside: files {json.dumps(seen)}", file=sys.stderr, flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "decide":
            decision = f"escaped: {found}" if found else message["legal"][0]
            answer = {"type": "decision", "id": message["id"], "decision": decision}
            print(json.dumps(answer), flush=True)
        elif message["type"] == "quit":
            break


main()
