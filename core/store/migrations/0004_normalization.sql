-- Concept normalization (spec 000): weak merges remembered forever, reviews of accepted
-- merges, the reviewer's canonical choices, and the journal of every apply (for undo/resume).

-- A merge judged weak (by the evaluator or rejected by the user); never proposed again.
-- key = the two concept ids sorted and joined by '|', so it is order-insensitive.
CREATE TABLE normalization_weak_merges (
    key TEXT PRIMARY KEY,
    a_id TEXT NOT NULL,
    b_id TEXT NOT NULL,
    a_name TEXT NOT NULL,
    b_name TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    explanation TEXT NOT NULL DEFAULT '',
    origin TEXT NOT NULL DEFAULT 'evaluator',
    run_id TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);

-- One review per finished normalization run (id = the run id).
CREATE TABLE normalization_reviews (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'applying', 'applied', 'interrupted', 'undone')),
    trend_json TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- Each accepted merge of a review; the reviewer accepts or rejects it.
CREATE TABLE normalization_review_items (
    review_id TEXT NOT NULL REFERENCES normalization_reviews(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    position INTEGER NOT NULL,
    a_id TEXT NOT NULL,
    b_id TEXT NOT NULL,
    a_name TEXT NOT NULL,
    b_name TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    origin TEXT NOT NULL DEFAULT 'model',
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
    PRIMARY KEY (review_id, key)
);

-- The reviewer's choice of canonical concept (and optional new title) within a review.
CREATE TABLE normalization_canonicals (
    review_id TEXT NOT NULL REFERENCES normalization_reviews(id) ON DELETE CASCADE,
    concept_id TEXT NOT NULL,
    new_title TEXT,
    PRIMARY KEY (review_id, concept_id)
);

-- One journal per apply: the full plan is written before the first vault write.
CREATE TABLE merge_journals (
    id INTEGER PRIMARY KEY,
    review_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('in_progress', 'applied', 'interrupted', 'undone')),
    error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX merge_journals_review ON merge_journals(review_id);

-- The steps of one journal: a file write (before bytes kept) or a move (archive, rename).
CREATE TABLE merge_journal_steps (
    journal_id INTEGER NOT NULL REFERENCES merge_journals(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('write', 'move')),
    path TEXT NOT NULL,
    new_path TEXT,
    before_hash TEXT NOT NULL,
    before_bytes BLOB,
    after_hash TEXT NOT NULL,
    after_text TEXT,
    done INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (journal_id, seq)
);
