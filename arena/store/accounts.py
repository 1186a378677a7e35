"""Accounts of the service: who reaches `arena serve`, by a token of which only a hash is kept.

An account is made on the server's machine (`arena user add NAME`), which prints its
token once; the database keeps the token's sha256 alone, so a copy of the database
lets nobody in. `arena user token NAME` replaces the token (the old one stops at
once), `arena user revoke NAME` leaves the account without one. A token is 32 random
bytes (`secrets`), so one unsalted sha256 is enough: nothing to guess, nothing to
crack by a dictionary, and a lookup by hash finds it in one indexed read.

How accounts meet the OS users who own bots at the terminal: a bot's owner is a
string (`Bot.owner`). An account's bots are recorded under `account:NAME`, a string
no OS user name can be (`:` separates the fields of /etc/passwd), so by default an
account and the local users never own each other's bots. An account made with an
OS user's name (`arena user add NAME --os-user alice`) acts for that user instead:
it owns alice's bots, those she submitted at the terminal included, and what it
submits is hers at the terminal too. "arena", the bundled bots' owner, is nobody's.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from arena import ArenaError
from arena.store.database import Database
from arena.store.models import Account, now
from arena.submissions import names

#: How an account's own owner string begins (`Bot.owner`).
ACCOUNT_OWNER_PREFIX = "account:"
#: How every token begins, so that one pasted where it does not belong is recognised.
TOKEN_PREFIX = "arena_"


class AccountError(ArenaError, ValueError):
    """An account that cannot be made or changed as asked (a one-line reason)."""


@dataclass(frozen=True)
class AccountRecord:
    """An account as the layers above see it: never its token or the token's hash."""

    id: int
    name: str
    owner: str
    organiser: bool
    created_at: datetime
    revoked: bool
    token_expires_at: datetime | None


def token_hash(token: str) -> str:
    """The sha256 (hex) under which a token is stored.

    >>> token_hash("arena_x") == hashlib.sha256(b"arena_x").hexdigest()
    True
    """
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def new_token() -> str:
    """A fresh token: the prefix and 32 random bytes, URL-safe."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def account_owner(name: str) -> str:
    """The owner string of an account's own bots.

    >>> account_owner("alice")
    'account:alice'
    """
    return ACCOUNT_OWNER_PREFIX + name


def _record(account: Account) -> AccountRecord:
    return AccountRecord(
        id=account.id or 0,
        name=account.name,
        owner=account.owner,
        organiser=account.organiser,
        created_at=account.created_at,
        revoked=account.token_sha256 is None,
        token_expires_at=account.token_expires_at,
    )


def _expiry(days: float | None) -> datetime | None:
    return None if days is None else now() + timedelta(days=days)


def _aware(moment: datetime) -> datetime:
    """A stored moment in UTC (SQLite hands datetimes back without their zone)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Accounts(Database):
    """Accounts and their tokens (see the module)."""

    def add_account(
        self,
        name: str,
        organiser: bool = False,
        os_user: str | None = None,
        days: float | None = None,
    ) -> str:
        """Make the account `name`; returns its token (the only time it is seen).

        `os_user`: the account acts for that OS user (owns the bots that user owns);
        `days`: the token expires after that many days (None: never). AccountError for
        a bad or taken name, or an owner another account has, or the bundled bots' one.
        """
        problem = names.name_problem(name)
        if problem:
            raise AccountError(problem.replace("bot name", "account name", 1))
        owner = account_owner(name) if os_user is None else os_user
        if owner == names.BUNDLED_OWNER:
            raise AccountError(f"{owner!r} owns the bundled bots: no account may act for it")
        if os_user is not None and (not os_user or ":" in os_user or not os_user.isprintable()):
            raise AccountError(f"{os_user!r} is not an OS user name")
        token = new_token()
        try:
            with self.write() as s:
                taken = s.exec(
                    select(Account).where((Account.name == name) | (Account.owner == owner))
                ).first()
                if taken is not None and taken.name == name:
                    raise AccountError(f"there is an account called {name!r} already")
                if taken is not None:
                    raise AccountError(f"account {taken.name!r} acts for {owner!r} already")
                s.add(
                    Account(
                        name=name,
                        owner=owner,
                        organiser=organiser,
                        token_sha256=token_hash(token),
                        token_expires_at=_expiry(days),
                    )
                )
        except IntegrityError:  # made at the same moment by another command
            raise AccountError(f"there is an account called {name!r} already") from None
        return token

    def rotate_token(self, name: str, days: float | None = None) -> str:
        """A new token for `name` (the old one, if any, stops being accepted); AccountError
        for no such account."""
        token = new_token()
        with self.write() as s:
            account = _named(s, name)
            account.token_sha256 = token_hash(token)
            account.token_expires_at = _expiry(days)
            account.revoked_at = None
        return token

    def revoke(self, name: str) -> bool:
        """Take `name`'s token away; False when it had none. AccountError for no such account."""
        with self.write() as s:
            account = _named(s, name)
            if account.token_sha256 is None:
                return False
            account.token_sha256 = None
            account.revoked_at = now()
            return True

    def account(self, name: str) -> AccountRecord | None:
        """The account called `name`, if any."""
        with self.read() as s:
            found = s.exec(select(Account).where(Account.name == name)).first()
            return None if found is None else _record(found)

    def accounts(self) -> list[AccountRecord]:
        """Every account, by name."""
        with self.read() as s:
            return [_record(a) for a in s.exec(select(Account).order_by(col(Account.name)))]

    def account_by_token(self, token: str) -> AccountRecord | None:
        """The account whose current token is `token`; None for a token that is unknown,
        revoked, replaced or expired."""
        with self.read() as s:
            found = s.exec(select(Account).where(Account.token_sha256 == token_hash(token))).first()
            if found is None:
                return None
            if found.token_expires_at is not None and _aware(found.token_expires_at) <= now():
                return None
            return _record(found)


def _named(s: Session, name: str) -> Account:
    """The account row called `name`; AccountError when there is none."""
    found = s.exec(select(Account).where(Account.name == name)).first()
    if found is None:
        raise AccountError(f"no account called {name!r} (see `arena user list`)")
    return found
