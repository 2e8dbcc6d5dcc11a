-- The vault index: a rebuildable mirror of the notes plus concept embeddings.
-- Written by vault/index.py; read by search and the flows.
CREATE TABLE notes (
    path TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    frontmatter_json TEXT NOT NULL DEFAULT '{}',
    indexed_at TEXT NOT NULL
);
CREATE INDEX notes_kind ON notes(kind);
CREATE INDEX notes_hash ON notes(hash);

-- Outgoing links as written; target_name is the lower-cased note name for backlinks.
CREATE TABLE links (
    source_path TEXT NOT NULL,
    target TEXT NOT NULL,
    target_name TEXT NOT NULL,
    subpath TEXT NOT NULL DEFAULT '',
    alias TEXT,
    kind TEXT NOT NULL,
    embed INTEGER NOT NULL DEFAULT 0,
    in_frontmatter INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX links_source ON links(source_path);
CREATE INDEX links_target ON links(target_name);

-- Concept notes. rowid (id) is shared with concepts_fts.
CREATE TABLE concepts (
    id INTEGER PRIMARY KEY,
    entity_id TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    aliases_json TEXT NOT NULL DEFAULT '[]',
    short_summary TEXT NOT NULL DEFAULT '',
    summary TEXT NOT NULL DEFAULT '',
    language TEXT,
    text_hash TEXT NOT NULL
);

-- Typed relations from the concept_relations frontmatter (UUIDs).
CREATE TABLE concept_relations (
    source_id TEXT NOT NULL,
    type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    PRIMARY KEY (source_id, type, target_id)
);
CREATE INDEX concept_relations_target ON concept_relations(target_id);

CREATE TABLE sources (
    path TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    author TEXT,
    category TEXT,
    processed_date TEXT
);
CREATE INDEX sources_unprocessed ON sources(processed_date);

CREATE TABLE quotes (
    source_path TEXT NOT NULL,
    id TEXT NOT NULL,
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    block_id TEXT,
    PRIMARY KEY (source_path, id)
);

-- Quote -> concept SUPPORTS edges, read from a concept note's [[Source#^block]] links.
CREATE TABLE quote_concepts (
    concept_id TEXT NOT NULL,
    source_name TEXT NOT NULL,
    quote_id TEXT NOT NULL,
    PRIMARY KEY (concept_id, source_name, quote_id)
);
CREATE INDEX quote_concepts_quote ON quote_concepts(source_name, quote_id);

CREATE VIRTUAL TABLE concepts_fts USING fts5(
    title, aliases, short_summary, summary,
    tokenize = 'unicode61 remove_diacritics 2'
);

-- One float32 vector per concept and model; text_hash says which text it embeds.
CREATE TABLE embeddings (
    entity_id TEXT NOT NULL,
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    text_hash TEXT NOT NULL,
    PRIMARY KEY (entity_id, model)
);
