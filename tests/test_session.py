"""The protocol session over a scripted bot in memory (arena.protocol.transport.FakeTransport).

What the session sends, what it accepts and what it raises, without a process: the
start/ready handshake, decisions, end and quit, the debug log of every line, and the
status each bot error carries. The byte level (pipes, caps, blank lines, the quick
read) is tests/test_bot_noise.py's and tests/test_bot_input.py's, on real processes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from arena.protocol import messages, session
from arena.protocol.errors import BotCrashed, BotError, BotProtocolError, BotTimeout
from arena.protocol.session import Session
from arena.protocol.transport import FakeTransport
from arena.status import SeatStatus
from tests.test_sandbox import start_message

READY = '{"type": "ready"}'
REQUEST = messages.decide_message(1, {"hand": [3]}, [3, 4], 1000)
LATER = 10.0**9  # deadlines: the fake is never late


@pytest.fixture(autouse=True)
def bot_log(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """arena.bot's records go to caplog alone, the log off (INFO) unless a test turns it
    on: not on to the root's handlers, which a command run earlier in this process leaves
    writing to stderr from a thread (arena.cli's relay), nor at the level it left."""
    logger = logging.getLogger("arena.bot")
    level, propagate = logger.level, logger.propagate
    logger.setLevel(logging.INFO)
    logger.propagate = False
    logger.addHandler(caplog.handler)
    try:
        yield
    finally:
        logger.removeHandler(caplog.handler)
        logger.propagate = propagate
        logger.setLevel(level)


def started(*lines: str, then_exit: bool = False) -> tuple[Session[FakeTransport], FakeTransport]:
    """A session past `ready` whose bot answers the first request with `lines`."""
    fake = FakeTransport()
    fake.expect(start_message(), READY)
    fake.expect(REQUEST, *lines, then_exit=then_exit)
    bot = Session("scripted", fake)
    bot.start_match(start_message(), LATER)
    return bot, fake


def test_a_decision_is_the_answer_to_its_request() -> None:
    bot, fake = started('{"type": "decision", "id": 1, "decision": 4}')
    assert bot.decide(REQUEST, LATER) == 4
    fake.assert_done()
    assert fake.matches == 1
    assert bot.last_sent == messages.encode(REQUEST)
    assert bot.last_line == b'{"type": "decision", "id": 1, "decision": 4}'


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("decision 4", "not JSON"),
        ("[1, 2]", "not a message object with a type"),
        ('{"id": 1, "decision": 4}', "not a message object with a type"),
        ('{"type": "ready"}', "expected decision, got 'ready'"),
        ('{"type": "decision", "id": 2, "decision": 4}', "answer to request 2, expected 1"),
        ('{"type": "decision", "id": true, "decision": 4}', "answer to request True"),
        ('{"type": "decision", "id": 1}', "decision message without a decision"),
    ],
)
def test_an_answer_that_is_no_decision_for_the_request_is_invalid(line: str, why: str) -> None:
    bot, _fake = started(line)
    with pytest.raises(BotProtocolError, match=why) as caught:
        bot.decide(REQUEST, LATER)
    assert caught.value.status is SeatStatus.INVALID
    assert bot.last_line == line.encode()  # what `arena bot check` quotes


def test_an_unchecked_decision_is_returned_as_the_bot_wrote_it() -> None:
    """Legality is the runner's (messages.find_legal): the session only unwraps."""
    bot, _fake = started('{"type": "decision", "id": 1, "decision": {"card": 99}}')
    assert bot.decide(REQUEST, LATER) == {"card": 99}


def test_lines_before_ready_are_skipped_whatever_they_are() -> None:
    fake = FakeTransport()
    noise = ["Python 3.11 ready to serve", "[1, 2]", '{"type": "hello"}', "{", READY]
    fake.expect(start_message(), *noise)
    bot = Session("banner", fake)
    bot.start_match(start_message(), LATER)
    fake.assert_done()


def test_lines_before_ready_are_capped() -> None:
    fake = FakeTransport()
    fake.expect(start_message(), *["x"] * session.MAX_LINES_BEFORE_READY, "{", READY)
    with pytest.raises(BotProtocolError, match="more than 10000 lines before ready"):
        Session("noisy", fake).start_match(start_message(), LATER)


