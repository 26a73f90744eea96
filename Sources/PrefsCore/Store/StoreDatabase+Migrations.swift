import FoundationEssentials
import Glibc

extension StoreDatabase {
    /// The migrations in order, each with the `user_version` it leaves; each sets it.
    /// Released migrations are never edited.
    var migrations: [(version: Int, migrate: @Sendable (Database) throws -> Void)] {
        let kind = self.kind
        let initialDomains = self.initialDomains
        let applicationID = self.applicationID
        let v1: @Sendable (Database) throws -> Void = { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
                    CREATE TABLE domains (name TEXT PRIMARY KEY NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
                    """)
            try db.execute(
                sql: "INSERT INTO meta (key, value) VALUES ('schema_version', ?), ('store_id', ?), ('kind', ?)",
                arguments: ["1", UUID().uuidString.lowercased(), kind == .main ? "store" : "memory"])
            for domain in initialDomains {
                // Frozen copy of the v1 table layout (DomainTable.create adds later parts).
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS \(DomainTable.tableName(domain.name)) (
                            key TEXT PRIMARY KEY NOT NULL,
                            value TEXT NOT NULL,
                            version INTEGER NOT NULL,
                            updated_at INTEGER NOT NULL,
                            expires_at INTEGER
                        ) WITHOUT ROWID
                        """)
                try db.execute(
                    sql: "INSERT OR IGNORE INTO domains (name, created_at) VALUES (?, ?)",
                    arguments: [domain.name, WallClock.nowMilliseconds()])
            }
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        let v2: @Sendable (Database) throws -> Void = { db in
            // The change log, filled by triggers on every domain table in the writing
            // transaction itself; `write_context` tells the triggers the op and the actor.
            try db.execute(
                sql: """
                    CREATE TABLE changelog (
                        seq INTEGER PRIMARY KEY,  -- rowid: retention keeps the newest, so it only grows
                        at INTEGER NOT NULL,
                        domain TEXT NOT NULL,
                        key TEXT NOT NULL,
                        op TEXT NOT NULL,
                        old TEXT,
                        new TEXT,
                        actor TEXT NOT NULL
                    );
                    CREATE TABLE write_context (id INTEGER PRIMARY KEY CHECK (id = 1), op TEXT NOT NULL, actor TEXT NOT NULL);
                    INSERT INTO write_context VALUES (1, 'set', 'unknown');
                    CREATE TABLE refresh_sources (
                        domain TEXT PRIMARY KEY NOT NULL,
                        source TEXT NOT NULL,
                        headers TEXT NOT NULL DEFAULT '[]',
                        etag TEXT,
                        last_modified TEXT,
                        last_success_at INTEGER,
                        copy_at INTEGER,
                        last_failure_at INTEGER,
                        last_failure TEXT
                    ) WITHOUT ROWID;
                    """)
            for name in try String.fetchAll(db, sql: "SELECT name FROM domains") {
                guard let domain = try? Domain(name) else { continue }
                try ChangeLog.createPersistentTriggers(db, domain)
            }
            try db.execute(sql: "UPDATE meta SET value = '2' WHERE key = 'schema_version'")
            try db.execute(sql: "PRAGMA user_version = 2")
        }
        let v3: @Sendable (Database) throws -> Void = { db in
            // Offline-first sync through PostgreSQL (PrefsSync): the remote, the clock, the
            // operations waiting to be pushed and, per key, the (hlc, node) of the write
            // that holds it (the last-writer-wins rule compares against it).
            if kind == .main {
                try db.execute(
                    sql: """
                        CREATE TABLE sync_config (
                            id INTEGER PRIMARY KEY CHECK (id = 1),
                            url TEXT NOT NULL,
                            domains TEXT,  -- comma-separated; NULL: every persistent domain except user
                            last_remote_seq INTEGER NOT NULL DEFAULT 0,
                            last_success_at INTEGER,
                            last_failure_at INTEGER,
                            last_failure TEXT
                        );
                        CREATE TABLE sync_clock (id INTEGER PRIMARY KEY CHECK (id = 1), hlc INTEGER NOT NULL);
                        INSERT INTO sync_clock VALUES (1, 0);
                        CREATE TABLE sync_pending (
                            seq INTEGER PRIMARY KEY AUTOINCREMENT,
                            op_id TEXT NOT NULL UNIQUE,
                            domain TEXT NOT NULL,
                            key TEXT NOT NULL,
                            value TEXT,  -- NULL: a tombstone
                            expires_at INTEGER,
                            hlc INTEGER NOT NULL,
                            node TEXT NOT NULL,
                            actor TEXT NOT NULL
                        );
                        CREATE TABLE sync_keys (
                            domain TEXT NOT NULL,
                            key TEXT NOT NULL,
                            hlc INTEGER NOT NULL,
                            node TEXT NOT NULL,
                            PRIMARY KEY (domain, key)
                        ) WITHOUT ROWID;
                        """)
            }
            try db.execute(sql: "UPDATE meta SET value = '3' WHERE key = 'schema_version'")
            try db.execute(sql: "PRAGMA user_version = 3")
        }
        let v4: @Sendable (Database) throws -> Void = { db in
            // Custom domains share one table keyed by (domain, key): their own tables, each
            // with an index and three triggers, made SQLite parse a schema that grew with
            // every domain on every open. The rows move as they are (values, versions, times,
            // expiry); the moves write no log record (the shared table's triggers come after).
            // One transaction, as every migration: a kill at any point leaves version 3.
            if kind == .main {
                try db.execute(
                    sql: """
                        CREATE TABLE kv__custom (
                            domain TEXT NOT NULL,
                            key TEXT NOT NULL,
                            value TEXT NOT NULL,
                            version INTEGER NOT NULL,
                            updated_at INTEGER NOT NULL,
                            expires_at INTEGER,
                            PRIMARY KEY (domain, key)
                        ) WITHOUT ROWID;
                        CREATE INDEX kv__custom_expiry ON kv__custom (domain, expires_at) WHERE expires_at IS NOT NULL;
                        """)
                for name in try String.fetchAll(db, sql: "SELECT name FROM domains ORDER BY name") {
                    guard let domain = try? Domain(name), DomainTable.isShared(domain), try db.tableExists("kv_" + name) else { continue }
                    let legacy = "kv_" + name
                    try db.execute(
                        sql: """
                            INSERT INTO kv__custom (domain, key, value, version, updated_at, expires_at)
                            SELECT ?, key, value, version, updated_at, expires_at FROM \(legacy.quotedDatabaseIdentifier);
                            DROP TRIGGER IF EXISTS \((legacy + "_log_insert").quotedDatabaseIdentifier);
                            DROP TRIGGER IF EXISTS \((legacy + "_log_update").quotedDatabaseIdentifier);
                            DROP TRIGGER IF EXISTS \((legacy + "_log_delete").quotedDatabaseIdentifier);
                            DROP INDEX IF EXISTS \((legacy + "_expiry").quotedDatabaseIdentifier);
                            DROP TABLE \(legacy.quotedDatabaseIdentifier);
                            """, arguments: [name])
                }
                let insert = "INSERT INTO changelog (at, domain, key, op, old, new, actor) SELECT"
                let deletedAt = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
                try db.execute(
                    sql: """
                        CREATE TRIGGER kv__custom_log_insert AFTER INSERT ON kv__custom BEGIN
                            \(insert) new.updated_at, new.domain, new.key, op, NULL, new.value, actor FROM write_context;
                        END;
                        CREATE TRIGGER kv__custom_log_update AFTER UPDATE ON kv__custom BEGIN
                            \(insert) new.updated_at, new.domain, new.key, op, old.value, new.value, actor FROM write_context;
                        END;
                        CREATE TRIGGER kv__custom_log_delete AFTER DELETE ON kv__custom BEGIN
                            \(insert) \(deletedAt), old.domain, old.key, op, old.value, NULL, actor FROM write_context;
                        END;
                        """)
            }
            try db.execute(sql: "UPDATE meta SET value = '4' WHERE key = 'schema_version'")
            try db.execute(sql: "PRAGMA user_version = 4")
        }
        let v5: @Sendable (Database) throws -> Void = { db in
            // The change log's triggers leave the store's schema, which SQLite parses at every
            // open (a `get` too): the writing connection makes them as TEMP triggers
            // (ChangeLog.installTriggers). Rows, versions and log records stay as they are.
            // One transaction, as every migration: a kill at any point leaves version 4.
            var tables = (Domain.builtInPersistent + [.memory]).map { "kv_" + $0.name }
            tables.append("kv__custom")
            var sql = ""
            for table in tables {
                for name in ChangeLog.persistentTriggerNames(table) { sql += "DROP TRIGGER IF EXISTS \(name.quotedDatabaseIdentifier);\n" }
            }
            // `write_context` is renamed: a prefs of schema 4 still running (a `serve` or a
            // `sync --watch` started before an upgrade) names its op there before every write,
            // and now fails loudly instead of writing keys its log and sync would never see.
            sql += "ALTER TABLE write_context RENAME TO log_context;\n"
            try db.execute(sql: sql)
            try db.execute(sql: "UPDATE meta SET value = '5' WHERE key = 'schema_version'")
            try db.execute(sql: "PRAGMA user_version = 5")
        }
        return [(1, v1), (2, v2), (3, v3), (4, v4), (5, v5)]
    }
}
