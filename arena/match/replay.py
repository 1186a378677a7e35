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

import copy
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import jsonschema
import orjson

from arena.errors import ReplayError
from arena.games import Game, GameError, load_game
from arena.games.base import ChanceExhausted, Decision, Outcome
from arena.match.run import REPLAY_FORMAT, REPLAY_VERSION, final_ranks
from arena.protocol.messages import describe, find_legal
from arena.resources import PROTOCOL_DOCS
from arena.status import SeatStatus

T = TypeVar("T")
#: The replay versions this arena reads: 1 (before deal seeds were recorded), 2 (before
#: time controls and debug text were recorded) and 3.
READABLE_VERSIONS = (1, 2, REPLAY_VERSION)
#: What a decision event of version 3 may hold that one of version 1 or 2 may not.
_V3_DECISION_KEYS = ("charged_ms", "bank_ms", "debug")


def dumps(replay: dict[str, Any]) -> bytes:
    """A replay as the bytes of its file: indented JSON and a final newline."""
    return orjson.dumps(replay, option=orjson.OPT_INDENT_2) + b"\n"


def write(path: str | Path, replay: dict[str, Any]) -> None:
    """Write a replay file."""
    Path(path).write_bytes(dumps(replay))


def load(path: str | Path) -> dict[str, Any]:
    """Read a replay file; ReplayError with a one-line reason when it is not one."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise ReplayError(f"no replay file {path}") from None
    except OSError as error:
        raise ReplayError(f"{path} is not a JSON replay ({error})") from None
    return parse(raw, path)


def parse(raw: bytes, path: str | Path) -> dict[str, Any]:
    """Check a replay given as JSON bytes (`path` names it in errors), like `load`."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise ReplayError(f"{path} is not a JSON replay ({error})") from None
    if not isinstance(data, dict) or data.get("format") != REPLAY_FORMAT:
        raise ReplayError(f"{path} is not an arena replay")
    if data.get("version") not in READABLE_VERSIONS:
        known = " or ".join(map(str, READABLE_VERSIONS))
        raise ReplayError(f"{path} has replay version {data.get('version')!r}, not {known}")
    problem = next(_validator(data["version"]).iter_errors(data), None)
    if problem is not None:
        where = "/".join(str(part) for part in problem.absolute_path) or "the top level"
        raise ReplayError(f"{path} is not a valid replay: at {where}: {_short(problem.message)}")
    _check_shape(data, path)
    return data


@functools.cache
def _validator(version: int) -> jsonschema.protocols.Validator:
    """The JSON Schema validator of a replay version (protocol/schemas/replay.schema.json).

    The schema describes the current version; version 2 differs only in having no time
    control and no charged time, bank or debug text in its decisions, version 1 also in
    having no deal seed and no fallback seeds.
    """
    schema = orjson.loads((PROTOCOL_DOCS / "schemas" / "replay.schema.json").read_bytes())
    if version < REPLAY_VERSION:
        schema = copy.deepcopy(schema)
        schema["properties"]["version"] = {"const": version}
        schema["required"].remove("time_control")
        del schema["properties"]["time_control"]
        for event in schema["properties"]["events"]["items"]["oneOf"]:
            if "decision" in event["properties"]:
                for key in _V3_DECISION_KEYS:
                    del event["properties"][key]
    if version == 1:
        schema["required"].remove("deal_seed")
        seat = schema["properties"]["seats"]["items"]
        seat["required"] = [key for key in seat.get("required", []) if key != "fallback_seed"]
    cls = jsonschema.validators.validator_for(schema)
    # JSON Schema counts 1.0 (and 1e30, read as a float) as an integer; a replay may not.
    strict = cls.TYPE_CHECKER.redefine("integer", lambda _checker, value: type(value) is int)
    strict_cls = jsonschema.validators.extend(cls, type_checker=strict)  # type: ignore[no-untyped-call]
    validator: jsonschema.protocols.Validator = strict_cls(schema)
    return validator


def _check_shape(data: dict[str, Any], path: str | Path) -> None:
    """What a schema cannot say: seats numbered 0..players-1, one result per seat."""
    players = data["players"]
    if sorted(seat["seat"] for seat in data["seats"]) != list(range(players)):
        raise ReplayError(f"{path} is not a valid replay: seats are not 0..{players - 1}")
    for key in ("scores", "ranks", "status"):
        if len(data["outcome"][key]) != players:
            raise ReplayError(f"{path} is not a valid replay: outcome {key} is not one per seat")
    for event in data["events"]:
        seat = event.get("seat", event.get("forfeit", 0))
        if not (type(seat) is int and 0 <= seat < players):
            raise ReplayError(f"{path} is not a valid replay: an event names seat {seat!r}")


def _short(message: str, limit: int = 160) -> str:
    return message if len(message) <= limit else message[: limit - 3] + "..."


def _new_game(replay: dict[str, Any]) -> Game:
    game_cls = load_game(replay["game"])
    if replay["game_version"] != game_cls.spec.version:
        raise ReplayError(
            f"replay is for {replay['game']} rules version {replay['game_version']}, "
            f"this arena has version {game_cls.spec.version}"
        )
    chance = [e for e in replay["events"] if "chance" in e]
    try:
        game_cls.spec.check_players(replay["players"])
        return game_cls.from_chance(replay["players"], chance, replay["variant"])
    except GameError:
        raise
    except Exception as error:  # a hand-edited deal the referee cannot even lay out
        raise ReplayError(f"the recorded deal is not one of {replay['game']}: {error!r}") from None


def walk(replay: dict[str, Any]) -> Iterator[tuple[dict[str, Any], Game]]:
    """Yield each event with the game state right after it (decisions applied jointly)."""
    return _walk(_new_game(replay), replay["events"])


