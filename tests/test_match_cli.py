"""`arena match --sprt`: paired matches of two bundled bots, recorded as a tournament."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app

runner = CliRunner()


def test_one_pair_is_played_recorded_and_compared(tmp_path: Path) -> None:
    """One pair (the same deal twice, seats swapped): its progress line, its JSON, and
    the two matches stored where `compare` and `tournament show` find them."""
    home = ["--home", str(tmp_path)]
    args = ["match", "first-legal", "random", "--game", "leylo", "--sprt", "0,100"]
    result = runner.invoke(app, [*home, *args, "--max-matches", "2", "--seed", "5", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["bot"], data["opponent"]) == ("first-legal v1", "random v1")
    assert data["pairs"] == 1 and data["games"] == 2 and data["seed"] == 5
    assert sum(data["pentanomial"].values()) == 1
    sprt = data["sprt"]
    assert sprt["lower"] == pytest.approx(-2.9444) and sprt["upper"] == pytest.approx(2.9444)
    assert sprt["result"] == "no decision (match limit)"
    assert "pair 1/1  W-D-L" in result.stderr and "(-2.94, 2.94) [0.00, 100.00]" in result.stderr

    shown = json.loads(runner.invoke(app, [*home, "tournament", "show", "1", "--json"]).stdout)
    assert shown["format"] == "sprt" and shown["played"] == shown["scheduled"] == 2
    assert shown["status"] == "finished"
    compared = runner.invoke(app, [*home, "compare", "first-legal", "random", "-g", "leylo"])
    assert compared.exit_code == 0 and "first-legal v1" in compared.stdout
    again = json.loads(
        runner.invoke(
            app, [*home, "compare", "first-legal", "random", "-g", "leylo", "--json"]
        ).stdout
    )
    assert (again["wins"], again["draws"], again["losses"]) == (
        data["wins"],
        data["draws"],
        data["losses"],
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--sprt", "5,1"], "needs ELO0 < ELO1"),
        (["--sprt", "5"], "two numbers"),
        (["--sprt", "0,5", "--alpha", "1.5"], "--alpha must be between 0 and 1"),
        (["--sprt", "0,5", "--beta", "0"], "--beta must be between 0 and 1"),
        (["--sprt", "0,5", "--max-matches", "1"], "at least 2"),
        (["--sprt", "0,500"], "--model logistic"),
        (["--model", "elo"], "--model set the SPRT: give --sprt"),  # issue 31 item 20
        (["--alpha", "0.1", "--beta", "0.1"], "--alpha, --beta set the SPRT"),
    ],
)
def test_bad_settings_are_one_line(tmp_path: Path, extra: list[str], message: str) -> None:
    args = ["--home", str(tmp_path), "match", "first-legal", "random", "-g", "leylo", *extra]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("bots", "game", "message"),
    [
        (["first-legal", "nosuchbot"], "twirkle", "no bundled bot 'nosuchbot'"),
        (["first-legal", "random"], "chess", "unknown game 'chess'"),
        (["first-legal", "first-legal"], "twirkle", "the same bot version"),
    ],
)
def test_unknown_bot_or_game(tmp_path: Path, bots: list[str], game: str, message: str) -> None:
    args = ["--home", str(tmp_path), "match", *bots, "--game", game, "--sprt", "0,10"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output


def test_progress_line_and_summary_with_and_without_a_test() -> None:
    from arena.cli.match import progress_line, summary
    from arena.results.sprt import Sprt
    from arena.tournament.paired import PairedState

    state = PairedState(4, ("a v1", "b v2"))
    state.pairs = 2
    state.tally.add_pair("W", "D")
    state.tally.add_pair("L", "L")
    assert progress_line(state, None, 50) == "pair 2/50  W-D-L 1-1-2  Ptnml(0-2) [1, 0, 0, 1, 0]"
    test = Sprt(-5, 5)
    state.llr = test.llr(state.tally.pentanomial)
    assert progress_line(state, test, 50).endswith(
        f"LLR {state.llr:.2f} (-2.94, 2.94) [-5.00, 5.00]"
    )
    data = summary(state, None, 9)
    assert data["sprt"] is None and data["pairs"] == 2 and data["score"] == 0.375
    assert data["pentanomial"] == {"LL": 1, "LD": 0, "WL+DD": 0, "WD": 1, "WW": 0}
    assert summary(state, test, 9)["sprt"]["result"] == "no decision (match limit)"


SECRET = "ab" * 32  # the same keyed deals in both homes
PAIRED = ["match", "first-legal", "random", "--game", "take-that", "--variant", "rounds=1"]
PAIRED += ["--sprt", "-150,150", "--max-matches", "8", "--seed", "3", "--json"]


def test_an_interrupted_match_says_how_to_resume_and_resumes_to_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31 item 20: Ctrl-C in `arena match` (here after its 3rd match, mid-pair)
    prints the resume command; `tournament resume` ends as the uninterrupted run."""
    from arena.tournament import runner as truns

    env = {"ARENA_SECRET": SECRET}
    whole = runner.invoke(app, ["--home", str(tmp_path / "a"), *PAIRED], env=env)
    assert whole.exit_code == 0, whole.output
    record = truns.record
    calls = []

    def cut_after_three(*args, **kwargs):  # type: ignore[no-untyped-def]
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(1)
        return record(*args, **kwargs)

    monkeypatch.setattr(truns, "record", cut_after_three)
    home = ["--home", str(tmp_path / "b")]
    cut = runner.invoke(app, [*home, *PAIRED], env=env)
    assert cut.exit_code == 130, cut.output
    # (a record may hold several matches: one worker lets results wait 0.25 s for the next)
    said = re.search(
        r"error: interrupted after (\d) pairs \(resume: arena tournament resume 1\)", cut.stderr
    )
    assert said is not None and 1 <= int(said[1]) < 4, cut.stderr
    monkeypatch.setattr(truns, "record", record)
    resumed = runner.invoke(app, [*home, "tournament", "resume", "1", "--json"], env=env)
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout) == json.loads(whole.stdout)
    shown = json.loads(runner.invoke(app, [*home, "tournament", "show", "1", "--json"]).stdout)
    assert shown["status"] == "finished" and shown["played"] == 8
    again = runner.invoke(app, [*home, "tournament", "resume", "1"], env=env)
    assert again.exit_code == 0 and "is finished: nothing to resume" in again.stderr
    assert "matches/s" not in again.stderr
