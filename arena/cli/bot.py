"""`arena bot submit|check|list|show|retire|reinstate|remove`: the bot registry."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from arena.cli.common import echo_json, home, open_store, out, print_rows
from arena.cli.errors import UserError, reports_errors
from arena.cli.safe import text

app = typer.Typer(rich_markup_mode=None, help="Submit and inspect bots.", no_args_is_help=True)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


@app.command()
@reports_errors
def submit(
    folder: Annotated[
        str,
        typer.Argument(
            help="The bot folder (with bot.toml), written as a path: ./mybot, ~/x, /srv/x.",
            show_default=False,
        ),
    ],
    name: Annotated[
        str | None,
        typer.Option(help="Register under this name (a-z, 0-9, -, _; at most 40)."),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Validate a bot folder, check it (as `arena bot check`, fewer matches), store a new version.

    A new name belongs to the OS user who submits it; only that user may add versions.
    """
    from arena.submissions import submit as registry

    store = open_store()
    version, created = registry.submit(store, home(), folder, name)
    bot = name or store.version_names()[version.id or 0][0]
    if as_json:
        echo_json(
            {"bot": bot, "version": version.number, "sha256": version.sha256, "created": created}
        )
    elif created:
        out.print(text(f"registered {bot} version {version.number} ({version.sha256[:12]})"))
    else:
        out.print(text(f"{bot} version {version.number} has the same code; nothing changed"))


@app.command()
@reports_errors
def check(
    folder: Annotated[
        str,
        typer.Argument(
            help="The bot folder (with bot.toml), written as a path: ./mybot, ~/x, /srv/x.",
            show_default=False,
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON (for CI).")
    ] = False,
    seed: Annotated[
        int | None,
        typer.Option(help="Seed of the seats and matches (with ARENA_SECRET: the same matches)."),
    ] = None,
    matches: Annotated[
        int,
        typer.Option(
            min=1,
            max=20,
            help="Deals per game and player count, each played in every seat rotation.",
        ),
    ] = 2,
) -> None:
    """Compliance check: build the bot and play every game it declares at every player count.

    It runs as a submission would (same sandbox, same build step) against bundled
    random bots and reports per game: pass/fail, the first forfeit (the exact line
    the bot printed and the message it answered), decision times against the
    deadline, start-up time, peak memory and the bot's stderr. Exit code 0 when every
    game passed, 1 when one failed, 2 for a folder that cannot be checked.
    """
    from arena.cli.checkview import run_check
    from arena.submissions.check import Plan

    raise typer.Exit(run_check(folder, Plan(deals=matches), seed, as_json))


@app.command("list")
@reports_errors
def list_bots(as_json: JsonFlag = False) -> None:
    """Every registered bot."""
    from arena.results import reports

    rows = reports.bots(open_store())
    echo_json(rows) if as_json else print_rows(rows, "bots")


@app.command()
@reports_errors
def show(name: Annotated[str, typer.Argument(help="Bot name.")], as_json: JsonFlag = False) -> None:
    """Versions, games played, ratings, suspensions (why) and recent forfeits of one bot.

    A suspension shows its tournament, since when, the rule, the forfeits in a row
    that caused it and their stderr; recent forfeits are of matches it played.
    """
    from arena.results import reports

    details = reports.bot_details(open_store(), name)
    if details is None:
        raise UserError(f"no bot called {name!r} (see `arena bot list`)")
    if as_json:
        echo_json(details)
        return
    print_details(name, details)


def print_details(name: str, details: dict[str, Any]) -> None:
    """A bot's page (`reports.bot_details`, or the service's, which may leave out the
    private parts: stderr tails and forfeit details) as `arena bot show` prints it."""
    out.print(text(f"{name}: owner {details['owner']}"), soft_wrap=True)
    if details["description"]:
        out.print(text(details["description"]))  # wrapped at spaces, as prose
    print_rows(details["versions"], f"{name}: versions")
    if details["retired"]:
        out.print(
            text(
                ("retired", "bold yellow"),
                f": plays in no new tournament (arena bot reinstate {name})",
            )
        )
    print_rows(details["ratings"], "ratings")
    for found in details["suspensions"]:
        out.print(
            text(
                ("suspended", "bold yellow"),
                f" from tournament {found['tournament']} ({found['game']}): version "
                f"{found['version']}, since match {found['since_match']} ({found['since']})",
            )
        )
        out.print(
            text(f"  after {found['rule']}; matches skipped since: {found['skipped_matches']}")
        )
        print_rows(_without_stderr(found["forfeits"]), "the forfeits that suspended it")
        _print_stderr(found["forfeits"])
    print_rows(_without_stderr(details["recent_forfeits"]), "recent forfeits")
    _print_stderr(details["recent_forfeits"][:3])
    if details["recent_forfeits"]:
        hint = f"arena replay html --match {details['recent_forfeits'][0]['match']} -o match.html"
        out.print(text((f"a match as a card table in a browser: {hint}", "dim")))


def _without_stderr(forfeits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in f.items() if k != "stderr_tail"} for f in forfeits]


