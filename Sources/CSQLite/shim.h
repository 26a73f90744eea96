// The system SQLite (libsqlite3-dev): the shared library for debug builds, libsqlite3.a for
// the static `prefs` that scripts/install links.
#include <sqlite3.h>
