"""The service's listening socket (arena.service.server.listen)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from arena.service import server


def test_connections_of_the_service_socket_send_without_waiting_for_acks() -> None:
    # asyncio turns Nagle off (TCP_NODELAY) only on sockets whose proto is TCP: with
    # proto 0 every answer written as head then body waited 40 ms for a delayed ACK.
    async def nodelay_of_an_accepted_connection() -> int:
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

        listening = await asyncio.get_running_loop().create_server(
            Probe, sock=server.listen("127.0.0.1", 0)
        )
        host, port = listening.sockets[0].getsockname()[:2]
        _reader, writer = await asyncio.open_connection(host, port)
        try:
            return await asyncio.wait_for(seen, 10)
        finally:
            writer.close()
            listening.close()

    assert asyncio.run(nodelay_of_an_accepted_connection()) != 0


def test_a_taken_port_is_one_line() -> None:
    taken = server.listen("127.0.0.1", 0)
    try:
        with pytest.raises(server.ServeError, match=r"^cannot listen on 127\.0\.0\.1:\d+: "):
            server.listen("127.0.0.1", taken.getsockname()[1])
    finally:
        taken.close()


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_arena_serve_stopped_by_sigterm_or_ctrl_c_exits_0(tmp_path: Path, stop: int) -> None:
    """After its graceful stop (requests in flight, the application's shutdown): uvicorn
    raised the signal again, and `arena serve` exited 143 on SIGTERM."""
    env = {**os.environ, "ARENA_HOME": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        url = line.split(" on ")[1].split(" ")[0]
        assert httpx.get(f"{url}/api/health").json() == {"ok": True}
        process.send_signal(stop)
        assert process.wait(30) == 0
        assert process.stderr.read() == ""  # no traceback, no second line
    finally:
        process.kill()
        process.wait()


@pytest.mark.slow
def test_a_signal_before_the_server_loop_runs_still_stops_it_gracefully(tmp_path: Path) -> None:
    """From the moment the ladder starts (the line is printed just after): no window in
    which SIGTERM kills the process or Ctrl-C raises inside uvicorn's start."""
    env = {**os.environ, "ARENA_HOME": str(tmp_path)}
    for stop in (signal.SIGTERM, signal.SIGINT):
        process = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "--port", "0"],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stderr is not None
        assert process.stderr.readline().startswith("serving ")
        process.send_signal(stop)  # at once: uvicorn may not have started
        assert process.wait(30) == 0, process.stderr.read()
        assert process.stderr.read() == ""
