#ifndef CPREFS_SQLITE_H
#define CPREFS_SQLITE_H

#include <sqlite3.h>

/// sqlite3_db_config is variadic, which Swift cannot call: this sets
/// SQLITE_DBCONFIG_ENABLE_TRIGGER (1 on, 0 off) and returns the SQLite result code.
/// Statements prepared afterwards follow the setting; prepared ones keep theirs. TEMP
/// triggers (the change log's, SQLite 3.35 and later) are not switched by it: they ask
/// prefs_logging(), which answers the setting when they run.
int prefs_sqlite_enable_triggers(sqlite3 *db, int enabled);

/// Whether SQLITE_DBCONFIG_ENABLE_TRIGGER is on (1) or off (0): what prefs_logging() answers.
int prefs_sqlite_triggers_enabled(sqlite3 *db);

/// Registers the SQL function prefs_logging() on the connection: 1 while
/// SQLITE_DBCONFIG_ENABLE_TRIGGER is on, 0 while it is off (what the change log's TEMP
/// triggers test in their WHEN clause). Returns the SQLite result code.
int prefs_sqlite_register_logging(sqlite3 *db);

/// Turns off double-quoted string literals (SQLITE_DBCONFIG_DQS_DDL and _DML), so a
/// misspelt "column" is an error instead of a string.
void prefs_sqlite_disable_dqs(sqlite3 *db);

/// Waits up to `milliseconds` for another connection's lock, as sqlite3_busy_timeout does, but
/// polls every 0.05 to 1.5 ms (sqlite3_busy_timeout sleeps 1, 2, 5, ... up to 100 ms between
/// tries): a lock let go is taken at once by one of the waiters, each as likely as the others,
/// so no writer sleeps through the moments the lock is free until its timeout ends. 0 or less:
/// no waiting (SQLITE_BUSY at once). Returns the SQLite result code.
int prefs_sqlite_busy_wait(sqlite3 *db, int milliseconds);

/// Treats the database file as data: SQLITE_DBCONFIG_DEFENSIVE on (no writable_schema, no
/// journal_mode=OFF, no writes to sqlite_dbpage) and SQLITE_DBCONFIG_TRUSTED_SCHEMA off
/// (triggers, views, CHECK and DEFAULT expressions of the file may call only innocuous
/// functions, never virtual tables with side effects). Returns the SQLite result code.
int prefs_sqlite_harden(sqlite3 *db);

/// For a program that runs one command and exits (the `prefs` executable), called before
/// SQLite is first used: no memory statistics (every allocation and free took a global
/// mutex to count bytes that nothing reads) and no up-front page-cache block per connection
/// (20 pages allocated and touched at the first read; pages come one at a time instead).
/// Process-wide (`sqlite3_config`), so the library never calls it; does nothing once SQLite
/// is initialized.
void prefs_sqlite_configure_one_shot(void);

/// Names the temporary file (and its -journal, -wal and -shm) that SIGINT, SIGTERM and SIGHUP remove
/// once prefs_cleanup_install() ran; NULL: none. The path is copied. Returns 0 when the
/// path is too long to remember.
int prefs_cleanup_register(const char *path);

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove the registered temporary
/// file, then end the process by the signal as its default action would.
void prefs_cleanup_install(void);

#endif
