"""Fixtures shared by all tests, and the unit tier: which tests are slow (the tier,
`pytest -m "not slow"`, leaves them out) and the guard that keeps the others from
starting processes."""

from __future__ import annotations

import inspect
import os
import socket
import sys
import tempfile
import time
import types
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from arena.match.run import BotRef
from arena.sandbox import uids
from tests.held_uids import HeldUids
from tests.helpers import bot_ref_for

#: The match-seed secret of every database in the tests (tests/test_secrecy.py unsets it).
TEST_SECRET = "5e" * 32


@pytest.fixture(scope="session", autouse=True)
def shared_secret() -> Iterator[None]:
    """Every database in a test run shares one secret, as with ARENA_SECRET in production.

    Tests that compare runs in two databases (workers, executors, reused processes)
    then compare the same matches; nothing reads or writes the user's arena home.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_SECRET", TEST_SECRET)
        yield


@pytest.fixture(scope="session", autouse=True)
def own_sandbox_uids() -> Iterator[None]:
    """Each pytest-xdist worker hands its bots uids from its own share of the range.

    Tests check that no process started while they held a uid runs once their bots are
    gone (`used_uids`); shares keep the workers from taking each other's uids at all.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if not worker.startswith("gw") or count < 2 or os.environ.get("ARENA_SANDBOX_UIDS"):
        yield
        return
    low, high = uids.uid_range()
    share = (high - low + 1) // count
    first = low + int(worker[2:]) * share
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_SANDBOX_UIDS", f"{first}-{first + share - 1}")
        yield


@pytest.fixture
def polite() -> BotRef:
    """A well-behaved opponent that answers the first legal decision at once."""
    return bot_ref_for("polite")


