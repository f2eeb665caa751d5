"""The store's own tables: memories, their FTS5 index, tombstones, rejections,
receipts and cursors.

Timestamps are integer microseconds since the Unix epoch (UTC), so expiry
filters compare integers. The FTS index holds only `active` rows; triggers keep
it in step with every insert, update and delete, whoever writes the row.

The DDL scripts below are the `memory` migrations; `memory.migrations` names and
orders them (0001-0005). This module imports nothing of the package.
"""

from __future__ import annotations

APPLICATION_ID = 0x434D454D
"""`PRAGMA application_id` of a companion-memory database ("CMEM")."""

MIGRATIONS_TABLE = "schema_migrations"

CORE = """
CREATE TABLE memories (
    rowid INTEGER PRIMARY KEY,
    memory_id TEXT NOT NULL UNIQUE,
    revision INTEGER NOT NULL CHECK (revision >= 1),
    tier TEXT NOT NULL CHECK (tier IN ('temporary', 'long_term', 'device')),
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    norm TEXT NOT NULL,
    authority TEXT NOT NULL
        CHECK (authority IN ('direct_user_statement', 'agent_conclusion', 'inference')),
    sources TEXT NOT NULL,
    created_us INTEGER NOT NULL,
    updated_us INTEGER NOT NULL,
    expires_us INTEGER,
    reinforced INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('active', 'deleted', 'superseded')),
    status_reason TEXT,
    subject TEXT,
    superseded_by TEXT,
    auto INTEGER NOT NULL CHECK (auto IN (0, 1))
);
CREATE INDEX memories_norm ON memories (norm) WHERE status = 'active';
CREATE INDEX memories_expiry ON memories (expires_us) WHERE expires_us IS NOT NULL;
CREATE INDEX memories_tier_updated ON memories (tier, updated_us);

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    text,
    content = 'memories',
    content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories
WHEN new.status = 'active'
BEGIN
    INSERT INTO memories_fts (rowid, text) VALUES (new.rowid, new.text);
END;

CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories
WHEN old.status = 'active'
BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;

CREATE TRIGGER memories_fts_update AFTER UPDATE OF text, status ON memories
BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text)
        SELECT 'delete', old.rowid, old.text WHERE old.status = 'active';
    INSERT INTO memories_fts (rowid, text)
        SELECT new.rowid, new.text WHERE new.status = 'active';
END;

CREATE TABLE memory_tombstones (
    memory_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    removed_us INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE memory_rejections (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id TEXT NOT NULL,
    norm TEXT NOT NULL,
    text TEXT NOT NULL,
    reason TEXT NOT NULL,
    at_us INTEGER NOT NULL
);
CREATE INDEX memory_rejections_norm ON memory_rejections (norm);

CREATE TABLE memory_receipts (
    receipt TEXT PRIMARY KEY,
    memory_ids TEXT NOT NULL,
    applied_us INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE memory_promotions (
    receipt_id TEXT PRIMARY KEY,
    memory_id TEXT NOT NULL,
    from_revision INTEGER NOT NULL,
    promoted_us INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE memory_cursors (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL CHECK (value >= 0),
    updated_us INTEGER NOT NULL
) WITHOUT ROWID;
"""

VOCAB = """
CREATE VIRTUAL TABLE memories_vocab USING fts5vocab (memories_fts, 'row');
"""
"""Per-term document counts of the FTS index (no storage of its own); recall uses it to
find the selective terms of a query."""

