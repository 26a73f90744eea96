-- A prefs store as schema version 1 wrote it (frozen: never edit). Built by the tests with
-- the sqlite3 library; journal_mode is set to WAL by the test, as prefs did.
CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE domains (name TEXT PRIMARY KEY NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO meta (key, value) VALUES ('schema_version', '1'), ('store_id', '5d1c0d8e-6a59-4f0e-9c57-0c1e2b3a4d5f'), ('kind', 'store');
CREATE TABLE kv_default (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
CREATE TABLE kv_dynamic (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
CREATE TABLE kv_switch (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
CREATE TABLE kv_user (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
CREATE TABLE kv_legacy (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
INSERT INTO domains (name, created_at) VALUES ('default', 1763683200000), ('dynamic', 1763683200000), ('switch', 1763683200000), ('user', 1763683200000), ('legacy', 1763683200000);
INSERT INTO kv_user VALUES ('theme', '"dark"', 1763683200000, 1763683200000, NULL);
INSERT INTO kv_legacy VALUES ('count', '41', 1763683200000, 1763683200000, NULL);
PRAGMA application_id = 1886545523;
PRAGMA user_version = 1;
