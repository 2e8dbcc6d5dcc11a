"""The store: SQLite in the data directory, the shared tables optionally in PostgreSQL."""

from core.store.db import Store, StoreError, migrations
from core.store.open import open_store

__all__ = ["Store", "StoreError", "migrations", "open_store"]
