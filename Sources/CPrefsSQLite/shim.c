#include "CPrefsSQLite.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

int prefs_sqlite_enable_triggers(sqlite3 *db, int enabled) {
    int now = -1;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, enabled, &now);
}

void prefs_sqlite_disable_dqs(sqlite3 *db) {
#if SQLITE_VERSION_NUMBER >= 3029000
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (void *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (void *)0);
#endif
}

int prefs_sqlite_harden(sqlite3 *db) {
    int code = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (void *)0);
    if (code != SQLITE_OK) return code;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (void *)0);
}

void prefs_sqlite_configure_one_shot(void) {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}

/* The temporary file being written (empty: none), and the names of the files SQLite keeps
   beside it (-journal, -wal, -shm), ready for the signal handler: it may only call
   async-signal-safe functions. */
static const char *const cleanup_suffixes[] = {"-journal", "-wal", "-shm"};
#define CLEANUP_SUFFIXES (sizeof(cleanup_suffixes) / sizeof(cleanup_suffixes[0]))
static char cleanup_path[4096];
static char cleanup_beside[CLEANUP_SUFFIXES][4096 + 16];
static volatile sig_atomic_t cleanup_armed = 0;

int prefs_cleanup_register(const char *path) {
    cleanup_armed = 0;
    if (path == NULL) return 1;
    size_t length = strlen(path);
    if (length + sizeof("-journal") > sizeof(cleanup_path)) return 0;
    memcpy(cleanup_path, path, length + 1);
    for (unsigned i = 0; i < CLEANUP_SUFFIXES; i++) {
        memcpy(cleanup_beside[i], path, length);
        memcpy(cleanup_beside[i] + length, cleanup_suffixes[i], strlen(cleanup_suffixes[i]) + 1);
    }
    cleanup_armed = 1;
    return 1;
}

static void prefs_cleanup_handler(int number) {
    if (cleanup_armed) {
        cleanup_armed = 0;
        for (unsigned i = 0; i < CLEANUP_SUFFIXES; i++) unlink(cleanup_beside[i]);
        unlink(cleanup_path);
    }
    signal(number, SIG_DFL);
    raise(number);
}

void prefs_cleanup_install(void) {
    int numbers[] = {SIGINT, SIGTERM, SIGHUP};
    /* A parent may have started this process with them blocked (the mask is inherited). */
    sigset_t unblock;
    sigemptyset(&unblock);
    for (unsigned i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) sigaddset(&unblock, numbers[i]);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    for (unsigned i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
        struct sigaction action;
        memset(&action, 0, sizeof(action));
        action.sa_handler = prefs_cleanup_handler;
        sigemptyset(&action.sa_mask);
        for (unsigned j = 0; j < sizeof(numbers) / sizeof(numbers[0]); j++) sigaddset(&action.sa_mask, numbers[j]);
        sigaction(numbers[i], &action, NULL);
    }
}
