"""Tournaments that organisers start over HTTP (`POST /api/tournaments`): written as
`arena tournament run` writes them (runner.create), then played by the one runner in a
thread of the service, the coordinator.

A tournament the service was playing when it stopped stays `running` (or
`interrupted`) and is resumed at the terminal, `arena tournament resume ID`, exactly
where it stopped.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from arena import ArenaError
from arena.store import Store
from arena.submissions import names
from arena.tournament import runner
from arena.tournament.config import ConfigError, from_mapping

LOG = logging.getLogger("arena.service")


class Tournaments:
    """The tournaments this service plays (a daemon thread each)."""

    def __init__(self, store: Store, home: Path):
        self.store, self.home = store, home
        self.threads: dict[int, threading.Thread] = {}

    def start(self, settings: dict[str, Any]) -> int:
        """Write the tournament of `settings` (a tournament file's keys) and start playing
        it; its id. ConfigError for settings that do not make sense, or a bot given as a
        folder (the server's folders are not the organiser's to name)."""
        config = from_mapping(settings)
        folders = [bot for bot in config.bots if names.is_path(bot)]
        if folders:
            raise ConfigError(f"bots are named, not given as folders: {folders[0]!r}")
        tid = runner.create(self.store, self.home, config)
        thread = threading.Thread(
            target=self._play,
            args=(tid, config.workers, config.executor),
            name=f"tournament-{tid}",
            daemon=True,
        )
        self.threads[tid] = thread
        thread.start()
        return tid

    def _play(self, tid: int, workers: int, executor: str) -> None:
        try:
            runner.run(self.store, tid, workers, executor=executor)
        except ArenaError as error:
            LOG.warning("tournament %d stopped: %s", tid, error)
