"""Bot protocol v1's messages: how they are encoded, decoded and checked.

JSON lines over stdin/stdout; the referee speaks first. The spec for bot authors
is protocol/PROTOCOL.md, with a JSON Schema per message in protocol/schemas/.
This module knows nothing of processes, sessions or any game's internals: the
session (arena.protocol.session) is the one reader of a bot's lines that uses
`decode` and `decision_from`.
"""

from __future__ import annotations

import reprlib
from typing import Any

import orjson

from arena import ArenaError
from arena.games.base import Decision

PROTOCOL_VERSION = 1


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
) -> dict[str, Any]:
    """The first message of a match to one seat; the bot answers `ready`.

    `match` and `seed` must come from arena.match.seeds (an opaque id, a keyed seed): a bot
    must not be able to compute anything hidden, such as the deal, from them.
    """
    return {
        "type": "start",
        "protocol": PROTOCOL_VERSION,
        "match": match,
        "game": game,
        "game_version": game_version,
        "variant": variant,
        "players": players,
        "seat": seat,
        "seed": seed,
        "decision_timeout_ms": decision_timeout_ms,
    }


def decide_message(
    request_id: int, observation: dict[str, Any], legal: list[Decision], deadline_ms: int
) -> dict[str, Any]:
    """Ask a seat for one decision; the answer must copy one element of `legal`."""
    return {
        "type": "decide",
        "id": request_id,
        "observation": observation,
        "legal": legal,
        "deadline_ms": deadline_ms,
    }


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
