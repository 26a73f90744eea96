#ifndef CPREFS_SQLITE_H
#define CPREFS_SQLITE_H

#include <sqlite3.h>

/// sqlite3_db_config is variadic, which Swift cannot call: this sets
/// SQLITE_DBCONFIG_ENABLE_TRIGGER (1 on, 0 off) and returns the SQLite result code.
/// Statements prepared afterwards follow the setting; prepared ones keep theirs.
int prefs_sqlite_enable_triggers(sqlite3 *db, int enabled);

/// Turns off double-quoted string literals (SQLITE_DBCONFIG_DQS_DDL and _DML), so a
/// misspelt "column" is an error instead of a string.
void prefs_sqlite_disable_dqs(sqlite3 *db);

#endif
