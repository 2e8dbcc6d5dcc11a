-- Tutoring sessions (one session = one run = one LangGraph thread: id = run id) and the
-- learner's mastery per concept note, kept across sessions.
CREATE TABLE tutor_sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    subject TEXT NOT NULL DEFAULT '',
    topic TEXT NOT NULL DEFAULT '',
    subtopic TEXT NOT NULL DEFAULT '',
    concept_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'needs_another_approach')),
    mastery REAL NOT NULL DEFAULT 0,
    steps_completed INTEGER NOT NULL DEFAULT 0,
    steps_total INTEGER NOT NULL DEFAULT 0,
    turns INTEGER NOT NULL DEFAULT 0,
    summary_path TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX tutor_sessions_updated ON tutor_sessions(updated_at);

-- One row per (session, concept): the session's mastery of a concept note when last practiced.
-- A concept's current mastery is its most recently practiced row.
CREATE TABLE tutor_mastery (
    session_id TEXT NOT NULL,
    concept_id TEXT NOT NULL,
    title TEXT NOT NULL,
    mastery REAL NOT NULL,
    practiced_at TEXT NOT NULL,
    PRIMARY KEY (session_id, concept_id)
);
CREATE INDEX tutor_mastery_concept ON tutor_mastery(concept_id, practiced_at);
