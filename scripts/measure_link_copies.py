"""Measure: the bytes a submission with links stores and stages (issue 30, item 3).

Run: .venv/bin/python scripts/measure_link_copies.py [--links 30] [--mib 16]

Makes a bot folder (the polite test bot, one file of --mib MiB and --links links
to it), submits it with `arena bot submit` into a fresh home, then prints what
the home stores for it and what a worker stages for its matches (the copy on
/dev/shm that `arena.sandbox.bwrap.Staging` makes), in allocated bytes. A refused
submission prints its one-line error and stores nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.sandbox.bwrap import Staging, staging_base  # noqa: E402

MIB = 2**20


def allocated(root: Path) -> int:
    """The bytes the files under `root` take on their file system (links cost their inode)."""
    total = 0
    for directory, _dirs, files in os.walk(root):
        for name in files:
            total += os.lstat(os.path.join(directory, name)).st_blocks * 512
    return total


def hostile_folder(folder: Path, links: int, mib: int) -> None:
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "bots" / "polite" / "bot.py", folder / "bot.py")
    (folder / "bot.toml").write_text('name = "linky"\ncommand = ["python3", "bot.py"]\n')
    (folder / "model.bin").write_bytes(os.urandom(mib * MIB))
    for i in range(links):
        (folder / f"copy{i}.bin").symlink_to("model.bin")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (argparse exits 2 on a bad one)."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, default=30)
    parser.add_argument("--mib", type=int, default=16)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder, home = Path(scratch) / "linky", Path(scratch) / "home"
        hostile_folder(folder, args.links, args.mib)
        size = allocated(folder) / MIB
        print(f"folder: {args.mib} MiB file + {args.links} links, {size:.1f} MiB")
        argv = [sys.executable, "-m", "arena", "--home", str(home), "bot", "submit", str(folder)]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=False)
        print(f"submit: exit {done.returncode}: {(done.stdout + done.stderr).splitlines()[0]}")
        versions = [p for p in (home / "bots").glob("*") if p.is_dir()] if home.exists() else []
        print(f"stored: {sum(allocated(v) for v in versions) / MIB:.1f} MiB")
        for version in versions:
            staging = Staging(staging_base(Path(scratch)))
            copy = staging.acquire(version)
            try:
                print(f"staged: {allocated(copy) / MIB:.1f} MiB (on {copy.parents[1]})")
            finally:
                staging.release(copy)


if __name__ == "__main__":
    main()
