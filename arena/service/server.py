"""Serving the application: uvicorn on a socket bound here, so that a taken port is one
line, and a stop (SIGTERM, Ctrl-C) that is graceful.

uvicorn answers SIGTERM and SIGINT by closing the listening socket, finishing the
requests in flight (at most `GRACE` seconds), then running the application's
shutdown: the open ladder is told to stop, and its runner finishes the matches it
plays (or leaves them to be played again: only recorded matches count, each in one
transaction), so nothing is lost or half recorded. The process then exits 0: a stop
asked for and done is a clean exit (uvicorn would raise the signal again, so that
SIGTERM ended `arena serve` with 143 and Ctrl-C with a KeyboardInterrupt). A second
Ctrl-C stops at once, without the application's shutdown (what the ladder played
and did not record is played again by the next start).
"""

from __future__ import annotations

import logging
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from arena import ArenaError

#: Seconds given to requests in flight when the server stops.
GRACE = 3.0
#: Seconds an idle keep-alive connection is kept open.
KEEP_ALIVE = 5
#: Connections and requests served at once.
LIMIT_CONCURRENCY = 500


class ServeError(ArenaError, OSError):
    """The service cannot listen where it was asked to (one line why)."""

    exit_code = 1


def listen(host: str, port: int) -> socket.socket:
    """A listening socket at `host`:`port` (port 0: any free one); ServeError when taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto named, not 0: asyncio sets TCP_NODELAY only on sockets whose proto is TCP
    # (accepted ones inherit it), and without it every answer written in two parts (head,
    # then body) waits for the client's delayed ACK: 40 ms a request.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


class _Server(uvicorn.Server):
    """uvicorn's server, whose stop by a signal is a clean exit (see the module)."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        """SIGTERM and SIGINT ask the server to stop while this lasts (uvicorn's own
        handler); the handlers of before are put back, and the signal not raised again."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        before = {sig: signal.signal(sig, self.handle_exit) for sig in STOPPING}
        try:
            yield
        finally:
            for sig, handler in before.items():
                signal.signal(sig, handler)


#: The signals that stop the service gracefully.
STOPPING = (signal.SIGTERM, signal.SIGINT)


def server(app: FastAPI) -> uvicorn.Server:
    """A uvicorn server for `app` (quiet: arena's own log says what matters)."""
    config = uvicorn.Config(
        app,
        log_config=None,  # arena's own log handlers stay (a dictConfig would close them)
        log_level=logging.WARNING,
        access_log=False,
        lifespan="on",
        timeout_keep_alive=KEEP_ALIVE,
        timeout_graceful_shutdown=int(GRACE),
        server_header=False,
        # past this many connections and requests at once, new ones get 503 at once:
        # slow clients that hold connections cannot use up the process's descriptors
        limit_concurrency=LIMIT_CONCURRENCY,
    )
    return _Server(config)


def run(app: FastAPI, sock: socket.socket, start: Callable[[], None] = lambda: None) -> None:
    """Serve `app` on `sock` until SIGTERM or Ctrl-C, after `start()` (the open ladder's
    start): a signal from the moment `start` is called stops the service gracefully."""
    served = server(app)
    with served.capture_signals():  # a signal before uvicorn's own loop runs: it stops at once
        start()
        served.run(sockets=[sock])
