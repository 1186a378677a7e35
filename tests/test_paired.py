"""`arena match` runs as a schedule of pairs on the one runner, on a fake executor (no bot
processes): counts, the test, resume mid-pair, three void pairs in a row."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.match.results import SeatResult
from arena.match.run import MatchResult, MatchSpec
from arena.results.sprt import Sprt
from arena.status import MatchStatus, SeatStatus, TournamentStatus
from arena.store import Store
from arena.tournament import paired, runner
from arena.tournament.execution import platform_error

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Done:
    value: MatchResult | None  # None: Ctrl-C while this match plays

    def result(self) -> MatchResult:
        if self.value is None:
            raise KeyboardInterrupt
        return self.value

    def done(self) -> bool:
        return self.value is not None


class Fake:
    """Seat ranks from the deal's seed and the bot: the same spec, the same result; or
    every match void; or a Ctrl-C while the match after the first `stop_after` plays."""

    slots = 2

    def __init__(self, void: bool = False, stop_after: int | None = None):
        self.void, self.stop_after, self.submitted = void, stop_after, 0

    def submit(self, spec: MatchSpec) -> Done:
        self.submitted += 1
        if self.stop_after is not None and self.submitted > self.stop_after:
            return Done(None)
        if self.void:
            return Done(platform_error(spec, "worker lost twice"))
        luck = [
            hashlib.sha256(f"{spec.seed}:{ref.name}".encode()).digest()[0] for ref in spec.seats
        ]
        ranks = [1 + sum(x > mine for x in luck) for mine in luck]
        seats = [
            SeatResult(i, ref.version_id, float(luck[i]), ranks[i], SeatStatus.OK, bot=ref.name)
            for i, ref in enumerate(spec.seats)
        ]
        result = MatchResult(spec.match_id, spec.game, 1, {}, spec.seed, MatchStatus.NORMAL, seats)
        return Done(result)

    def shutdown(self, now: bool = False) -> None:
        pass


def new_run(tmp_path: Path, name: str, test: Sprt | None = None) -> tuple[Store, paired.Pairs]:
    store = Store(f"sqlite:///{tmp_path / name}")
    for bot in ("alpha", "beta"):
        store.add_bot_version(bot, bot * 16, str(ROOT / "bots" / "random"), ["x"], ["*"])
    settings = paired.PairedSettings("take-that", "alpha", "beta", test, max_matches=12, seed=4)
    tournament, versions = paired.create(store, tmp_path, settings)
    state = paired.PairedState(tournament.id or 0, ("alpha v1", "beta v1"))
    return store, paired.Pairs(store, tournament, versions, settings, state, None)


def play(store: Store, pairs: paired.Pairs, executor: Fake) -> None:
    runner.run(store, pairs.state.tournament_id, executor=executor, schedule=pairs)


def test_pairs_are_played_to_the_limit_and_counted(tmp_path: Path) -> None:
    store, pairs = new_run(tmp_path, "a.db")
    play(store, pairs, Fake())
    state = pairs.state
    assert (state.pairs, state.void_pairs, state.decision) == (6, 0, None)
    assert sum(state.tally.pentanomial) == 6
    matches = store.matches(state.tournament_id)
    assert [m.number for m in matches] == list(range(12))
    for first, second in zip(matches[::2], matches[1::2], strict=True):  # one deal, seats swapped
        assert first.lineup == second.lineup[::-1] and first.seed == second.seed
    assert store.tournament_status(state.tournament_id) == TournamentStatus.FINISHED


def test_a_decided_test_stops_the_run(tmp_path: Path) -> None:
    store, pairs = new_run(tmp_path, "d.db", Sprt(-2000, -1000, 0.4, 0.4, "logistic"))
    play(store, pairs, Fake())
    assert pairs.state.decision is not None and pairs.state.pairs < 6
    assert store.match_counts(pairs.state.tournament_id) == (2 * pairs.state.pairs,) * 2


@pytest.mark.parametrize("stop", [3, 4, 9])
def test_a_run_cut_mid_pair_resumes_to_the_same_counts(tmp_path: Path, stop: int) -> None:
    store, pairs = new_run(tmp_path, "whole.db")
    told: list[tuple[int, int]] = []
    pairs.on_pair = lambda s: told.append((s.pairs, s.tally.wins))
    play(store, pairs, Fake())
    whole = pairs.state
    cut, cut_pairs = new_run(tmp_path, f"cut{stop}.db")
    with pytest.raises(runner.Interrupted):
        play(cut, cut_pairs, Fake(stop_after=stop))
    tid = cut_pairs.state.tournament_id
    assert cut.tournament_status(tid) == TournamentStatus.INTERRUPTED
    assert cut.match_counts(tid)[0] == stop
    resumed: list[tuple[int, int]] = []
    _settings, state = paired.resume(
        cut, tid, lambda s: resumed.append((s.pairs, s.tally.wins)), executor=Fake()
    )
    assert (state.pairs, state.void_pairs, state.tally, state.llr) == (
        whole.pairs,
        whole.void_pairs,
        whole.tally,
        whole.llr,
    )
    assert resumed == told[stop // 2 :]  # told of each pair counted after the resume
    assert [(m.number, m.lineup, m.seed) for m in cut.matches(tid)] == [
        (m.number, m.lineup, m.seed) for m in store.matches(whole.tournament_id)
    ]
    assert cut.tournament_status(tid) == TournamentStatus.FINISHED


def test_three_void_pairs_in_a_row_stop_the_run(tmp_path: Path) -> None:
    store, pairs = new_run(tmp_path, "v.db")
    with pytest.raises(paired.PairedError, match="3 pairs in a row were void: worker lost twice"):
        play(store, pairs, Fake(void=True))
    tid = pairs.state.tournament_id
    assert pairs.state.void_pairs == 3 and store.match_counts(tid) == (6, 6)
    assert store.tournament_status(tid) == TournamentStatus.INTERRUPTED
