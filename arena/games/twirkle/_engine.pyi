"""Types of the compiled whole-turn engine (arena/games/twirkle/_engine.c); see `fast`."""

from typing import Any

SIDE: int
MARGIN: int

def play(
    hands: list[list[int]],
    bag: list[int],
    grid: dict[int, int],
    scores: list[int],
    numbers: tuple[int, ...],
    rng_state: tuple[int, ...],
    chance_state: tuple[int, ...],
    names: tuple[str, ...],
    directions: tuple[str, ...],
    recording: bool,
    /,
) -> tuple[Any, ...] | None: ...
