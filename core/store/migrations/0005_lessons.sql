-- Lessons: one row per lesson run (what it cost, what caught what) and a trace per phase.
CREATE TABLE lesson_runs (
    run_id TEXT PRIMARY KEY,
    mode TEXT NOT NULL,
    topic TEXT NOT NULL DEFAULT '',
    language TEXT NOT NULL DEFAULT '',
    lesson_path TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL,
    heuristic_action TEXT NOT NULL DEFAULT 'NONE',
    self_review_status TEXT NOT NULL DEFAULT '',
    caught_by TEXT NOT NULL DEFAULT '',
    judges_called INTEGER NOT NULL DEFAULT 0,
    judge_tokens INTEGER NOT NULL DEFAULT 0,
    full_judge_tokens INTEGER NOT NULL DEFAULT 0,
    total_tokens INTEGER NOT NULL DEFAULT 0,
    score REAL,
    updated_at TEXT NOT NULL
);
CREATE INDEX lesson_runs_path ON lesson_runs(lesson_path);

CREATE TABLE lesson_traces (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    phase TEXT NOT NULL,
    status TEXT NOT NULL,
    tokens INTEGER NOT NULL DEFAULT 0,
    duration_ms REAL NOT NULL DEFAULT 0,
    detail_json TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
);
CREATE INDEX lesson_traces_run ON lesson_traces(run_id, phase);
