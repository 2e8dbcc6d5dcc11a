-- The vault as Obsidian sees it: links resolved to the file Obsidian opens, the vault's other
-- files (attachments, notes noema does not read), quotes with their location and full-text
-- search over them, and extraction commits that can be abandoned with a reason.

-- The vault path a link resolves to (vault.resolve), NULL when it resolves to nothing.
ALTER TABLE links ADD COLUMN resolved_path TEXT;
CREATE INDEX links_resolved ON links(resolved_path);

-- Files of the vault that are not indexed notes: attachments (diagram.png, paper.pdf) and
-- notes noema does not read (templates, Obsidian's excluded files). Links to them resolve.
CREATE TABLE vault_files (
    path TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('attachment', 'ignored'))
);

-- Quotes gain where they sit in their source when the source says so (a podcast's
-- [hh:mm:ss]), and a stable integer key that their full-text index refers to.
CREATE TABLE quotes_new (
    n INTEGER PRIMARY KEY,
    source_path TEXT NOT NULL,
    id TEXT NOT NULL,
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    block_id TEXT,
    location TEXT,
    UNIQUE (source_path, id)
);
INSERT INTO quotes_new (source_path, id, position, text, block_id)
    SELECT source_path, id, position, text, block_id FROM quotes;
DROP TABLE quotes;
ALTER TABLE quotes_new RENAME TO quotes;

CREATE VIRTUAL TABLE quotes_fts USING fts5(
    text, content='quotes', content_rowid='n',
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO quotes_fts (rowid, text) SELECT n, text FROM quotes;
CREATE TRIGGER quotes_fts_insert AFTER INSERT ON quotes BEGIN
    INSERT INTO quotes_fts (rowid, text) VALUES (new.n, new.text);
END;
CREATE TRIGGER quotes_fts_delete AFTER DELETE ON quotes BEGIN
    INSERT INTO quotes_fts (quotes_fts, rowid, text) VALUES ('delete', old.n, old.text);
END;
CREATE TRIGGER quotes_fts_update AFTER UPDATE OF text ON quotes BEGIN
    INSERT INTO quotes_fts (quotes_fts, rowid, text) VALUES ('delete', old.n, old.text);
    INSERT INTO quotes_fts (rowid, text) VALUES (new.n, new.text);
END;

-- An extraction commit whose notes can never be written (a path that leads out of the vault)
-- is abandoned with the reason in `error`: repair stops retrying it.
CREATE TABLE extraction_commits_new (
    run_id TEXT PRIMARY KEY,
    source_path TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'abandoned')),
    plan_json TEXT NOT NULL,
    written_json TEXT NOT NULL DEFAULT '[]',
    error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
INSERT INTO extraction_commits_new SELECT * FROM extraction_commits;
DROP TABLE extraction_commits;
ALTER TABLE extraction_commits_new RENAME TO extraction_commits;
CREATE INDEX extraction_commits_status ON extraction_commits(status);
