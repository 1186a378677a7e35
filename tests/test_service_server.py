"""The service's listening socket (arena.service.server.listen)."""

from __future__ import annotations

import asyncio
import socket

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
