"""`arena remote login|submit|bots|show|leaderboard|matches|replay`: an author's side of
a competition served by `arena serve`, with the tables and `--json` of the local commands.

Exit codes (arena.service.client): 2 bad input, 3 the server cannot be reached, 4 the
token is refused (or no login), 5 the submission is refused, 1 the server failed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.common import echo_json, home, out, print_rows
from arena.cli.errors import UserError, err, reports_errors
from arena.cli.safe import text

if TYPE_CHECKING:  # imported where used: `arena --help` loads no HTTP client
    from arena.service.client import Remote

app = typer.Typer(
    rich_markup_mode=None,
    help="Take part in a competition served by `arena serve`: submit, follow your bots.",
    no_args_is_help=True,
)
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def _remote() -> Remote:
    from arena.service.client import Remote, load_login

    return Remote(load_login(home()))


@app.command()
@reports_errors
def login(
    url: Annotated[str, typer.Argument(help="The service, e.g. https://arena.example.org")],
) -> None:
    """Check a token with the service and keep it (ARENA_TOKEN, or asked for here).

    The token is written to the arena home, readable by you alone.
    """
    from arena import settings
    from arena.service.client import Login, Remote, save_login

    if not url.startswith(("http://", "https://")):
        raise UserError(f"the service's URL begins with http:// or https://, not {url!r}")
    token = settings.read(settings.TOKEN) or typer.prompt("token", hide_input=True, err=True)
    remote = Remote(Login(url, token.strip()))
    try:
        me = remote.me()
    finally:
        remote.close()
    save_login(home(), Login(url, token.strip()))
    role = "organiser" if me["organiser"] else "author"
    out.print(text(f"logged in to {url} as {me['account']} ({role})"))


@app.command()
@reports_errors
def submit(
    folder: Annotated[str, typer.Argument(help="The bot folder (with bot.toml).")],
    name: Annotated[str | None, typer.Option(help="Register under this name.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Send a bot folder to the service, which builds and checks it as `arena bot submit`
    does and stores version n+1; a line on stderr says how far it has got."""
    from arena.service.client import pack

    archive = pack(Path(folder).expanduser())
    remote = _remote()
    try:
        job = remote.submit(archive, name, lambda state: err.print(text(f"{state}...")))
    finally:
        remote.close()
    bot, version = job["bot"], job["version"]
    if as_json:
        shown = ("bot", "version", "sha256", "created")
        echo_json({key: job[key] for key in shown})
    elif job["created"]:
        out.print(text(f"registered {bot} version {version} ({job['sha256'][:12]})"))
    else:
        out.print(text(f"{bot} version {version} has the same code; nothing changed"))


def _get(path: str, **params: Any) -> Any:
    remote = _remote()
    try:
        return remote.get(path, **params)
    finally:
        remote.close()


@app.command()
@reports_errors
def bots(as_json: JsonFlag = False) -> None:
    """Every bot of the competition (as `arena bot list`)."""
    rows = _get("/api/bots")
    echo_json(rows) if as_json else print_rows(rows, "bots")


@app.command()
@reports_errors
def show(name: Annotated[str, typer.Argument(help="Bot name.")], as_json: JsonFlag = False) -> None:
    """A bot's page (as `arena bot show`): its stderr and forfeit details for its owner only."""
    from arena.cli.bot import print_details

    details = _get(f"/api/bots/{name}")
    echo_json(details) if as_json else print_details(name, details)


@app.command()
@reports_errors
def leaderboard(
    game: Annotated[str, typer.Argument(help="Game id.")],
    latest: Annotated[bool, typer.Option("--latest", help="One row per bot.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """A game's all-time board (as `arena leaderboard GAME`)."""
    from arena.cli.leaderboard import print_all_time
    from arena.games import load_game
    from arena.results import reports

    rows = _get(f"/api/leaderboard/{game}", latest=latest)
    if as_json:
        echo_json(rows)
        return
    rules = load_game(game).spec.version
    title = f"{game} (rules v{rules}) leaderboard ({reports.score_order(game)})"
    print_all_time(rows, title, None)


@app.command()
@reports_errors
def matches(
    name: Annotated[str, typer.Argument(help="Bot name.")],
    limit: Annotated[int, typer.Option(min=1, max=500, help="At most this many.")] = 20,
    as_json: JsonFlag = False,
) -> None:
    """A bot's most recent recorded matches, a row per seat it held."""
    rows = _get(f"/api/bots/{name}/matches", limit=limit)
    echo_json(rows) if as_json else print_rows(rows, f"{name}: recent matches")


@app.command()
@reports_errors
def replay(
    match: Annotated[int, typer.Argument(help="The match id (as `matches` lists it).")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the replay file here.")
    ] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Write it as an HTML page (arena replay html).")
    ] = None,
) -> None:
    """A stored match's replay: shown turn by turn, or written as a file or a page."""
    from arena import viewer
    from arena.cli.replay import check_output, print_replay, write
    from arena.match import replay as replays

    for path in (output, html):
        if path is not None:
            check_output(path)
    data = _get(f"/api/matches/{match}/replay")
    data = replays.parse(replays.dumps(data), f"match {match}")  # untrusted: checked
    if output is not None:
        write(output, replays.dumps(data))
        out.print(text(f"wrote {output} ({len(data['events'])} events of {data['game']})"))
    if html is not None:
        write(html, viewer.build(data).encode())
        out.print(text(f"wrote {html} ({len(data['events'])} events of {data['game']})"))
    if output is None and html is None:
        print_replay(data)
