"""A tournament's settings, from a TOML file and/or command-line flags."""

from __future__ import annotations

import logging
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from arena.games import GameError
from arena.match.lineup import check_seed, check_timeout
from arena.protocol.clock import TimeControl
from arena.sandbox import limits as bot_limits


class ConfigError(GameError):
    """A tournament file or flag that does not make sense (one-line reason)."""


#: The default executor: this machine's cores (arena.tournament.executors).
LOCAL = "local"
DASK_SCHEME = "dask://"


def check_name(name: str) -> str:
    """An executor's name: `local` or `dask://HOST:PORT`; ConfigError for anything else.

    >>> check_name("dask://10.0.0.5:8786")
    'dask://10.0.0.5:8786'
    """
    if name == LOCAL:
        return name
    if name.startswith(DASK_SCHEME):
        host, _, port = name[len(DASK_SCHEME) :].rpartition(":")
        if host and port.isdigit():
            return name
    raise ConfigError(f"executor must be 'local' or 'dask://HOST:PORT', not {name!r}")


def dask_address(name: str) -> str:
    """The scheduler address Dask understands for `dask://HOST:PORT`.

    >>> dask_address("dask://scheduler:8786")
    'tcp://scheduler:8786'
    """
    return "tcp://" + check_name(name)[len(DASK_SCHEME) :]


@dataclass(frozen=True)
class TournamentConfig:
    """Everything a tournament run needs; see tournaments/*.toml for examples."""

    game: str = ""
    bots: tuple[str, ...] = ()
    name: str = ""
    format: str = "round-robin"
    players: int = 2
    #: Deals per pairing (or group), each in every seat rotation: `deals` in files and flags.
    rounds: int = 1
    seed: int = 0
    workers: int = 1
    variant: dict[str, Any] = field(default_factory=dict)
    decision_timeout: float = 1.0
    startup_timeout: float = 10.0
    #: The seats' time control (arena.protocol.clock: "2s/decision", "10s+100ms"); when
    #: unset, `decision_timeout` seconds per decision.
    time_control: str | None = None
    #: Forfeits in a row after which a bot sits out the rest of the tournament.
    suspend_after: int = 5
    #: One bot process per match instead of reusing processes across matches.
    fresh_processes: bool = False
    #: Pin each worker (and the bots it starts) to one core.
    pin_workers: bool = True
    #: Stricter per-bot limits, e.g. {"memory_mb": 512, "cpu_seconds": 60} (arena.sandbox.limits).
    limits: dict[str, Any] = field(default_factory=dict)
    #: Where matches run: "local" (a pool of `workers` processes) or "dask://HOST:PORT".
    executor: str = LOCAL

    def checked(self) -> TournamentConfig:
        """Raise ConfigError on a missing or nonsensical setting; return self."""
        if not self.game:
            raise ConfigError("a tournament needs a game")
        if len(self.bots) < 2:
            raise ConfigError("a tournament needs at least two bots")
        if len(set(self.bots)) != len(self.bots):
            raise ConfigError("a bot is listed twice")
        for name, low in (("players", 1), ("rounds", 1), ("workers", 1), ("suspend_after", 1)):
            if getattr(self, name) < low:
                shown = OLD_SPELLINGS.get(name, name)
                raise ConfigError(f"{shown} must be at least {low}")
        try:
            check_timeout("decision_timeout", self.decision_timeout)
            check_timeout("startup_timeout", self.startup_timeout)
            check_seed(self.seed)
            if self.time_control is not None:
                TimeControl.parse(str(self.time_control))
        except ValueError as error:
            raise ConfigError(str(error)) from None
        try:
            bot_limits.from_settings(self.limits)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        check_name(self.executor)
        return self


_KEYS = {f.name for f in fields(TournamentConfig)}


#: A tournament's deals per pairing were once spelled `rounds`, which is also the name of
#: a game variant (rounds per match): `deals` is the spelling now, `rounds` still read.
OLD_SPELLINGS = {"rounds": "deals"}
LOG = logging.getLogger("arena.tournament")


def _respelled(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with `deals` read into the field it sets (`rounds`); the old spelling warned of."""
    values = dict(data)
    if "deals" in values and "rounds" in values:
        raise ConfigError("give deals (deals per pairing) once: rounds is its old spelling")
    if "rounds" in values:
        LOG.warning("the tournament setting `rounds` (--rounds) is now spelled `deals` (--deals)")
    elif "deals" in values:
        values["rounds"] = values.pop("deals")
    return values


def from_mapping(data: dict[str, Any], base: TournamentConfig | None = None) -> TournamentConfig:
    """Settings from a dict (a parsed file or flags); unknown keys are an error.

    `deals` sets the deals per pairing (the field `rounds`, its old spelling, still read).
    """
    data = _respelled(data)
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"unknown tournament setting(s): {', '.join(unknown)}")
    values = dict(data)
    if "bots" in values:
        bots = values["bots"]
        if isinstance(bots, str):
            bots = [b for b in bots.split(",") if b.strip()]
        if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
            raise ConfigError("bots must be a list of bot names")
        values["bots"] = tuple(b.strip() for b in bots)
    config = base or TournamentConfig()
    for key, value in values.items():
        if key == "time_control" and value is not None:  # optional: no default to type it
            if not isinstance(value, str):
                raise ConfigError(f"time_control must be a string such as 10s+100ms, not {value!r}")
            continue
        expected = type(getattr(config, key))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ConfigError(f"{key} must be a {expected.__name__}, not {value!r}")
        values[key] = value
    return replace(config, **values)


def bundled(path: str | Path) -> Path | None:
    """The bundled tournament file that `path` names when there is no such file here.

    `tournaments/take-that-round-robin.toml` (as the README writes it), the file name
    alone, or its stem: so the README's commands work from an installed wheel, outside
    the checkout. A file that exists is always the one read.
    """
    from arena.resources import BUNDLED_TOURNAMENTS

    given = Path(path)
    if given.exists() or given.parent not in (Path("."), Path("tournaments")):
        return None
    name = given.name if given.suffix == ".toml" else given.name + ".toml"
    found = BUNDLED_TOURNAMENTS / name
    return found if found.is_file() else None


def load(path: str | Path) -> TournamentConfig:
    """Read a tournament file (TOML), or the bundled one it names (`bundled`)."""
    path = bundled(path) or path
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        from arena.resources import BUNDLED_TOURNAMENTS

        shipped = ", ".join(sorted(f.stem for f in BUNDLED_TOURNAMENTS.glob("*.toml")))
        raise ConfigError(f"no tournament file {path} (bundled: {shipped})") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: {error}") from None
    config = from_mapping(data)
    return config if config.name else replace(config, name=Path(path).stem)