@pytest.fixture
def used_uids(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> HeldUids:
    """The sandbox uids held during a test and when (to check that none of its bots still runs).

    Only processes started while this test held a uid count: another arena on the machine
    may take the uid next (tests/held_uids.py).
    """
    held = HeldUids(tmp_path_factory.mktemp("uids") / "holds")
    real_acquire, real_release = uids.acquire, uids.UidSlot.release

    def acquire() -> uids.UidSlot:
        slot = real_acquire()
        held.acquired(slot)
        return slot

    def release(slot: uids.UidSlot) -> None:
        holding = slot._fd >= 0
        real_release(slot)
        if holding:
            held.released(slot)

    monkeypatch.setattr(uids, "acquire", acquire)
    monkeypatch.setattr(uids.UidSlot, "release", release)
    return held


@pytest.fixture
def host_listener() -> Iterator[None]:
    """A TCP port on the host that tests/bots/network and build_escape try to reach."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        server.bind(("127.0.0.1", 47613))
        server.listen()
    except OSError:
        pass  # taken: the bot's other attempts still run
    yield
    server.close()


@pytest.fixture
def counters_alone() -> Iterator[None]:
    """Tests that move or read machine-wide kernel counters (aio-nr, pty nr) run one at a
    time across the suite's worker processes: two of them at once read each other's."""
    import fcntl

    with open(os.path.join(tempfile.gettempdir(), "arena-test-kernel-counters.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


# ----- the unit tier: `pytest -m "not slow"` runs the tests that start nothing -------------
# A test is slow when it starts a process (a bot, a sandbox, the CLI or a script in a
# subprocess, a worker pool, a Dask cluster, chromium), reaches PostgreSQL, or computes
# for seconds. Collection marks it so from what its code and fixtures name (SLOW_NAMES),
# from its fixtures (SLOW_FIXTURES) and its name (SLOW_TESTS); a test may say so itself
# with @pytest.mark.slow. The guard below fails a test left unmarked that starts a
# process or connects to PostgreSQL anyway, so the tier stays without them as tests are
# added, and the summary of a run names the unmarked tests that took over a second.

#: A test is slow when its code, a fixture it uses or a helper of tests/ that it calls names
#: one of these (a module, or anything in it: "arena.tournament.runner" is the runner's module).
SLOW_NAMES = (
    "subprocess",
    "multiprocessing",
    "concurrent.futures.ProcessPoolExecutor",
    "concurrent.futures.process",
    "distributed",
    "playwright",
    "arena.match.run.run_match",
    "arena.players.pool.BotPool",
    "arena.players.process.BotProcess",
    "arena.sandbox.start",
    "arena.submissions.check.check_built",
    "arena.submissions.manifest.prepare",
    "arena.submissions.manifest.resolve_command",
    "arena.submissions.submit.submit",
    "arena.tournament.executors.Processes",
    "arena.tournament.runner",
    "tests.databases.fresh_postgres",
    "tests.databases.need_postgres",
)

#: Fixtures (file under tests/ :: name) whose users are slow: bots in sandboxes, and
#: homes a module fills by running the command line (`tournament run`, `bot submit`).
SLOW_FIXTURES = frozenset(
    {
        "conftest.py::counters_alone",
        "conftest.py::host_listener",
        "conftest.py::polite",
        "conftest.py::used_uids",
        "test_cli_escaping.py::tournament",
        "test_replay_cli.py::home",
        "test_standings.py::crowd",
        "test_tables.py::home",
    }
)

#: Slow tests that the rules above do not see (file under tests/ :: function). A listed
#: test that is no longer there is a warning of the run.
SLOW_TESTS = frozenset(
    {
        # bots started by the command line (CliRunner), or a probe arena caches (the
        # sandbox's protections, a Python's real path): code that SLOW_NAMES does not see
        "test_build.py::test_a_build_at_the_limits_registers_and_plays_a_tournament",
        "test_build.py::test_a_build_one_past_the_limit_is_a_failed_submission",
        "test_build_locks.py::test_the_seat_filter_still_refuses_locks",
        "test_cgroups.py::test_doctor_reports_each_controller",
        "test_cgroups.py::test_doctor_warns_without_a_cpu_controller",
        "test_check.py::test_a_bot_honest_only_in_a_processs_first_match_is_refused",
        "test_check.py::test_a_failed_build_shows_all_its_output",
        "test_check.py::test_a_passing_bot_exits_0_with_a_json_report",
        "test_check.py::test_a_protocol_error_shows_the_line_and_the_request",
        "test_check.py::test_issue_30_a_line_of_invalid_utf8_is_reported_as_the_bytes_it_was",
        "test_check.py::test_what_the_bot_printed_is_shown_escaped",
        "test_cli.py::test_bot_show_names_its_owner_and_description",
        "test_cli.py::test_bot_submit_is_content_addressed",
        "test_cli.py::test_play_json_and_replay_verify_and_show",
        "test_cli.py::test_play_prints_a_table_with_status",
        "test_cli.py::test_play_takes_registered_bots_by_name",
        "test_cli_escaping.py::test_play_and_replay_show",
        "test_cli_escaping.py::test_submit_failing_its_check_is_one_escaped_line_then_the_evidence",
        "test_confinement.py::test_doctor_reports_the_filter_and_sandboxed_builds",
        "test_games_in_sandbox.py::test_only_a_trusted_python_of_another_version_compiles_the_copy",
        "test_home.py::test_a_failed_submission_leaves_no_folder_and_no_rows",
        "test_home.py::test_a_home_is_private_to_its_account_whatever_the_umask",
        "test_home.py::test_a_stored_version_changed_after_its_check_is_never_run",
        "test_home.py::test_another_accounts_read_only_command_leaves_the_home_working",
        "test_home.py::test_verified_files_refuses_a_changed_source_or_build_output",
        "test_init_docs.py::test_an_initialised_bot_is_accepted_as_it_is",
        "test_match_cli.py::test_one_pair_is_played_recorded_and_compared",
        "test_runtimes.py::test_doctor_checks_every_runtime_inside_the_sandbox",
        "test_sandbox.py::test_doctor_reports_the_protections",
        "test_secrecy.py::test_a_replay_records_its_seeds_and_verifies_without_any_secret",
        "test_secrecy.py::test_the_attacker_learns_nothing_from_arena_play_seed_123456",
        "test_standings.py::test_a_summary_of_many_bots_shows_the_leaders_pairs_unless_asked_for_all",
        "test_start_errors.py::test_a_missing_compiler_fails_the_build_in_plain_words",
        "test_submission.py::test_a_bad_manifest_is_one_line",
        "test_submission.py::test_a_bot_that_behaves_only_in_smoke_matches_cannot_be_submitted",
        "test_submission.py::test_a_failed_check_leaves_nothing_in_the_home",
        "test_submission.py::test_a_name_is_never_a_folder",
        "test_submission.py::test_play_and_tournament_refuse_a_folder_with_a_link_out",
        "test_tournament.py::test_a_folder_in_a_tournament_is_checked_in_the_game_played_only",
        # CPU in-process (searches, playouts, many games, many databases): over 0.25 s
        # a test on average, as the unit tier's `--durations` shows
        "games/test_conformance.py::test_observations_and_legal_decisions_match_the_schemas",
        "games/test_conformance.py::test_random_playthroughs_keep_the_invariants",
        "games/test_krumme10.py::test_observations_and_decisions_of_variants_match_the_schemas",
        "games/test_leylo.py::test_heuristic_bot_clearly_beats_random",
        "games/test_leylo.py::test_observations_and_decisions_match_the_schemas",
        "games/test_leylo.py::test_shuffling_face_down_cards_and_the_pile_changes_no_observation",
        "games/test_leylo_search.py::test_playout_makes_the_plain_loops_choices_from_busy_positions",
        "games/test_search_support.py::test_determinize_is_consistent_and_covers_every_place",
        "games/test_search_support.py::test_search_support_in_variants",
        "games/test_take_that.py::test_all_79_cards_are_always_accounted_for",
        "games/test_take_that.py::test_observation_ignores_cards_the_seat_cannot_know",
        "games/test_twirkle.py::test_heuristic_bot_beats_random",
        "games/test_twirkle.py::test_issue_7_every_legal_list_is_short",
        "games/test_twirkle.py::test_other_hands_and_the_bag_never_show_in_an_observation",
        "games/test_twirkle.py::test_picks_and_places_reach_exactly_the_placements_of_w3",
        "games/test_twirkle.py::test_random_games_keep_108_cards_a_connected_valid_layout_and_short_lists",
        "games/test_twirkle_engine.py::test_near_the_edge_of_its_window_the_engine_hands_over_to_python",
        "games/test_twirkle_engine.py::test_playouts_from_the_deal_are_the_python_turns",
        "games/test_twirkle_engine.py::test_playouts_in_pieces_are_the_python_turns_and_play_on_alike",
        "games/test_twirkle_engine.py::test_playouts_of_clones_are_the_python_turns",
        "games/test_twirkle_engine.py::test_playouts_of_determinized_samples_are_the_python_turns",
        "games/test_twirkle_playout.py::test_shift_starts_and_puts_are_w6_by_brute_force",
        "games/test_twirkle_search.py::test_a_running_shift_is_rebuilt_where_several_target_lines_fit",
        "games/test_twirkle_search.py::test_a_shift_after_a_pass_or_an_exchange_ends_as_the_true_one",
        "games/test_twirkle_search.py::test_every_kind_of_step_is_rebuilt_for_every_seat",
        "games/test_twirkle_search.py::test_given_back_cards_are_in_every_samples_bag_until_the_next_draw",
        "games/test_twirkle_search.py::test_the_boards_kept_bookkeeping_is_a_full_recount_at_every_step",
        "test_arenaignore.py::test_what_arenaignore_names_is_not_part_of_the_bot",
        "test_cli.py::test_demo_plays_each_games_search_table_with_its_own_timeout_and_deals",
        "test_cli.py::test_issue_14_bot_show_says_why_a_bot_was_suspended",
        "test_cli.py::test_issue_14_leaderboard_counts_shared_firsts_apart_and_says_which_score_wins",
        "test_cli.py::test_issue_14_tournament_show_lists_void_matches_with_their_reason",
        "test_cli_escaping.py::test_bot_list",
        "test_headtohead.py::test_compare_newest_or_all_versions",
        "test_headtohead.py::test_compare_without_a_game_shows_every_game_they_met_in",
        "test_ismcts.py::test_take_that_model_decides_as_the_heuristic_bot",
        "test_ismcts.py::test_twirkle_shifts_are_legal",
        "test_ismcts.py::test_twirkle_windows_find_the_planners_best_placement",
        "test_ismcts.py::test_twirkle_windows_of_a_changed_board_are_those_built_afresh",
        "test_ismcts_krumme10_model.py::test_in_searches_the_model_decides_as_the_heuristic_bot",
        "test_ismcts_krumme10_model.py::test_the_model_decides_as_the_heuristic_bot",
        "test_ismcts_krumme10_speed.py::test_a_race_is_decided_exactly_when_decided_says",
        "test_ismcts_krumme10_speed.py::test_krumme10_searches_choose_and_draw_as_before",
        "test_ismcts_krumme10_speed.py::test_take_that_searches_choose_and_draw_as_before",
        "test_ismcts_krumme10_speed.py::test_the_determinizer_draws_what_determinize_drew",
        "test_ismcts_take_that.py::test_a_search_answers_a_legal_decision",
        "test_ismcts_take_that.py::test_the_anchor_from_an_observation_is_the_heuristic_bots_decision",
        "test_ismcts_take_that.py::test_the_fast_paths_rate_as_the_general_ones",
        "test_ismcts_take_that.py::test_the_hot_path_rates_float_for_float_as_seen",
        "test_ladder.py::test_a_new_version_starts_from_the_last_ones_mu_with_sigma_raised",
        "test_ladder.py::test_no_bot_waits_longer_than_max_gap_even_when_nobody_wants_to_play_it",
        "test_rating.py::test_a_long_chain_of_matches_rates_exactly_as_the_package",
        "test_rating.py::test_rate_gives_the_very_floats_of_the_trueskill_package",
        "test_retire_remove.py::test_a_bot_in_a_schedule_is_not_removed_until_that_tournament_is_deleted",
        "test_retire_remove.py::test_a_bot_that_played_is_never_removed_and_the_refusal_points_to_retire",
        "test_retire_remove.py::test_a_finished_or_unknown_tournament_is_not_cancelled",
        "test_retire_remove.py::test_delete_takes_a_never_played_tournament_and_refuses_one_with_results",
        "test_retire_remove.py::test_only_the_owner_retires_or_removes_a_bot_and_bad_input_is_one_line",
        "test_retire_remove.py::test_remove_deletes_only_the_folders_no_other_version_uses",
        "test_search_example.py::test_the_example_beats_random_play_in_most_seeded_games",
        "test_sprt.py::test_error_rates_are_near_alpha_and_beta",
        "test_standings.py::test_the_all_time_board_shows_pools_that_never_met",
        "test_standings.py::test_the_events_rating_starts_afresh_in_schedule_order",
        "test_standings.py::test_tournament_standings_rank_by_the_event_not_the_all_time_rating",
        "test_status_vocabulary.py::test_no_status_literal_outside_arena_status",
        "test_status_vocabulary.py::test_the_exempt_expressions_still_exist",
        "test_store.py::test_a_batch_stores_exactly_what_one_match_at_a_time_stores",
        "test_store.py::test_issue_12_leaderboard_counters_move_with_each_recorded_match",
        "test_store.py::test_issue_12_ratings_and_leaderboards_are_per_rules_version",
        "test_submission.py::test_the_real_limits_through_the_cli",
        "test_viewer.py::test_html_needs_a_replay_and_a_writable_output",
        "test_viewer.py::test_html_of_a_stored_match",
        "test_viewer.py::test_the_announcement_says_when_the_recorded_scores_are_not_the_referees",
        "test_viewer.py::test_the_shared_list_is_every_control_and_format_character",
    }
)

#: A unit test above this much CPU is named at the end of the run (a candidate for SLOW_TESTS).
UNIT_TEST_CPU_S = 1.0

TESTS = os.path.dirname(os.path.abspath(__file__))


def _in_tests(path: str | os.PathLike[str]) -> str:
    """`path` relative to tests/ (how SLOW_FIXTURES and SLOW_TESTS name files)."""
    return os.path.relpath(path, TESTS)


def _named(name: str) -> bool:
    return any(name == slow or name.startswith(slow + ".") for slow in SLOW_NAMES)


def _qualified(value: object) -> str:
    if isinstance(value, types.ModuleType):
        return value.__name__
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    return f"{module}.{name}" if isinstance(module, str) and isinstance(name, str) else ""


def _of_tests(value: object) -> bool:
    """True for a function or class written in tests/ (a helper whose code counts too)."""
    if isinstance(value, type):
        module = sys.modules.get(value.__module__)
        return (getattr(module, "__file__", None) or "").startswith(TESTS)
    code = getattr(value, "__code__", None)
    return isinstance(code, types.CodeType) and code.co_filename.startswith(TESTS)


#: What the code of each function analysed so far reaches (None: nothing slow; a function
#: being analysed counts as None for the functions it calls back).
_verdicts: dict[types.CodeType, str | None] = {}


def _slow_name(value: object) -> str | None:
    """The slow name `value`'s code reaches (through helpers of tests/), or None."""
    value = inspect.unwrap(value)  # type: ignore[arg-type]
    inner = getattr(getattr(value, "hypothesis", None), "inner_test", None)
    if inner is not None:
        value = inner
    if isinstance(value, type):
        return next(filter(None, map(_slow_name, vars(value).values())), None)
    code, names = getattr(value, "__code__", None), getattr(value, "__globals__", {})
    if not isinstance(code, types.CodeType):
        return None
    if code not in _verdicts:
        _verdicts[code] = None
        _verdicts[code] = _slow_code(code, names)
    return _verdicts[code]


def _slow_code(code: types.CodeType, names: dict[str, object]) -> str | None:
    """The slow name `code` reaches: a module it imports, a global it loads (or an attribute
    it loads of a module), or what the code of a tests/ helper it loads reaches; the names
    of nested functions too. (Read from the code's names: no bytecode walk, collection stays
    quick; an attribute is paired with every module the code names.)"""
    modules = [name for name in code.co_names if "." in name]  # of `import a.b` statements
    for name in code.co_names:
        value = names.get(name)
        if isinstance(value, types.ModuleType):
            modules.append(value.__name__)
        found = name if _named(name) else _qualified(value) if name in names else ""
        if found and _named(found):
            return found
        if _of_tests(value) and (found := _slow_name(value)):
            return found
    for module in modules:
        for name in code.co_names:
            if _named(f"{module}.{name}"):
                return f"{module}.{name}"
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType) and (found := _slow_code(constant, names)):
            return found
    return None


