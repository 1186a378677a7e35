"""Replay files: write, read, verify against the referee, and render turn by turn.

A replay is self-contained JSON (format in protocol/REPLAY.md): the game, its
variant and seed, the seats, every chance outcome (the full deal, every later
shuffle) and every decision in order, and the outcome. Verification rebuilds the
game from the recorded chance outcomes, checks every decision and the final
result, and (version 2) that the recorded deal seed gives exactly those chance
outcomes. A replay records the keyed seeds of its own match, never the database's
secret: verifying needs no secret, and the seeds tell nothing about other matches.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from arena.games import Game, GameError, load_game
from arena.games.base import Decision, Outcome
from arena.match import REPLAY_FORMAT, REPLAY_VERSION, final_ranks

#: The replay versions this arena reads: 1 (before deal seeds were recorded) and 2.
READABLE_VERSIONS = (1, REPLAY_VERSION)


class ReplayError(ValueError):
    """A replay file that cannot be read or does not check out."""


def write(path: str | Path, replay: dict[str, Any]) -> None:
    """Write a replay as indented JSON."""
    Path(path).write_bytes(orjson.dumps(replay, option=orjson.OPT_INDENT_2) + b"\n")


def load(path: str | Path) -> dict[str, Any]:
    """Read a replay file; ReplayError with a one-line reason when it is not one."""
    try:
        data = orjson.loads(Path(path).read_bytes())
    except FileNotFoundError:
        raise ReplayError(f"no replay file {path}") from None
    except (OSError, orjson.JSONDecodeError) as error:
        raise ReplayError(f"{path} is not a JSON replay ({error})") from None
    if not isinstance(data, dict) or data.get("format") != REPLAY_FORMAT:
        raise ReplayError(f"{path} is not an arena replay")
    if data.get("version") not in READABLE_VERSIONS:
        known = " or ".join(map(str, READABLE_VERSIONS))
        raise ReplayError(f"{path} has replay version {data.get('version')}, not {known}")
    for key in ("game", "game_version", "variant", "players", "seats", "events", "outcome"):
        if key not in data:
            raise ReplayError(f"{path} has no {key!r}")
    return data


def _new_game(replay: dict[str, Any]) -> Game:
    game_cls = load_game(replay["game"])
    if replay["game_version"] != game_cls.spec.version:
        raise ReplayError(
            f"replay is for {replay['game']} rules version {replay['game_version']}, "
            f"this arena has version {game_cls.spec.version}"
        )
    chance = [e for e in replay["events"] if "chance" in e]
    return game_cls.from_chance(replay["players"], chance, replay["variant"])


def walk(replay: dict[str, Any]) -> Iterator[tuple[dict[str, Any], Game]]:
    """Yield each event with the game state right after it (decisions applied jointly)."""
    return _walk(_new_game(replay), replay["events"])


def _walk(game: Game, events: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], Game]]:
    pending: dict[int, Decision] = {}
    for event in events:
        if "seat" in event:
            pending[event["seat"]] = event["decision"]
            if set(pending) >= set(game.to_move()):
                game.apply_joint(pending)
                pending = {}
        yield event, game
    if pending:
        raise ReplayError("the replay ends in the middle of a joint decision")


def _deal_seed(replay: dict[str, Any]) -> int | None:
    """The recorded deal seed (64 hex digits), or None in a version 1 replay."""
    text = replay.get("deal_seed")
    if text is None and replay.get("version") == 1:
        return None
    if not isinstance(text, str) or len(text) != 64:
        raise ReplayError("the replay's deal_seed is not 64 hex digits")
    try:
        return int(text, 16)
    except ValueError:
        raise ReplayError("the replay's deal_seed is not 64 hex digits") from None


def _check_deal(replay: dict[str, Any]) -> None:
    """The recorded chance outcomes must be the ones the recorded deal seed gives.

    Called once the decisions are known to fit the recorded deal: a decision the
    seeded game refuses therefore means another deal.
    """
    seed = _deal_seed(replay)
    if seed is None:
        return
    game = load_game(replay["game"]).new(replay["players"], seed, replay["variant"])
    try:
        for _event in _walk(game, replay["events"]):
            pass
        same = game.chance.log == [e for e in replay["events"] if "chance" in e]
    except (GameError, ReplayError):
        same = False
    if not same:
        raise ReplayError("the recorded deal is not the one its deal_seed gives")


def verify(replay: dict[str, Any]) -> Outcome:
    """Re-run the replay through the referee; ReplayError unless the outcome matches."""
    try:
        game = _new_game(replay)
        for _event, state in walk(replay):
            game = state
        if not game.is_over():
            raise ReplayError("the replayed game is not over after the last decision")
        outcome = game.outcome()
        _check_deal(replay)
    except GameError as error:
        raise ReplayError(f"the referee rejects the replay: {error}") from None
    recorded = replay["outcome"]
    if list(outcome.scores) != list(recorded["scores"]):
        raise ReplayError(
            f"scores {list(outcome.scores)} differ from recorded {recorded['scores']}"
        )
    forfeited = [status != "ok" for status in recorded["status"]]
    ranks = final_ranks(outcome, forfeited, game.spec.higher_score_wins)
    if ranks != list(recorded["ranks"]):
        raise ReplayError(f"ranks {ranks} differ from recorded {recorded['ranks']}")
    return outcome


def _clip(value: Any, limit: int = 100) -> str:
    text = orjson.dumps(value).decode()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def lines(replay: dict[str, Any]) -> Iterator[str]:
    """The replay as human lines, one per event."""
    names = {s["seat"]: s["bot"] for s in replay["seats"]}
    turn = 0
    for event, game in walk(replay):
        if "chance" in event:
            yield f"        chance: {event['chance']}: {_clip(event['outcome'])}"
        elif "forfeit" in event:
            seat = event["forfeit"]
            detail = f" ({event['detail']})" if event.get("detail") else ""
            yield f"        seat {seat} ({names.get(seat)}) forfeited: {event['reason']}{detail}"
        else:
            turn += 1
            seat = event["seat"]
            by = " [fallback]" if event.get("by") == "fallback" else ""
            text = game.describe(seat, event["decision"])
            yield f"{turn:5d}.  {text}  <{names.get(seat)}, {event.get('ms', 0):.2f} ms>{by}"
