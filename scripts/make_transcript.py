"""Write protocol/examples/take-that-transcript.jsonl from a real match.

Run: .venv/bin/python scripts/make_transcript.py [--check]

Plays one real two-player Take That match (`rounds=1`, seed 7, keyed with the
example secret below: a real database's secret is random) with
`arena.match.run.run_match` between two copies of the test bot tests/bots/polite,
captures every protocol line (tests.helpers.run_and_capture) and keeps what seat 0 saw.
The example is cut on purpose: the start/ready handshake, the first three
decide/decision pairs, then the end and quit lines; every decide in between is
left out. Each output line is {"dir": "to-bot" | "from-bot", "msg": {...}}.

With --check nothing is written: exit 1 when the file differs from a fresh run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.match import seeds  # noqa: E402
from arena.match.run import MatchSpec  # noqa: E402
from arena.status import MatchStatus  # noqa: E402
from tests.helpers import bot_ref_for, run_and_capture  # noqa: E402

OUTPUT = ROOT / "protocol" / "examples" / "take-that-transcript.jsonl"
SEAT0 = "polite-seat-0"
DECISIONS_KEPT = 3
#: A public secret, so that the example is the same on every machine.
EXAMPLE_SECRET = bytes(range(32))


def play() -> list[dict[str, Any]]:
    """Every line seat 0's bot exchanged in one real match, in order, as parsed objects."""
    polite = bot_ref_for("polite")
    seats = (
        dataclasses.replace(polite, name=SEAT0),
        dataclasses.replace(polite, name="polite-seat-1"),
    )
    spec = MatchSpec(
        match_id="example-take-that",
        game="take-that",
        seed=7,
        seats=seats,
        variant={"rounds": 1},
        keys=seeds.derive(EXAMPLE_SECRET, 7, "play", len(seats)),
    )
    result, lines = run_and_capture(spec)
    if result.status is not MatchStatus.NORMAL:
        raise SystemExit(f"the example match did not end normally: {result.status} {result.seats}")
    entries = []
    for name, direction, line in lines:
        if name != SEAT0:
            continue
        try:
            message = json.loads(line)
        except ValueError:  # the log clips lines at 2000 bytes
            raise SystemExit(f"a logged line is not whole JSON: {line[:120]}...") from None
        entries.append({"dir": direction, "msg": message})
    return entries


def cut(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """start, ready, the first DECISIONS_KEPT decide/decision pairs, end, quit."""
    kinds = [(e["dir"], e["msg"]["type"]) for e in entries]
    head = 2 + 2 * DECISIONS_KEPT
    expected = [("to-bot", "start"), ("from-bot", "ready")]
    expected += [("to-bot", "decide"), ("from-bot", "decision")] * DECISIONS_KEPT
    if kinds[:head] != expected or kinds[-2:] != [("to-bot", "end"), ("to-bot", "quit")]:
        raise SystemExit(f"unexpected conversation: {kinds[:head]} ... {kinds[-2:]}")
    return entries[:head] + entries[-2:]


def render(entries: list[dict[str, Any]]) -> str:
    """One JSON object per line."""
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (argparse exits 2 on a bad one)."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    text = render(cut(play()))
    if args.check:
        if not OUTPUT.is_file() or OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT.relative_to(ROOT)} is stale: run scripts/make_transcript.py")
            return 1
        print(f"{OUTPUT.relative_to(ROOT)} is up to date")
        return 0
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
