"""A protocol session: one bot's side of the protocol (version 1 or 2), over a transport.

The session alone knows the protocol: it encodes what arena sends (start, decide, end,
quit), reads the bot's lines through its transport (arena.protocol.transport) and
judges them with `messages.decode` (`message_in`, which raises nothing, where a line
may be skipped or is most likely an answer) and `messages.decision_from`, the one place
those checks are written. A line that is no valid answer is BotProtocolError; the
transport's own errors (a crash, a timeout, a line too long) pass through as they are.
Every line is logged both ways at debug level, exactly as it went over the pipe:
"name << line" to the bot, "name >> line" from it.

The versions differ in what arena sends (the caller builds the messages for
`protocol`: arena.protocol.messages) and in what an answer may carry: a version-2
decision's `debug` text is kept (`last_debug`, within the per-decision and per-match
budgets of `messages.debug_text`), and its JSON may hold lone surrogate escapes
(`messages.lenient_message_in`). A version-1 answer is read exactly as it always was.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Generic, TypeVar

from arena.protocol.errors import BotProtocolError
from arena.protocol.messages import (
    DEBUG_MATCH_BYTES,
    PROTOCOL_VERSION,
    QUIT,
    ProtocolError,
    debug_text,
    decision_from,
    decode,
    encode,
    lenient_message_in,
    message_in,
    text_of,
)
from arena.protocol.transport import Transport

LOG = logging.getLogger("arena.bot")

#: Most lines a bot may write before `ready` in one match, blank lines aside: each costs
#: arena a parse, so their number is bounded, not only their bytes.
MAX_LINES_BEFORE_READY = 10_000

T = TypeVar("T", bound=Transport)


class Session(Generic[T]):
    """The protocol with one bot over `transport`; it may play several matches in a row."""

    def __init__(self, name: str, transport: T, protocol: int = PROTOCOL_VERSION):
        """Speak version `protocol` to the bot called `name` (in logs) over `transport`."""
        self.name = name
        self.transport = transport
        #: The protocol version the bot declared (bot.toml `protocol`).
        self.protocol = protocol
        #: The kept `debug` text of the last answer (version 2), None when it had none.
        self.last_debug: str | None = None
        self._debug_left = DEBUG_MATCH_BYTES
        #: The last message arena wrote to the bot, as bytes: what `arena bot check`
        #: shows for a forfeit, beside the line the bot answered (`last_line`).
        self.last_sent = b""
        self._debug = LOG.isEnabledFor(logging.DEBUG)

    @property
    def last_line(self) -> bytes:
        """The last line read from the bot, as bytes (`Transport.last_line`)."""
        return self.transport.last_line

    def start_match(self, message: dict[str, Any], deadline: float) -> None:
        """Send `start` and wait for `ready` before the start-up deadline.

        Lines before `ready` are skipped, whatever they are: a runtime's banner, or
        what a reused process wrote after the previous `end` and arena had not yet
        read. The deadline, the output budget and MAX_LINES_BEFORE_READY bound them.
        """
        self.transport.new_match()
        self._debug_left = DEBUG_MATCH_BYTES
        self.send(message, deadline)
        for _ in range(MAX_LINES_BEFORE_READY + 1):
            reply = message_in(self._logged(self.transport.read_line(deadline)))
            if reply is not None and reply["type"] == "ready":
                return
            if self._debug:
                LOG.debug("%s: skipped a line before ready", self.name)
        raise BotProtocolError(f"wrote more than {MAX_LINES_BEFORE_READY} lines before ready")

    def decide(self, message: dict[str, Any], deadline: float) -> Any:
        """Send a `decide` request and return the decision the bot answered (not yet
        checked for legality: `messages.find_legal`).

        This is the per-decision hot path: the request is written and its answer read in
        one call (`Transport.exchange`), which may read before it waits.
        """
        # the limit is fixed now and counts from the write: arena's own work on the
        # request (or its own wait for a CPU meanwhile) is not the bot's time
        limit = deadline - time.monotonic()
        data = self.last_sent = encode(message)
        if self._debug:
            LOG.debug("%s << %s", self.name, text_of(data[:-1]))
        line = self.transport.exchange(data, time.monotonic() + limit)
        if self._debug:
            LOG.debug("%s >> %s", self.name, text_of(line))
        reply = message_in(line)
        if self.protocol == 1:
            try:  # `decode` only to say why a line is no message
                return decision_from(reply if reply is not None else decode(line), message["id"])
            except ProtocolError as error:
                raise BotProtocolError(str(error)) from None
        if reply is None:
            reply = lenient_message_in(line)
        try:
            decision = decision_from(reply if reply is not None else decode(line), message["id"])
        except ProtocolError as error:
            raise BotProtocolError(str(error)) from None
        assert reply is not None
        self.last_debug = None
        if "debug" in reply:
            self.last_debug, size = debug_text(reply["debug"], self._debug_left)
            self._debug_left -= size
        return decision

    def send(self, message: dict[str, Any], deadline: float) -> None:
        """Write a message that has no answer (`end`, `quit`) before `deadline`."""
        data = self.last_sent = encode(message)
        if self._debug:
            LOG.debug("%s << %s", self.name, text_of(data[:-1]))
        self.transport.write(data, deadline)

    def quit(self, deadline: float) -> None:
        """Ask the bot to exit (`quit`)."""
        self.send(QUIT, deadline)

    def receive(self, deadline: float) -> dict[str, Any]:
        """The bot's next message, read before `deadline`; BotProtocolError if the line
        is not one."""
        line = self._logged(self.transport.read_line(deadline))
        try:
            return decode(line)
        except ProtocolError as error:
            raise BotProtocolError(str(error)) from None

    def _logged(self, line: bytes) -> bytes:
        if self._debug:
            LOG.debug("%s >> %s", self.name, text_of(line))
        return line
