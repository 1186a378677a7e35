"""`arena init DIR` (a new bot from a starter kit) and `arena docs` (where the pages are).

Both work the same from a checkout and from an installed wheel: the kits, protocol
pages and tournament files travel in the wheel (`arena.resources`).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import echo_json, out
from arena.cli.errors import UserError, reports_errors
from arena.cli.safe import text
from arena.resources import BUNDLED_TOURNAMENTS, PROTOCOL_DOCS, STARTER_KITS


def kits() -> list[str]:
    """The starter kits shipped with arena, by language."""
    return sorted(p.name for p in STARTER_KITS.iterdir() if (p / "bot.toml").is_file())


@reports_errors
def init(
    folder: Annotated[Path, typer.Argument(help="The new bot's folder (empty or new).")],
    kit: Annotated[str, typer.Option(help="The starter kit's language (see `arena docs`).")] = (
        "python"
    ),
) -> None:
    """Start a bot from a starter kit: copy it to FOLDER, named after the folder."""
    from arena.submissions.names import is_path, name_problem

    if kit not in kits():
        raise UserError(f"no starter kit {kit!r} (kits: {', '.join(kits())})")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise UserError(f"{folder} already exists and is not an empty folder")
    if not folder.resolve().parent.is_dir():
        raise UserError(f"there is no folder {folder.resolve().parent}")
    name = folder.resolve().name.lower()
    if name_problem(name) is not None:
        raise UserError(f"{name_problem(name)} (the folder's name becomes the bot's)")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    try:
        shutil.copytree(STARTER_KITS / kit, folder, ignore=ignore, dirs_exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot write {folder}: {error.strerror or error}") from None
    manifest = folder / "bot.toml"
    named = re.sub(r'(?m)^name = ".*"$', f'name = "{name}"', manifest.read_text(), count=1)
    manifest.write_text(named)
    out.print(text(f"created {folder}: bot {name} from the {kit} starter kit"))
    shown = str(folder) if is_path(str(folder)) else f"./{folder}"  # a name is not a folder
    out.print(text(f"next: arena bot check {shown}   then: arena bot submit {shown}"))


def places() -> dict[str, str]:
    """What a bot author reads, and where it is on this machine."""
    return {
        "protocol": str(PROTOCOL_DOCS / "PROTOCOL.md"),
        "rules": str(PROTOCOL_DOCS / "games"),
        "schemas": str(PROTOCOL_DOCS / "schemas"),
        "search": str(PROTOCOL_DOCS / "SEARCH.md"),
        "replays": str(PROTOCOL_DOCS / "REPLAY.md"),
        "examples": str(PROTOCOL_DOCS / "examples"),
        "starter kits": str(STARTER_KITS),
        "tournaments": str(BUNDLED_TOURNAMENTS),
    }


def docs(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Where the protocol, the rules pages, the starter kits and tournament files are."""
    found = places()
    if as_json:
        echo_json({**found, "kits": kits()})
        return
    width = max(len(key) for key in found)
    for key, path in found.items():
        out.print(text(f"{key:<{width}}  {path}"))
    out.print(text(f"{'kits':<{width}}  {', '.join(kits())} (arena init --kit KIT DIR)"))
