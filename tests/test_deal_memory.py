"""Issue 17, item 1: no bot process plays two matches that share a deal.

Tournaments play each deal in every seat rotation, and bot processes are reused
between matches. tests/bots/deal_memory names its process on stderr at every
`start`; from the replays (each records its keyed deal seed) these tests check that
no process met a deal twice, locally and on Dask, and that processes are still
reused across different deals. The same run with the pool's memory of deals
switched off does give a process a deal again: the check can fail.

Issue 30, item 1: neither may a later process learn a deal from an earlier one
through machine-wide kernel counters (tests/bots/kernel_memory).
"""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import pytest

from arena.match.run import MatchResult
from arena.players.pool import BotPool
from arena.sandbox import bwrap, detection
from arena.store import Store
from arena.tournament import runner
from arena.tournament.config import TournamentConfig
from tests.helpers import TEST_BOTS, sandboxed

needs_bwrap = pytest.mark.skipif(not sandboxed(), reason="bubblewrap is not available here")
MEMORY = str(TEST_BOTS / "deal_memory")
#: Three bots, four deals per pairing, each deal in both seat orders: 24 short matches.
CONFIG = TournamentConfig(
    game="take-that",
    bots=(MEMORY, "first-legal", "random"),
    rounds=4,
    seed=5,
    variant={"rounds": 1},
)


def deals_by_process(results: Iterable[MatchResult]) -> dict[str, list[str]]:
    """For each deal_memory process (its token), the deal seeds of the matches it played."""
    met: dict[str, list[str]] = defaultdict(list)
    for result in results:
        assert result.replay is not None, result.status
        for seat in result.seats:
            if seat.bot == "deal_memory":
                token = seat.stderr.split()[1]  # "process TOKEN match N"
                met[token].append(result.replay["deal_seed"])
    return dict(met)


def play(tmp_path: Path, **run: object) -> dict[str, list[str]]:
    """Run the tournament; the deals each deal_memory process was given."""
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tid = runner.create(store, tmp_path, CONFIG)
    results: list[MatchResult] = []
    runner.run(store, tid, on_progress=lambda p: results.append(p.result), **run)  # type: ignore[arg-type]
    assert store.match_counts(tid) == (24, 24)
    store.close()
    assert len(results) == 24 and all(r is not None for r in results)
    return deals_by_process(results)


def check(met: dict[str, list[str]]) -> None:
    """No process met a deal twice; processes were reused across deals all the same."""
    assert sum(len(deals) for deals in met.values()) == 16  # deal_memory's matches
    for token, deals in met.items():
        assert len(deals) == len(set(deals)), f"process {token} met a deal again: {deals}"
    assert max(len(deals) for deals in met.values()) >= 3, met
    assert len(met) <= 8, met  # reuse: far fewer processes than matches


@pytest.mark.parametrize("workers", [1, 2])
def test_no_process_meets_a_deal_twice(tmp_path: Path, workers: int) -> None:
    check(play(tmp_path, workers=workers))


def test_without_the_pools_memory_a_process_would_meet_a_deal_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = BotPool.acquire

    def forgetful(
        self: BotPool, *args: object, deal: int | None = None, **others: object
    ) -> object:
        return real(self, *args, **others)  # type: ignore[arg-type]

    monkeypatch.setattr(BotPool, "acquire", forgetful)
    met = play(tmp_path, workers=1)
    assert any(len(deals) != len(set(deals)) for deals in met.values()), met


# ----- issue 30, item 1: no memory of a deal through machine-wide kernel state --------
#: kernel_memory against one bot, one deal in both seat rotations: two matches, and a
#: different kernel_memory process in each (the pool's memory of deals, above).
KERNEL = str(TEST_BOTS / "kernel_memory")
ONE_DEAL = TournamentConfig(
    game="take-that", bots=(KERNEL, "first-legal"), rounds=1, seed=5, variant={"rounds": 1}
)


@pytest.fixture
def unconfined_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sandboxes without the measures of issue 30: no seccomp filter, the real /proc and /dev."""
    real = detection.protections()
    monkeypatch.setattr(detection, "protections", lambda: dataclasses.replace(real, seccomp=False))
    monkeypatch.setattr(bwrap.ProcFiles, "args", lambda _self, _limits: [])


def learned(result: MatchResult, bot: str) -> list[tuple[int, str, int]]:
    """(what `bot` learned, through which channel, the opponent's smallest first card)."""
    assert result.replay is not None, result.status
    hands = result.replay["events"][0]["outcome"]["hands"]
    found = []
    for index, seat in enumerate(result.seats):
        if seat.bot == bot:
            opponent = min(hands[1 - index])
            for card, channel in re.findall(r"learned (\d+) through (\w+)", seat.stderr):
                found.append((int(card), channel, opponent))
    return found


def play_one_deal(tmp_path: Path, workers: int) -> list[MatchResult]:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tid = runner.create(store, tmp_path, ONE_DEAL)
    results: list[MatchResult] = []
    runner.run(store, tid, on_progress=lambda p: results.append(p.result), workers=workers)
    store.close()
    assert len(results) == 2 and all(r is not None for r in results)
    return results


@pytest.mark.usefixtures("counters_alone")
@needs_bwrap
@pytest.mark.parametrize("workers", [1, 2])
def test_a_later_process_learns_nothing_of_the_deal_through_kernel_counters(
    tmp_path: Path, workers: int
) -> None:
    results = play_one_deal(tmp_path, workers)
    assert [learned(r, "kernel_memory") for r in results] == [[], []]
    said = "".join(s.stderr for r in results for s in r.seats if s.bot == "kernel_memory")
    for refusal in (
        "io_setup failed (ENOSYS)",  # seccomp: no AIO context to count
        "openpty failed (ENOENT)",  # no /dev/ptmx, /dev/pts is empty
        "cannot read /proc/sys/fs/aio-nr (ENOENT)",  # /proc/sys is empty
        "cannot read /proc/sys/kernel/pty/nr (ENOENT)",
    ):
        assert refusal in said


@pytest.mark.usefixtures("counters_alone")
@needs_bwrap
@pytest.mark.parametrize("workers", [1, 2])
def test_unconfined_the_second_rotation_learns_the_first_ones_hand(
    tmp_path: Path, workers: int, unconfined_kernel: None
) -> None:
    """The attack is real: without the measures, the kernel counters carry the hand."""
    found = [
        entry for r in play_one_deal(tmp_path, workers) for entry in learned(r, "kernel_memory")
    ]
    assert {channel for _card, channel, _right in found} == {"aio", "pty"}, found
    # each channel carries the right card (a machine-wide counter that other users of the
    # machine also move can misread now and then: the channel is real all the same)
    assert {channel for card, channel, right in found if card == right} == {"aio", "pty"}, found
