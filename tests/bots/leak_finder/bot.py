"""Finds leftovers of the host: open descriptors and host paths visible from inside.

It cannot know the host's paths, so it looks for fragments any host layout has
(home and data folders, checkouts, temporary and runtime folders). A bind
mounted at its own path (/usr at /usr) reveals nothing new; any other mount
source must not name such a folder either.
"""

import json
import os
import sys

FRAGMENTS = ("/root", "/home", "/work", "/tmp/", "/var/", "/run/", "/srv", "/opt", "/mnt")
FRAGMENTS += (".local", ".cache", "arena-home", "pytest", "tests/bots", "site-packages")


def open_descriptors():
    """Descriptors open now; the one that listed the directory is closed again by then."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        found.append(int(fd))
    return sorted(found)


def read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def mount_sources():
    """The source path of every mount that is not bound at its own path."""
    sources = []
    for line in read("/proc/self/mountinfo").splitlines():
        fields = line.split()
        if len(fields) > 4 and fields[3] not in ("/", fields[4]):
            sources.append(fields[3])
    return " ".join(sources)


def leaks():
    found = []
    extra = [fd for fd in open_descriptors() if fd > 2]
    if extra:
        found.append(
            f"open descriptors {extra}: {[os.readlink(f'/proc/self/fd/{fd}') for fd in extra]}"
        )
    places = {
        "/proc/1/cmdline": read("/proc/1/cmdline"),
        "/proc/self/cmdline": read("/proc/self/cmdline"),
        "mountinfo": mount_sources(),
        "environ": read("/proc/self/environ"),
        "cwd": os.getcwd(),
        "HOME": os.environ.get("HOME", ""),
        "argv": " ".join([sys.executable, *sys.argv]),
    }
    for place, text in places.items():
        hits = [fragment for fragment in FRAGMENTS if fragment in text]
        if hits:
            found.append(f"{place} shows {hits}")
    return found


found = leaks()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        decision = f"leak: {'; '.join(found)}" if found else message["legal"][0]
        print(
            json.dumps({"type": "decision", "id": message["id"], "decision": decision}), flush=True
        )
    elif message["type"] == "quit":
        break
