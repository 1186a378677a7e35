"""Runs as the build step: every attempt that works is written into the bot it builds."""

import os
import socket

ALLOWED = {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "PWD", "SHLVL", "_"}
found = []


def attempt(what, action):
    try:
        action()
    except OSError:
        return
    found.append(what)


def write(path):
    with open(path, "w") as handle:
        handle.write("escaped")


def read(path):
    with open(path, "rb") as handle:
        handle.read(1)


def connect(address):
    socket.create_connection(address, timeout=2).close()


attempt("wrote /etc", lambda: write("/etc/arena-build-escape"))
attempt("wrote /usr", lambda: write("/usr/arena-build-escape"))
attempt("read /etc/shadow", lambda: read("/etc/shadow"))
attempt("reached the host", lambda: connect(("127.0.0.1", 47613)))
attempt("reached the internet", lambda: connect(("1.1.1.1", 53)))
extra = sorted(k for k in os.environ if k not in ALLOWED and not k.startswith("PYTHON"))
if extra:
    found.append(f"platform environment {extra}")
# What it leaves behind for the platform to trip over when it copies the results back.
os.symlink("/etc/shadow", "shadow-link")
os.mkfifo("fifo")
os.mkdir("sub")
os.symlink("/etc", "sub/etc-link")
write("setuid")
os.chmod("setuid", 0o6755)
with open("bot.py") as source, open("built", "w") as built:
    built.write("#!/usr/bin/env python3\n")
    built.write(f"FOUND = {found!r}\n")
    built.write(source.read())
os.chmod("built", 0o755)