def test_every_match_begins_with_a_start_and_its_ready() -> None:
    fake = FakeTransport()
    for _match in range(2):
        fake.expect(start_message(), READY)
        fake.expect(REQUEST, '{"type": "decision", "id": 1, "decision": 3}')
        fake.expect(messages.end_message("m", 0, [1.0, 0.0], [1, 2], ["ok", "ok"]))
    bot = Session("reused", fake)
    for _match in range(2):
        bot.start_match(start_message(), LATER)
        assert bot.decide(REQUEST, LATER) == 3
        bot.send(messages.end_message("m", 0, [1.0, 0.0], [1, 2], ["ok", "ok"]), LATER)
    fake.assert_done()
    assert fake.matches == 2


def test_end_and_quit_are_written_and_never_wait_for_an_answer() -> None:
    bot, fake = started('{"type": "decision", "id": 1, "decision": 3}')
    bot.decide(REQUEST, LATER)
    end = messages.end_message("m", 0, [1.0, 0.0], [1, 2], ["ok", "timeout"])
    fake.expect(end)
    fake.expect(messages.QUIT)
    bot.send(end, LATER)
    bot.quit(LATER)
    fake.assert_done()
    assert fake.written[-1] == b'{"type":"quit"}\n'


def test_a_silent_bot_times_out_and_an_exited_one_crashed() -> None:
    silent, _fake = started()
    with pytest.raises(BotTimeout) as timeout:
        silent.decide(REQUEST, LATER)
    exited, _fake = started(then_exit=True)
    with pytest.raises(BotCrashed) as crash:
        exited.decide(REQUEST, LATER)
    assert (timeout.value.status, crash.value.status) == (SeatStatus.TIMEOUT, SeatStatus.CRASH)


def test_receive_gives_the_next_message_or_raises_invalid() -> None:
    fake = FakeTransport()
    fake.expect({"type": "ping"}, '{"type": "pong", "n": 1}', "pong")
    bot = Session("pinged", fake)
    bot.send({"type": "ping"}, LATER)
    assert bot.receive(LATER) == {"type": "pong", "n": 1}
    with pytest.raises(BotProtocolError, match="not JSON: pong"):
        bot.receive(LATER)


def test_every_line_is_logged_both_ways_as_it_went_over_the_pipe(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`-vv` shows "name << line" and "name >> line": lines a bot author can copy."""
    fake = FakeTransport()
    fake.expect(start_message(), "banner", '{"type":"ready"}')
    fake.expect(REQUEST, '{"type":"decision","id":1,"decision":3}')
    with caplog.at_level(logging.DEBUG, logger="arena.bot"):
        bot = Session("scripted", fake)
        bot.start_match(start_message(), LATER)
        bot.decide(REQUEST, LATER)
    logged = [r.getMessage() for r in caplog.records if r.name == "arena.bot"]
    start, decide = (messages.encode(m).decode().rstrip("\n") for m in (start_message(), REQUEST))
    assert logged == [
        f"scripted << {start}",
        "scripted >> banner",
        "scripted: skipped a line before ready",
        'scripted >> {"type":"ready"}',
        f"scripted << {decide}",
        'scripted >> {"type":"decision","id":1,"decision":3}',
    ]


def test_nothing_is_logged_unless_the_log_was_on_at_the_start(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bot, _fake = started('{"type": "decision", "id": 1, "decision": 3}')
    with caplog.at_level(logging.DEBUG, logger="arena.bot"):
        bot.decide(REQUEST, LATER)
    assert not [r for r in caplog.records if r.name == "arena.bot"]


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (BotError, SeatStatus.CRASH),
        (BotCrashed, SeatStatus.CRASH),
        (BotTimeout, SeatStatus.TIMEOUT),
        (BotProtocolError, SeatStatus.INVALID),
    ],
)
def test_a_bot_error_carries_the_status_of_its_seat(
    error: type[BotError], status: SeatStatus
) -> None:
    assert error.status is status
    assert error("detail").status is status


def test_the_fake_refuses_what_its_script_does_not_expect() -> None:
    fake = FakeTransport()
    fake.expect(messages.QUIT)
    with pytest.raises(AssertionError, match="the script expected"):
        fake.write(b'{"type":"end"}\n', LATER)
    with pytest.raises(AssertionError, match="never wrote"):
        fake.assert_done()
    with pytest.raises(ValueError, match="not blank"):
        fake.expect(messages.QUIT, "   ")
