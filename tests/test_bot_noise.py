"""What a bot's noise on stdout costs arena: bounded per byte, and capped per match.

Blank lines are ignored by the protocol and lines before `ready` are skipped; a bot
that sends many of them must not make arena (outside the bot's cgroup) do work per
line. The CPU bound is generous (a loaded 2-core machine): the per-line loop it
replaced spent about 1 s of arena's CPU per MiB of blank lines, the bulk skip a few ms.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from arena.players import process as bot_process
from arena.players.process import BotProcess, ProcessTransport
from arena.protocol import session
from arena.protocol.errors import BotProtocolError
from tests.helpers import TEST_BOTS, bot_ref_for
from tests.test_sandbox import start_message

MIB = 1024 * 1024
#: Arena's CPU per MiB of blank lines that this test accepts (the fix: about 2 ms).
CPU_MS_PER_MIB = 100


def _bot(name: str) -> BotProcess:
    bot = BotProcess(name, bot_ref_for(name).argv, TEST_BOTS / name)
    bot.spawn()
    return bot


def test_blank_lines_before_answers_cost_arena_little_per_byte() -> None:
    """blank_flood writes 0.1 MiB of blank lines before each answer: 30 answers, 3 MiB."""
    bot = _bot("blank_flood")
    try:
        bot.start_match(start_message(), time.monotonic() + 10)
        cpu = time.process_time()
        for request in range(1, 31):
            message = {"type": "decide", "id": request, "legal": [request]}
            assert bot.decide(message, time.monotonic() + 10) == request
        spent_ms = (time.process_time() - cpu) * 1000
    finally:
        bot.close(grace=0)
    assert spent_ms < CPU_MS_PER_MIB * 3, f"{spent_ms:.0f} ms of arena CPU for 3 MiB"


def test_lines_before_ready_are_capped() -> None:
    """noise_before_ready writes 2 Mi tiny lines before ready: a forfeit, after the cap."""
    bot = _bot("noise_before_ready")
    try:
        cpu = time.process_time()
        with pytest.raises(BotProtocolError, match="more than 10000 lines before ready"):
            bot.start_match(start_message(), time.monotonic() + 30)
        spent_ms = (time.process_time() - cpu) * 1000
    finally:
        bot.close(grace=0)
    assert spent_ms < 1000, f"{spent_ms:.0f} ms of arena CPU for {session.MAX_LINES_BEFORE_READY}"


def test_blank_lines_are_skipped_and_the_rest_kept_as_it_was(tmp_path: Path) -> None:
    """Runs of blank lines (bytes.strip's whitespace) go at once; other lines are kept
    whole, leading whitespace included, and a blank run cut by a read waits for more."""
    pipes = ProcessTransport(["true"], tmp_path)
    pipes._buffer = bytearray(b"\n \n\t\r\n\x0b\x0c\n  x \n\n\n{}\n   ")
    deadline = time.monotonic() + 1
    assert pipes.read_line(deadline) == b"  x "
    assert pipes.read_line(deadline) == b"{}"
    assert pipes._buffer == b"   "  # no newline yet: could still be a line's start


def test_blank_lines_in_a_row_count_as_one_line(tmp_path: Path) -> None:
    """Over MAX_LINE_BYTES of blank lines before one answer is a protocol violation,
    however fast arena reads them (so endless_stdout's verdict does not race its deadline)."""
    pipes = ProcessTransport(["true"], tmp_path)
    pipes._buffer = bytearray(b" \n" * (bot_process.MAX_LINE_BYTES // 2) + b"\n{}\n")
    with pytest.raises(BotProtocolError, match="bytes of blank lines in a row"):
        pipes.read_line(time.monotonic() + 1)
    pipes._buffer = bytearray(b" \n" * (bot_process.MAX_LINE_BYTES // 4) + b"{}\n")
    assert pipes.read_line(time.monotonic() + 1) == b"{}"
