-- A prefs store as schema version 4 wrote it (frozen: never edit): custom domains share one table, kv__custom
-- (`legacy` here, with a live key, a key that expires in 2100 and its log records), and the change log's triggers are
-- in the store's schema (the last layout with them). Built by the tests with the sqlite3 library; journal_mode is set to WAL
-- by the test, as prefs did.
CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE domains (name TEXT PRIMARY KEY NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO meta (key, value) VALUES ('schema_version', '4'), ('store_id', '5d1c0d8e-6a59-4f0e-9c57-0c1e2b3a4d5f'), ('kind', 'store');
CREATE TABLE kv_default (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
CREATE TABLE kv_dynamic (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
CREATE TABLE kv_switch (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
CREATE TABLE kv_user (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID;
INSERT INTO domains (name, created_at) VALUES ('default', 1763683200000), ('dynamic', 1763683200000), ('switch', 1763683200000), ('user', 1763683200000), ('legacy', 1763683200000);
INSERT INTO kv_user VALUES ('theme', '"dark"', 1763683200000, 1763683200000, NULL);
PRAGMA application_id = 1886545523;

CREATE TABLE changelog (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, domain TEXT NOT NULL, key TEXT NOT NULL, op TEXT NOT NULL, old TEXT, new TEXT, actor TEXT NOT NULL);
CREATE TABLE write_context (id INTEGER PRIMARY KEY CHECK (id = 1), op TEXT NOT NULL, actor TEXT NOT NULL);
INSERT INTO write_context VALUES (1, 'set', 'unknown');
CREATE TABLE refresh_sources (domain TEXT PRIMARY KEY NOT NULL, source TEXT NOT NULL, headers TEXT NOT NULL DEFAULT '[]', etag TEXT, last_modified TEXT, last_success_at INTEGER, copy_at INTEGER, last_failure_at INTEGER, last_failure TEXT) WITHOUT ROWID;
CREATE TRIGGER "kv_default_log_insert" AFTER INSERT ON "kv_default" BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT new.updated_at, 'default', new.key, op, NULL, new.value, actor FROM write_context; END;
CREATE TRIGGER "kv_default_log_update" AFTER UPDATE ON "kv_default" BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT new.updated_at, 'default', new.key, op, old.value, new.value, actor FROM write_context; END;
CREATE TRIGGER "kv_default_log_delete" AFTER DELETE ON "kv_default" BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), 'default', old.key, op, old.value, NULL, actor FROM write_context; END;
CREATE INDEX "kv_default_expiry" ON "kv_default" (expires_at) WHERE expires_at IS NOT NULL;
CREATE TRIGGER "kv_dynamic_log_insert" AFTER INSERT ON "kv_dynamic" BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT new.updated_at, 'dynamic', new.key, op, NULL, new.value, actor FROM write_context; END;
CREATE TRIGGER "kv_dynamic_log_update" AFTER UPDATE ON "kv_dynamic" BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT new.updated_at, 'dynamic', new.key, op, old.value, new.value, actor FROM write_context; END;
CREATE TRIGGER "kv_dynamic_log_delete" AFTER DELETE ON "kv_dynamic" BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), 'dynamic', old.key, op, old.value, NULL, actor FROM write_context; END;
CREATE INDEX "kv_dynamic_expiry" ON "kv_dynamic" (expires_at) WHERE expires_at IS NOT NULL;
CREATE TRIGGER "kv_switch_log_insert" AFTER INSERT ON "kv_switch" BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT new.updated_at, 'switch', new.key, op, NULL, new.value, actor FROM write_context; END;
CREATE TRIGGER "kv_switch_log_update" AFTER UPDATE ON "kv_switch" BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT new.updated_at, 'switch', new.key, op, old.value, new.value, actor FROM write_context; END;
CREATE TRIGGER "kv_switch_log_delete" AFTER DELETE ON "kv_switch" BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), 'switch', old.key, op, old.value, NULL, actor FROM write_context; END;
CREATE INDEX "kv_switch_expiry" ON "kv_switch" (expires_at) WHERE expires_at IS NOT NULL;
CREATE TRIGGER "kv_user_log_insert" AFTER INSERT ON "kv_user" BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT new.updated_at, 'user', new.key, op, NULL, new.value, actor FROM write_context; END;
CREATE TRIGGER "kv_user_log_update" AFTER UPDATE ON "kv_user" BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT new.updated_at, 'user', new.key, op, old.value, new.value, actor FROM write_context; END;
CREATE TRIGGER "kv_user_log_delete" AFTER DELETE ON "kv_user" BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), 'user', old.key, op, old.value, NULL, actor FROM write_context; END;
CREATE INDEX "kv_user_expiry" ON "kv_user" (expires_at) WHERE expires_at IS NOT NULL;
INSERT INTO changelog (at, domain, key, op, old, new, actor) VALUES (1763683200000, 'user', 'theme', 'set', NULL, '"dark"', 'ada@host');
INSERT INTO changelog (at, domain, key, op, old, new, actor) VALUES (1763683200000, 'legacy', 'count', 'set', NULL, '41', 'ada@host');
INSERT INTO changelog (at, domain, key, op, old, new, actor) VALUES (1763683200001, 'legacy', 'later', 'set', NULL, '"soon"', 'ada@host');

CREATE TABLE sync_config (id INTEGER PRIMARY KEY CHECK (id = 1), url TEXT NOT NULL, domains TEXT, last_remote_seq INTEGER NOT NULL DEFAULT 0, last_success_at INTEGER, last_failure_at INTEGER, last_failure TEXT);
CREATE TABLE sync_clock (id INTEGER PRIMARY KEY CHECK (id = 1), hlc INTEGER NOT NULL);
INSERT INTO sync_clock VALUES (1, 0);
CREATE TABLE sync_pending (seq INTEGER PRIMARY KEY AUTOINCREMENT, op_id TEXT NOT NULL UNIQUE, domain TEXT NOT NULL, key TEXT NOT NULL, value TEXT, expires_at INTEGER, hlc INTEGER NOT NULL, node TEXT NOT NULL, actor TEXT NOT NULL);
CREATE TABLE sync_keys (domain TEXT NOT NULL, key TEXT NOT NULL, hlc INTEGER NOT NULL, node TEXT NOT NULL, PRIMARY KEY (domain, key)) WITHOUT ROWID;

CREATE TABLE kv__custom (domain TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER, PRIMARY KEY (domain, key)) WITHOUT ROWID;
CREATE INDEX kv__custom_expiry ON kv__custom (domain, expires_at) WHERE expires_at IS NOT NULL;
INSERT INTO kv__custom VALUES ('legacy', 'count', '41', 1763683200000, 1763683200000, NULL);
INSERT INTO kv__custom VALUES ('legacy', 'later', '"soon"', 1763683200001, 1763683200001, 4102444800000);
CREATE TRIGGER kv__custom_log_insert AFTER INSERT ON kv__custom BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT new.updated_at, new.domain, new.key, op, NULL, new.value, actor FROM write_context; END;
CREATE TRIGGER kv__custom_log_update AFTER UPDATE ON kv__custom BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT new.updated_at, new.domain, new.key, op, old.value, new.value, actor FROM write_context; END;
CREATE TRIGGER kv__custom_log_delete AFTER DELETE ON kv__custom BEGIN INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), old.domain, old.key, op, old.value, NULL, actor FROM write_context; END;
PRAGMA user_version = 4;
