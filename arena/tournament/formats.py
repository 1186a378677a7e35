"""Tournament formats as small pure schedulers.

Each format turns entrants, players per match, rounds and a seed into an ordered
list of pairings. For card games every deal is played once per seat rotation
(duplicate deals), so the luck of the deal cancels out: a pairing's `seed`
fixes the deal and is shared by the rotations of one group and round.

Pairing seeds are public (a function of the tournament seed): the deal a match
runs on is derived from them with the database's secret (arena.match.seeds).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class Pairing:
    """One scheduled match: entrant indices by seat, and the deal's seed."""

    number: int
    seats: tuple[int, ...]
    seed: int


def pairing_seed(seed: int, index: int) -> int:
    """The public seed of deal `index` of a tournament with seed `seed` (stable across runs).

    >>> pairing_seed(7, 0) == pairing_seed(7, 0) != pairing_seed(7, 1)
    True
    """
    digest = hashlib.sha256(f"arena:deal:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def rotations(group: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every cyclic seat rotation of a group.

    >>> rotations((0, 1, 2))
    [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    """
    return [group[i:] + group[:i] for i in range(len(group))]


def _schedule(groups: list[tuple[int, ...]], rounds: int, seed: int) -> list[Pairing]:
    """Rounds outermost, so a partial tournament has covered every group evenly."""
    pairings: list[Pairing] = []
    for round_index in range(rounds):
        for group_index, group in enumerate(groups):
            deal = pairing_seed(seed, round_index * len(groups) + group_index)
            for seats in rotations(group):
                pairings.append(Pairing(len(pairings), seats, deal))
    return pairings


def round_robin(entrants: int, players: int, rounds: int, seed: int) -> list[Pairing]:
    """Every group of `players` entrants plays `rounds` deals, each in every rotation."""
    if entrants < players:
        raise ValueError(f"a round robin of {players}-player matches needs {players} bots")
    return _schedule(list(combinations(range(entrants), players)), rounds, seed)


def gauntlet(entrants: int, players: int, rounds: int, seed: int) -> list[Pairing]:
    """Entrant 0 (the challenger) against every group of the others."""
    if entrants < players:
        raise ValueError(f"a gauntlet of {players}-player matches needs {players} bots")
    groups = [(0, *rest) for rest in combinations(range(1, entrants), players - 1)]
    return _schedule(groups, rounds, seed)


FORMATS: dict[str, Callable[[int, int, int, int], list[Pairing]]] = {
    "round-robin": round_robin,
    "gauntlet": gauntlet,
}