def _fixture_reason(item: pytest.Item) -> str | None:
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    for name in sorted(getattr(item, "fixturenames", ())):
        for definition in definitions.get(name, ()):
            if not _of_tests(definition.func):
                continue
            if f"{_in_tests(definition.func.__code__.co_filename)}::{name}" in SLOW_FIXTURES:
                return f"uses the fixture {name}"
            if found := _slow_name(definition.func):
                return f"uses the fixture {name}, which names {found}"
    return None


def _listed(item: pytest.Item) -> str:
    """`item` as SLOW_TESTS names it: file under tests/ :: function."""
    return f"{_in_tests(item.path)}::{getattr(item, 'originalname', item.name)}"


def slow_reason(item: pytest.Item) -> str | None:
    """Why `item` is slow (what it starts, reaches or computes), or None for a unit test."""
    if item.get_closest_marker("slow"):
        return "marked slow"
    if _listed(item) in SLOW_TESTS:
        return "listed in SLOW_TESTS"
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "postgresql" in callspec.params.values():
        return "runs on PostgreSQL"
    if found := _slow_name(getattr(item, "obj", None)):
        return f"names {found}"
    return _fixture_reason(item)


def _stale(items: list[pytest.Item]) -> list[str]:
    """Entries of SLOW_FIXTURES and SLOW_TESTS naming nothing in a file collected here."""
    modules = {_in_tests(item.path): getattr(item, "module", None) for item in items}
    modules["conftest.py"] = sys.modules[__name__]
    return sorted(
        entry
        for entry in SLOW_FIXTURES | SLOW_TESTS
        if (file := entry.split("::")[0]) in modules
        and not hasattr(modules[file], entry.split("::")[1])
    )


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        reason = slow_reason(item)
        if reason and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow(reason=reason))
    if stale := _stale(items):  # a test renamed or moved: it may have joined the unit tier
        message = f"tests/conftest.py names what is not there: {stale}"
        warnings.warn(pytest.PytestWarning(message), stacklevel=1)