SEARCH_TEXT = """
DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TRIGGER memories_fts_update;

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories
WHEN new.status = 'active'
BEGIN
    INSERT INTO memories_fts (rowid, text) VALUES (new.rowid, cm_search_text(new.text));
END;

CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories
WHEN old.status = 'active'
BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text)
        VALUES ('delete', old.rowid, cm_search_text(old.text));
END;

CREATE TRIGGER memories_fts_update AFTER UPDATE OF text, status ON memories
BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text)
        SELECT 'delete', old.rowid, cm_search_text(old.text) WHERE old.status = 'active';
    INSERT INTO memories_fts (rowid, text)
        SELECT new.rowid, cm_search_text(new.text) WHERE new.status = 'active';
END;

INSERT INTO memories_fts (memories_fts) VALUES ('delete-all');
INSERT INTO memories_fts (rowid, text)
    SELECT rowid, cm_search_text(text) FROM memories WHERE status = 'active';
"""
"""The index holds `memory.search_text.search_text(text)` (hyphenated words also joined:
"Wi-Fi" is found by `wifi`) instead of the raw text, rebuilt for the rows already there.
The content table still supplies `text` to readers of the FTS table; the index is only
ever maintained through these triggers (never FTS5 'rebuild', which would index the raw
text)."""

DETAIL_STEMS = """
ALTER TABLE memories ADD COLUMN detail TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN detail_until_us INTEGER;

DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TRIGGER memories_fts_update;
DROP TABLE memories_vocab;
DROP TABLE memories_fts;

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    text,
    content = 'memories',
    content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE memories_vocab USING fts5vocab (memories_fts, 'row');

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories
WHEN new.status = 'active'
BEGIN
    INSERT INTO memories_fts (rowid, text)
        VALUES (new.rowid, cm_search_doc(new.text, new.detail));
END;

CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories
WHEN old.status = 'active'
BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text)
        VALUES ('delete', old.rowid, cm_search_doc(old.text, old.detail));
END;

CREATE TRIGGER memories_fts_update AFTER UPDATE OF text, detail, status ON memories
BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text)
        SELECT 'delete', old.rowid, cm_search_doc(old.text, old.detail)
        WHERE old.status = 'active';
    INSERT INTO memories_fts (rowid, text)
        SELECT new.rowid, cm_search_doc(new.text, new.detail) WHERE new.status = 'active';
END;

INSERT INTO memories_fts (rowid, text)
    SELECT rowid, cm_search_doc(text, detail) FROM memories WHERE status = 'active';

CREATE INDEX memories_subject ON memories (subject) WHERE status = 'active';
CREATE INDEX memories_detail_until ON memories (detail_until_us)
    WHERE detail_until_us IS NOT NULL;
"""
"""Recall searches the sources' own words and stems: a memory gains `detail` (the words of
the notifications it came from, search-only, cleared at `detail_until_us` when the log no
longer holds them), and the index is rebuilt to hold `search_document(text, detail)`
(English and German stems, accents folded, glossary words; `memory.search_text`) for
every active row. Subjects are indexed: a notification's memory is found by its key."""

REJECTION_FINGERPRINTS = """
CREATE TABLE memory_rejections_keyed (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    gist TEXT NOT NULL,
    reason TEXT NOT NULL,
    at_us INTEGER NOT NULL
);
INSERT INTO memory_rejections_keyed (id, memory_id, fingerprint, gist, reason, at_us)
    SELECT id, memory_id, cm_rejection_fingerprint(norm), cm_rejection_gist(text),
           cm_redact(reason), at_us
    FROM memory_rejections ORDER BY id;

UPDATE memories
SET text = cm_rejection_gist(text), norm = cm_normalize_text(cm_rejection_gist(text)),
    detail = '', detail_until_us = NULL, status_reason = cm_redact(status_reason)
WHERE status != 'active' AND memory_id IN (SELECT memory_id FROM memory_rejections);

DROP TABLE memory_rejections;
ALTER TABLE memory_rejections_keyed RENAME TO memory_rejections;
CREATE INDEX memory_rejections_fingerprint ON memory_rejections (fingerprint);

INSERT INTO memories_fts (memories_fts) VALUES ('optimize');
"""
"""A rejection keeps no text (`memory.rejections`): the normalized text becomes a
fingerprint with its secrets redacted before hashing, the text a gist with secrets
redacted and code-like tokens masked, the reason is redacted. The forgotten memories'
own rows keep only the gist (no search-only detail), and the FTS index is merged so
that no segment still holds their words."""

