"""Matches followed while they are played: from the worker that plays one to the
spectators of the coordinator (the live pages of `arena serve`, arena.service.live).

A worker plays a match with a `Forward` as its watcher (arena.match.run.Watcher),
which hands each message, `(match, kind, payload)` with the spec's match id, to a
`Relay`. In the coordinator's own thread (executors.InProcess) the relay is called
at once; a worker process (executors.Processes) writes each message as one line
on a pipe that a thread of the coordinator reads (`PipeSender`, `PipeReader`): one
write of at most PIPE_BUF bytes is atomic, so a worker killed at any moment leaves
no half message and holds no lock another worker waits for (a multiprocessing
queue has both). A message that would not fit is not sent; the match's spectators
are told it is `LOST` (its page then waits for the recorded replay). The Dask
executor forwards nothing: its matches are followed only once recorded.

The runner (`Following`) turns spec ids into stored match ids and tells the
spectators (any object with `start`, `event` and `end`, as `Live`): a match's view
ends when it is recorded, when its worker died (a rerun starts it again), or when
the run gives it up. A worker's own `END` is not an end for spectators: the match
may wait to be recorded in schedule order, its last frame (over) shown meanwhile.

No debug text and no forfeit detail leaves a worker: no spectator frame shows
them, and the stored replay keeps them.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import select
import threading
from collections.abc import Callable
from typing import Any, Protocol

import orjson

LOG = logging.getLogger("arena.tournament")

#: The kinds of a relayed message.
START, EVENT, END, LOST = "start", "event", "end", "lost"
#: The keys of an event that stay in the worker (no spectator frame shows them).
PRIVATE = frozenset({"debug", "detail"})
#: The pipe's capacity asked for: a slow coordinator rather blocks no worker.
PIPE_BYTES = 2**20
#: The line that tells the reader to stop (no match id is empty).
_STOP = b'["","stop",null]\n'

#: Where a worker's messages go: (spec match id, kind, payload).
Relay = Callable[[str, str, Any], None]


class Spectators(Protocol):
    """Whoever shows matches in play (arena.service.live.Live), by stored match id."""

    def start(self, match_id: int, header: dict[str, Any]) -> None: ...

    def event(self, match_id: int, event: dict[str, Any]) -> None: ...

    def end(self, match_id: int) -> None: ...


class Forward:
    """A run_match watcher that hands its match's messages to `send` (a Relay).

    What `send` raises stops the forwarding of this match, never the match."""

    def __init__(self, match: str, send: Relay):
        self.match, self.send = match, send
        self.broken = False

    def start(self, header: dict[str, Any]) -> None:
        self._send(START, header)

    def event(self, event: dict[str, Any]) -> None:
        self._send(EVENT, {k: v for k, v in event.items() if k not in PRIVATE})

    def end(self, status: str) -> None:
        self._send(END, status)

    def _send(self, kind: str, payload: Any) -> None:
        if self.broken:
            return
        try:
            self.send(self.match, kind, payload)
        except Exception as error:  # a spectator's trouble never touches the match
            self.broken = True
            LOG.warning("match %s: its live view stops: %s", self.match, error)


class PipeSender:
    """A Relay that writes each message as one atomic line on a pipe (a worker's)."""

    def __init__(self, fd: int):
        self.fd = fd

    def __call__(self, match: str, kind: str, payload: Any) -> None:
        line = _line(match, kind, payload)
        if line is None:  # the spectators learn only that this match is lost to them
            os.write(self.fd, _line(match, LOST, None) or b"")
            raise ValueError("a message too large for the pipe")
        os.write(self.fd, line)


def _line(match: str, kind: str, payload: Any) -> bytes | None:
    """The message as one line, None when it is not one atomic write (or not JSON)."""
    try:
        line = orjson.dumps([match, kind, payload]) + b"\n"
    except TypeError:  # a lone surrogate: run_match spells those in the replay's events
        return None
    return line if len(line) <= select.PIPE_BUF else None


class PipeReader:
    """The coordinator's end: a pipe whose write end workers inherit, and the thread
    that relays every line read from it."""

    def __init__(self, relay: Relay):
        self.relay = relay
        self.read_fd, self.write_fd = os.pipe()
        with contextlib.suppress(OSError):  # a smaller pipe only blocks a worker sooner
            fcntl.fcntl(self.write_fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        self.thread = threading.Thread(target=self._read, name="arena-live-relay", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        pending = b""
        while True:
            chunk = os.read(self.read_fd, 65536)
            if not chunk:
                return
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                if line + b"\n" == _STOP:
                    return
                self._relay(line)

    def _relay(self, line: bytes) -> None:
        try:
            match, kind, payload = orjson.loads(line)
            self.relay(match, kind, payload)
        except Exception:  # a bad line or a spectator's bug: the next line is read still
            LOG.exception("a live message was not relayed")

    def close(self) -> None:
        """Stop the thread (the workers are gone: nothing follows the stop line)."""
        with contextlib.suppress(OSError):
            os.write(self.write_fd, _STOP)
            os.close(self.write_fd)
        self.thread.join(30)
        if not self.thread.is_alive():  # else its fd stays open: no number reused under it
            os.close(self.read_fd)


class Following:
    """One run's matches as spectators see them (see the module): `expect` a match
    before it is submitted, `done` once recorded, `close` when the run ends."""

    def __init__(self, spectators: Spectators):
        self.spectators = spectators
        self._ids: dict[str, int] = {}
        self._lock = threading.Lock()

    def expect(self, spec_id: str, match_id: int) -> None:
        with self._lock:
            self._ids[spec_id] = match_id

    def relay(self, spec_id: str, kind: str, payload: Any) -> None:
        """The Relay of the run's executor (any thread)."""
        with self._lock:
            match_id = self._ids.get(spec_id)
        if match_id is None:  # recorded or given up already: a late message
            return
        if kind == START:
            self.spectators.start(match_id, payload)
        elif kind == EVENT:
            self.spectators.event(match_id, payload)
        elif kind == LOST:  # its worker died, or a message could not be sent
            self.spectators.end(match_id)

    def done(self, match_id: int) -> None:
        """The match is recorded (or will never be played): its spectators are told."""
        with self._lock:
            self._ids = {s: m for s, m in self._ids.items() if m != match_id}
        self.spectators.end(match_id)

    def close(self) -> None:
        """The run ends: every match still followed is given up."""
        with self._lock:
            given_up, self._ids = list(self._ids.values()), {}
        for match_id in given_up:
            self.spectators.end(match_id)
