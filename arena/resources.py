"""Where arena's own files are: the bundled bots, the protocol pages (rules, schemas)
and the bundled tournament files.

In a checkout they are the repository's top-level `bots/`, `protocol/` and
`tournaments/`; an installed wheel carries them as the data packages
`arena.bundled_bots`, `arena.protocol_docs` and `arena.bundled_tournaments`
(pyproject.toml maps the folders to those names).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _folder(top_level: str, package_data: str) -> Path:
    """The installed data package if there is one, else the checkout's folder."""
    installed = _PACKAGE / package_data
    return installed if installed.is_dir() else _PACKAGE.parent / top_level


#: The bots shipped with arena (`random`, `first-legal`, one heuristic bot per game).
BUNDLED_BOTS = _folder("bots", "bundled_bots")
#: PROTOCOL.md, REPLAY.md, the rules pages in games/ and the JSON Schemas in schemas/.
PROTOCOL_DOCS = _folder("protocol", "protocol_docs")
#: The tournament files shipped with arena (`tournaments/take-that-round-robin.toml`, ...).
BUNDLED_TOURNAMENTS = _folder("tournaments", "bundled_tournaments")
#: The starter kits, one folder per language (`arena init --kit KIT DIR` copies one).
STARTER_KITS = BUNDLED_BOTS / "starters"
