-- Committed extractions and what they still have to write to the vault (spec 002, 3.1-3.3).
-- A row is written in the same transaction as the concepts it commits; it stays `pending`
-- until every note is written and the source is marked processed, so `noema repair` can
-- finish a commit a crash interrupted. Every step of the plan is idempotent.
CREATE TABLE extraction_commits (
    run_id TEXT PRIMARY KEY,
    source_path TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'done')),
    plan_json TEXT NOT NULL,
    written_json TEXT NOT NULL DEFAULT '[]',
    error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX extraction_commits_status ON extraction_commits(status);
