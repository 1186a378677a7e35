import json
import os
import sys

SYSTEM = {"/proc", "/sys", "/dev", "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/lib32"}
#: arena's referees, there for every bot to import (tests/bots/import_outside probes them).
SYSTEM.add("/arena")


def attempt():
    here = os.getcwd()
    try:
        parent = os.path.dirname(here)
        siblings = [
            n
            for n in os.listdir(parent)
            if n != os.path.basename(here) and os.path.join(parent, n) not in SYSTEM | {"/tmp"}
        ]
    except OSError:
        siblings = []
    if siblings:
        return f"sees other bots: {siblings[:3]}"
    for secret in ("/etc/shadow", "/root/.bash_history", "/proc/1/environ"):
        try:
            with open(secret, "rb") as handle:
                if b"ARENA" in handle.read() or secret != "/proc/1/environ":
                    return f"read {secret}"
        except OSError:
            pass
    for top in os.listdir("/"):
        if "/" + top in SYSTEM:
            continue
        for directory, _dirs, files in os.walk("/" + top):
            if directory.startswith(here):
                continue
            for name in files:
                if name.endswith((".db", ".sqlite", ".sqlite3", ".toml", ".py")):
                    return f"sees {os.path.join(directory, name)}"
    if (
        os.environ.keys()
        - {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "PWD", "SHLVL", "_"}
        - {k for k in os.environ if k.startswith("PYTHON")}
    ):
        return f"platform environment: {sorted(os.environ)}"
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
