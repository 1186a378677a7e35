"""The match: `run_match` (arena.match.run.run), keyed seeds, lineups and replays.

A plain face: import from the modules (`from arena.match.run.run import run_match`), so that
the low modules here (seeds) stay importable without the match runner above them.
"""
