import json
import os
import subprocess
import sys


def attempt():
    try:
        with open("pwned.txt", "w") as handle:
            handle.write("written")
        return "wrote into its folder"
    except OSError:
        pass
    try:
        os.chmod("bot.py", 0o777)
        return "changed a file in its folder"
    except OSError:
        pass
    try:  # a match sandbox shows only the bot's program's files: often no mount at all
        done = subprocess.run(
            ["mount", "-o", "remount,rw", os.getcwd()], capture_output=True, check=False
        )
    except OSError:
        return ""
    if done.returncode == 0:
        return "remounted its folder read-write"
    return ""


found = attempt()

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
