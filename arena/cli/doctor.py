"""`arena doctor`: which protections confine bots on this machine, and why (or why not)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import echo_json, print_rows


def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    executor: Annotated[
        str | None,
        typer.Option("--executor", help="Check every worker of dask://HOST:PORT instead."),
    ] = None,
) -> None:
    """Report which sandbox protections are active for bots here, and why."""
    from arena.sandbox.report import summary

    if executor is not None:  # the same checks plus a smoke match, on each Dask worker
        from arena.cli.errors import fail
        from arena.tournament.execution import ExecutorLost
        from arena.tournament.executors import check_workers

        try:
            rows = check_workers(executor)
        except (ExecutorLost, ValueError) as error:
            raise fail(str(error)) from None
        echo_json(rows) if as_json else print_rows(rows, title=f"workers of {executor}")
        if not all(row["ok"] for row in rows):
            typer.echo("warning: some checks failed on some workers", err=True)
        return
    from arena.sandbox.report import CPU_UNCOUNTED, runtime_rows
    from arena.sandbox.runtimes import runtimes_file

    found = summary()
    found["runtimes"] = runtime_rows()
    if as_json:
        echo_json(found)
        return
    rows = [
        {
            "protection": r["protection"],
            "active": "yes" if r["active"] else "NO",
            "detail": r["detail"],
        }
        for r in found["protections"]
    ]
    print_rows(rows, title="bot sandbox", drop=(), prose=frozenset({"protection"}))
    print_rows(
        found["residual_channels"],
        title="residual channels between sandboxes (measured: scripts/bench_kernel_channels.py)",
        drop=(),
        prose=frozenset({"channel", "measured", "why open"}),
    )
    where = runtimes_file()
    if found["runtimes"]:
        rows = [{**r, "ok": "yes" if r["ok"] else "NO"} for r in found["runtimes"]]
        print_rows(rows, title=f"runtimes ({where})", drop=(), prose=frozenset({"runtime"}))
    else:
        typer.echo(f"runtimes: none configured ({where}; see protocol/PROTOCOL.md)")
    if not found["sandboxed"]:
        typer.echo("warning: bots are not sandboxed here (install bubblewrap)", err=True)
    if not any(r["active"] for r in found["protections"] if r["protection"] == "cgroup cpu"):
        typer.echo(
            "warning: no CPU cgroup here: a bot with many busy processes can make the bots "
            "beside it time out (give arena a cgroup v1 cpu controller or a delegated v2 cpu)",
            err=True,
        )
    if not any(r["active"] for r in found["protections"] if r["protection"] == "cgroup cpuacct"):
        typer.echo(f"warning: no CPU accounting for bots here: {CPU_UNCOUNTED}", err=True)
