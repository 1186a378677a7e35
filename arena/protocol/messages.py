"""Bot protocol v1's messages: how they are encoded, decoded and checked.

JSON lines over stdin/stdout; the referee speaks first. The spec for bot authors
is protocol/PROTOCOL.md, with a JSON Schema per message in protocol/schemas/.
This module knows nothing of processes, sessions or any game's internals: the
session (arena.protocol.session) is the one reader of a bot's lines that uses
`decode` and `decision_from`.
"""

from __future__ import annotations

import json
import reprlib
from typing import Any, cast

import orjson

from arena import ArenaError
from arena.games.base import Decision

#: The protocol versions arena speaks: a bot declares one in bot.toml (`protocol`), 1 if
#: it declares none (PROTOCOL.md: version 1 is still served, unchanged).
PROTOCOL_VERSIONS = (1, 2)
#: The version of a bot that declares none.
PROTOCOL_VERSION = 1
#: The version the starter kits and bundled bots speak, and `arena init --kit` writes.
LATEST_PROTOCOL = 2
#: Most of a version-2 decision's `debug` text kept, per decision and per match (UTF-8
#: bytes); beyond, it is cut with a marker (`debug_text`), never a forfeit.
DEBUG_DECISION_BYTES = 1024
DEBUG_MATCH_BYTES = 64 * 1024


class ProtocolError(ArenaError, ValueError):
    """A line from a bot that is not a valid protocol message."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as one line of UTF-8 JSON, newline included."""
    return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)


def decode(line: bytes) -> dict[str, Any]:
    """Parse one line into a message object, or raise ProtocolError."""
    message = message_in(line)
    if message is None:
        raise ProtocolError(_why_not_a_message(line))
    return message


def message_in(line: bytes) -> dict[str, Any] | None:
    """The message object on a line, or None when there is none (`decode` says why).

    The one test of what a message is (a JSON object with a string `type`), raising
    nothing: a session skips lines before `ready` at the cost of a parse, no more.
    """
    try:
        message: dict[str, Any] = orjson.loads(line)  # any JSON value, until it takes a key:
        if type(message["type"]) is str:  # of JSON values only an object does
            return message
    except (orjson.JSONDecodeError, KeyError, TypeError):
        pass
    return None


def lenient_message_in(line: bytes) -> dict[str, Any] | None:
    """`message_in` for a version-2 answer that orjson refused: JSON with a lone UTF-16
    surrogate escape (``"\\ud800"``), which RFC 8259 leaves to the reader, is read with
    each such surrogate as U+FFFD; anything else orjson refuses stays refused."""
    try:
        message = json.loads(line, parse_constant=_no_constant)
    except (ValueError, RecursionError, TypeError):
        return None
    if type(message) is not dict or type(message.get("type")) is not str:
        return None
    return cast(dict[str, Any], _without_surrogates(message))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _without_surrogates(value: Any) -> Any:
    """`value` with every lone surrogate in its strings as U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value


def debug_text(value: Any, left: int) -> tuple[str, int]:
    """What is kept of a decision's `debug` value, and its UTF-8 size, with `left` bytes
    left of the match's DEBUG_MATCH_BYTES: at most DEBUG_DECISION_BYTES and `left`, cut at
    a character with a marker that says how much was cut; a value that is no string is
    replaced by a marker. The text is kept as the bot sent it (markup, ANSI, anything):
    whoever shows it escapes it.

    >>> debug_text("héllo wörld", 4)
    ('hél[debug cut: 4 of 13 bytes kept]', 4)
    >>> debug_text(["not", "text"], 100)
    ('[debug ignored: not a string]', 0)
    """
    if not isinstance(value, str):
        return "[debug ignored: not a string]", 0
    data = value.encode("utf-8", "surrogatepass")
    keep = min(DEBUG_DECISION_BYTES, max(0, left))
    if len(data) <= keep:
        return value, len(data)
    kept = data[:keep].decode("utf-8", "ignore")  # a character cut in two is dropped
    size = len(kept.encode("utf-8", "surrogatepass"))
    return f"{kept}[debug cut: {size} of {len(data)} bytes kept]", size


def _why_not_a_message(line: bytes) -> str:
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return f"not JSON: {_clip(line)}"
    return f"not a message object with a type: {_clip(line)}"


def text_of(data: bytes | bytearray) -> str:
    """Bytes a bot wrote as text, losslessly: a byte that is not UTF-8 becomes a lone
    surrogate (`surrogateescape`, 0xff as U+DCFF), which the store keeps and
    `text.encode("utf-8", "surrogateescape")` turns back into the byte; screens and
    replays spell it `\\xff` (arena.controls). "replace" made every such byte U+FFFD."""
    return data.decode("utf-8", "surrogateescape")


def _clip(line: bytes, limit: int = 120) -> str:
    text = text_of(line[:limit])
    return text + ("..." if len(line) > limit else "")


def start_message(
    *,
    match: str,
    game: str,
    game_version: int,
    variant: dict[str, Any],
    players: int,
    seat: int,
    seed: int,
    decision_timeout_ms: int,
    protocol: int = PROTOCOL_VERSION,
    time_control: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The first message of a match to one seat; the bot answers `ready`.

    `match` and `seed` must come from arena.match.seeds (an opaque id, a keyed seed): a bot
    must not be able to compute anything hidden, such as the deal, from them. Version 1
    announces the first decision's limit (`decision_timeout_ms`); version 2 the time
    control (arena.protocol.clock.TimeControl.message, with `startup_ms`).
    """
    message: dict[str, Any] = {
        "type": "start",
        "protocol": protocol,
        "match": match,
        "game": game,
        "game_version": game_version,
        "variant": variant,
        "players": players,
        "seat": seat,
        "seed": seed,
    }
    if protocol == 1:
        message["decision_timeout_ms"] = decision_timeout_ms
    else:
        message["time_control"] = time_control
    return message