# ----- the guard: a unit test that starts a process or reaches PostgreSQL fails ----------
#: The unit test running in this process (none while a slow test runs), and the fixtures
#: being set up for it.
_unit_test: list[pytest.Item] = []
_fixtures: list[str] = []
#: What each unit test started that a unit test may not (by node id).
_started: dict[str, list[str]] = {}
#: The CPU time of this process when each unit test began.
_cpu_at_start: dict[str, float] = {}
#: Unit tests over UNIT_TEST_CPU_S (node id, CPU seconds), as the reports tell.
_heavy: list[tuple[str, float]] = []


def _noting(what: str, start: Callable[..., Any]) -> Callable[..., Any]:
    def noted(*args: Any, **kwargs: Any) -> Any:
        if _unit_test:
            where = f" (setting up the fixture {_fixtures[-1]})" if _fixtures else ""
            _started.setdefault(_unit_test[0].nodeid, []).append(what + where)
        return start(*args, **kwargs)

    return noted


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile arena's modules once (the controller, before any worker): where the
    environment says PYTHONDONTWRITEBYTECODE (this kind of machine does), every
    `python -m arena` and every bot importing the referees would compile them anew,
    about 0.4 s a process. The caches are ignored by git and by bot folders' hashes."""
    if not hasattr(session.config, "workerinput"):
        import compileall

        compileall.compile_dir(
            os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "arena"),
            quiet=1,
        )


