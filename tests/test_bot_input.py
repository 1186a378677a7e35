"""Everything a bot sends is judged (`invalid` or `illegal`), never turned into arena's failure.

A bot controls every byte it prints: JSON of any depth or size, numbers of any
magnitude, odd ids, duplicate keys. Each must end as a verdict on that bot; a match
is void (`platform-error`) only when arena itself fails.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from arena.match.run import run_match
from arena.players import process
from arena.players.pool import BotPool
from arena.players.process import BotProcess
from arena.protocol import messages
from arena.protocol.errors import BotError, BotProtocolError
from arena.protocol.session import Session
from arena.protocol.transport import FakeTransport
from arena.results import reports
from arena.sandbox.limits import Limits
from arena.status import MatchStatus, SeatStatus
from arena.store import Store
from arena.submissions import check
from arena.tournament import runner
from arena.tournament.config import TournamentConfig
from tests.helpers import TEST_BOTS, bot_ref_for, register_unchecked
from tests.test_match import spec
from tests.test_sandbox import start_message

LEGAL: list[messages.Decision] = [{"card": 1}, {"card": 2}, 3, "x", [1, 2]]


def nested(depth: int) -> object:
    value: object = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [2, 254, 255, 300, 1000])
def test_a_deeply_nested_answer_is_illegal_never_an_error(depth: int) -> None:
    assert messages.find_legal(nested(depth), LEGAL) is None
    assert "nested" in messages.describe(nested(depth)) or depth < 255


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"card": 1}, {"card": 1}),
        ({"card": True}, None),  # true is not 1
        ({"card": 1.0}, None),  # 1.0 is not 1
        ([1, 2], [1, 2]),
        ([True, 2], None),
        ("x", "x"),
        (3.0, None),
        ({"card": 1, "extra": 0}, None),
    ],
)
def test_a_decision_is_compared_as_json_with_exact_types(answer: object, expected: object) -> None:
    assert messages.find_legal(answer, LEGAL) == expected


@pytest.mark.parametrize("request_id", [True, 1.0, "1", None, [1]])
def test_an_id_must_be_the_integer_of_the_request(request_id: object) -> None:
    with pytest.raises(messages.ProtocolError, match="answer to request"):
        messages.decision_from({"type": "decision", "id": request_id, "decision": 3}, 1)


def test_the_error_text_of_a_deep_id_is_bounded() -> None:
    with pytest.raises(messages.ProtocolError) as caught:
        messages.decision_from({"type": "decision", "id": nested(900), "decision": 3}, 1)
    assert len(str(caught.value)) < 200


#: The request every scripted bot below is asked.
REQUEST = messages.decide_message(1, {}, [1, 2], 2000)


def session_answering(lines: list[str]) -> Session[FakeTransport]:
    """A scripted bot in memory that answers `ready`, then prints `lines` to the first request."""
    fake = FakeTransport()
    fake.expect(start_message(), '{"type": "ready"}')
    fake.expect(REQUEST, *lines)
    return Session("scripted", fake)


def bot_answering(tmp_path: Path, lines: list[str]) -> BotProcess:
    """A bot (sh) that answers `ready`, then prints `lines` to the first request."""
    script = 'read start; echo \'{"type": "ready"}\'; read request; '
    script += "; ".join(f"printf '%s\\n' '{line}'" for line in lines) + "; read more"
    bot = BotProcess("scripted", ["/bin/sh", "-c", script], tmp_path, Limits())
    bot.spawn()
    return bot


def decide_once(bot: Session[Any]) -> object:
    bot.start_match(start_message(), time.monotonic() + 10)
    return bot.decide(REQUEST, time.monotonic() + 10)


#: Answers that are no decision message for request 1, whatever their depth or numbers.
MALFORMED = [
    '{"type": "decision", "id": true, "decision": 1}',
    '{"type": "decision", "id": 1.0, "decision": 1}',
    '{"type": "decision", "id": "1", "decision": 1}',
    '{"type": "decision", "id": 1, "decision": ' + "[" * 1100 + "]" * 1100 + "}",
    '{"type": "decision", "id": 1, "decision": 1e400}',
    '{"type": "decision", "id": 1, "decision": "\\ud800"}',
    '{"type": ' + "[" * 300 + "]" * 300 + ', "id": 1}',
]


@pytest.mark.parametrize("line", MALFORMED)
def test_a_malformed_answer_is_invalid(line: str) -> None:
    with pytest.raises(BotProtocolError):
        decide_once(session_answering([line]))


@pytest.mark.parametrize("line", [MALFORMED[0], MALFORMED[3]])
def test_a_malformed_answer_from_a_real_process_is_invalid(tmp_path: Path, line: str) -> None:
    bot = bot_answering(tmp_path, [line])
    try:
        with pytest.raises(BotProtocolError):
            decide_once(bot)
    finally:
        bot.close(grace=0)


def test_duplicate_keys_keep_the_last_value() -> None:
    """Documented in PROTOCOL.md: as in most JSON parsers, the last duplicate key wins."""
    bot = session_answering(['{"type": "decision", "id": 1, "decision": 1, "decision": 2}'])
    assert decide_once(bot) == 2


def test_a_deep_answer_in_a_match_forfeits_the_seat_as_illegal() -> None:
    polite = bot_ref_for("polite")
    pool = BotPool()  # the bot plays its first match in a process honestly
    try:
        run_match(spec(polite, bot_ref_for("void_when_losing"), timeout=2.0), pool)
        # Another deal: the same one would be given to a new process (arena.players.pool).
        result = run_match(spec(polite, bot_ref_for("void_when_losing"), seed=6, timeout=2.0), pool)
    finally:
        pool.close()
    assert result.status is MatchStatus.FORFEIT, result.error
    hostile = result.seats[1]
    assert hostile.status is SeatStatus.ILLEGAL
    assert "nested too deep" in hostile.detail
    assert hostile.rank == 2


def test_voiding_when_losing_gains_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot that once voided its losses (recorded 6-2 and ranked first) now loses them."""
    # Its submission check refuses it now (issue 30 item 9: later matches in a process
    # are checked too); registered past it, a tournament must still punish it.
    monkeypatch.setattr(check, "submission_check", lambda _manifest, games=None: None)
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    config = TournamentConfig(
        game="take-that",
        bots=(str(TEST_BOTS / "polite"), str(TEST_BOTS / "void_when_losing")),
        rounds=4,
        seed=5,
        decision_timeout=2.0,
    )
    tid = runner.create(store, tmp_path, config)
    runner.run(store, tid, workers=1)
    seats = store.seat_rows(tournament_id=tid)
    assert {m.status for m, _s in seats} <= {"normal", "forfeit"}  # nothing voided
    void = [(m, s) for m, s in seats if s.status == "illegal"]
    assert void, "the bot never fell behind: the test proves nothing"
    assert all(s.rank == 2 for _m, s in void)  # every voiding attempt is a recorded loss
    board = {row["bot"]: row for row in reports.leaderboard(store, "take-that", tid)}
    assert board["void_when_losing"]["games"] == board["polite"]["games"] == 8
    assert board["void_when_losing"]["mu"] < board["polite"]["mu"]


