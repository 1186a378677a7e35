"""Alembic's environment for arena: migrations run on a connection arena hands over.

arena opens the connection and the transaction itself (`arena.store.migrations.upgrade`),
so that the check of the current revision, the upgrade and the stamp are one
transaction under one lock; this file only runs the scripts on it.
"""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import arena.store.models  # noqa: F401 - the tables, for `alembic revision --autogenerate`

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=SQLModel.metadata)
with context.begin_transaction():
    context.run_migrations()
