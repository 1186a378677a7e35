"""The rating history of a bot's page: every rated match of each of its versions, with
the mu and sigma its rating had right after it (the seat's `mu_after`, `sigma_after`,
which the store writes when it records the match and rates it). The page draws them
with uPlot (static/vendor/uplot, static/rating-plot.js): per game and rules version,
the n-th rated match of the bot on the x axis, each version's mu as a line with a band
from mu - 2 sigma to mu + 2 sigma."""

from __future__ import annotations

from typing import Any

from arena.store import Store

#: The most recent rated seats a plot shows (a bot's older matches are left out).
MOST = 5000


def rating_history(store: Store, name: str) -> list[dict[str, Any]]:
    """Per game and rules version (oldest match first): the versions plotted and the
    points, each {match, version, mu, sigma} in the order the matches were recorded."""
    numbers = {v.id: v.number for v in store.versions(name=name)}
    points = store.rating_points(name, MOST)
    points.reverse()  # oldest first (the store answers newest first)
    plots: dict[tuple[str, int], dict[str, Any]] = {}
    for match, game, rules, version_id, mu, sigma in points:
        plot = plots.setdefault(
            (game, rules), {"game": game, "rules": rules, "versions": [], "points": []}
        )
        version = numbers.get(version_id)
        if version not in plot["versions"]:
            plot["versions"].append(version)
        plot["points"].append({"match": match, "version": version, "mu": mu, "sigma": sigma})
    return [plots[key] for key in sorted(plots)]
