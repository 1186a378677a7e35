"""arena's database: the only package with SQL. `Store` is its face; the modules behind
it are its units of work, each opening one short session per call.

- database:    engines, sessions, the schema brought up to date on first use (its
               revisions in migrations/), SQLite and PostgreSQL URLs, errors in one line
- catalog:     bots, their versions and owners; retiring and removing them
- accounts:    the service's accounts and their tokens (only hashes are kept)
- browsing:    the service's pages: a match's seats, a bot's matches, lineups' owners
- tournaments: tournaments and their schedules, looked up, marked, cancelled, deleted
- recording:   the batched writes of finished matches, seats, ratings, replays and
               suspensions
- queries:     ratings, leaderboards, the seats behind tournament views and head-to-head,
               a bot's forfeits, suspensions, replays
- counting:    the leaderboard's counting rule, written once
- records:     what crosses the edge (Skill, MatchRecord, SeatRecord, SuspensionRecord,
               LeaderRow); models: the tables; text: bot text as stored

Imports go down: the face imports the units, the units import database, models,
records and counting (recording also reads through queries: a new version's prior,
the seats counted for a first rating row), and nothing here imports the layers
above (results, tournament, cli). The rating rule for a new version (arena.results.rating.inherited)
is handed in (`Store(url, inherit=...)`), not imported; the rating itself (`Skill`)
is a stored shape, defined here and rated in by arena.results.rating.
"""

from __future__ import annotations

from arena.store import migrations
from arena.store.accounts import AccountError, AccountRecord, Accounts
from arena.store.browsing import Browsing
from arena.store.catalog import Catalog, NotOwnerError, Refused, VersionConflict
from arena.store.counting import shared_first
from arena.store.database import (
    NEW_DATABASE,
    default_home,
    default_url,
    safe_url,
    schema_revision,
    sqlite_file,
)
from arena.store.queries import Queries
from arena.store.recording import UNSTORABLE, Recording, voided
from arena.store.records import (
    Inherit,
    LeaderRow,
    MatchRecord,
    Rater,
    SeatRecord,
    Skill,
    SuspensionRecord,
)
from arena.store.tournaments import TournamentCancelled, Tournaments

__all__ = [
    "NEW_DATABASE",
    "UNSTORABLE",
    "AccountError",
    "AccountRecord",
    "Inherit",
    "LeaderRow",
    "MatchRecord",
    "NotOwnerError",
    "Rater",
    "Refused",
    "SeatRecord",
    "Skill",
    "Store",
    "SuspensionRecord",
    "TournamentCancelled",
    "VersionConflict",
    "default_home",
    "default_url",
    "migrations",
    "safe_url",
    "schema_revision",
    "shared_first",
    "sqlite_file",
    "voided",
]


class Store(Catalog, Accounts, Browsing, Tournaments, Recording, Queries):
    """arena's database: bots, versions, tournaments, matches, seats, ratings, replays,
    suspensions, accounts. Open it with `Store(url)` (arena.store.database.Database: how it is
    opened, upgraded and guarded); its methods are those of its units of work."""
