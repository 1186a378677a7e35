"""The byte level under a protocol session: the `Transport` interface, and `FakeTransport`,
a scripted bot in memory that lets protocol tests run without a process.

A transport moves lines and knows nothing of what they mean. It writes the bytes a
session encoded, and gives back the lines the bot wrote one at a time, without their
newline, blank lines dropped. It raises the bot errors of what it sees itself
(arena.protocol.errors): the bot ended or stopped reading (BotCrashed), a deadline
passed (BotTimeout), a line or the output was too long (BotProtocolError). The session
(arena.protocol.session) alone reads the lines as messages. The process transport
(spawn in the sandbox, non-blocking pipes, poll, output caps, the stderr tail) is
`arena.players.process.ProcessTransport`.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Protocol

from arena.protocol.clock import Spent
from arena.protocol.errors import BotCrashed, BotTimeout
from arena.protocol.messages import encode


class Transport(Protocol):
    """What a session needs of the bytes between arena and one bot."""

    #: The last line read (a too-long one cut short), b"" when none is meant: what
    #: `arena bot check` shows of the line that broke the protocol.
    last_line: bytes

    @property
    def last_spent(self) -> Spent:
        """What the last answer of `exchange` cost (arena.protocol.clock.Spent)."""

    def new_match(self) -> None:
        """Start a match's accounts afresh (output budget, stderr tail, unread output)."""

    def write(self, data: bytes, deadline: float) -> None:
        """Write `data` whole before `deadline`; BotTimeout if the bot does not read it."""

    def read_line(self, deadline: float) -> bytes:
        """The bot's next line that is not blank, without its newline, read before `deadline`."""

    def exchange(self, data: bytes, deadline: float) -> bytes:
        """`write` a request, then `read_line` its answer: the hot path of a decision, in
        one call, which may try a read before it waits. `deadline` is on the bot's clock:
        the answer may cost (arena.protocol.clock.charge) up to `deadline` minus now,
        else BotTimeout; `last_spent` says what it cost."""


class FakeTransport:
    """A scripted bot in memory (python-chess's MockTransport): every write must be the
    next one the script expects, and makes the bot answer that write's lines.

    Nothing is timed: a read with nothing left to read is a timeout, or a crash once the
    bot has exited, and an answer costs what its script says (`spent`).

    >>> fake = FakeTransport()
    >>> fake.expect({"type": "quit"})
    >>> fake.write(b'{"type":"quit"}\\n', 0.0)
    >>> fake.assert_done()
    """

    def __init__(self) -> None:
        """An empty script: a bot that expects nothing and says nothing."""
        self.last_line = b""
        #: Matches begun (`new_match`).
        self.matches = 0
        #: Every write, in order.
        self.written: list[bytes] = []
        self._script: deque[tuple[bytes, tuple[bytes, ...], bool, Spent]] = deque()
        self._unread: deque[bytes] = deque()
        self._exited = False
        self._spent = self.last_spent = Spent(0.0, None)

    def expect(
        self,
        message: dict[str, Any] | bytes,
        *replies: str | bytes,
        then_exit: bool = False,
        spent: Spent | None = None,
    ) -> None:
        """Script the next write: `message` (as `messages.encode` writes it, unless given
        as bytes); the bot answers it with `replies`, each one line as a transport gives it
        (no newline, not blank), and with `then_exit` exits after writing them. Answering
        it through `exchange` costs `spent` (nothing by default)."""
        lines = tuple(reply.encode() if isinstance(reply, str) else reply for reply in replies)
        for line in lines:
            if b"\n" in line or not line.strip():
                raise ValueError(f"a transport gives one line that is not blank, not {line!r}")
        data = message if isinstance(message, bytes) else encode(message)
        self._script.append((data, lines, then_exit, spent or Spent(0.0, None)))

    def new_match(self) -> None:
        """Count the match."""
        self.matches += 1

    def write(self, data: bytes, deadline: float) -> None:
        """Check `data` against the script and queue the bot's answer to it."""
        if self._exited:
            raise BotCrashed("stopped reading its input: exited")
        if not self._script:
            raise AssertionError(f"arena wrote {data!r}; the script expected nothing more")
        expected, replies, then_exit, self._spent = self._script[0]
        if data != expected:
            raise AssertionError(f"arena wrote {data!r}; the script expected {expected!r}")
        self._script.popleft()
        self.written.append(data)
        self._unread.extend(replies)
        self._exited = then_exit

    def read_line(self, deadline: float) -> bytes:
        """The bot's next scripted line; BotCrashed once it exited, else BotTimeout."""
        if self._unread:
            line = self.last_line = self._unread.popleft()
            return line
        if self._exited:
            raise BotCrashed("closed its output: exited")
        raise BotTimeout("no answer before the deadline")

    def exchange(self, data: bytes, deadline: float) -> bytes:
        """`write`, then `read_line`: in memory an answer is there at once or never, and
        costs its scripted `spent`: BotTimeout if that is over `deadline` (taken as the
        limit from 0, the fake's now)."""
        self.write(data, deadline)
        line = self.read_line(deadline)
        self.last_spent = self._spent
        if self._spent.charged > deadline:
            raise BotTimeout(f"no answer within its time: {self._spent.describe()}")
        return line

    def assert_done(self) -> None:
        """AssertionError unless arena wrote every message the script expected."""
        if self._script:
            raise AssertionError(f"arena never wrote {self._script[0][0]!r}")