def test_output_after_end_gives_the_same_results_reused_and_fresh(tmp_path: Path) -> None:
    """What a bot writes after `end` belongs to no match: reused processes discard it."""
    boards, statuses = [], []
    for fresh in (False, True):
        folder = tmp_path / f"fresh-{fresh}"
        folder.mkdir()
        store = Store(f"sqlite:///{folder / 'arena.db'}")
        # stored unchecked: a submission check's matches are tests/test_check.py's
        bots = (register_unchecked(store, "polite"), register_unchecked(store, "trailing_output"))
        config = TournamentConfig(
            game="take-that",
            bots=(*bots, "random"),
            rounds=2,
            seed=9,
            decision_timeout=2.0,
        )
        tid = runner.create(store, folder, config)
        runner.run(store, tid, workers=1, fresh_processes=fresh)
        boards.append(reports.leaderboard(store, "take-that", tid))
        statuses.append([s.status for _m, s in store.seat_rows(tournament_id=tid)])
    assert statuses[0] == statuses[1]
    assert set(statuses[0]) == {"ok"}
    assert boards[0] == boards[1]


DECISION = '{"type": "decision", "id": 1, "decision": 2}'
#: Ways an answer may arrive: each must give what the general reading path gives.
ARRIVALS = {
    "one line": f"printf '%s\\n' '{DECISION}'",
    "cut in two writes": (
        f"printf '%s' '{DECISION[:20]}'; sleep 0.05; printf '%s\\n' '{DECISION[20:]}'"
    ),
    "a blank line first": f"printf '\\n%s\\n' '{DECISION}'",
    "two lines at once": f"printf '%s\\n%s\\n' '{DECISION}' '{DECISION.replace('2}', '1}')}'",
    "stderr first": f"printf 'thinking\\n' >&2; printf '%s\\n' '{DECISION}'",
    "not JSON": "printf 'decision 2\\n'",
    "a JSON list": "printf '[1, 2]\\n'",
    "another type": 'printf \'{"type": "ready"}\\n\'',
    "no newline, then the end": f"printf '%s' '{DECISION}'; exit 0",
    "the id as true": f"printf '%s\\n' '{DECISION.replace('1', 'true', 1)}'",
    "nested too deep": "head -c 5000 /dev/zero | tr '\\0' '['; echo",
}


def outcome_of(tmp_path: Path, script: str, quick: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    """What `decide` gives (or raises), and the line it read, with or without its quick path."""
    if not quick:
        monkeypatch.setattr(process, "_READ_FIRST", False)
    full = 'read start; echo \'{"type": "ready"}\'; read request; ' + script + "; read more"
    bot = BotProcess("scripted", ["/bin/sh", "-c", full], tmp_path, Limits())
    bot.spawn()
    try:
        try:
            answer: object = decide_once(bot)
        except BotError as error:
            answer = f"{type(error).__name__}: {error}"
        return f"{answer!r} after {bot.last_line!r}, {len(bot.transport._buffer)} bytes left"
    finally:
        bot.close(grace=0)
        monkeypatch.undo()


@pytest.mark.parametrize("arrival", ARRIVALS)
def test_the_quick_reading_path_gives_what_the_general_one_does(
    tmp_path: Path, arrival: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ProcessTransport.exchange` first tries one read of one whole line; anything
    else falls back to `read_line` with nothing lost or counted twice."""
    script = ARRIVALS[arrival]
    quick = outcome_of(tmp_path, script, True, monkeypatch)
    general = outcome_of(tmp_path, script, False, monkeypatch)
    assert quick == general
    if arrival in ("one line", "cut in two writes", "a blank line first", "stderr first"):
        assert quick.startswith("2 after")
