"""Write the golden transcripts tests/golden/<game>-<players>p[-<variant>].json.

Run: .venv/bin/python scripts/make_golden.py [--list] [--force NAME ...]

Each transcript pins one seeded match of the bundled bots, played in-process:
seats 0, 2, 4 play the game's heuristic bot's policy (`choose` of
bots/<game>-heuristic/bot.py), seats 1, 3, 5 the random bot's (a uniform choice
from a seeded `random.Random`). It records every chance outcome, every decision,
a digest of every seat's observation and of every legal list at each step, and the
outcome (arena.testing.record_golden). tests/games/test_golden.py replays each one
through the referee (arena.testing.check_golden), so a referee made faster must
play exactly the same rules.

The rule: a deliberate rules change bumps the game's version (GameSpec.version, the
rules page's title and version history) and regenerates its transcripts with this
script; nothing else writes them. So this script writes only the transcripts that
are missing or recorded under an older rules version of their game, and keeps the
others (a better heuristic is no reason to rewrite them). `--force NAME` rewrites the
named ones anyway (e.g. after changing a case below); `--list` only shows the cases.

The cases cover every variant option of every game with a non-default value and
every player count of every game at least once (the test checks that too).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.games import load_game  # noqa: E402
from arena.testing import Policy, record_golden  # noqa: E402
from tests.helpers import load_bot_module  # noqa: E402

GOLDEN = ROOT / "tests" / "golden"

#: (game, players, variant, seed): one transcript each.
CASES: list[tuple[str, int, dict[str, Any], int]] = [
    ("krumme10", 2, {}, 1),
    ("krumme10", 3, {"pink4": True}, 2),
    ("krumme10", 4, {"teams": True, "long": True}, 3),
    ("krumme10", 5, {"teams": True, "showdown": True}, 4),
    ("krumme10", 6, {"pink4": True, "teams": True, "long": True, "showdown": True}, 5),
    ("leylo", 2, {}, 1),
    ("leylo", 3, {"rounds": 4}, 2),
    ("leylo", 4, {"rounds": 5}, 3),
    ("leylo", 5, {}, 4),
    ("leylo", 6, {}, 5),
    ("take-that", 2, {"rounds": 1, "pro": True}, 1),
    ("take-that", 3, {}, 2),
    ("take-that", 4, {"rounds": 3, "pro": True}, 3),
    ("twirkle", 2, {}, 1),
    ("twirkle", 3, {}, 2),
    ("twirkle", 4, {}, 3),
]


def case_name(game: str, players: int, variant: dict[str, Any]) -> str:
    """File stem: ``krumme10-4p-long-teams``, ``leylo-3p-rounds4``."""
    parts = [f"{game}-{players}p"]
    for key in sorted(variant):
        value = variant[key]
        parts.append(key if value is True else f"{key}{str(value).lower()}")
    return "-".join(parts)


def policies(game: Any, seed: int) -> tuple[list[Policy], list[str]]:
    """Heuristic on even seats, random on odd seats, each with its own seeded generator.
    The heuristic bots speak protocol 2: each is shown its seat's envelope of `game`
    (`Game.observation`), the same facts as the version-1 observation it is passed."""
    game_id = game.spec.id
    heuristic = load_bot_module(f"{game_id}-heuristic")
    result: list[Policy] = []
    names: list[str] = []
    for seat in range(game.players):
        rng = random.Random(seed * 1000 + seat)
        if seat % 2 == 0:

            def smart(
                obs: dict[str, Any], legal: list[Any], rng: random.Random = rng, seat: int = seat
            ) -> Any:
                return heuristic.choose(game.observation(seat), legal, rng)

            result.append(smart)
            names.append(f"{game_id}-heuristic")
        else:

            def uniform(obs: dict[str, Any], legal: list[Any], rng: random.Random = rng) -> Any:
                return rng.choice(legal)

            result.append(uniform)
            names.append("random")
    return result, names


def record(game_id: str, players: int, variant: dict[str, Any], seed: int) -> dict[str, Any]:
    """The transcript of one case."""
    game = load_game(game_id).new(players, seed, variant)
    seat_policies, names = policies(game, seed)
    return record_golden(game, seed, seat_policies, names)


def encode(golden: dict[str, Any]) -> bytes:
    """Compact JSON, one top-level key per line and one step per line (readable diffs)."""
    lines = []
    for key, value in golden.items():
        if key == "steps":
            body = ",\n".join(orjson.dumps(step).decode() for step in value)
            lines.append(f'"steps": [\n{body}\n]')
        else:
            lines.append(f"{orjson.dumps(key).decode()}: {orjson.dumps(value).decode()}")
    return ("{\n" + ",\n".join(lines) + "\n}\n").encode()


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked: an unknown case exits 2 in one line."""
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="only list the cases")
    parser.add_argument("--force", nargs="*", default=[], metavar="NAME", help="rewrite these")
    args = parser.parse_args(argv)
    names = {case_name(g, p, v) for g, p, v, _s in CASES}
    unknown = set(args.force) - names
    if unknown:
        parser.error(f"no such case: {', '.join(sorted(unknown))}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for game_id, players, variant, seed in CASES:
        name = case_name(game_id, players, variant)
        path = GOLDEN / f"{name}.json"
        if args.list:
            print(name)
            continue
        current = load_game(game_id).spec.version
        if path.exists() and name not in args.force:
            recorded = orjson.loads(path.read_bytes()).get("game_version")
            if recorded == current:
                print(f"kept    {path.relative_to(ROOT)} (rules version {current})")
                continue
        path.write_bytes(encode(record(game_id, players, variant, seed)))
        size = path.stat().st_size // 1024
        print(f"written {path.relative_to(ROOT)} (rules version {current}, {size} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
