"""Time `arena bot check` plans on a bot folder: the submission's and the full one.

    .venv/bin/python scripts/bench_check.py [FOLDER ...] [--repeat N]

Prints, per folder and plan, the matches played per game and the wall time (the best
of --repeat runs). Run it on a checkout before and after a change of arena/submissions/check.py
(PYTHONPATH=that checkout) to compare.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from arena.submissions import check
from arena.submissions.manifest import load_manifest

ROOT = Path(__file__).resolve().parent.parent


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (argparse exits 2 on a bad one)."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", default=[str(ROOT / "tests" / "bots" / "polite")])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--plans", default="submission,full")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    plans = {"submission": check.SUBMISSION, "full": check.FULL}
    for folder in args.folders:
        manifest = load_manifest(folder)
        for name in args.plans.split(","):
            best, report = float("inf"), None
            for _ in range(args.repeat):
                began = time.monotonic()
                report = check.check_built(manifest, plans[name], seed=1)
                best = min(best, time.monotonic() - began)
            assert report is not None
            played = " ".join(f"{g.game}={g.matches}" for g in report.games)
            verdict = "pass" if report.passed else "FAIL"
            print(f"{manifest.name:20} {name:10} {verdict} {best:7.2f} s  matches: {played}")


if __name__ == "__main__":
    main()
