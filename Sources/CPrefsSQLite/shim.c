#include "CPrefsSQLite.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int prefs_sqlite_enable_triggers(sqlite3 *db, int enabled) {
    int now = -1;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, enabled, &now);
}

int prefs_sqlite_triggers_enabled(sqlite3 *db) {
    int now = 1;
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, -1, &now);
    return now;
}

static void prefs_logging(sqlite3_context *context, int count, sqlite3_value **values) {
    (void)count;
    (void)values;
    sqlite3_result_int(context, prefs_sqlite_triggers_enabled(sqlite3_context_db_handle(context)));
}

int prefs_sqlite_register_logging(sqlite3 *db) {
    return sqlite3_create_function_v2(db, "prefs_logging", 0, SQLITE_UTF8 | SQLITE_INNOCUOUS, NULL, prefs_logging, NULL, NULL, NULL);
}

void prefs_sqlite_disable_dqs(sqlite3 *db) {
#if SQLITE_VERSION_NUMBER >= 3029000
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (void *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (void *)0);
#endif
}

/* When the current wait for a lock began, per thread: a wait runs on the thread of the
   statement that waits, and SQLite calls the handler with count 0 at its start. And the
   thread's jitter generator (xorshift), seeded from the clock and the process id so that
   processes started together do not wait in step. */
static __thread struct timespec busy_started;
static __thread uint64_t busy_jitter;

static uint64_t busy_next_jitter(void) {
    if (busy_jitter == 0) {
        busy_jitter = ((uint64_t)busy_started.tv_nsec << 20) ^ (uint64_t)busy_started.tv_sec ^ ((uint64_t)getpid() << 40);
        if (busy_jitter == 0) busy_jitter = 0x9E3779B97F4A7C15ull;
    }
    busy_jitter ^= busy_jitter << 13;
    busy_jitter ^= busy_jitter >> 7;
    busy_jitter ^= busy_jitter << 17;
    return busy_jitter;
}

static int64_t busy_elapsed_us(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)(now.tv_sec - busy_started.tv_sec) * 1000000 + (now.tv_nsec - busy_started.tv_nsec) / 1000;
}

static int prefs_busy_handler(void *context, int count) {
    int64_t limit_us = (int64_t)(intptr_t)context * 1000;
    if (count == 0) clock_gettime(CLOCK_MONOTONIC, &busy_started);
    int64_t elapsed = busy_elapsed_us();
    if (elapsed >= limit_us) return 0;
    /* 100 us, doubling to 1 ms, then 1 ms: a lock let go is taken within about a millisecond
       by one of the waiters, each equally likely, however long they have waited. Random
       jitter (0.5x to 1.5x) keeps the waiters from polling in step. */
    int64_t pause = count < 4 ? (100 << count) : 1000;
    pause = pause / 2 + (int64_t)(busy_next_jitter() % (uint64_t)(pause + 1));
    if (elapsed + pause > limit_us) pause = limit_us - elapsed;
    if (pause > 0) usleep((useconds_t)pause);
    return 1;
}

int prefs_sqlite_busy_wait(sqlite3 *db, int milliseconds) {
    if (milliseconds <= 0) return sqlite3_busy_handler(db, NULL, NULL);
    return sqlite3_busy_handler(db, prefs_busy_handler, (void *)(intptr_t)milliseconds);
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
