"""Write protocol/games/<game>.observation.schema.json and .observation.v2.schema.json.

Run: .venv/bin/python scripts/gen_schemas.py [--check]

The observation schemas are made from the games' typed models (each game's
`ObservationModel`, in its views module) by arena.games.schemas: version 1's
observation and protocol 2's envelope, for every registered game. Nobody edits the
files by hand; change the model and run this script. `--check` writes nothing and
exits 1 naming every file that is missing or differs from what the models give
(tests/games/test_schemas.py fails the same way).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.games import all_games  # noqa: E402
from arena.games.schemas import SUFFIXES, file_name, schema_text  # noqa: E402

FOLDER = ROOT / "protocol" / "games"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if a schema file is missing or stale",
    )
    return parser.parse_args(argv)


def wanted() -> dict[Path, str]:
    """Every observation schema file with the text the models give."""
    return {
        FOLDER / file_name(game.spec.id, version): schema_text(game.spec.id, version)
        for game in all_games()
        for version in SUFFIXES
    }


def stale(files: dict[Path, str]) -> list[Path]:
    """The files whose text on disk is not the wanted one (or that are missing)."""
    return [path for path, text in files.items() if not path.is_file() or path.read_text() != text]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    files = wanted()
    behind = stale(files)
    if args.check:
        for path in behind:
            print(f"stale: {path.relative_to(ROOT)} (run scripts/gen_schemas.py)")
        return 1 if behind else 0
    for path in behind:
        path.write_text(files[path])
        print(f"wrote {path.relative_to(ROOT)}")
    if not behind:
        print("every observation schema is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