def decide_message(
    request_id: int,
    observation: dict[str, Any],
    legal: list[Decision],
    deadline_ms: int,
    time: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Ask a seat for one decision; the answer must copy one element of `legal`.

    Version 1 gives the longest the answer may take (`deadline_ms`); version 2, with
    `time` given, the seat's clock (arena.protocol.clock.SeatClock.request) instead.
    """
    message: dict[str, Any] = {
        "type": "decide",
        "id": request_id,
        "observation": observation,
        "legal": legal,
    }
    if time is None:
        message["deadline_ms"] = deadline_ms
    else:
        message["time"] = time
    return message


def end_message(
    match: str, seat: int, scores: list[float], ranks: list[int], status: list[str]
) -> dict[str, Any]:
    """The result of a match, sent to every seat still playing; no answer expected."""
    return {
        "type": "end",
        "match": match,
        "seat": seat,
        "result": {"scores": scores, "ranks": ranks, "status": status},
    }


QUIT: dict[str, Any] = {"type": "quit"}


def decision_from(message: dict[str, Any], request_id: int) -> Any:
    """The decision in an answer to request `request_id` (not yet checked for legality).

    The `id` must be the JSON integer of the request: ``true`` or ``1.0`` is not ``1``.
    """
    if message.get("type") != "decision":
        raise ProtocolError(f"expected decision, got {_short(message.get('type'))}")
    answered = message.get("id")
    if type(answered) is not int or answered != request_id:
        raise ProtocolError(f"answer to request {_short(answered)}, expected {request_id}")
    if "decision" not in message:
        raise ProtocolError("decision message without a decision")
    return message["decision"]


def _short(value: Any) -> str:
    """A bot's value for an error message: short, and safe for any nesting depth."""
    return reprlib.repr(value)


def find_legal(decision: Any, legal: list[Decision]) -> Decision | None:
    """The element of `legal` equal to `decision` as JSON, or None (the caller forfeits as illegal).

    Returning the referee's own copy means a bot's value such as ``true`` for ``1``
    can never reach the referee. Nothing of the bot's value is re-encoded: a value
    nested deeper than any encoder allows is simply not equal to any candidate.
    """
    for candidate in legal:
        if candidate == decision and same_types(candidate, decision):
            return candidate
    return None


def same_types(ours: Any, theirs: Any) -> bool:
    """Whether two decoded JSON values that Python finds equal (``==``) are the same JSON.

    Python's ``==`` takes ``1 == 1.0 == True``; JSON does not. Equal values have the
    same keys and lengths already, so only the types are left to compare. The recursion
    follows `ours` (the referee's shallow value), so a bot's deeply nested value costs
    no more than the referee's own.

    >>> same_types({"a": [1, "x"]}, {"a": [1, "x"]}), same_types([1], [True]), same_types(1, 1.0)
    (True, False, False)
    """
    kind = type(ours)
    if kind is not type(theirs):
        return False
    if kind is dict:
        # a plain loop: decisions are small dicts of scalars, checked once per decision
        for key, value in ours.items():
            other = theirs[key]
            if type(other) is not type(value):
                return False
            if type(value) not in _SCALARS and not same_types(value, other):
                return False
        return True
    if kind is list:
        return all(map(same_types, ours, theirs))
    return True


_SCALARS = frozenset((str, int, float, bool, type(None)))


def describe(value: Any, limit: int = 200) -> str:
    """A short JSON text of a bot's value for a forfeit detail; never fails.

    A bot may send values no encoder accepts (nested ~255+ deep for orjson, ~1000 for
    Python's recursion limit); those are summarised instead of encoded.
    """
    try:
        text = orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        return f"a {type(value).__name__} nested too deep to show"
    return text if len(text) <= limit else text[:limit] + "..."
