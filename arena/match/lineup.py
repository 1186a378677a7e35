"""Turn what a user names (a game, bots, variant pairs) into a checked MatchSpec.

Everything that can be wrong with the input is found here, before any bot
starts, and reported as one GameError or BotFolderError.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from arena.games import VariantError, load_game
from arena.match import seeds
from arena.match.run import BotRef, MatchSpec
from arena.protocol.clock import TimeControl
from arena.submissions.botfiles import read_folder
from arena.submissions.manifest import BotFolderError, bundled_names, find_bot, prepare
from arena.submissions.names import is_path


def parse_variant_pairs(pairs: Iterable[str]) -> dict[str, str]:
    """``["rounds=3", "pro=true"]`` -> ``{"rounds": "3", "pro": "true"}``."""
    variant: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise VariantError(f"variant {pair!r} is not KEY=VALUE")
        variant[key.strip()] = value.strip()
    return variant


#: Looks a name up among registered bots: its newest version's BotRef and games, or None.
Registered = Callable[[str], tuple[BotRef, Sequence[str]] | None]


def bot_ref(name_or_path: str, game_id: str, registered: Registered | None = None) -> BotRef:
    """Find, check and prepare one bot for `game_id`: a folder, a bundled bot, or (with
    `registered`) the newest version of a registered bot."""
    if registered is not None and not is_path(name_or_path) and name_or_path not in bundled_names():
        found = registered(name_or_path)
        if found is None:
            raise BotFolderError(
                f"no registered or bundled bot {name_or_path!r} and no bot folder (a folder "
                f"is written ./{name_or_path}; see `arena bot list`)"
            )
        ref, games = found
        if "*" not in games and game_id not in games:
            raise BotFolderError(
                f"bot {name_or_path} does not play {game_id} (it plays {', '.join(games)})"
            )
        return ref
    manifest = find_bot(name_or_path)
    # A folder runs in place: it is refused for what a submission would be refused
    # for (links out of it, special files, size) before its bot starts.
    read_folder(manifest.folder)
    if not manifest.plays(game_id):
        games = ", ".join(manifest.games)
        raise BotFolderError(f"bot {manifest.name} does not play {game_id} (it plays {games})")
    return BotRef(
        manifest.name, str(manifest.folder), tuple(prepare(manifest)), protocol=manifest.protocol
    )


#: Public seeds are stored as signed 64-bit integers (BIGINT).
MAX_SEED = 2**63 - 1
#: No decision or start-up may wait longer than an hour: a longer wait is a typo.
MAX_TIMEOUT_S = 3600.0


def check_seed(seed: int) -> int:
    """`seed` if it is a storable public seed; ValueError with a one-line reason if not.

    >>> check_seed(2**63)
    Traceback (most recent call last):
    ValueError: a seed must be between 0 and 9223372036854775807, not 9223372036854775808
    """
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a seed must be between 0 and {MAX_SEED}, not {seed}")
    return seed


def check_timeout(name: str, seconds: float) -> float:
    """`seconds` if it is a finite positive time up to an hour; ValueError if not.

    >>> check_timeout("decision timeout", float("nan"))
    Traceback (most recent call last):
    ValueError: decision timeout must be a number of seconds above 0 and at most 3600, not nan
    """
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_TIMEOUT_S):
        raise ValueError(
            f"{name} must be a number of seconds above 0 and at most {MAX_TIMEOUT_S:g}, "
            f"not {seconds}"
        )
    return seconds


def new_seed() -> int:
    """A fresh random public match seed (printed with the result, so any match can be replayed).

    It may be small: the deal is derived from it with the database's secret (arena.match.seeds).
    """
    return secrets.randbelow(2**31)


def match_spec(
    game_id: str,
    bots: Sequence[str],
    *,
    seed: int | None = None,
    variant: dict[str, Any] | None = None,
    decision_timeout: float = 1.0,
    startup_timeout: float = 10.0,
    match_id: str | None = None,
    secret: bytes | None = None,
    registered: Registered | None = None,
    time_control: str | None = None,
) -> MatchSpec:
    """A checked spec for one match of `game_id` between `bots` (paths or bundled names,
    and registered names when `registered` looks them up).

    With `secret` (the database's) the same `seed` gives the same match again;
    without it the match runs on one-off keys that nobody can reproduce. A
    `time_control` (arena.protocol.clock.TimeControl's text) replaces `decision_timeout`.
    """
    game = load_game(game_id)
    game.spec.check_players(len(bots))
    resolved = game.spec.resolve_variant(variant)
    try:
        check_timeout("decision timeout", decision_timeout)
        check_timeout("start-up timeout", startup_timeout)
        seed = new_seed() if seed is None else check_seed(seed)
    except ValueError as error:
        raise VariantError(str(error)) from None
    control = None if time_control is None else TimeControl.parse(time_control)
    refs = tuple(bot_ref(bot, game_id, registered) for bot in bots)
    instance = "play"
    keys = (
        seeds.derive(secret, seed, instance, len(refs))
        if secret is not None
        else seeds.one_off(seed, instance, len(refs))
    )
    return MatchSpec(
        match_id=match_id or f"{game_id}-{seed}",
        game=game_id,
        seed=seed,
        seats=refs,
        variant=resolved,
        decision_timeout=decision_timeout,
        startup_timeout=startup_timeout,
        keys=keys,
        time_control=control,
    )