FTS_TABLE = """
CREATE VIRTUAL TABLE memories_fts USING fts5 (
    text,
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE memories_vocab USING fts5vocab (memories_fts, 'row');
"""
"""The index with its own content (the documents as indexed) and its vocabulary view;
also what `memory.fts_index.repair` creates again."""

FTS_FILL = """
INSERT INTO memories_fts (rowid, text)
    SELECT rowid, cm_search_doc(text, detail) FROM memories WHERE status = 'active';
"""
"""Index every active memory (`cm_search_doc` is registered on every connection)."""

FTS_OWN_CONTENT = """
DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TRIGGER memories_fts_update;
DROP TABLE memories_vocab;
DROP TABLE memories_fts;
""" + FTS_TABLE + """
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories
WHEN new.status = 'active'
BEGIN
    INSERT INTO memories_fts (rowid, text)
        VALUES (new.rowid, cm_search_doc(new.text, new.detail));
END;

CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories
BEGIN
    DELETE FROM memories_fts WHERE rowid = old.rowid;
END;

CREATE TRIGGER memories_fts_update AFTER UPDATE OF text, detail, status ON memories
BEGIN
    DELETE FROM memories_fts WHERE rowid = old.rowid;
    INSERT INTO memories_fts (rowid, text)
        SELECT new.rowid, cm_search_doc(new.text, new.detail) WHERE new.status = 'active';
END;
""" + FTS_FILL
"""The index keeps its own copy of each document as indexed (`memory.fts_index`): a
delete removes a row by rowid and FTS5 tokenizes what it stored, instead of the
external-content 'delete' that needed the very tokens of the insert recomputed by
`cm_search_doc`. The new table is filled from the active memories, which also replaces
a structure record grown by repeated 'optimize' (the failure after ~2,000 rounds)."""

FTS_CJK_TOKENS = """
DROP TABLE memories_vocab;
DROP TABLE memories_fts;
""" + FTS_TABLE + FTS_FILL
"""Chinese, Japanese and Korean become searchable: `search_document` holds every run of
their characters as overlapping character bigrams instead of one token per run
(`memory.search_text`). The index keeps its own copy of each document since 0008, so
it is dropped and filled again from the active memories, as `memory.fts_index.repair`
does; the triggers of 0008 stay as they are (they name the table, not its storage)."""

FTS_FULL_REVERSE_GLOSSARY = """
DROP TABLE memories_vocab;
DROP TABLE memories_fts;
""" + FTS_TABLE + FTS_FILL
"""An English word of the glossary gives its German words in the index for every English
word, where before 27 words ("meeting", "time", "room", ...) were skipped: the skip list
made no difference on any corpus once recall had the embedding model, so it went
(`memory.search_text`). Filled again from the active memories, as 0010 does."""

ORIGIN_COLUMNS = """
ALTER TABLE memories ADD COLUMN occurred_us INTEGER;
ALTER TABLE memories ADD COLUMN app_id TEXT;
ALTER TABLE memories ADD COLUMN sender TEXT;
UPDATE memories SET occurred_us = created_us;
CREATE INDEX memories_occurred ON memories (occurred_us);
"""
"""When a memory's content happened or arrived (`occurred_us`: the posting time of its
newest source notification for a notification's memory, else its creation time), and
for a notification's memory the app it came from and the message's sender as the phone
names it (NULL otherwise): what recall and listing filter on (`memory.filters`).
Existing memories take their creation time; their app and sender stay unknown (NULL)."""

NOTIFICATION_DECISIONS = """
CREATE TABLE notification_decisions (
    context_id INTEGER PRIMARY KEY,
    received_us INTEGER NOT NULL,
    decided_us INTEGER NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('kept', 'dropped')),
    reason TEXT,
    memory_ids TEXT NOT NULL
);
CREATE INDEX notification_decisions_received ON notification_decisions (received_us);
"""
"""The notification processor's decision trail (`memory.decisions`): per
notification, kept with its memories' ids or dropped with a reason code; no content."""
