"""The SQLite store."""

from core.store.db import Store, StoreError, migrations

__all__ = ["Store", "StoreError", "migrations"]
