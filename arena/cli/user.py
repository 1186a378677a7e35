"""`arena user add|token|revoke|list`: the accounts of `arena serve`, run on the server's machine.

A token is printed once, on stdout alone (so that `arena user add alice > token`
keeps it and nothing else); the database holds only its sha256
(arena.store.accounts, which also says how accounts meet the OS users who own bots
at the terminal).
"""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import echo_json, open_store, out, print_rows
from arena.cli.errors import err, reports_errors
from arena.cli.safe import text

app = typer.Typer(
    rich_markup_mode=None,
    help="Accounts of the service (arena serve): add, rotate or revoke a token.",
    no_args_is_help=True,
)

NameArgument = Annotated[str, typer.Argument(help="Account name (a-z, 0-9, -, _; at most 40).")]
DaysOption = Annotated[
    float | None,
    typer.Option(
        "--days", min=0.001, help="The token expires after this many days (default: never)."
    ),
]


def _token(token: str, what: str) -> None:
    """The token on stdout, what it is on stderr: a script keeps only the token."""
    err.print(text(what), soft_wrap=True)
    typer.echo(token)


@app.command()
@reports_errors
def add(
    name: NameArgument,
    organiser: Annotated[
        bool,
        typer.Option(
            "--organiser", help="May suspend and reinstate any version, sees every bot's output."
        ),
    ] = False,
    os_user: Annotated[
        str | None,
        typer.Option(
            "--os-user",
            help="Act for this OS user: own the bots that user submitted at the terminal.",
        ),
    ] = None,
    days: DaysOption = None,
) -> None:
    """Make an account and print its token, once (only a hash of it is stored)."""
    token = open_store().add_account(name, organiser, os_user, days)
    role = "organiser" if organiser else "author"
    _token(token, f"added {role} {name}; its token (shown only now):")


@app.command()
@reports_errors
def token(name: NameArgument, days: DaysOption = None) -> None:
    """Give an account a new token and print it, once; the old one stops at once."""
    new = open_store().rotate_token(name, days)
    _token(new, f"new token of {name} (shown only now; the old one is refused from now on):")


@app.command()
@reports_errors
def revoke(name: NameArgument) -> None:
    """Take an account's token away: every request with it is refused (undo: arena user token)."""
    if open_store().revoke(name):
        out.print(
            text(f"revoked the token of {name}; its bots stay (a new one: arena user token {name})")
        )
    else:
        out.print(text(f"{name} has no token; nothing changed"))


@app.command("list")
@reports_errors
def list_accounts(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Every account: its owner string, role, whether its token is revoked or expires."""
    rows = [
        {
            "account": a.name,
            "owner": a.owner,
            "role": "organiser" if a.organiser else "author",
            "token": "revoked"
            if a.revoked
            else (
                "never expires"
                if a.token_expires_at is None
                else f"expires {a.token_expires_at:%Y-%m-%d %H:%M}"
            ),
            "created": a.created_at.isoformat(timespec="seconds"),
        }
        for a in open_store().accounts()
    ]
    echo_json(rows) if as_json else print_rows(rows, "accounts")
