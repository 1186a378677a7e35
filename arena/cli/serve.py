"""`arena serve`: the competition as an HTTP service (arena.service) on this arena's store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import home, open_store
from arena.cli.errors import err, reports_errors
from arena.cli.safe import text


@reports_errors
def serve(
    host: Annotated[str, typer.Option(help="The address to listen on (plain HTTP).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="The port (0: any free one).")] = 8000,
    workers: Annotated[
        int, typer.Option(min=1, help="Worker processes of the open ladder's matches.")
    ] = 1,
    executor: Annotated[
        str, typer.Option(help="Where the ladder's matches run: local, or dask://HOST:PORT.")
    ] = "local",
    ladder: Annotated[
        Path | None,
        typer.Option(help="The open ladder's file (TOML: games, players, time control)."),
    ] = None,
) -> None:
    """Serve leaderboards, bots, matches and replays, and take submissions by accounts'
    tokens (arena user add), until SIGTERM or Ctrl-C (then it finishes the requests
    in flight and the ladder's batch, and exits 0).

    The OpenAPI description is at /openapi.json, its pages at /docs. It speaks plain
    HTTP: put it behind a reverse proxy with TLS to reach it from elsewhere (README,
    Run a competition).
    """
    from arena.service import server
    from arena.service.app import create_app
    from arena.service.ladder import OpenLadders, load_specs
    from arena.service.live import Live

    specs = load_specs(ladder) if ladder is not None else []
    store = open_store()
    sock = server.listen(host, port)
    where = sock.getsockname()
    live = Live()  # the ladder's matches in play, as the live pages show them
    ladders = OpenLadders(store, home(), specs, workers, executor, live)
    app = create_app(
        store,
        home(),
        on_stop=lambda: ladders.stop(server.GRACE),
        on_change=ladders.poke,
        live=live,
    )

    def start() -> None:
        ladders.start()
        err.print(
            text(f"serving {store.shown_url} on http://{where[0]}:{where[1]} (API pages: /docs)"),
            soft_wrap=True,
        )

    server.run(app, sock, start)
