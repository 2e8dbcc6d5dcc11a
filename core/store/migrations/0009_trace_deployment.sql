-- The server of a pool that answered a model call (or failed last); '' without a pool.
ALTER TABLE traces ADD COLUMN deployment TEXT NOT NULL DEFAULT '';
