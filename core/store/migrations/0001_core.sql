-- Runs of every workflow (thread_id = run id), the traces of every model call,
-- and warnings about the vault that the UI shows.
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    flow TEXT NOT NULL,
    target TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'awaiting_review', 'done', 'failed', 'cancelled')),
    input_json TEXT NOT NULL DEFAULT '{}',
    error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX runs_status ON runs(status, updated_at);
CREATE INDEX runs_flow_target ON runs(flow, target);

CREATE TABLE traces (
    id INTEGER PRIMARY KEY,
    run_id TEXT,
    flow TEXT NOT NULL DEFAULT '',
    node TEXT NOT NULL DEFAULT '',
    role TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT 'structured',
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    latency_ms REAL NOT NULL DEFAULT 0,
    outcome TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
CREATE INDEX traces_run ON traces(run_id);

CREATE TABLE vault_warnings (
    path TEXT PRIMARY KEY,
    message TEXT NOT NULL,
    created_at TEXT NOT NULL
);