def pytest_configure(config: pytest.Config) -> None:
    """Note every process start and PostgreSQL connection (the guard reads the notes)."""
    import _posixsubprocess
    import subprocess

    subprocess._fork_exec = _noting("a subprocess", subprocess._fork_exec)  # type: ignore[attr-defined]
    _posixsubprocess.fork_exec = _noting("a process", _posixsubprocess.fork_exec)
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp"):
        setattr(os, name, _noting(f"a process (os.{name})", getattr(os, name)))
    try:
        import psycopg
    except ImportError:
        return
    psycopg.connect = _noting("a PostgreSQL connection", psycopg.connect)  # type: ignore[method-assign]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[object]:
    if not item.get_closest_marker("slow"):
        _unit_test.append(item)
        _cpu_at_start[item.nodeid] = time.process_time()
    try:
        return (yield)
    finally:
        _unit_test.clear()


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any]) -> Iterator[object]:
    _fixtures.append(fixturedef.argname)
    try:
        return (yield)
    finally:
        _fixtures.pop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Iterator[pytest.TestReport]:
    report: pytest.TestReport = yield
    if call.when != "teardown" or item.nodeid not in _cpu_at_start:
        return report
    cpu = time.process_time() - _cpu_at_start.pop(item.nodeid)
    report.user_properties.append(("cpu_s", round(cpu, 2)))  # to the controller of -n too
    started = _started.pop(item.nodeid, [])
    if started and report.passed:
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} is a unit test but started {'; '.join(sorted(set(started)))}. "
            "A test that starts processes or reaches PostgreSQL is slow: mark it "
            "@pytest.mark.slow (or list it or its fixture in tests/conftest.py)"
        )
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for key, value in report.user_properties:
        if key == "cpu_s" and isinstance(value, float) and value > UNIT_TEST_CPU_S:
            _heavy.append((report.nodeid, value))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _heavy:
        return
    terminalreporter.section(f"unit tests over {UNIT_TEST_CPU_S} s of CPU")
    for nodeid, cpu in sorted(_heavy, key=lambda heavy: -heavy[1]):
        terminalreporter.write_line(f"{cpu:6.2f} s  {nodeid}")
    terminalreporter.write_line("(the unit tier must stay under a minute: SLOW_TESTS)")
