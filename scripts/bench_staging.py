"""What verifying a stored version costs per staging (issue 30 item 5).

A worker stages a version's read-only copy once (`arena.sandbox.bwrap.Staging`) and
reuses it while a bot of it runs. Before, the copy was `shutil.copytree`; now it is
written from one reading of the folder that is hashed and compared with the version's
sha256 and its build stamp. This times both on the same stored folders, interleaved:

    .venv/bin/python scripts/bench_staging.py [--repeats 30]

Folders: a small Python bot (2 files), the bundled C bot after its build, and one of
16 MiB and one of 60 MiB in four files (near the 64 MiB limit).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from arena.sandbox.bwrap import Staging, staging_base
from arena.store import Store, default_url
from arena.submissions import submit as registry
from arena.submissions.manifest import BUNDLED_BOTS

ROOT = Path(__file__).resolve().parent.parent


def _bots(work: Path) -> list[tuple[str, Path]]:
    """Bot folders to submit: name and folder."""
    made = []
    for name, size in (("big16", 16), ("big60", 60)):
        folder = work / name
        shutil.copytree(ROOT / "tests" / "bots" / "polite", folder)
        toml = folder / "bot.toml"
        toml.write_text(toml.read_text().replace('"polite"', f'"{name}"', 1))
        for part in range(4):
            (folder / f"table{part}.bin").write_bytes(os.urandom(size * 2**20 // 4))
        made.append((name, folder))
    first = work / "cbot"
    skip = shutil.ignore_patterns("first-legal")  # its build makes it
    shutil.copytree(BUNDLED_BOTS / "first-legal", first, ignore=skip)
    toml = first / "bot.toml"
    toml.write_text(toml.read_text().replace('"first-legal"', '"cbot"', 1))
    return [("small", ROOT / "tests" / "bots" / "polite"), ("cbot", first), *made]


def _time(staging: Staging, folder: Path, sha256: str | None) -> float:
    from arena.submissions.manifest import verified_files

    checked = None if sha256 is None else (lambda: verified_files(folder, sha256))
    start = time.perf_counter()
    copy = staging.acquire(folder, checked)
    elapsed = time.perf_counter() - start
    staging.release(copy)
    return elapsed


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (argparse exits 2 on a bad one)."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    repeats = parse_args(argv).repeats
    work = Path(tempfile.mkdtemp(prefix="bench-staging-"))
    try:
        home = work / "home"
        store = Store(default_url(home))
        staging = Staging(staging_base(work))
        print(f"{'bot':8} {'files':>5} {'MiB':>6} {'copytree ms':>12} {'verified ms':>12}")
        for label, folder in _bots(work):
            name = label if label != "small" else "polite"
            version, _ = registry.submit(store, home, str(folder), name=name)
            stored = Path(registry.bot_ref(version, name).folder)
            files = [p for p in stored.rglob("*") if p.is_file()]
            mib = sum(p.stat().st_size for p in files) / 2**20
            plain, checked = [], []
            for _ in range(repeats):  # interleaved: the same cache state for both
                plain.append(_time(staging, stored, None))
                checked.append(_time(staging, stored, version.sha256))
            print(
                f"{label:8} {len(files):5d} {mib:6.1f} "
                f"{statistics.median(plain) * 1000:12.2f} {statistics.median(checked) * 1000:12.2f}"
            )
        store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