def _print_stderr(forfeits: list[dict[str, Any]]) -> None:
    """Each forfeit's stderr tail as an escaped block; the same tail once for its matches."""
    tails: dict[str, list[str]] = {}
    for forfeit in forfeits:
        tail = forfeit.get("stderr_tail", "").strip()  # the service's page may leave it out
        if tail:
            tails.setdefault(tail, []).append(str(forfeit["match"]))
    for tail, matches in tails.items():
        label = "match" if len(matches) == 1 else "matches"
        heading = text((f"stderr, {label} {', '.join(matches)}:", "dim"))
        out.print(heading, text(tail, block=True), sep="\n")


VersionOption = Annotated[
    int | None,
    typer.Option("--version", min=1, help="Only this version (default: the whole bot)."),
]


def _retire(name: str, version: int | None, retired: bool) -> bool:
    """`Store.retire` as the current user; a refusal as one line (exit 2)."""
    from arena.store import NotOwnerError, Refused
    from arena.submissions import names

    try:
        return open_store().retire(name, names.current_user(), version, retired)
    except (NotOwnerError, Refused) as error:
        raise UserError(str(error)) from None


@app.command()
@reports_errors
def retire(
    name: Annotated[str, typer.Argument(help="Bot name.")], version: VersionOption = None
) -> None:
    """Stop a bot (or one version) from playing; its history, ratings and replays stay.

    No new tournament or ladder takes it (`--all` leaves it out, naming it is refused);
    a tournament already scheduled plays on as written (cancel it to stop that). A
    retired version steps aside for the bot's newest version not retired. Leaderboards
    mark it; `--latest` boards leave it out. Only its owner may; undo with `reinstate`.
    """
    what = name if version is None else f"{name} version {version}"
    if _retire(name, version, True):
        undo = f"arena bot reinstate {name}{_flag(version)}"
        out.print(text(f"retired {what}: it plays in no new tournament (undo: {undo})"))
    else:
        out.print(text(f"{what} was retired already; nothing changed"))


@app.command()
@reports_errors
def reinstate(
    name: Annotated[str, typer.Argument(help="Bot name.")], version: VersionOption = None
) -> None:
    """Undo `arena bot retire`: the bot (or version) plays in new tournaments again."""
    what = name if version is None else f"{name} version {version}"
    if _retire(name, version, False):
        out.print(text(f"reinstated {what}"))
    else:
        out.print(text(f"{what} was not retired; nothing changed"))


def _flag(version: int | None) -> str:
    return "" if version is None else f" --version {version}"


@app.command()
@reports_errors
def remove(name: Annotated[str, typer.Argument(help="Bot name.")]) -> None:
    """Delete a bot that never played a recorded match, with every version.

    Refused when anything refers to it (a recorded match, a rating, a tournament's
    schedule): retire it instead. Its stored folders go, except one that another
    bot's version uses (the same code under two names is stored once). Only its owner
    may; the name is then free to register again.
    """
    from arena.store import NotOwnerError, Refused
    from arena.submissions import names
    from arena.submissions.removal import remove_bot

    try:
        removed = remove_bot(open_store(), home(), name, names.current_user())
    except (NotOwnerError, Refused) as error:
        raise UserError(str(error)) from None
    kept = f"; left {len(removed.left)} folder(s) outside this home" if removed.left else ""
    out.print(text(f"removed {name} and {len(removed.folders)} stored folder(s){kept}"))