def _walk(game: Game, events: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], Game]]:
    walker = Walker(game)
    for event in events:
        yield event, walker.step(event)
    walker.finish()


class Walker:
    """The referee stepped through a replay's events one at a time, kept between calls:
    `walk`'s loop, also for a replay still being written (a live match).

    A replay file is untrusted input: a decision is checked against the legal list
    before the referee sees it, so that the referee only ever applies its own values.
    """

    def __init__(self, game: Game):
        self.game = game
        #: The decisions of a joint one waiting for the rest of it, by seat.
        self.pending: dict[int, Decision] = {}

    @classmethod
    def of(cls, replay: dict[str, Any]) -> Walker:
        """At the start of `replay`, its chance outcomes so far given to the referee
        (ChanceExhausted: not even the deal is all there yet)."""
        return cls(_new_game(replay))

    def step(self, event: dict[str, Any], tentative: bool = False) -> Game:
        """The state once `event` happened (a chance or forfeit event changes nothing:
        a decision's chance was drawn when it applied). `tentative`: a decision whose
        chance outcomes may not all be published yet leaves the state as it was when
        the referee runs out of them (ChanceExhausted), to be stepped again later."""
        if "seat" not in event:
            return self.game
        game, seat = self.game, event["seat"]
        if game.is_over() or seat not in game.to_move() or seat in self.pending:
            raise ReplayError(f"seat {seat} is not to move at that point of the replay")
        decision = find_legal(event["decision"], game.legal(seat))
        if decision is None:
            shown = describe(event["decision"], 100)
            raise ReplayError(f"seat {seat} plays {shown}, which is not legal there")
        joint = {**self.pending, seat: decision}
        if set(joint) < set(game.to_move()):
            self.pending = joint
            return game
        before = game.clone() if tentative else None
        try:
            referee_step(game.apply_joint, joint)
        except ChanceExhausted:
            if before is None:
                raise
            self.game = before  # as it was: the decision is stepped again with more chance
            raise
        self.pending = {}
        return game

    def finish(self) -> None:
        """The replay is over: no decision may still wait for the rest of its joint one."""
        if self.pending:
            raise ReplayError("the replay ends in the middle of a joint decision")


def referee_step(step: Callable[..., T], *args: Any) -> T:
    """One referee call on a replay's data: any failure is the file's, not arena's.

    A hand-edited deal (a card that does not exist, a pile of the wrong shape) can
    make a referee fail in ways no rulebook names; for a replay file that is bad
    input, reported in one line.
    """
    try:
        return step(*args)
    except (GameError, ReplayError):
        raise
    except Exception as error:
        raise ReplayError(f"the referee cannot replay this file: {error!r}"[:200]) from None


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
    except Exception:  # any failure of the seeded game means: not this deal
        same = False
    if not same:
        raise ReplayError("the recorded deal is not the one its deal_seed gives")


def verify(replay: dict[str, Any]) -> Outcome:
    """Re-run the replay through the referee; ReplayError unless the outcome matches.

    A void match's replay (`outcome.void`: decision-limit) has no outcome to match:
    its decisions and deal are checked as any replay's, then ReplayError says whether
    the referee does run past the game's `max_decisions` with them.
    """
    try:
        game = _new_game(replay)
        for _event, state in walk(replay):
            game = state
        if "void" in replay["outcome"]:
            _check_deal(replay)
            raise ReplayError(_void_verdict(replay, game))
        if not referee_step(game.is_over):
            raise ReplayError("the replayed game is not over after the last decision")
        outcome = referee_step(game.outcome)
        _check_deal(replay)
    except GameError as error:
        raise ReplayError(f"the referee rejects the replay: {error}") from None
    recorded = replay["outcome"]
    if list(outcome.scores) != list(recorded["scores"]):
        raise ReplayError(
            f"scores {list(outcome.scores)} differ from recorded {recorded['scores']}"
        )
    forfeited = [status != SeatStatus.OK for status in recorded["status"]]
    ranks = final_ranks(outcome, forfeited, game.spec.higher_score_wins)
    accepted = [ranks]
    if outcome.teams is not None:  # team matches recorded before teams were ranked as teams
        accepted.append(
            final_ranks(outcome, forfeited, game.spec.higher_score_wins, seat_counted=True)
        )
    if list(recorded["ranks"]) not in accepted:
        raise ReplayError(f"ranks {ranks} differ from recorded {recorded['ranks']}")
    return outcome


def _void_verdict(replay: dict[str, Any], game: Game) -> str:
    """What replaying a void match showed: the referee ran past the game's decision limit
    (a bug of the referee, as recorded), or it did not (the file is not what it says)."""
    decisions = sum("seat" in event for event in replay["events"])
    limit, why = game.spec.max_decisions, replay["outcome"]["void"]
    if decisions > limit:
        return (
            f"void match ({why}): {game.spec.id} runs past {limit} decisions with these,"
            " as recorded (a referee bug); there is no outcome to check"
        )
    return (
        f"the replay says {why}, but has {decisions} decisions, within {game.spec.id}'s"
        f" max_decisions of {limit}"
    )


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
            text = referee_step(game.describe, seat, event["decision"])
            yield f"{turn:5d}.  {text}  <{names.get(seat)}, {_timing(event)}>{by}"
            if "debug" in event:  # the bot's own words: the caller shows them escaped
                yield f"        debug: {event['debug']}"


def _timing(event: dict[str, Any]) -> str:
    """What a decision took: wall time, what it was charged and the bank left (version 3)."""
    shown = f"{event.get('ms', 0):.2f} ms"
    if "charged_ms" in event:
        shown += f", charged {event['charged_ms']:.2f} ms"
    if "bank_ms" in event:
        shown += f", bank {event['bank_ms']:.0f} ms"
    return shown
