"""A bot subprocess: the process transport, and the bot process that speaks protocol v1 over it.

`ProcessTransport` moves a bot's bytes, and never lets the referee block on a bot:
every read and write waits in `poll` with the time left before the deadline, stdout
is read in large chunks with `os.read` (one system call per chunk, not per byte),
lines and the output per match are capped, and stderr is drained into a bounded tail
whenever the bot is being waited on. It knows nothing of what a line means.

`BotProcess` is what the pool hands out and the match runner plays: a protocol session
(arena.protocol.session.Session: start/ready, decide/decision, end, quit, and the
"name << line" / "name >> line" debug log) over a ProcessTransport, with the process's
life cycle (spawn, close) and what the pool keeps of it.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import select
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.protocol.clock import HEAD_S, WALL_FACTOR, Spent
from arena.protocol.errors import BotCrashed, BotError, BotProtocolError, BotTimeout
from arena.protocol.messages import PROTOCOL_VERSION, text_of
from arena.protocol.session import Session
from arena.sandbox.handle import Sandboxed
from arena.sandbox.limits import Limits
from arena.sandbox.start import launch
from arena.sandbox.uids import SandboxError

#: Longest line a bot may send (bytes); longer is a protocol violation.
MAX_LINE_BYTES = 1024 * 1024
#: Longest line of a version-2 bot: its answers may carry a long `debug` text, which is
#: cut, never forfeited (PROTOCOL.md); the output per match stays capped.
MAX_LINE_BYTES_V2 = 16 * 1024 * 1024
#: Most a bot may write to stdout during one match.
MAX_STDOUT_BYTES_PER_MATCH = 64 * 1024 * 1024
#: How much of an over-long line is kept to show (`last_line`).
MAX_SHOWN_BYTES = 4096
#: How much of a bot's stderr is kept (the last part).
STDERR_TAIL_BYTES = 8 * 1024
#: Longest single wait before checking that the bot still runs: inside bubblewrap a bot
#: that closes its stdout gives no end-of-file, so its process is watched too.
_WATCH_S = 0.25
_READ_CHUNK = 65536
#: `exchange` reads before any poll (tests turn it off to compare with `read_line`).
_READ_FIRST = True
_POLL_IN = select.POLLIN | select.POLLPRI
_POLL_END = select.POLLHUP | select.POLLERR | select.POLLNVAL
#: A run of blank lines (whitespace as bytes.strip sees it) up to its last newline: one
#: match drops any number of them at C speed, so a bot padding its answers with blank
#: lines costs arena about what it costs the bot to write them.
_BLANK_LINES = re.compile(rb"[ \t\n\r\x0b\x0c]*\n")


class ProcessTransport:
    """A bot subprocess's pipes (arena.protocol.transport.Transport): started in its
    sandbox, read and written without ever blocking past a deadline."""

    def __init__(self, argv: Sequence[str], folder: Path, limits: Limits | None = None):
        """Remember how to start the bot; `spawn` starts it."""
        self.argv = list(argv)
        self.folder = folder
        self.limits = limits or Limits()
        self.process: subprocess.Popen[bytes] | None = None
        self.sandbox: Sandboxed | None = None
        self._buffer = bytearray()
        self._stderr = bytearray()
        self._stdout_bytes = 0
        #: Matches this process was given (a `start` sent or about to be).
        self.matches_started = 0
        self._poller = select.poll()
        #: The last line read from the bot, as bytes (`Transport.last_line`).
        self.last_line = b""
        #: When the process was started.
        self.spawned_at = 0.0
        #: What the last answer cost (`exchange`).
        self._spent: Spent | None = Spent(0.0, None)
        self._fast_wall = 0.0
        self._fast_head = False
        #: The bot's CPU clock at the end of its last answer that read it (None: none yet).
        self._cpu_mark: float | None = None
        #: Whether the last answer was slow, so that the clocks are read before the next
        #: request is written (`_Marks`): a bot that answers at once costs no reading.
        self._mark_next = False
        #: Longest line the bot may send (MAX_LINE_BYTES; MAX_LINE_BYTES_V2 for version 2).
        self.max_line = MAX_LINE_BYTES

    # ----- life cycle ----------------------------------------------------
    def spawn(self) -> None:
        """Start the process; BotCrashed if it cannot be executed.

        SandboxError (the sandbox could not be set up) is the platform's failure
        and propagates, so that the match is void rather than the bot forfeited.
        """
        self.spawned_at = time.monotonic()
        try:
            self.sandbox = launch(self.argv, self.folder, self.limits)
        except SandboxError:
            raise
        except OSError as error:
            raise BotCrashed(f"could not start {self.argv[0]}: {error.strerror}") from None
        self.process = self.sandbox.process
        assert self.process.stdin and self.process.stdout and self.process.stderr
        self._in = self.process.stdin.fileno()
        self._out = self.process.stdout.fileno()
        self._err = self.process.stderr.fileno()
        for fd in (self._in, self._out, self._err):
            os.set_blocking(fd, False)
        # FileIO.read answers None where os.read would raise BlockingIOError: a miss
        # costs no exception on the hot path (`exchange`)
        self._out_raw = io.FileIO(self._out, closefd=False)
        self._poller.register(self._out, _POLL_IN)
        # what a poll gives when stdout alone is ready (`_first_chunk`)
        self._ready_out = [(self._out, select.POLLIN)]
        self._poller.register(self._err, _POLL_IN)

    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self.process is not None and self.process.poll() is None

    def close(self) -> None:
        """Kill the bot and everything it started, and close its pipes. Idempotent."""
        process = self.process
        if process is None:
            return
        with contextlib.suppress(OSError):
            self._drain_stderr()
        if self.sandbox is not None:
            self.sandbox.kill()
            self.sandbox = None
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self.process = None

    def cpu_worn_out(self) -> bool:
        """True when the process has used half of its CPU-time limit."""
        used = self.sandbox.cpu_seconds() if self.sandbox is not None else 0.0
        return used >= self.limits.cpu_seconds / 2

    def new_match(self) -> None:
        """Start a match's accounts afresh: output budget, stderr tail, unread output.

        A reused process may have written after the last match's `end`; that output
        belongs to no match and is discarded, so that a reused process and a fresh one
        give the same results (PROTOCOL.md: "Between matches"). What a fresh process
        wrote since it started belongs to its first match: a bot that fails at start-up
        has its traceback there.
        """
        self._buffer.clear()
        self._stdout_bytes = 0
        self._cpu_mark = None  # what it used between matches is no answer's
        if self.matches_started:
            with contextlib.suppress(OSError, AttributeError):
                self._drain_stderr()
                self._discard_stdout()
            self._stderr.clear()
        self.matches_started += 1

    def _discard_stdout(self) -> None:
        """Read and drop what is already on stdout (at most one match's output budget)."""
        dropped = 0
        while dropped < MAX_STDOUT_BYTES_PER_MATCH:
            try:
                chunk = os.read(self._out, _READ_CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                return
            dropped += len(chunk)

    def stderr_tail(self) -> str:
        """The last part of what the bot wrote to stderr."""
        with contextlib.suppress(OSError, AttributeError):
            self._drain_stderr()
        return text_of(self._stderr)

    # ----- writing ---------------------------------------------------------
    def write(self, data: bytes, deadline: float) -> None:
        """Write `data` whole; a bot that does not read cannot block us past `deadline`."""
        self._write_all(memoryview(data), deadline)

    def _write_all(self, view: memoryview, deadline: float) -> None:
        while view:
            try:
                written = os.write(self._in, view)
            except BlockingIOError:
                self._wait_writable(deadline)
                continue
            except OSError as error:
                raise BotCrashed(self._exit_text("stopped reading its input")) from error
            view = view[written:]

    def _wait_writable(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise BotTimeout("did not read its input before the deadline")
        poller = select.poll()
        poller.register(self._in, select.POLLOUT)
        poller.poll(max(1, int(left * 1000)))
        self._drain_stderr()

    # ----- reading ---------------------------------------------------------
    def exchange(self, data: bytes, deadline: float) -> bytes:
        """Write a request whole and return the bot's next line, its answer, as `write`
        and `read_line` would, with `last_spent` set to what the answer cost.

        `deadline` is on the bot's own clock (arena.protocol.clock.charge): the answer may
        cost up to `deadline` minus now, counted as the CPU time of the bot's process tree
        (its cgroup), or a third of the wall time if that is more; where no CPU is counted,
        as wall time. Host load therefore does not run a bot out of time.

        This is the per-decision hot path, so the common case (the whole request written
        at once, then one read giving exactly one whole line that is not blank) takes the
        fewest steps, two system calls and no CPU reading (it took microseconds: its wall
        time is charged); anything else goes to `_write_all` and `_read_charged`, which
        handle it in full, with the bytes already read put back first.
        """
        began = time.monotonic()
        limit = deadline - began
        marks = self._marks() if self._mark_next else None
        try:
            written = os.write(self._in, data)
        except BlockingIOError:
            written = 0
        except OSError as error:
            raise BotCrashed(self._exit_text("stopped reading its input")) from error
        if written == len(data) and not self._buffer and _READ_FIRST:
            try:
                chunk = self._out_raw.read(_READ_CHUNK) or b""
            except OSError:
                chunk = b""
            if chunk:  # see `_first_chunk`
                self._stdout_bytes += len(chunk)
                if self._stdout_bytes > MAX_STDOUT_BYTES_PER_MATCH:
                    raise BotProtocolError("wrote more than the output allowed per match")
                if chunk.find(b"\n") == len(chunk) - 1 and not chunk.isspace():  # one line
                    line = self.last_line = chunk[:-1]
                    wall = self._fast_wall = time.monotonic() - began
                    self._spent = None  # made when asked for (`last_spent`): no allocation here
                    self._fast_head = self._mark_next = False
                    if wall > HEAD_S:  # arena itself was held up, or the bot computed
                        self._late_first_read(Spent(wall, None), limit, marks)
                    return line
                self._buffer += chunk
        return self._read_charged(data, written, began, limit, marks)

    def _marks(self) -> _Marks | None:
        """The clocks before a request, read only after a slow answer (`_Marks`)."""
        cpu = self._cpu_seconds()
        return None if cpu is None else _Marks(cpu, self._run_delay(), own_run_delay())

    @property
    def last_spent(self) -> Spent:
        """What the last answer of `exchange` cost (arena.protocol.clock.Spent)."""
        spent = self._spent
        if spent is not None:
            return spent
        wall = self._fast_wall
        if self._fast_head and self.sandbox is not None and self.sandbox.counts_cpu:
            return Spent(wall, 0.0, head=wall)  # found by the first wait: charged as a head
        return Spent(wall, None)

    def _late_first_read(self, spent: Spent, limit: float, marks: _Marks | None) -> None:
        """An answer that was there at the first read, but later than an instant one (on
        one core the bot may have computed all along; or arena's own thread waited for a
        CPU, and its wall time is not the bot's): charged the bot's CPU, or a third of the
        wall time if more, as any answer; BotTimeout when that is over the limit.
        With `marks` (the clocks read before the request) the CPU is this answer's own and
        the waits for a CPU, the bot's and arena's, are left out of the wall part. Without
        them, the CPU since the mark counts at most the wall time (the mark may be older
        than the answers before this one); without a mark, `spent` as it was estimated."""
        now = self._cpu_seconds()
        self._mark_next = True  # not an instant answer: read the clocks before the next
        if marks is not None and now is not None:
            self._spent = marks.spent(spent.wall, now, self._run_delay(), own_run_delay())
        elif now is not None and self._cpu_mark is not None:
            self._spent = Spent(spent.wall, min(max(0.0, now - self._cpu_mark), spent.wall))
        else:
            self._spent = spent
        self._cpu_mark = now
        if self._spent.charged > limit:
            what = self._spent.describe()
            raise BotTimeout(f"no answer within its time: {what} of {limit * 1000:.0f} ms")

    def _read_charged(
        self, data: bytes, written: int, began: float, limit: float, marks: _Marks | None
    ) -> bytes:
        """The rest of `exchange` when the answer was not there at once.

        The first wait (up to HEAD_S) reads no clock: an answer in by then is charged its
        wall time, as on the fast path. After it, the bot's CPU clock and its main
        process's run delay are read (from then on its time is counted as CPU, or a third
        of the wall time it did not wait for a CPU), then whenever the wall time says the
        answer could be over its limit, and once the answer is in; the wait before the
        first reading is charged as a head (`Spent.head`: its first HEAD_S in full).
        With `marks` (the last answer was slow, so the clocks were read before the
        request) there is no head: the bot's CPU counts from the request, and nothing
        is left to the head's estimate.
        """
        if written != len(data):
            self._write_all(memoryview(data)[written:], began + limit * WALL_FACTOR)
        self.last_line = b""
        if not self._buffer and _READ_FIRST:
            chunk = self._first_chunk(min(began + HEAD_S, began + limit))
            if chunk:
                self._stdout_bytes += len(chunk)
                if self._stdout_bytes > MAX_STDOUT_BYTES_PER_MATCH:
                    raise BotProtocolError("wrote more than the output allowed per match")
                if chunk.find(b"\n") == len(chunk) - 1 and not chunk.isspace():  # one line
                    line = self.last_line = chunk[:-1]
                    wall = self._fast_wall = time.monotonic() - began
                    self._spent = None  # made when asked for (`last_spent`), as a head
                    self._fast_head, self._mark_next = True, False
                    if wall > 2 * HEAD_S:  # the poll's wake-up came late: arena was held up
                        self._late_first_read(self.last_spent, limit, marks)
                    return line
                self._buffer += chunk
        watch = _Watch(began, limit, self._cpu_seconds, self._run_delay, marks, self._runnable)
        self._mark_next = watch.cpu_at is not None
        while True:
            try:
                line = self.read_line(watch.next_check())
                break
            except BotTimeout:
                if watch.over():
                    raise BotTimeout(watch.verdict()) from None
        self._spent = watch.spent()
        self._cpu_mark = watch.cpu_now
        if self._spent.charged > limit:
            raise BotTimeout(watch.verdict(self._spent))
        return line

    def _cpu_seconds(self) -> float | None:
        """The CPU seconds the bot's process tree has used (None: not counted here)."""
        return self.sandbox.tree_cpu_seconds() if self.sandbox is not None else None

    def _runnable(self) -> bool:
        """Whether the bot's main process is running or waiting for a CPU right now."""
        return self.sandbox.runnable() if self.sandbox is not None else False

    def _run_delay(self) -> float | None:
        """How long the bot's main process has waited for a CPU so far (None: unknown)."""
        return self.sandbox.run_delay_seconds() if self.sandbox is not None else None

    def _first_chunk(self, deadline: float) -> bytes:
        """What one read gives once stdout is ready, within `_WATCH_S`; else b"".

        `exchange` tries one read before any poll: on one core the bot has usually
        answered by the time our write returns (the kernel runs the woken reader
        first), and a round trip then takes two system calls, as a plain blocking echo
        does. When it has not, this waits for stdout alone to become ready; anything
        else (stderr, end of file, a longer wait) is left to `read_line`.
        """
        left = min(deadline - time.monotonic(), _WATCH_S)
        if left <= 0 or self._poller.poll(int(left * 1000 + 0.999)) != self._ready_out:
            return b""
        return self._out_raw.read(_READ_CHUNK) or b""

    def read_line(self, deadline: float) -> bytes:
        """The next line the bot wrote that is not blank (without its newline), read before
        `deadline`.

        Blank lines are dropped a run at a time (`_BLANK_LINES`), and only once a newline
        has come: a run still growing is not scanned again at every read. Blank lines in
        a row count as one line for MAX_LINE_BYTES: a bot cannot make arena read without
        end for one answer, and the verdict does not depend on how fast arena reads.
        """
        buffer = self._buffer
        blank_bytes = 0
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                if len(buffer) > self.max_line:
                    self.last_line = bytes(buffer[:MAX_SHOWN_BYTES])
                    raise BotProtocolError(f"line longer than {self.max_line} bytes")
                self._read_some(deadline)
                continue
            blank = _BLANK_LINES.match(buffer)
            if blank is None:
                break
            blank_bytes += blank.end()
            if blank_bytes > MAX_LINE_BYTES:
                raise BotProtocolError(f"more than {MAX_LINE_BYTES} bytes of blank lines in a row")
            del buffer[: blank.end()]
            self.last_line = b""
        line = self.last_line = bytes(buffer[:end])
        del buffer[: end + 1]
        return line

    def _read_some(self, deadline: float) -> None:
        """Wait for output until the deadline and read what is there."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise BotTimeout("no answer before the deadline")
        events = self._poller.poll(max(1, int(min(left, _WATCH_S) * 1000 + 0.999)))
        if not events and self.process is not None and self.process.poll() is not None:
            raise BotCrashed(self._exit_text("stopped"))
        for fd, event in events:
            if fd == self._err:
                self._drain_stderr(event)
                continue
            try:
                chunk = os.read(self._out, _READ_CHUNK)
            except BlockingIOError:
                continue  # woken without data after all
            except OSError as error:
                raise BotCrashed(self._exit_text(f"output failed ({error.strerror})")) from None
            if not chunk:
                raise BotCrashed(self._exit_text("closed its output"))
            self._stdout_bytes += len(chunk)
            if self._stdout_bytes > MAX_STDOUT_BYTES_PER_MATCH:
                raise BotProtocolError("wrote more than the output allowed per match")
            self._buffer += chunk

    def _drain_stderr(self, event: int = select.POLLIN) -> None:
        """Move whatever is on stderr into the bounded tail."""
        if not event & (_POLL_IN | _POLL_END):
            return
        while True:
            try:
                chunk = os.read(self._err, _READ_CHUNK)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                with contextlib.suppress(KeyError, ValueError):
                    self._poller.unregister(self._err)
                return
            self._stderr += chunk
            if len(self._stderr) > STDERR_TAIL_BYTES:
                del self._stderr[: len(self._stderr) - STDERR_TAIL_BYTES]

    def _exit_text(self, what: str) -> str:
        """Describe a dead or deaf bot, with its exit status when it has one."""
        process = self.process
        code = None
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = process.wait(timeout=0.05)
        if code is None:
            return what
        by_signal = -code if code < 0 else None
        if code > 128 and self.sandbox is not None and self.sandbox.sandboxed:
            by_signal = code - 128  # as bubblewrap reports it
        if by_signal == signal.SIGXCPU:  # the kernel's CPU-time rlimit: name it, as judges do
            seconds = self.limits.cpu_seconds
            return f"{what}: killed at the CPU-time limit ({seconds} s of CPU for one process)"
        ended = f"exited with code {code}" if by_signal is None else f"killed by signal {by_signal}"
        # The kernel's memory-limit kill is a SIGKILL like any other: only the cgroup knows.
        note = self.sandbox.exit_note() if self.sandbox is not None else ""
        if note and by_signal == 9:
            return f"{what}: {note}"
        if note:
            return f"{what}: {ended} after a process of it was {note}"
        return f"{what}: {ended}"


def own_run_delay() -> float | None:
    """How long the calling thread (arena's) has waited, ready to run, for a CPU so far
    (its schedstat's second field); None where it cannot be read. While arena waits for
    an answer it sleeps in poll, so this grows only when arena, woken by the answer or
    for a look, waits for a CPU: the time it noticed the answer late."""
    try:
        return int(_own_schedstat().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


class _OpenFile:
    """A file descriptor closed when the last reference to it goes (its thread ends)."""

    def __init__(self, path: str):
        self.fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)

    def __del__(self) -> None:
        with contextlib.suppress(OSError, AttributeError):
            os.close(self.fd)


#: Each thread's /proc/thread-self/schedstat, kept open (one pread a look, not an open,
#: a read and a close), closed with its thread; a forked child starts afresh.
_OWN = threading.local()


def _forget_own() -> None:
    global _OWN
    _OWN = threading.local()  # the parent's files name the parent's threads


os.register_at_fork(after_in_child=_forget_own)


def _own_schedstat() -> bytes:
    own = _OWN
    file = getattr(own, "file", None)
    if file is None:
        file = own.file = _OpenFile("/proc/thread-self/schedstat")
    return os.pread(file.fd, 256, 0)


@dataclass(frozen=True)
class _Marks:
    """The clocks read just before a request: the bot's CPU, its main process's run delay
    and arena's own thread's (None where unknown). Read only when the bot's last answer
    was slow (a few microseconds, against the millisecond such an answer takes), they let
    an answer be charged from its request on, with nothing left to the head's estimate."""

    cpu: float
    delay: float | None
    late: float | None

    def spent(self, wall: float, cpu: float, delay: float | None, own: float | None) -> Spent:
        """What an answer that took `wall` cost, from the clocks read at its end."""
        waited = _grown(self.delay, delay, wall)
        return Spent(
            wall, max(0.0, cpu - self.cpu), waited, 0.0, _grown(self.late, own, wall - waited)
        )


def _grown(before: float | None, after: float | None, most: float) -> float:
    """How much a run-delay clock grew (0 where unknown), at most `most`."""
    if before is None or after is None:
        return 0.0
    return min(max(0.0, after - before), max(0.0, most))


class _Watch:
    """One slow answer's clock: when to look again, and whether it is over its limit.

    Between looks arena sleeps in `poll`; it reads the bot's CPU clock (and its main
    process's run delay) only at a look. CPU time grows at most as fast as wall time (the
    bot's cgroup has at most one core), so after a look that found `charged` of `limit`
    spent, the next look is due no sooner than `limit - charged` later; a bot without
    CPU accounting is over at its wall limit.
    """

    def __init__(
        self,
        began: float,
        limit: float,
        cpu: Any,
        delay: Any,
        marks: _Marks | None = None,
        runnable: Any = None,
    ):
        self.began, self.limit, self._cpu, self._delay = began, limit, cpu, delay
        #: Whether the bot is running or ready to run now (None: not known).
        self._runnable = runnable
        #: The CPU clock when its counting began, and how long after the request that was.
        self.cpu_at: float | None
        #: Arena's own thread's run delay at the last look (None: not counted): only its
        #: wait for a CPU after that look can have made it late to see the answer; an
        #: earlier wait (a look's wake-up) overlapped the bot's own time.
        self.late_at: float | None
        if marks is not None:  # read before the request: counted from it, no head
            self.cpu_at, self.head, self.delay_at = marks.cpu, 0.0, marks.delay
            self.late_at = own_run_delay()
        else:
            self.cpu_at = cpu()
            self.head = time.monotonic() - began
            self.delay_at = delay() if self.cpu_at is not None else None
            self.late_at = own_run_delay() if self.cpu_at is not None else None
        #: The CPU clock at the last look (`spent`).
        self.cpu_now = self.cpu_at
        #: The most wall time an answer may take, whatever its CPU: WALL_FACTOR x the limit
        #: (more only by what the bot waited for a CPU).
        self.ceiling = limit * WALL_FACTOR if self.cpu_at is not None else limit
        self._due = began + limit
        self._last = Spent(0.0, None)
        self._own: float | None = None

    def next_check(self) -> float:
        """The wall deadline of the next wait: the next look at the clock."""
        return self._due

    def spent(self) -> Spent:
        """What the answer has cost so far."""
        wall = time.monotonic() - self.began
        if self.cpu_at is None:
            return Spent(wall, None)
        self.cpu_now = now = self._cpu()
        if now is None:
            return Spent(wall, None)
        delay = self._delay() if self.delay_at is not None else None
        waited = 0.0 if delay is None or self.delay_at is None else max(0.0, delay - self.delay_at)
        head = self.head
        waited = min(waited, wall - head)
        own = self._own = own_run_delay() if self.late_at is not None else None
        late = 0.0 if own is None or self.late_at is None else max(0.0, own - self.late_at)
        late = min(late, wall - head - waited)
        return Spent(wall, max(0.0, now - self.cpu_at), waited, head, late)

    def over(self) -> bool:
        """Look at the clock: True when the answer has used its limit, else when to look next."""
        self._last = spent = self.spent()
        left = self.limit - spent.charged
        if left <= 0 and not self._uncounted_wait(spent):
            return True
        if self._own is not None:
            self.late_at = self._own
        self._due = time.monotonic() + max(left, 0.001)
        return False

    def _uncounted_wait(self, spent: Spent) -> bool:
        """Whether an answer over its limit by the wall part alone may be waiting for a
        CPU right now: the kernel counts a wait in the run delay only once it ends, so a
        bot starved by the machine at this very look would be charged its wait. Then the
        verdict waits for the next look, a millisecond on: by then the bot has had a CPU
        (its CPU or its answer counts) or is asleep (its wall time counts). A bot cannot
        stay in that state for free: ready to run, it either runs (CPU) or the machine
        is starved, which is no fault of the bot's."""
        if self._runnable is None or spent.cpu is None or spent.cpu > self.limit:
            return False
        return bool(self._runnable())

    def verdict(self, spent: Spent | None = None) -> str:
        """The timeout's detail: what was charged (`spent`, else the last look), of what limit."""
        spent = spent or (self._last if self._last.wall else self.spent())
        return f"no answer within its time: {spent.describe()} of {self.limit * 1000:.0f} ms"


class BotProcess(Session[ProcessTransport]):
    """One running bot: protocol v1 over its process's pipes; it may play several
    matches in a row."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        folder: Path,
        limits: Limits | None = None,
        protocol: int = PROTOCOL_VERSION,
    ):
        """Remember how to start the bot; `spawn` starts it."""
        super().__init__(name, ProcessTransport(argv, folder, limits), protocol)
        #: The keyed deal seeds of the matches this process was given (arena.players.pool).
        self.deals: set[int] = set()
        #: Seconds from the process's start to its first `ready`.
        self.startup_seconds: float | None = None

    @property
    def protocol(self) -> int:
        """The protocol version the bot speaks (its line limit follows it)."""
        return self._protocol

    @protocol.setter
    def protocol(self, version: int) -> None:
        self._protocol = version
        self.transport.max_line = MAX_LINE_BYTES if version == 1 else MAX_LINE_BYTES_V2

    # ----- the process (its transport's) -----------------------------------
    @property
    def argv(self) -> list[str]:
        """The command the bot is started with."""
        return self.transport.argv

    @property
    def folder(self) -> Path:
        """The bot's folder, where it runs."""
        return self.transport.folder

    @property
    def limits(self) -> Limits:
        """The sandbox's limits for the process."""
        return self.transport.limits

    @property
    def process(self) -> subprocess.Popen[bytes] | None:
        """The running process (None before `spawn` and after `close`)."""
        return self.transport.process

    @property
    def sandbox(self) -> Sandboxed | None:
        """The process's sandbox (None before `spawn` and after `close`)."""
        return self.transport.sandbox

    @property
    def spawned_at(self) -> float:
        """When the process was started (`time.monotonic`)."""
        return self.transport.spawned_at

    @property
    def matches_started(self) -> int:
        """Matches this process was given (a `start` sent or about to be)."""
        return self.transport.matches_started

    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self.transport.alive

    def spawn(self) -> None:
        """Start the process (`ProcessTransport.spawn`)."""
        self.transport.spawn()

    def stderr_tail(self) -> str:
        """The last part of what the bot wrote to stderr."""
        return self.transport.stderr_tail()

    def cpu_worn_out(self) -> bool:
        """True when the process has used half of its CPU-time limit."""
        return self.transport.cpu_worn_out()

    # ----- life cycle ----------------------------------------------------
    def start_match(self, message: dict[str, Any], deadline: float) -> None:
        """`Session.start_match`, timing the process's first `ready` (`startup_seconds`)."""
        super().start_match(message, deadline)
        if self.startup_seconds is None:
            self.startup_seconds = time.monotonic() - self.transport.spawned_at

    def close(self, grace: float = 0.2) -> None:
        """Ask the bot to quit, then kill it and everything it started. Idempotent.

        With `grace` 0 the bot is killed at once (after a forfeit its state is unknown).
        The wait for a polite exit is on a pidfd (`Sandboxed.wait`), so it ends the
        moment the bot has gone, and the kill spawns no process.
        """
        pipes = self.transport
        process = pipes.process
        if process is None:
            return
        if grace > 0 and process.poll() is None:
            with contextlib.suppress(BotError, OSError):
                self.quit(time.monotonic() + grace)
                if pipes.sandbox is not None:
                    pipes.sandbox.wait(grace)
        pipes.close()
