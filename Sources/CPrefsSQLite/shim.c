#include "CPrefsSQLite.h"

int prefs_sqlite_enable_triggers(sqlite3 *db, int enabled) {
    int now = -1;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, enabled, &now);
}
