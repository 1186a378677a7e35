"""Accounts of the service: tokens printed once and stored as hashes, rotated, revoked,
expired; the owner strings by which accounts meet the OS users at the terminal."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from arena.cli import app
from arena.store import AccountError, Store
from arena.store.accounts import TOKEN_PREFIX, account_owner, token_hash
from arena.store.models import Account, now


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'arena.db'}")


def test_a_token_is_printed_once_and_only_its_hash_is_stored(store: Store) -> None:
    token = store.add_account("alice")
    assert token.startswith(TOKEN_PREFIX) and len(token) > 40
    with store.reader.connect() as db:
        stored = [tuple(row) for row in db.execute(text("SELECT * FROM account"))]
    assert token not in repr(stored)
    assert token_hash(token) in repr(stored)
    found = store.account_by_token(token)
    assert found is not None and found.name == "alice" and found.owner == "account:alice"
    assert not found.organiser and not found.revoked


def test_a_forged_rotated_revoked_or_expired_token_finds_nobody(store: Store) -> None:
    old = store.add_account("alice")
    assert store.account_by_token(old + "x") is None
    assert store.account_by_token("") is None
    new = store.rotate_token("alice")
    assert store.account_by_token(old) is None
    assert store.account_by_token(new) is not None
    assert store.revoke("alice") is True
    assert store.revoke("alice") is False
    assert store.account_by_token(new) is None
    assert store.account("alice") is not None and store.account("alice").revoked  # type: ignore[union-attr]
    again = store.rotate_token("alice", days=1)
    assert store.account_by_token(again) is not None
    with store.write() as s:  # a day later
        row = s.get(Account, store.account("alice").id)  # type: ignore[union-attr]
        assert row is not None
        row.token_expires_at = now() - timedelta(seconds=1)
    assert store.account_by_token(again) is None


def test_names_and_owners_are_refused_in_one_line(store: Store) -> None:
    store.add_account("alice")
    with pytest.raises(AccountError, match="there is an account called 'alice' already"):
        store.add_account("alice")
    with pytest.raises(AccountError, match="account name 'Bob<b>' is not allowed"):
        store.add_account("Bob<b>")
    with pytest.raises(AccountError, match="owns the bundled bots"):
        store.add_account("mallory", os_user="arena")
    with pytest.raises(AccountError, match="not an OS user name"):
        store.add_account("mallory", os_user="account:alice")
    store.add_account("bob", os_user="olga")
    with pytest.raises(AccountError, match="account 'bob' acts for 'olga' already"):
        store.add_account("carol", os_user="olga")
    with pytest.raises(AccountError, match="no account called 'nobody'"):
        store.rotate_token("nobody")


def test_an_account_acting_for_an_os_user_owns_that_users_bots(store: Store) -> None:
    store.add_bot_version("olgas", "a" * 64, "/x", ["x"], ["*"], owner="olga")
    store.add_account("olga-remote", os_user="olga")
    store.add_account("alice")
    assert store.account("olga-remote").owner == store.bot_owner("olgas")  # type: ignore[union-attr]
    assert store.account("alice").owner == account_owner("alice") != "olga"  # type: ignore[union-attr]


def test_arena_user_add_token_revoke_list(tmp_path: Path) -> None:
    runner = CliRunner()
    home = ["--home", str(tmp_path)]
    added = runner.invoke(app, [*home, "user", "add", "alice", "--organiser"])
    assert added.exit_code == 0, added.output
    token = added.stdout.strip()
    assert token.startswith(TOKEN_PREFIX) and "\n" not in token
    assert "shown only now" in added.stderr
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    found = store.account_by_token(token)
    assert found is not None and found.organiser
    rotated = runner.invoke(app, [*home, "user", "token", "alice"])
    assert rotated.exit_code == 0 and rotated.stdout.strip() != token
    assert store.account_by_token(token) is None
    listed = runner.invoke(app, [*home, "user", "list", "--json"])
    assert '"account":"alice"' in listed.stdout and token not in listed.stdout
    revoked = runner.invoke(app, [*home, "user", "revoke", "alice"])
    assert revoked.exit_code == 0 and "revoked" in revoked.stdout
    assert store.account_by_token(rotated.stdout.strip()) is None
    twice = runner.invoke(app, [*home, "user", "add", "alice"])
    assert twice.exit_code == 2
    assert twice.stderr.strip() == "error: there is an account called 'alice' already"
    missing = runner.invoke(app, [*home, "user", "revoke", "nobody"])
    assert missing.exit_code == 2 and "no account called 'nobody'" in missing.stderr
