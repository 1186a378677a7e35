"""The build: take each kind of lock, as cargo (flock) and go (fcntl) do, and write down
what it got in locks.txt (the build's output). Any refusal fails the build."""

import fcntl
import os
import struct

F_OFD_SETLK = 37
results = []
for path in ("own.lock", "/usr/bin/env"):  # its own file, and a shared system file
    if not path.startswith("/"):
        with open(path, "w") as handle:
            handle.write("lock file\n")
    fd = os.open(path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))
    fcntl.fcntl(fd, F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))
    results.append(f"{path}: flock, F_SETLK, F_OFD_SETLK taken")
    os.close(fd)
with open("locks.txt", "w") as out:
    out.write("\n".join(results) + "\n")
